/**
 * POST /v2/webhooks (and GET, DELETE to see and remove them): `job.completed` and `job.failed`
 * of the account's circuit jobs, delivered with interface 1's payload and body signature
 * (CONTRACT) plus the `X-Signature` header, at least once with exponential backoff.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { deleteWebhook, listWebhooks, registerWebhook, WebhookError, type Webhook } from '../../../platform/webhooks/index.ts';
import { who } from '../auth.ts';
import { QcosError, qcosError } from '../errors.ts';
import { TAG_ACCOUNT, security } from '../schemas.ts';
import type { QcosDeps } from './context.ts';

export const QCOS_EVENTS = ['job.completed', 'job.failed'] as const;

const WebhookOut = Type.Object({
  webhook_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  active: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
});

const view = (w: Webhook) => ({ webhook_id: w.id, url: w.url, events: w.events, active: w.active, created_at: w.created_at.toISOString() });

export function registerWebhooks(app: ServiceApp, deps: QcosDeps): void {
  app.post(
    '/v2/webhooks',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_ACCOUNT],
        summary: 'Register a webhook for job.completed and job.failed',
        description:
          'Each delivery is `{id, event, timestamp, created_at, data: {job_id, status, backend}, signature}`; `signature` is ' +
          '`sha256=<hex HMAC-SHA256 with the secret over the RFC 8785 canonical JSON of the payload without signature>`, and the ' +
          '`X-Signature` header is `sha256=<hex HMAC of the raw body>`. Deliveries are retried with exponential backoff until a 2xx.',
        security,
        body: Type.Object(
          {
            url: Type.String({ minLength: 1, maxLength: 2048 }),
            events: Type.Array(Type.String({ enum: [...QCOS_EVENTS] }), { minItems: 1, maxItems: 2 }),
            secret: Type.String({ minLength: 1, maxLength: 512 }),
          },
          { additionalProperties: false },
        ),
        response: { 201: WebhookOut, '4xx': QcosError },
      },
    },
    async (req, reply) => {
      const id = who(req);
      try {
        const w = await registerWebhook(deps.ctx.db, {
          accountId: id.accountId,
          service: 'qcos',
          url: req.body.url,
          events: req.body.events,
          secret: req.body.secret,
          style: 'qcos',
          allowedEvents: QCOS_EVENTS,
        });
        reply.code(201);
        return view(w);
      } catch (err) {
        if (err instanceof WebhookError) throw qcosError('INVALID_REQUEST', err.message, { reason: err.code });
        throw err;
      }
    },
  );

  app.get(
    '/v2/webhooks',
    {
      preValidation: deps.auth,
      schema: { tags: [TAG_ACCOUNT], summary: 'The account webhooks', security, response: { 200: Type.Object({ webhooks: Type.Array(WebhookOut) }), '4xx': QcosError } },
    },
    async (req) => ({ webhooks: (await listWebhooks(deps.ctx.db, { accountId: who(req).accountId, service: 'qcos' })).map(view) }),
  );

  app.delete(
    '/v2/webhooks/:webhook_id',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_ACCOUNT],
        summary: 'Remove a webhook',
        security,
        params: Type.Object({ webhook_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Type.Object({ webhook_id: Type.String(), deleted: Type.Boolean() }), '4xx': QcosError },
      },
    },
    async (req) => {
      const ok = await deleteWebhook(deps.ctx.db, { accountId: who(req).accountId, service: 'qcos' }, req.params.webhook_id);
      if (!ok) throw qcosError('NOT_FOUND', `Webhook ${req.params.webhook_id} not found`);
      return { webhook_id: req.params.webhook_id, deleted: true };
    },
  );
}
