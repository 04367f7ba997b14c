/**
 * Webhooks (platform/webhooks): register (`url`, `events`, `secret`), list, delete, and the
 * delivery log. An admin key's webhooks receive every event of the account; a tenant key's
 * only its tenant's (CONTRACT). Payload `{id, event, created_at, data}`, header
 * `X-Signature: sha256=<hex HMAC-SHA256 of the raw body with the secret>`, at-least-once
 * delivery with exponential backoff.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { deleteWebhook, listDeliveries, listWebhooks, registerWebhook, WebhookError, type Webhook, type WebhookOwner } from '../../../platform/webhooks/index.ts';
import type { Caller } from '../caller.ts';
import { commonErrors, qError } from '../errors.ts';
import { Q_EVENTS } from '../events.ts';
import { extend } from './schemas.ts';
import { begin, bearerSecurity, TAG, type QDeps } from './context.ts';

const WebhookSchema = Type.Object({ id: Type.String(), url: Type.String(), events: Type.Array(Type.String()), tenant_id: Type.Union([Type.String(), Type.Null()]), active: Type.Boolean(), created_at: Type.String() });

/** An admin key owns the account-wide webhooks; a tenant key its tenant's. */
function ownerOf(c: Caller): WebhookOwner {
  return { accountId: c.accountId, service: 'llm', scope: c.admin ? null : c.tenant!.id };
}

const view = (w: Webhook) => ({ id: w.id, url: w.url, events: w.events, tenant_id: w.scope, active: w.active, created_at: new Date(w.created_at).toISOString() });

export function registerWebhooks(app: ServiceApp, deps: QDeps): void {
  const db = deps.ctx.db;
  app.post(
    '/v1/webhooks',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.admin],
        summary: `Register a webhook for ${Q_EVENTS.join(', ')} (or * for all)`,
        security: bearerSecurity,
        body: Type.Object({
          url: Type.String({ minLength: 1, maxLength: 2000 }),
          events: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 10 }),
          secret: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'HMAC key; generated and returned once when omitted' })),
        }),
        response: { 201: extend(WebhookSchema, Type.Object({ secret: Type.String() })), ...commonErrors },
      },
    },
    async (req, reply) => {
      const caller = await begin(deps, req);
      const owner = ownerOf(caller);
      try {
        const w = await registerWebhook(db, { ...owner, url: req.body.url, events: req.body.events, ...(req.body.secret !== undefined ? { secret: req.body.secret } : {}), allowedEvents: [...Q_EVENTS, '*'] });
        reply.code(201);
        return { ...view(w), secret: w.secret };
      } catch (err) {
        if (err instanceof WebhookError) throw qError('INVALID_REQUEST', err.message);
        throw err;
      }
    },
  );

  app.get(
    '/v1/webhooks',
    { preValidation: deps.bearerAuth, schema: { tags: [TAG.admin], summary: 'The caller’s webhooks', security: bearerSecurity, response: { 200: Type.Object({ data: Type.Array(WebhookSchema) }), ...commonErrors } } },
    async (req) => {
      const caller = await begin(deps, req);
      return { data: (await listWebhooks(db, ownerOf(caller))).map(view) };
    },
  );

  app.delete(
    '/v1/webhooks/:webhook_id',
    {
      preValidation: deps.bearerAuth,
      schema: { tags: [TAG.admin], summary: 'Delete one of the caller’s webhooks', security: bearerSecurity, params: Type.Object({ webhook_id: Type.String({ maxLength: 100 }) }), response: { 200: Type.Object({ id: Type.String(), deleted: Type.Boolean() }), ...commonErrors } },
    },
    async (req) => {
      const caller = await begin(deps, req);
      if (!(await deleteWebhook(db, ownerOf(caller), req.params.webhook_id))) throw qError('NOT_FOUND', `Webhook not found: ${req.params.webhook_id}`);
      return { id: req.params.webhook_id, deleted: true };
    },
  );

  app.get(
    '/v1/webhooks/:webhook_id/deliveries',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.admin],
        summary: 'Delivery log of one of the caller’s webhooks (every attempt)',
        security: bearerSecurity,
        params: Type.Object({ webhook_id: Type.String({ maxLength: 100 }) }),
        response: {
          200: Type.Object({ data: Type.Array(Type.Object({ event_id: Type.String(), event: Type.String(), attempt: Type.Integer(), success: Type.Boolean(), status_code: Type.Union([Type.Integer(), Type.Null()]), error: Type.Union([Type.String(), Type.Null()]), duration_ms: Type.Number(), delivered_at: Type.String() })) }),
          ...commonErrors,
        },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      const owner = ownerOf(caller);
      const mine = (await listWebhooks(db, owner)).some((w) => w.id === req.params.webhook_id);
      if (!mine) throw qError('NOT_FOUND', `Webhook not found: ${req.params.webhook_id}`);
      const rows = await listDeliveries(db, { accountId: caller.accountId, service: 'llm', webhookId: req.params.webhook_id });
      return { data: rows.map((d) => ({ event_id: d.event_id, event: d.event, attempt: d.attempt, success: d.success, status_code: d.status_code, error: d.error, duration_ms: d.duration_ms, delivered_at: new Date(d.delivered_at).toISOString() })) };
    },
  );
}
