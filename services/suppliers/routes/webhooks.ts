/**
 * POST /api/v1/webhooks (and GET, DELETE, deliveries): job.completed, job.failed,
 * optimization.done and batch.completed of the account, delivered through platform/webhooks
 * as `{id, event, created_at, data}` with `X-Signature: sha256=<HMAC of the raw body>`, at least
 * once with exponential backoff. `data` carries the job's details.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { deleteWebhook, listDeliveries, listWebhooks, registerWebhook, WebhookError, type Webhook } from '../../../platform/webhooks/index.ts';
import { who } from '../auth.ts';
import { supplierError } from '../errors.ts';
import { SERVICE, type Deps } from '../jobs.ts';
import { security } from './responses.ts';

export const EVENTS = ['job.completed', 'job.failed', 'optimization.done', 'batch.completed'] as const;
const tags = ['Webhooks'];
const view = (w: Webhook) => ({ webhook_id: w.id, url: w.url, events: w.events, active: w.active, created_at: w.created_at.toISOString() });
const IdParam = Type.Object({ webhook_id: Type.String({ minLength: 1, maxLength: 64 }) });

export function registerWebhooks(app: ServiceApp, deps: Deps): void {
  app.post(
    '/api/v1/webhooks',
    {
      preValidation: deps.auth,
      schema: {
        security, tags,
        summary: 'Register a webhook',
        body: Type.Object({
          url: Type.String({ minLength: 1, maxLength: 2048 }),
          events: Type.Array(Type.String({ enum: [...EVENTS] }), { minItems: 1, maxItems: 4 }),
          secret: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'HMAC key; one is generated and returned once when left out' })),
        }),
      },
    },
    async (req, reply) => {
      try {
        const w = await registerWebhook(deps.ctx.db, {
          accountId: who(req).accountId, service: SERVICE, url: req.body.url, events: req.body.events, secret: req.body.secret, allowedEvents: EVENTS,
        });
        reply.code(201);
        return { ...view(w), secret: w.secret };
      } catch (err) {
        if (err instanceof WebhookError) throw supplierError('INVALID_PARAMETERS', err.message, { reason: err.code });
        throw err;
      }
    },
  );

  app.get('/api/v1/webhooks', { preValidation: deps.auth, schema: { security, tags, summary: 'The account webhooks' } }, async (req) => ({
    webhooks: (await listWebhooks(deps.ctx.db, { accountId: who(req).accountId, service: SERVICE })).map(view),
  }));

  app.get('/api/v1/webhooks/:webhook_id/deliveries', { preValidation: deps.auth, schema: { security, tags, summary: 'Delivery log of a webhook', params: IdParam } }, async (req) => {
    const accountId = who(req).accountId;
    const mine = (await listWebhooks(deps.ctx.db, { accountId, service: SERVICE })).some((w) => w.id === req.params.webhook_id);
    if (!mine) throw supplierError('NOT_FOUND', `Webhook ${req.params.webhook_id} not found`);
    return { deliveries: await listDeliveries(deps.ctx.db, { accountId, service: SERVICE, webhookId: req.params.webhook_id }) };
  });

  app.delete('/api/v1/webhooks/:webhook_id', { preValidation: deps.auth, schema: { security, tags, summary: 'Remove a webhook', params: IdParam } }, async (req) => {
    const ok = await deleteWebhook(deps.ctx.db, { accountId: who(req).accountId, service: SERVICE }, req.params.webhook_id);
    if (!ok) throw supplierError('NOT_FOUND', `Webhook ${req.params.webhook_id} not found`);
    return { webhook_id: req.params.webhook_id, deleted: true };
  });
}
