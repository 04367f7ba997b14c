/**
 * Emitting events and delivering them: `emitEvent` puts one job per matching webhook on the
 * durable queue; the delivery worker POSTs it, logs the attempt, and on failure (no 2xx,
 * timeout, refused connection) schedules the next attempt after an exponentially growing
 * delay: base, 2 x base, 4 x base, ... capped at `maxDelayMs`, up to `maxAttempts`. A worker
 * that dies mid-attempt leaves its job to expire and be retried by the queue, so delivery is
 * at least once: receivers deduplicate on the event `id` (also sent as `X-Webhook-Id`).
 */
import { countWebhookDelivery } from '../observability/families.ts';
import { randomBytes } from 'node:crypto';
import type { JobQueue } from '../jobs/queue.ts';
import type { ServiceContext } from '../service.ts';
import type { Sql } from '../storage/database.ts';
import { webhooksUnlessNone } from './none-known.ts';
import { webhookForDelivery } from './registry.ts';
import { buildDelivery, type WebhookEvent } from './signing.ts';

export const DELIVERY_QUEUE = 'webhooks.deliver';

export interface DeliveryOptions {
  /** Delay before the second attempt; each later one doubles it. Default 5000 ms. */
  baseDelayMs?: number;
  /** Ceiling of one delay. Default one hour. */
  maxDelayMs?: number;
  /** Attempts in all, the first included. Default 10 (about 43 minutes of retries at the default base). */
  maxAttempts?: number;
  /** Time allowed for one attempt, connection to last byte. Default 10 s. */
  timeoutMs?: number;
  /** Deliveries this process makes at once (so that one slow receiver does not hold up the others). Default 4; read at start only. */
  concurrency?: number;
}

const DEFAULTS: Required<DeliveryOptions> = { baseDelayMs: 5000, maxDelayMs: 3_600_000, maxAttempts: 10, timeoutMs: 10_000, concurrency: 4 };

interface DeliveryJob extends WebhookEvent {
  webhook_id: string;
  attempt: number;
}

type QueueContext = Pick<ServiceContext, 'db' | 'queue'>;

// One delivery worker and one set of options per job queue (that is, per process and store).
const workers = new WeakMap<JobQueue, { options: Required<DeliveryOptions>; started: Promise<void> }>();
const defined = new WeakMap<JobQueue, Promise<void>>();

function defineQueue(queue: JobQueue): Promise<void> {
  let done = defined.get(queue);
  if (!done) {
    // The queue's own retries only cover a worker that died mid-attempt; failed attempts are
    // rescheduled by the worker itself with their own backoff.
    done = queue.define(DELIVERY_QUEUE, { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 });
    defined.set(queue, done);
    done.catch(() => defined.delete(queue));
  }
  return done;
}

/** The delay after failed attempt number `attempt` (1-based). */
export function retryDelayMs(attempt: number, options: DeliveryOptions = {}): number {
  const o = { ...DEFAULTS, ...options };
  return Math.min(o.baseDelayMs * 2 ** (attempt - 1), o.maxDelayMs);
}

export interface EmitInput {
  service: string;
  accountId: string;
  /** The part of the account the event belongs to (e.g. a tenant id): webhooks of that scope and account-wide ones receive it. */
  scope?: string | null;
  event: string;
  data: unknown;
  /** Defaults to a fresh `evt_...`; pass one to make a re-emission the same event. */
  eventId?: string;
  /** Defaults to now. */
  createdAt?: Date;
}

/**
 * Enqueues one delivery per active webhook of the account and service that listens to
 * `event` (or `*`). Returns the event id and the webhooks it goes to.
 */
export async function emitEvent(ctx: QueueContext, input: EmitInput): Promise<{ event_id: string; webhook_ids: string[] }> {
  const eventId = input.eventId ?? `evt_${randomBytes(12).toString('hex')}`;
  // Every active webhook of the account and service, marked whether it takes this event: when
  // there is none at all, the next events of the pair need no statement (none-known.ts).
  const ids = await webhooksUnlessNone(ctx.db, input.accountId, input.service, async () => {
    const rows = await ctx.db.query<{ id: string; takes: boolean }>(
      `SELECT id, ((scope IS NULL OR scope = $3) AND (events @> ARRAY[$4]::text[] OR events @> ARRAY['*']::text[])) AS takes
         FROM webhooks
        WHERE active AND account_id = $1 AND service = $2
        ORDER BY created_at, id`,
      [input.accountId, input.service, input.scope ?? null, input.event],
    );
    return { matching: rows.filter((r) => r.takes).map((r) => r.id), any: rows.length > 0 };
  });
  if (ids.length === 0) return { event_id: eventId, webhook_ids: [] };
  const queue = await ctx.queue();
  await defineQueue(queue);
  const createdAt = (input.createdAt ?? new Date()).toISOString();
  for (const id of ids) {
    const job: DeliveryJob = { webhook_id: id, id: eventId, event: input.event, created_at: createdAt, data: input.data ?? null, attempt: 1 };
    await queue.send(DELIVERY_QUEUE, job);
  }
  return { event_id: eventId, webhook_ids: ids };
}

async function logAttempt(
  db: Sql,
  job: DeliveryJob,
  outcome: { success: boolean; status: number | null; error: string | null; durationMs: number },
): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (webhook_id, event_id, event, attempt, success, status_code, error, duration_ms)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = $1)`,
    [job.webhook_id, job.id, job.event, job.attempt, outcome.success, outcome.status, outcome.error, outcome.durationMs],
  );
}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `timed out after ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  const text = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
  return text.slice(0, 500);
}

/** One attempt of one delivery: POST, log, and schedule the next attempt when it failed. */
async function deliver(ctx: QueueContext, queue: JobQueue, options: Required<DeliveryOptions>, job: DeliveryJob): Promise<void> {
  const webhook = await webhookForDelivery(ctx.db, job.webhook_id);
  // Deleted or disabled since the event: nothing to deliver.
  if (!webhook || !webhook.active) return;
  const { body, headers } = buildDelivery(webhook.style, webhook.secret, job, job.attempt);
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    const response = await fetch(webhook.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    status = response.status;
    // Drain the body so the connection is released; its content is not kept.
    await response.arrayBuffer().catch(() => undefined);
    if (status < 200 || status > 299) error = `HTTP ${status}`;
  } catch (err) {
    error = describeError(err, options.timeoutMs);
  }
  const durationMs = Math.round(performance.now() - started);
  const success = error === null;
  await logAttempt(ctx.db, job, { success, status, error, durationMs });
  countWebhookDelivery(webhook.service, success, job.attempt);
  if (!success && job.attempt < options.maxAttempts) {
    const startAfter = new Date(Date.now() + retryDelayMs(job.attempt, options));
    await queue.send(DELIVERY_QUEUE, { ...job, attempt: job.attempt + 1 }, { startAfter });
  }
}

/**
 * Starts this process's delivery worker on the context's queue (once per queue; later calls
 * only update the options they pass). Every service that emits events calls it in `build`;
 * tests pass a short `baseDelayMs`.
 */
export async function startWebhookDelivery(ctx: QueueContext, options: DeliveryOptions = {}): Promise<void> {
  const queue = await ctx.queue();
  const existing = workers.get(queue);
  if (existing) {
    Object.assign(existing.options, withoutUndefined(options));
    return existing.started;
  }
  const entry = { options: { ...DEFAULTS, ...withoutUndefined(options) }, started: Promise.resolve() };
  entry.started = (async () => {
    await defineQueue(queue);
    // `concurrency` workers deliver side by side.
    await queue.work<DeliveryJob>(DELIVERY_QUEUE, (job) => deliver(ctx, queue, entry.options, job.data), { concurrency: entry.options.concurrency });
  })();
  workers.set(queue, entry);
  entry.started.catch(() => workers.delete(queue));
  return entry.started;
}

function withoutUndefined(o: DeliveryOptions): DeliveryOptions {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as DeliveryOptions;
}

export interface DeliveryLogEntry {
  id: number;
  webhook_id: string;
  event_id: string;
  event: string;
  attempt: number;
  success: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  delivered_at: Date;
}

/** The delivery log of the owner's webhooks (optionally one webhook or one event), oldest attempt first. */
export async function listDeliveries(
  db: Sql,
  q: { accountId: string; service: string; webhookId?: string; eventId?: string; limit?: number },
): Promise<DeliveryLogEntry[]> {
  const params: unknown[] = [q.accountId, q.service];
  let sql = `SELECT d.* FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
              WHERE w.account_id = $1 AND w.service = $2`;
  if (q.webhookId !== undefined) {
    params.push(q.webhookId);
    sql += ` AND d.webhook_id = $${params.length}`;
  }
  if (q.eventId !== undefined) {
    params.push(q.eventId);
    sql += ` AND d.event_id = $${params.length}`;
  }
  params.push(Math.max(1, Math.min(q.limit ?? 100, 1000)));
  const rows = await db.query<Record<string, unknown>>(`${sql} ORDER BY d.id LIMIT $${params.length}`, params);
  return rows.map((r) => ({
    id: Number(r.id),
    webhook_id: r.webhook_id as string,
    event_id: r.event_id as string,
    event: r.event as string,
    attempt: Number(r.attempt),
    success: r.success as boolean,
    status_code: r.status_code === null ? null : Number(r.status_code),
    error: (r.error as string | null) ?? null,
    duration_ms: Number(r.duration_ms),
    delivered_at: new Date(r.delivered_at as string | Date),
  }));
}
