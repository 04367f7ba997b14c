/**
 * A local OpenAI-compatible server for tests and the benchmark: answers chat completions at
 * once (or slowly, or with an error) depending on the model name it is asked for, and keeps
 * every body it received so that tests can see what reached the model.
 *   <name>             answers "one two three ..." (`words` words), whole or streamed
 *   slow-<name>        streams one word every `delayMs`
 *   status-<code>      answers that status with {error: {message}} (429 with Retry-After: 0)
 *   flaky-503          answers 503 once, then like a normal model
 *   gated-<name>       waits until `openGate()` before answering
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface FakeUpstream {
  url: string;
  bodies: Record<string, unknown>[];
  attempts: Map<string, number>;
  /** Lets every waiting and future `gated-` call answer. */
  openGate(): void;
  close(): Promise<void>;
}

export async function startFakeUpstream(options: { words?: number; delayMs?: number; record?: boolean } = {}): Promise<FakeUpstream> {
  const words = options.words ?? 5;
  const delayMs = options.delayMs ?? 40;
  const record = options.record ?? true;
  const bodies: Record<string, unknown>[] = [];
  const attempts = new Map<string, number>();
  let openGate: () => void = () => {};
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  const text = Array.from({ length: words }, (_, i) => `w${i}`);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; stream?: boolean; max_tokens?: number; messages: { content: string }[] };
    if (record) bodies.push(body);
    const n = (attempts.get(body.model) ?? 0) + 1;
    attempts.set(body.model, n);
    if (body.model.startsWith('gated-')) await gate;
    const status = /^status-(\d{3})$/.exec(body.model);
    if (status || (body.model === 'flaky-503' && n === 1)) {
      const code = status ? Number(status[1]) : 503;
      res.writeHead(code, { 'content-type': 'application/json', ...(code === 429 ? { 'retry-after': '0' } : {}) });
      res.end(JSON.stringify({ error: { message: `upstream says ${code}`, type: 'upstream' } }));
      return;
    }
    const out = text.slice(0, Math.min(text.length, body.max_tokens ?? text.length));
    const promptTokens = body.messages.reduce((s, m) => s + String(m.content).split(/\s+/).filter(Boolean).length, 0) + 3;
    const usage = { prompt_tokens: promptTokens, completion_tokens: out.length, total_tokens: promptTokens + out.length };
    const finish = out.length < text.length ? 'length' : 'stop';
    if (!body.stream) {
      const payload = JSON.stringify({
        id: 'up-1',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: out.join(' ') }, finish_reason: finish }],
        usage,
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const slow = body.model.startsWith('slow-');
    const frame = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id: 'up-1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
    res.write(frame({ role: 'assistant', content: '' }, null));
    for (let i = 0; i < out.length; i++) {
      if (res.destroyed) return;
      if (slow) await new Promise((r) => setTimeout(r, delayMs));
      res.write(frame({ content: (i ? ' ' : '') + out[i] }, null));
    }
    res.write(frame({}, finish));
    res.write(`data: ${JSON.stringify({ id: 'up-1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    attempts,
    openGate: () => openGate(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
