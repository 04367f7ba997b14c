/**
 * The API's webhook events (spec "Events"), delivered by platform/webhooks: signed
 * (`X-Signature: sha256=<hex HMAC of the raw body>`), retried with backoff, logged. An event
 * is scoped to its tenant: webhooks a tenant key registered receive that tenant's events,
 * those of an admin key every event of the account (CONTRACT "Q reads").
 */
import { emitEvent, startWebhookDelivery } from '../../platform/webhooks/index.ts';
import type { ServiceContext } from '../../platform/service.ts';

export const Q_EVENTS = ['training.completed', 'training.failed', 'feedback.received', 'tenant.created'] as const;
export type QEvent = (typeof Q_EVENTS)[number];

export class Events {
  constructor(private readonly ctx: ServiceContext) {}

  start(): Promise<void> {
    return startWebhookDelivery(this.ctx);
  }

  /** Enqueues the event's deliveries; a failure to enqueue is logged, never fails the request that caused it. */
  async emit(accountId: string, tenantId: string, event: QEvent, data: Record<string, unknown>): Promise<void> {
    try {
      await emitEvent(this.ctx, { service: 'llm', accountId, scope: tenantId, event, data: { tenant_id: tenantId, ...data } });
    } catch (err) {
      process.emitWarning(`llm: could not enqueue ${event} for tenant ${tenantId}: ${(err as Error).message}`);
    }
  }
}
