/**
 * POST /api/conversations/:id/messages — send a message and get the model's reply, whole or
 * streamed (Server-Sent Events). The message is counted against the daily limits first (429
 * past a limit, nothing stored); a reply that fails before producing any text gives the
 * message back. A client that disconnects (the page's stop button) stops generation and the
 * text so far is kept with status `stopped`.
 */
import { Type } from 'typebox';
import { LanguageError } from '../../../engines/language/errors.ts';
import type { ChatMessage, Usage } from '../../../engines/language/types.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { chatError, ChatErrorSchema } from '../errors.ts';
import { releaseMessage, remaining, reserveMessage, type Remaining } from '../limits.ts';
import type { Message } from '../store.ts';
import { TAG, sessionSecurity, type ChatDeps } from './context.ts';
import { ConversationId, MessageSchema } from './schemas.ts';
import { UsageSchema } from './usage.ts';

/** Longest message accepted, in characters (about 8,000 tokens). */
export const MAX_MESSAGE_CHARS = 32_000;

interface Outcome {
  message: Message;
  failure: ApiError | null;
}

function failureOf(err: unknown): ApiError {
  if (err instanceof LanguageError) {
    // The engine's statuses: 400 for a prompt the model cannot take, 5xx for an upstream down.
    const status = err.status >= 500 || err.status === 429 ? (err.status === 504 ? 504 : 502) : 400;
    return chatError(status, status >= 500 ? 'server_error' : 'invalid_request_error', `The model could not answer: ${err.message}`);
  }
  return chatError(500, 'server_error', 'Internal server error');
}

export function registerMessages(app: ServiceApp, deps: ChatDeps): void {
  const { store, models, ctx } = deps;

  app.post(
    '/api/conversations/:id/messages',
    {
      // The session before the body: an unauthenticated caller learns nothing of the schema.
      preValidation: deps.sessions.required(),
      schema: {
        tags: [TAG],
        summary: "Send a message; the model's reply comes back whole or streamed",
        description: [
          'Counts against the daily limits before anything runs: 429 `rate_limit_error` naming the limit (`messages` or `pro_messages`) and `resetsAt` (midnight UTC) when one is reached.',
          'With `stream: true` the answer is `text/event-stream`: `event: start` (`{conversation, userMessage, reply, usage}`), `event: delta` (`{content}`) for each piece of text,',
          'then `event: done` (`{message, usage}`) or `event: error` (`{error: {message, type}, message}`). Closing the connection stops the reply; its text so far is kept with status `stopped`.',
        ].join(' '),
        security: sessionSecurity,
        params: ConversationId,
        body: Type.Object({
          content: Type.String({ minLength: 1, maxLength: MAX_MESSAGE_CHARS }),
          stream: Type.Boolean({ default: false }),
        }),
        response: {
          200: Type.Object({ userMessage: MessageSchema, message: MessageSchema, usage: UsageSchema }),
          '4xx': ChatErrorSchema,
          '5xx': ChatErrorSchema,
        },
      },
    },
    async (req, reply) => {
      const session = deps.sessions.of(req);
      const content = req.body.content;
      if (content.trim() === '') throw chatError(400, 'invalid_request_error', 'body.content must not be blank');
      const conversation = await store.get(session.accountId, req.params.id);
      const slot = models.slot(conversation.model);

      const reservation = await reserveMessage(ctx.db, deps.config, session.accountId, slot.pro, ctx.now());
      let turn: Awaited<ReturnType<typeof store.startTurn>>;
      try {
        turn = await startTurnRetrying(deps, conversation, content, slot.id);
      } catch (err) {
        await releaseMessage(ctx.db, reservation);
        throw err;
      }
      const history: ChatMessage[] = (await store.messages(conversation.id))
        .filter((m) => m.id !== turn.reply.id && m.content !== '' && m.status !== 'failed')
        .map((m) => ({ role: m.role, content: m.content }));

      // A closed connection (the stop button, a lost network) stops the model.
      const stop = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableEnded) stop.abort();
      });

      const generate = async (onDelta: (text: string) => void): Promise<Outcome> => {
        let text = '';
        let usage: Usage | undefined;
        let failure: ApiError | null = null;
        try {
          for await (const chunk of models.reply(slot, history, stop.signal)) {
            if (chunk.type === 'delta') {
              text += chunk.content;
              onDelta(chunk.content);
            } else usage = chunk.usage;
          }
        } catch (err) {
          if (!stop.signal.aborted) {
            failure = failureOf(err);
            if (failure.status >= 500) req.log.warn({ err }, 'chat reply failed');
          }
        }
        const status = failure ? 'failed' : stop.signal.aborted ? 'stopped' : 'complete';
        // Nothing was produced: the message does not count.
        if (failure && text === '') await releaseMessage(ctx.db, reservation);
        const message = await store.finishReply(turn.reply.id, {
          content: text,
          status,
          ...(failure ? { error: failure.message } : {}),
          ...(usage ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } : {}),
        });
        return { message, failure };
      };

      if (!req.body.stream) {
        const outcome = await generate(() => {});
        if (outcome.failure) throw outcome.failure;
        return { userMessage: turn.user, message: outcome.message, usage: await remaining(ctx.db, deps.config, session.accountId, ctx.now()) };
      }

      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      });
      const send = (event: string, data: unknown): void => {
        if (!raw.destroyed && !raw.writableEnded) raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      let left: Remaining = await remaining(ctx.db, deps.config, session.accountId, ctx.now());
      send('start', { conversation: await store.get(session.accountId, conversation.id), userMessage: turn.user, reply: turn.reply, usage: left });
      const outcome = await generate((text) => send('delta', { content: text }));
      if (outcome.failure) {
        left = await remaining(ctx.db, deps.config, session.accountId, ctx.now());
        send('error', { error: { message: outcome.failure.message, type: outcome.failure.code }, message: outcome.message, usage: left });
      } else send('done', { message: outcome.message, usage: left });
      if (!raw.writableEnded) raw.end();
    },
  );
}

/** Two sends to one conversation at once race for the next position: the loser tries again. */
async function startTurnRetrying(deps: ChatDeps, conversation: Parameters<ChatDeps['store']['startTurn']>[0], content: string, model: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.store.startTurn(conversation, content, model, deps.ctx.now());
    } catch (err) {
      if ((err as { code?: string }).code !== '23505' || attempt >= 4) throw err;
    }
  }
}
