/**
 * The daily message limits (spec, Limits): every message of a signed-in account counts against
 * `dailyMessages`; a message to a pro model also counts against `dailyProMessages`. Days are
 * UTC days and reset at midnight UTC.
 *
 * A reservation is one SQL statement that raises both counters only when both stay within
 * their limits, so concurrent messages can never overshoot: the row lock of ON CONFLICT DO
 * UPDATE makes every writer re-check the WHERE against the latest counts.
 */
import type { Sql } from '../../platform/storage/database.ts';
import { chatError } from './errors.ts';

export interface DailyLimits {
  dailyMessages: number;
  dailyProMessages: number;
}

export interface Reservation {
  accountId: string;
  /** The UTC day (YYYY-MM-DD) it was counted on; a release goes back to that day. */
  day: string;
  pro: boolean;
}

export interface Remaining {
  day: string;
  resetsAt: string;
  messages: { limit: number; used: number; remaining: number };
  proMessages: { limit: number; used: number; remaining: number };
}

export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The next midnight UTC after `at`. */
export function nextMidnightUtc(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** Counts one message, or throws the 429 naming the limit reached and when it resets. */
export async function reserveMessage(db: Sql, limits: DailyLimits, accountId: string, pro: boolean, now: Date): Promise<Reservation> {
  const day = utcDay(now);
  const rows = await db.query<{ messages: number }>(
    `INSERT INTO chat_daily_usage AS u (account_id, day, messages, pro_messages) VALUES ($1, $2, 1, $3)
     ON CONFLICT (account_id, day) DO UPDATE
       SET messages = u.messages + 1, pro_messages = u.pro_messages + EXCLUDED.pro_messages
       WHERE u.messages < $4 AND (EXCLUDED.pro_messages = 0 OR u.pro_messages < $5)
     RETURNING u.messages`,
    [accountId, day, pro ? 1 : 0, limits.dailyMessages, limits.dailyProMessages],
  );
  if (rows.length === 1) return { accountId, day, pro };

  // Refused: read which limit it was, to name it.
  const [row] = await db.query<{ messages: number }>('SELECT messages FROM chat_daily_usage WHERE account_id = $1 AND day = $2', [accountId, day]);
  const resetsAt = nextMidnightUtc(now);
  const retryAfter = String(Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000)));
  const overall = (row?.messages ?? 0) >= limits.dailyMessages;
  const [limit, value, what] = overall
    ? (['messages', limits.dailyMessages, 'messages'] as const)
    : (['pro_messages', limits.dailyProMessages, 'messages to pro models'] as const);
  return Promise.reject(
    chatError(
      429,
      'rate_limit_error',
      `Daily limit of ${value} ${what} reached; it resets at ${resetsAt.toISOString()} (midnight UTC)`,
      { limit, limitValue: value, resetsAt: resetsAt.toISOString() },
      { 'retry-after': retryAfter },
    ),
  );
}

/** Gives a reserved message back (the model never answered), on the day it was counted. */
export async function releaseMessage(db: Sql, r: Reservation): Promise<void> {
  await db.query(
    `UPDATE chat_daily_usage SET messages = GREATEST(messages - 1, 0), pro_messages = GREATEST(pro_messages - $3, 0)
      WHERE account_id = $1 AND day = $2`,
    [r.accountId, r.day, r.pro ? 1 : 0],
  );
}

export async function remaining(db: Sql, limits: DailyLimits, accountId: string, now: Date): Promise<Remaining> {
  const day = utcDay(now);
  const [row] = await db.query<{ messages: number; pro_messages: number }>(
    'SELECT messages, pro_messages FROM chat_daily_usage WHERE account_id = $1 AND day = $2',
    [accountId, day],
  );
  const used = Number(row?.messages ?? 0);
  const usedPro = Number(row?.pro_messages ?? 0);
  return {
    day,
    resetsAt: nextMidnightUtc(now).toISOString(),
    messages: { limit: limits.dailyMessages, used, remaining: Math.max(0, limits.dailyMessages - used) },
    proMessages: { limit: limits.dailyProMessages, used: usedPro, remaining: Math.max(0, limits.dailyProMessages - usedPro) },
  };
}
