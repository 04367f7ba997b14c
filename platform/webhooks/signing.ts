/**
 * What a delivery sends and how it is signed. The `X-Signature` header is
 * `sha256=<hex HMAC-SHA256 of the raw body bytes, keyed by the webhook's secret>`. Interface 1
 * (`style: 'qcos'`) also carries `signature` in the body: the same HMAC over the RFC 8785
 * canonical JSON of the payload without its `signature` field.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../../engines/crypto/encoding.ts';
import type { WebhookStyle } from './registry.ts';

export interface WebhookEvent {
  id: string;
  event: string;
  /** When the event happened (ISO 8601); the same on every attempt. */
  created_at: string;
  data: unknown;
}

/** `sha256=<hex HMAC-SHA256>` of `bytes` with `secret`. */
export function hmacSignature(secret: string, bytes: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;
}

/** The payload object of one event for one webhook style. */
export function buildPayload(style: WebhookStyle, secret: string, event: WebhookEvent): Record<string, unknown> {
  if (style === 'general') return { id: event.id, event: event.event, created_at: event.created_at, data: event.data };
  const unsigned = { id: event.id, event: event.event, timestamp: event.created_at, created_at: event.created_at, data: event.data };
  return { ...unsigned, signature: hmacSignature(secret, canonicalJson(unsigned)) };
}

/** The exact body bytes and headers of a delivery. */
export function buildDelivery(style: WebhookStyle, secret: string, event: WebhookEvent, attempt: number): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(buildPayload(style, secret, event));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Lattice-Webhooks/1',
      'x-signature': hmacSignature(secret, body),
      'x-webhook-event': event.event,
      'x-webhook-id': event.id,
      'x-webhook-attempt': String(attempt),
    },
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A receiver's check of the `X-Signature` header against the raw body it received. */
export function verifyWebhookSignature(secret: string, rawBody: string | Uint8Array, header: string | null | undefined): boolean {
  return typeof header === 'string' && safeEqual(hmacSignature(secret, rawBody), header);
}

/** A receiver's check of an interface 1 body's `signature` field. */
export function verifyPayloadSignature(secret: string, payload: Record<string, unknown>): boolean {
  const { signature, ...unsigned } = payload;
  return typeof signature === 'string' && safeEqual(hmacSignature(secret, canonicalJson(unsigned)), signature);
}
