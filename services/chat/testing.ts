/** Test helpers: a chat service on a fresh database, console users, and signed-in calls. */
import { randomBytes } from 'node:crypto';
import { createAccount } from '../../platform/identity/accounts.ts';
import { createConsoleUser } from '../../platform/identity/console-users.ts';
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { parseConfig, type LanguageConfig } from '../../engines/language/config.ts';
import { CATALOG } from './catalog.ts';
import type { ChatConfig } from './config.ts';
import { createChatService } from './service.ts';

export interface ChatUser {
  email: string;
  password: string;
  accountId: string;
  userId: string;
  /** `lattice_chat=<token>` after signIn(). */
  cookie: string;
}

export interface ChatTest extends TestService {
  /** Creates an account with a console user and signs it in. */
  newUser(): Promise<ChatUser>;
  /** A JSON call with the user's session cookie. */
  as(user: ChatUser, path: string, init?: { method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): ReturnType<typeof call>;
}

/**
 * Small replies by default so that tests run the built-in model quickly; with `upstream`, every
 * slot is served by that OpenAI-compatible server instead.
 */
export async function startChat(config: Partial<ChatConfig> = {}, upstream?: Upstream): Promise<ChatTest> {
  const viaUpstream = upstream ? upstreamConfig(upstream) : null;
  const service = await startTestService(
    createChatService({
      config: { maxOutputTokens: 12, ...(viaUpstream ? { slotModels: viaUpstream.slotModels } : {}), ...config },
      ...(viaUpstream ? { languageConfig: viaUpstream.languageConfig } : {}),
    }),
  );
  return {
    ...service,
    async newUser() {
      const email = `chat-${randomBytes(5).toString('hex')}@example.test`;
      const password = `pw-${randomBytes(8).toString('hex')}`;
      const account = await createAccount(service.db, { email, name: 'Chat tester' });
      const { user_id } = await createConsoleUser(service.db, { accountId: account.id, email, password });
      const res = await call(`${service.url}/api/auth/login`, { body: { email, password } });
      if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
      const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
      return { email, password, accountId: account.id, userId: user_id, cookie };
    },
    as(user, path, init = {}) {
      return call(`${service.url}${path}`, { ...init, headers: { cookie: user.cookie, ...init.headers } });
    },
  };
}

/** Reads a whole text/event-stream body into its events. */
export function parseEvents(text: string): { event: string; data: any }[] {
  return text
    .split('\n\n')
    .filter((f) => f.trim() !== '')
    .map((frame) => {
      let event = 'message';
      let data = '';
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      return { event, data: JSON.parse(data) };
    });
}

export interface Upstream {
  /** Base URL for the language engine (`.../v1`). */
  url: string;
  /** Bodies of the chat requests it received. */
  requests: { messages: { role: string; content: string }[]; stream: boolean; max_tokens?: number }[];
  /** Streams still open when the client went away. */
  aborted: number;
  /** Answer every call with this status instead (e.g. 503). */
  failWith: number | null;
  /** The reply, one streamed delta per word; tests may change it. */
  words: string[];
  /** Pause after each streamed word, in ms; tests may change it. */
  delayMs: number;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible model server on a real port, standing in for vLLM or Ollama: it answers
 * with `words`, streamed one word per `delayMs`, and counts clients that leave mid-stream.
 */
export async function startUpstream(options: { words?: string[]; delayMs?: number } = {}): Promise<Upstream> {
  const { createServer } = await import('node:http');
  const state: Upstream = {
    url: '',
    requests: [],
    aborted: 0,
    failWith: null,
    words: options.words ?? ['Lift ', 'comes ', 'from ', 'pressure ', 'differences ', 'over ', 'the ', 'wing.'],
    delayMs: options.delayMs ?? 0,
    close: async () => {},
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      const body = JSON.parse(raw || '{}');
      state.requests.push(body);
      if (state.failWith) {
        res.writeHead(state.failWith, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'upstream is down', type: 'server_error' } }));
        return;
      }
      const { words, delayMs: delay } = state;
      const usage = { prompt_tokens: 7, completion_tokens: words.length, total_tokens: 7 + words.length };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ id: 'u1', object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: 'stop' }], usage }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let closed = false;
      res.on('close', () => {
        if (!res.writableEnded) {
          closed = true;
          state.aborted++;
        }
      });
      const frame = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
      for (const w of words) {
        if (closed) return;
        frame({ id: 'u1', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: { content: w }, finish_reason: null }] });
        if (delay) await new Promise((r) => setTimeout(r, delay));
      }
      if (closed) return;
      frame({ id: 'u1', object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      frame({ id: 'u1', object: 'chat.completion.chunk', model: body.model, choices: [], usage });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  state.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** Chat settings whose six slots all use `upstream` (through the language engine's openai provider). */
export function upstreamConfig(upstream: Upstream): { languageConfig: LanguageConfig; slotModels: Record<string, string> } {
  return {
    languageConfig: parseConfig({ models: [{ id: 'test-upstream', provider: 'openai', base_url: upstream.url, retries: 0, timeout_ms: 10_000 }] }),
    slotModels: Object.fromEntries(CATALOG.map((s) => [s.id, 'test-upstream'])),
  };
}
