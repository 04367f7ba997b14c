/** The move of the limits onto platform/limits' table keeps the day's tokens of a store that is upgraded. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY } from '../../platform/limits/windows.ts';
import { platformMigrations } from '../../platform/migrations.ts';
import { migrate } from '../../platform/storage/migrate.ts';
import { openTestDatabase } from '../../platform/testing/harness.ts';
import { tokensSubject } from './limits.ts';
import { llmMigrations } from './migrations.ts';

test("upgrading to the platform's limit windows carries today's tokens over, not earlier days', and drops the old minute table", async () => {
  const before = llmMigrations.findIndex((m) => m.id === 'llm/0003_limits_in_platform_windows');
  assert.ok(before > 0);
  const store = await openTestDatabase([...platformMigrations, ...llmMigrations.slice(0, before)]);
  try {
    const today = new Date(Math.floor(Date.now() / DAY) * DAY);
    const yesterday = new Date(today.getTime() - DAY);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    await store.db.query('INSERT INTO llm_usage_daily (subject, day, requests, tokens) VALUES ($1, $2, 5, 9000), ($1, $3, 7, 800), ($4, $2, 3, 0)', [
      'tenant-a',
      day(today),
      day(yesterday),
      'tenant-b',
    ]);
    assert.deepEqual(await migrate(store.db, [...platformMigrations, ...llmMigrations]), llmMigrations.slice(before).map((m) => m.id));
    const rows = await store.db.query<{ subject: string; window_ms: number; window_start: string; taken: string }>('SELECT subject, window_ms, window_start, taken FROM limit_windows ORDER BY subject');
    assert.deepEqual(
      rows.map((r) => [r.subject, Number(r.window_ms), Number(r.window_start), Number(r.taken)]),
      [[tokensSubject('tenant-a'), DAY, today.getTime(), 9000]],
    );
    const [old] = await store.db.query<{ t: string | null }>("SELECT to_regclass('llm_rate_windows')::text AS t");
    assert.equal(old?.t, null);
  } finally {
    await store.close();
  }
});
