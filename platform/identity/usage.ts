/** Usage counters per account, service and period (e.g. licenses generated this month). */
import type { Sql } from '../storage/database.ts';

/** `YYYY-MM` in UTC: monthly limits reset at the start of each UTC month. */
export function monthPeriod(now: Date = new Date()): string {
  return now.toISOString().slice(0, 7);
}

/**
 * Adds one to the counter unless it already reached `limit`; returns the new value, or null
 * when the limit was reached. A single statement, so concurrent callers can never pass the
 * limit together: PostgreSQL re-checks the WHERE on the locked row.
 */
export async function incrementWithinLimit(
  db: Sql,
  key: { accountId: string; service: string; counter: string; period: string },
  limit: number,
): Promise<number | null> {
  if (limit <= 0) return null;
  const rows = await db.query<{ value: number | string }>(
    `INSERT INTO usage_counters (account_id, service, counter, period, value) VALUES ($1, $2, $3, $4, 1)
     ON CONFLICT (account_id, service, counter, period)
     DO UPDATE SET value = usage_counters.value + 1 WHERE usage_counters.value < $5
     RETURNING value`,
    [key.accountId, key.service, key.counter, key.period, limit],
  );
  return rows.length ? Number(rows[0]!.value) : null;
}

export async function readCounter(
  db: Sql,
  key: { accountId: string; service: string; counter: string; period: string },
): Promise<number> {
  const [row] = await db.query<{ value: number | string }>(
    'SELECT value FROM usage_counters WHERE account_id = $1 AND service = $2 AND counter = $3 AND period = $4',
    [key.accountId, key.service, key.counter, key.period],
  );
  return row ? Number(row.value) : 0;
}
