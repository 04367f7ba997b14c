/**
 * Feedback of a tenant: submit (five types; `rating` carries an integer 1 to 5, `correction`
 * its text), list (newest first, `limit`/`offset`/`type`), and stats. `ready_for_training`
 * is true when the feedback gives at least the tenant's `min_feedback_count` training samples
 * (see training/dataset.ts for what counts). Each submission emits `feedback.received`.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { newId } from '../../../platform/identity/ids.ts';
import { pathTenant } from '../caller.ts';
import { commonErrors, qError } from '../errors.ts';
import { trainingPairs } from '../training/dataset.ts';
import { begin, beginForTenant, bearerSecurity, TAG, type QDeps } from './context.ts';
import { listOf, TenantIdParams } from './schemas.ts';

const TYPES = ['thumbs_up', 'thumbs_down', 'correction', 'rating', 'report'] as const;
const FeedbackType = Type.Union(TYPES.map((t) => Type.Literal(t)));

const Feedback = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  conversation_id: Type.Union([Type.String(), Type.Null()]),
  message_id: Type.Union([Type.String(), Type.Null()]),
  type: Type.String(),
  rating: Type.Union([Type.Integer(), Type.Null()]),
  correction: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
});

interface FeedbackRow {
  id: string;
  tenant_id: string;
  conversation_id: string | null;
  message_id: string | null;
  type: string;
  rating: number | null;
  correction: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
}

const view = (r: FeedbackRow) => ({ ...r, created_at: new Date(r.created_at).toISOString() });

export function registerFeedback(app: ServiceApp, deps: QDeps): void {
  const db = deps.ctx.db;

  app.post(
    '/v1/tenants/:tenant_id/feedback',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.feedback],
        summary: 'Submit feedback on a reply (message_id is the chat completion id)',
        security: bearerSecurity,
        params: TenantIdParams,
        body: Type.Object({
          conversation_id: Type.Optional(Type.String({ maxLength: 200 })),
          message_id: Type.Optional(Type.String({ maxLength: 200 })),
          type: FeedbackType,
          correction: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000 })),
          rating: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
          metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form; `prompt` and `response` make feedback on replies produced elsewhere trainable' })),
        }),
        response: { 201: Feedback, ...commonErrors },
      },
    },
    async (req, reply) => {
      const { caller, tenant: t } = await beginForTenant(deps, req, req.params.tenant_id);
      const b = req.body;
      if (b.type === 'correction' && !b.correction) throw qError('INVALID_REQUEST', 'a correction needs the corrected text in `correction`');
      if (b.type === 'rating' && b.rating === undefined) throw qError('INVALID_REQUEST', 'a rating needs `rating`, an integer from 1 to 5');
      if (b.type !== 'rating' && b.rating !== undefined) throw qError('INVALID_REQUEST', '`rating` belongs to feedback of type rating');
      const [row] = await db.query<FeedbackRow>(
        `INSERT INTO llm_feedback (id, tenant_id, conversation_id, message_id, type, rating, correction, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         RETURNING id, tenant_id, conversation_id, message_id, type, rating, correction, metadata, created_at`,
        [newId('fb'), t.id, b.conversation_id ?? null, b.message_id ?? null, b.type, b.rating ?? null, b.type === 'correction' ? b.correction : null, JSON.stringify(b.metadata ?? {})],
      );
      const out = view(row!);
      await deps.events.emit(caller.accountId, t.id, 'feedback.received', { feedback: out });
      reply.code(201);
      return out;
    },
  );

  app.get(
    '/v1/tenants/:tenant_id/feedback',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.feedback],
        summary: 'List a tenant’s feedback, newest first',
        security: bearerSecurity,
        params: TenantIdParams,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }), offset: Type.Integer({ minimum: 0, default: 0 }), type: Type.Optional(FeedbackType) }),
        response: { 200: listOf(Feedback), ...commonErrors },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      const t = await pathTenant(db, caller, req.params.tenant_id);
      const { limit, offset, type } = req.query;
      const params: unknown[] = [t.id];
      const where = type ? 'tenant_id = $1 AND type = $2' : 'tenant_id = $1';
      if (type) params.push(type);
      const [count] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM llm_feedback WHERE ${where}`, params);
      const rows = await db.query<FeedbackRow>(
        `SELECT id, tenant_id, conversation_id, message_id, type, rating, correction, metadata, created_at FROM llm_feedback WHERE ${where}
          ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, limit, offset],
      );
      return { data: rows.map(view), total: count?.n ?? 0, limit, offset };
    },
  );

  app.get(
    '/v1/tenants/:tenant_id/feedback/stats',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.feedback],
        summary: 'Feedback counts, average rating and whether there is enough to train',
        security: bearerSecurity,
        params: TenantIdParams,
        response: {
          200: Type.Object({
            total: Type.Integer(),
            thumbs_up: Type.Integer(),
            thumbs_down: Type.Integer(),
            corrections: Type.Integer(),
            ratings: Type.Integer(),
            reports: Type.Integer(),
            average_rating: Type.Union([Type.Number(), Type.Null()]),
            training_samples: Type.Integer({ description: 'Samples a LoRA job would train on now' }),
            min_feedback_count: Type.Integer(),
            ready_for_training: Type.Boolean(),
          }),
          ...commonErrors,
        },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      const t = await pathTenant(db, caller, req.params.tenant_id);
      const [s] = await db.query<Record<string, number | null>>(
        `SELECT count(*)::int AS total,
                count(*) FILTER (WHERE type = 'thumbs_up')::int AS thumbs_up,
                count(*) FILTER (WHERE type = 'thumbs_down')::int AS thumbs_down,
                count(*) FILTER (WHERE type = 'correction')::int AS corrections,
                count(*) FILTER (WHERE type = 'rating')::int AS ratings,
                count(*) FILTER (WHERE type = 'report')::int AS reports,
                avg(rating)::float8 AS average_rating
           FROM llm_feedback WHERE tenant_id = $1`,
        [t.id],
      );
      const samples = (await trainingPairs(db, t.id, t.settings.custom_system_prompt)).length;
      const min = t.settings.min_feedback_count;
      return { ...(s as Record<string, number>), average_rating: s?.average_rating ?? null, training_samples: samples, min_feedback_count: min, ready_for_training: samples >= min };
    },
  );
}
