/**
 * Webhooks: registration with a secret, event matching, signed deliveries through the durable
 * job queue with exponential backoff (at least once), and a log row per attempt. See README.md.
 */
export { webhookMigrations } from './migrations.ts';
export {
  deleteWebhook,
  getWebhook,
  listWebhooks,
  registerWebhook,
  validateWebhookUrl,
  WebhookError,
  type RegisterWebhookInput,
  type Webhook,
  type WebhookErrorCode,
  type WebhookOwner,
  type WebhookStyle,
} from './registry.ts';
export {
  buildDelivery,
  buildPayload,
  hmacSignature,
  verifyPayloadSignature,
  verifyWebhookSignature,
  type WebhookEvent,
} from './signing.ts';
export {
  DELIVERY_QUEUE,
  emitEvent,
  listDeliveries,
  retryDelayMs,
  startWebhookDelivery,
  type DeliveryLogEntry,
  type DeliveryOptions,
  type EmitInput,
} from './delivery.ts';
