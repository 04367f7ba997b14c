/** POST /api/v1/chat/completions — whole or streamed, paid from the workspace's credits. */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { OPENAI_CHAT_PARAMETERS, OPENAI_UNKNOWN_FIELD, chatCompletionSchema } from '../../../platform/http/openai-chat.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { CLIENT_CLOSED_REQUEST, formatGatewayError, GatewayError } from '../errors.ts';
import { readChatCall } from '../request.ts';
import { TAG_API, bearerSecurity, identityOf, type GatewayDeps } from './context.ts';

/** OpenAI chat completions parameters beyond the six: accepted, never passed to the model. */
const OPENAI_DROPPED = [...OPENAI_CHAT_PARAMETERS, 'stop', 'seed'].sort();

const Body = Type.Object(
  {
    model: Type.Optional(Type.Unknown({ description: 'required: bare model id from GET /api/v1/models' })),
    messages: Type.Optional(Type.Unknown({ description: 'required: non-empty array of {role: system|user|assistant, content: text or [{type: "text", text}]}', examples: [[{ role: 'user', content: 'Hello' }]] })),
    stream: Type.Optional(Type.Unknown({ description: 'boolean, default false: answer as server-sent events' })),
    temperature: Type.Optional(Type.Unknown({ description: 'number 0 to 2; omitted: the model default' })),
    top_p: Type.Optional(Type.Unknown({ description: 'number 0 to 1; omitted: the model default' })),
    max_tokens: Type.Optional(Type.Unknown({ description: "positive integer; omitted: the model default (held at the model's output limit)" })),
    // The rest of OpenAI's documented request parameters: clients built for it send them.
    ...Object.fromEntries(OPENAI_DROPPED.map((name) => [name, Type.Optional(Type.Unknown({ description: 'OpenAI parameter: accepted and dropped' }))])),
  },
  {
    description:
      'Only these six fields reach the model. The other parameters of the OpenAI chat completions API are accepted and dropped without an error ' +
      '(spec rule 5); any other field is refused with 400 "Unrecognized request argument supplied: <field>", as OpenAI refuses it.',
    additionalProperties: false,
    ...OPENAI_UNKNOWN_FIELD,
  },
);

const Completion = chatCompletionSchema();

/**
 * A client that closed its connection before the answer is an ordinary event, not a failure:
 * one info line (no response line follows, as nothing was sent), with the status proxies use.
 */
function logClientGone(req: FastifyRequest, serviceRequestId: string): void {
  req.log.info({ route: req.routeOptions.url, status: CLIENT_CLOSED_REQUEST, outcome: 'client_gone', service_request_id: serviceRequestId }, 'client closed the connection');
}

export function registerChatCompletions(app: ServiceApp, deps: GatewayDeps): void {
  app.post(
    '/api/v1/chat/completions',
    {
      onRequest: deps.apiKey('chat:write'),
      schema: {
        tags: [TAG_API],
        summary: 'Chat completion, whole or streamed',
        description:
          'Holds the worst case (prompt plus max_tokens or the model output limit, at the model prices) against the balance and the key spendLimit, ' +
          'runs the model, then charges the actual usage. With stream true: text/event-stream of chat.completion.chunk frames ending with data: [DONE].',
        security: bearerSecurity,
        body: Body,
        response: { 200: Completion, '4xx': GatewayError, '5xx': GatewayError },
      },
    },
    async (req, reply) => {
      const identity = identityOf(req);
      const call = readChatCall(req.body);
      const gateway = deps.gateway;
      const admitted = await gateway.admit(identity, call);
      if (call.stream) {
        reply.hijack();
        try {
          const outcome = await gateway.stream(identity, req.rawApiKey!, call, admitted, reply.raw, { 'x-request-id': req.id });
          if (outcome === 'client_gone') logClientGone(req, admitted.requestId);
        } catch (err) {
          // Failed before the first byte: answer like any other error (hijacked, so by hand).
          const e = err as { status?: number; code?: string; message: string; headers?: Record<string, string> };
          const status = e.status ?? 502;
          const body = JSON.stringify(formatGatewayError({ status, code: e.code ?? 'server_error', message: e.message, extra: {} }, req.id));
          if (!reply.raw.headersSent) {
            reply.raw.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': req.id, ...(e.headers ?? {}) });
          }
          reply.raw.end(body);
        }
        return reply;
      }
      try {
        const body = await gateway.complete(identity, call, admitted, reply.raw);
        reply.header('x-service-request-id', admitted.requestId);
        return body;
      } catch (err) {
        if (err instanceof ApiError && err.status === CLIENT_CLOSED_REQUEST) logClientGone(req, admitted.requestId);
        throw err;
      }
    },
  );
}
