/** Registered webhooks: registration with URL and event checks, listing and deletion within an owner (account, service, scope). */
import { randomBytes } from 'node:crypto';
import { openTextSecret, sealTextSecret } from '../secrets/index.ts';
import type { Sql } from '../storage/database.ts';

export type WebhookStyle = 'general' | 'qcos';

/** A webhook as read back: never its secret. */
export interface Webhook {
  id: string;
  account_id: string;
  service: string;
  scope: string | null;
  url: string;
  events: string[];
  style: WebhookStyle;
  active: boolean;
  created_at: Date;
}

export type WebhookErrorCode = 'INVALID_URL' | 'INVALID_EVENTS' | 'INVALID_SECRET';

/** A registration the caller got wrong; services map `code` to their own error shape (usually 400). */
export class WebhookError extends Error {
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookError';
  }
}

const MAX_URL_LENGTH = 2048;

/** The URL parsed, or a WebhookError: only absolute http(s) URLs with a host and no credentials. */
export function validateWebhookUrl(url: unknown): URL {
  if (typeof url !== 'string' || url.length === 0) throw new WebhookError('INVALID_URL', 'url must be a non-empty string');
  if (url.length > MAX_URL_LENGTH) throw new WebhookError('INVALID_URL', `url is longer than ${MAX_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhookError('INVALID_URL', `url is not an absolute URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new WebhookError('INVALID_URL', `url must use http or https, not ${parsed.protocol.replace(/:$/, '')}`);
  }
  if (!parsed.hostname) throw new WebhookError('INVALID_URL', 'url has no host');
  if (parsed.username || parsed.password) throw new WebhookError('INVALID_URL', 'url must not carry credentials');
  return parsed;
}

const EVENT_NAME = /^(\*|[a-z][a-z0-9_]*(\.[a-z0-9_]+)*)$/;

function validateEvents(events: unknown, allowed?: readonly string[]): string[] {
  if (!Array.isArray(events) || events.length === 0) throw new WebhookError('INVALID_EVENTS', 'events must be a non-empty array of event names');
  for (const e of events) {
    if (typeof e !== 'string' || !EVENT_NAME.test(e)) throw new WebhookError('INVALID_EVENTS', `not an event name: ${JSON.stringify(e)}`);
    if (allowed && e !== '*' && !allowed.includes(e)) {
      throw new WebhookError('INVALID_EVENTS', `unknown event '${e}' (events: ${allowed.join(', ')})`);
    }
  }
  return [...new Set(events as string[])];
}

export interface RegisterWebhookInput {
  accountId: string;
  service: string;
  scope?: string | null;
  url: string;
  /** Event names; `*` receives every event. */
  events: readonly string[];
  /** The HMAC key; one is generated (and returned once) when omitted. */
  secret?: string;
  style?: WebhookStyle;
  /** When given, events outside this list are refused (INVALID_EVENTS). */
  allowedEvents?: readonly string[];
}

function rowToWebhook(row: Record<string, unknown>): Webhook {
  return {
    id: row.id as string,
    account_id: row.account_id as string,
    service: row.service as string,
    scope: (row.scope as string | null) ?? null,
    url: row.url as string,
    events: row.events as string[],
    style: row.style as WebhookStyle,
    active: row.active as boolean,
    created_at: new Date(row.created_at as string | Date),
  };
}

const COLUMNS = 'id, account_id, service, scope, url, events, style, active, created_at';

/** Registers a webhook; returns it with its secret (the only time the secret is returned). */
export async function registerWebhook(db: Sql, input: RegisterWebhookInput): Promise<Webhook & { secret: string }> {
  const url = validateWebhookUrl(input.url);
  const events = validateEvents(input.events, input.allowedEvents);
  if (input.secret !== undefined && (typeof input.secret !== 'string' || input.secret.length < 1 || input.secret.length > 512)) {
    throw new WebhookError('INVALID_SECRET', 'secret must be a string of 1 to 512 characters');
  }
  const secret = input.secret ?? `whsec_${randomBytes(24).toString('base64url')}`;
  const id = `wh_${randomBytes(12).toString('hex')}`;
  const [row] = await db.query(
    `INSERT INTO webhooks (id, account_id, service, scope, url, events, secret, style)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [id, input.accountId, input.service, input.scope ?? null, url.href, events, sealTextSecret('webhooks.secret', secret), input.style ?? 'general'],
  );
  return { ...rowToWebhook(row!), secret };
}

export interface WebhookOwner {
  accountId: string;
  service: string;
  /** undefined: every webhook of the account; null: only account-wide ones; a string: that scope's. */
  scope?: string | null;
}

function ownerFilter(owner: WebhookOwner, params: unknown[]): string {
  params.push(owner.accountId, owner.service);
  let sql = `account_id = $${params.length - 1} AND service = $${params.length}`;
  if (owner.scope === null) sql += ' AND scope IS NULL';
  else if (owner.scope !== undefined) {
    params.push(owner.scope);
    sql += ` AND scope = $${params.length}`;
  }
  return sql;
}

export async function listWebhooks(db: Sql, owner: WebhookOwner): Promise<Webhook[]> {
  const params: unknown[] = [];
  const rows = await db.query(`SELECT ${COLUMNS} FROM webhooks WHERE ${ownerFilter(owner, params)} ORDER BY created_at, id`, params);
  return rows.map(rowToWebhook);
}

/** The webhook when `owner` owns it, else null (another account's webhook is never revealed). */
export async function getWebhook(db: Sql, owner: WebhookOwner, id: string): Promise<Webhook | null> {
  const params: unknown[] = [id];
  const [row] = await db.query(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND ${ownerFilter(owner, params)}`, params);
  return row ? rowToWebhook(row) : null;
}

/** Deletes the webhook (and its delivery log) when `owner` owns it; false when there was none. */
export async function deleteWebhook(db: Sql, owner: WebhookOwner, id: string): Promise<boolean> {
  const params: unknown[] = [id];
  const rows = await db.query(`DELETE FROM webhooks WHERE id = $1 AND ${ownerFilter(owner, params)} RETURNING id`, params);
  return rows.length > 0;
}

/** The secret of a webhook, for the delivery worker only. */
export async function webhookForDelivery(db: Sql, id: string): Promise<(Webhook & { secret: string }) | null> {
  const [row] = await db.query(`SELECT ${COLUMNS}, secret FROM webhooks WHERE id = $1`, [id]);
  return row ? { ...rowToWebhook(row), secret: openTextSecret('webhooks.secret', row.secret as string) } : null;
}
