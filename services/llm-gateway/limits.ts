/**
 * Per-key rpmLimit and tpmLimit over fixed UTC minutes, counted in the database so that every
 * process serving the gateway shares them. A request is admitted while the key's minute has
 * fewer than rpmLimit requests and fewer than tpmLimit tokens used (tokens are added when a
 * call settles); one conditional upsert, so concurrent requests cannot pass a limit together.
 */
import type { Sql } from '../../platform/storage/database.ts';
import { gatewayError } from './errors.ts';
import type { KeyLimits } from './keys.ts';

export function minuteOf(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 60_000) * 60_000);
}

const BIG = 2_147_483_647;

/** Counts one request in the key's minute or throws the 429 naming the limit (no Retry-After: spec). */
export async function admit(db: Sql, keyId: string, limits: KeyLimits, now: Date, requestId: string): Promise<Date | null> {
  if (limits.rpmLimit === null && limits.tpmLimit === null) return null;
  const minute = minuteOf(now);
  const rpm = limits.rpmLimit ?? BIG;
  const tpm = limits.tpmLimit ?? Number.MAX_SAFE_INTEGER;
  const rows = await db.query<{ requests: number }>(
    `INSERT INTO llm_gateway_minute (key_id, minute, requests) SELECT $1, $2, 1 WHERE $3::int > 0 AND $4::bigint > 0
     ON CONFLICT (key_id, minute) DO UPDATE SET requests = llm_gateway_minute.requests + 1
      WHERE llm_gateway_minute.requests < $3::int AND llm_gateway_minute.tokens < $4::bigint
     RETURNING requests`,
    [keyId, minute, rpm, tpm],
  );
  if (rows.length) return minute;
  const [row] = await db.query<{ requests: number; tokens: number | string }>('SELECT requests, tokens FROM llm_gateway_minute WHERE key_id = $1 AND minute = $2', [keyId, minute]);
  if (limits.tpmLimit !== null && Number(row?.tokens ?? 0) >= limits.tpmLimit) {
    throw gatewayError(429, 'rate_limit_error', `Rate limit reached: this API key's tpmLimit is ${limits.tpmLimit} tokens per minute`, requestId);
  }
  throw gatewayError(429, 'rate_limit_error', `Rate limit reached: this API key's rpmLimit is ${limits.rpmLimit} requests per minute`, requestId);
}

/** Adds a settled call's tokens to the minute it was admitted in. */
export async function addTokens(db: Sql, keyId: string, minute: Date, tokens: number): Promise<void> {
  if (tokens > 0) await db.query('UPDATE llm_gateway_minute SET tokens = tokens + $3 WHERE key_id = $1 AND minute = $2', [keyId, minute, tokens]);
}

/** Minute counters older than an hour are of no use. */
export async function pruneMinutes(db: Sql, now: Date): Promise<void> {
  await db.query('DELETE FROM llm_gateway_minute WHERE minute < $1', [new Date(now.getTime() - 3_600_000)]);
}
