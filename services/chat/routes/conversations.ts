/**
 * Conversations of the signed-in account: list, create, read (with messages), rename or
 * change model, delete. Another account's conversation answers 404 like a missing one.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { DEFAULT_SLOT_ID } from '../catalog.ts';
import { ChatErrorSchema } from '../errors.ts';
import { TAG, sessionSecurity, type ChatDeps } from './context.ts';
import { ConversationId, ConversationSchema, MessageSchema } from './schemas.ts';

const Title = Type.String({ minLength: 1, maxLength: 200 });
const ModelId = Type.String({ minLength: 1, maxLength: 100, description: 'Chat model id of the catalog (GET /api/models)' });

export function registerConversations(app: ServiceApp, deps: ChatDeps): void {
  const guard = deps.sessions.required();
  const { store } = deps;

  app.get(
    '/api/conversations',
    {
      preHandler: guard,
      schema: {
        tags: [TAG],
        summary: 'Conversations, most recently active first',
        security: sessionSecurity,
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
          before: Type.Optional(Type.String({ format: 'date-time', description: 'Only conversations last active before this time (paging)' })),
        }),
        response: { 200: Type.Object({ data: Type.Array(ConversationSchema) }), '4xx': ChatErrorSchema },
      },
    },
    async (req) => ({ data: await store.list(deps.sessions.of(req).accountId, req.query.limit, req.query.before) }),
  );

  app.post(
    '/api/conversations',
    {
      // The session before the body (an unauthenticated caller learns nothing of the schema);
      // then no body at all means every default.
      preValidation: [
        guard,
        async (req) => {
          if (req.body === undefined || req.body === null) req.body = {};
        },
      ],
      schema: {
        tags: [TAG],
        summary: 'Start a conversation',
        description: `The model defaults to ${DEFAULT_SLOT_ID}; the title to "New chat", then to the first message.`,
        security: sessionSecurity,
        body: Type.Object({ model: Type.Optional(ModelId), title: Type.Optional(Title) }, { additionalProperties: false }),
        response: { 201: ConversationSchema, '4xx': ChatErrorSchema },
      },
    },
    async (req, reply) => {
      const session = deps.sessions.of(req);
      const slot = deps.models.slot(req.body.model ?? DEFAULT_SLOT_ID);
      const created = await store.create(session, { model: slot.id, ...(req.body.title ? { title: req.body.title } : {}) }, deps.ctx.now());
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/api/conversations/:id',
    {
      preHandler: guard,
      schema: {
        tags: [TAG],
        summary: 'A conversation with its messages, oldest first',
        security: sessionSecurity,
        params: ConversationId,
        response: {
          200: Type.Object({ ...ConversationSchema.properties, messages: Type.Array(MessageSchema) }),
          '4xx': ChatErrorSchema,
        },
      },
    },
    async (req) => {
      const conversation = await store.get(deps.sessions.of(req).accountId, req.params.id);
      return { ...conversation, messages: await store.messages(conversation.id) };
    },
  );

  app.patch(
    '/api/conversations/:id',
    {
      // The session before the body, as on every route with one.
      preValidation: guard,
      schema: {
        tags: [TAG],
        summary: 'Rename a conversation or change its model',
        security: sessionSecurity,
        params: ConversationId,
        body: Type.Object({ model: Type.Optional(ModelId), title: Type.Optional(Title) }, { additionalProperties: false, minProperties: 1 }),
        response: { 200: ConversationSchema, '4xx': ChatErrorSchema },
      },
    },
    async (req) => {
      const { model, title } = req.body;
      const slot = model === undefined ? undefined : deps.models.slot(model);
      return store.update(deps.sessions.of(req).accountId, req.params.id, { ...(title ? { title } : {}), ...(slot ? { model: slot.id } : {}) }, deps.ctx.now());
    },
  );

  app.delete(
    '/api/conversations/:id',
    {
      preHandler: guard,
      schema: {
        tags: [TAG],
        summary: 'Delete a conversation and its messages',
        security: sessionSecurity,
        params: ConversationId,
        response: { 204: Type.Null(), '4xx': ChatErrorSchema },
      },
    },
    async (req, reply) => {
      await store.remove(deps.sessions.of(req).accountId, req.params.id);
      return reply.code(204).send(null);
    },
  );
}
