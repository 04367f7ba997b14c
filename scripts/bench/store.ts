/**
 * Embedded store benchmark: what one statement costs through the platform's Database (named
 * prepared statements, platform/storage/pglite-prepared.ts) beside PGlite's own `query` on the
 * same session (the baseline: parse, describe, bind, describe, execute and sync, planned every
 * time), in wall time and CPU per statement; and what opening a data dir costs with the store's
 * shared_buffers beside PostgreSQL's default of 128MB (platform/storage/database.ts).
 * The statements are the shapes of the hot paths: a key lookup, an aggregate over a partial
 * index joined to an insert (the job queue's submission), and an update by key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { openPglite } from '../../platform/storage/database.ts';
import { migratedDump } from '../../platform/storage/store-template.ts';

const STATEMENTS: readonly [string, string, (i: number) => unknown[]][] = [
  ['lookup by key', `SELECT id, account, status, n, created FROM bench_jobs WHERE id = $1`, (i) => [`j${i % 2000}`]],
  [
    'count + insert (submission)',
    `WITH u AS (SELECT count(*) AS active FROM bench_jobs WHERE account = $2 AND status IN ('queued', 'running'))
     INSERT INTO bench_jobs (id, account, status, n, created) SELECT $1, $2, 'done', $3, now() FROM u WHERE u.active < $4 RETURNING id, n`,
    (i) => [`new${i}`, `a${i % 20}`, i, 1000],
  ],
  ['update by key', `UPDATE bench_jobs SET n = n + 1, status = $2 WHERE id = $1`, (i) => [`j${i % 2000}`, i % 2 ? 'done' : 'running']],
];

async function perStatement(n: number, fn: () => Promise<unknown>): Promise<{ wallUs: number; cpuUs: number }> {
  for (let i = 0; i < 200; i++) await fn();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const used = process.cpuUsage(cpu);
  return { wallUs: ((performance.now() - t0) * 1000) / n, cpuUs: (used.user + used.system) / n };
}

async function openCpuMs(dir: string, sharedBuffers: string | null): Promise<number> {
  const cpu = process.cpuUsage();
  const db = sharedBuffers ? await openPglite(dir, { sharedBuffers, autovacuumMs: 0 }) : await PGlite.create(dir);
  const used = process.cpuUsage(cpu);
  await db.close();
  return (used.user + used.system) / 1000;
}

export async function run(): Promise<void> {
  console.log(`load average at start ${loadavg()[0]!.toFixed(1)}`);
  const db = await openPglite(null, { loadDataDir: await migratedDump([]), autovacuumMs: 0 });
  try {
    await db.exec(`CREATE TABLE bench_jobs (id text PRIMARY KEY, account text NOT NULL, status text NOT NULL, n int NOT NULL, created timestamptz NOT NULL);
      CREATE INDEX ON bench_jobs (account) WHERE status IN ('queued', 'running');
      INSERT INTO bench_jobs SELECT 'j' || i, 'a' || (i % 20), CASE WHEN i % 7 = 0 THEN 'queued' ELSE 'done' END, i, now() FROM generate_series(0, 1999) i;
      ANALYZE bench_jobs;`);
    console.log('\n-- one statement on the embedded store (in memory), 3000 runs after 200 untimed');
    for (const [label, text, params] of STATEMENTS) {
      // One sequence for both, so that every insert has a new id.
      let seq = 0;
      const viaPglite = await perStatement(3000, () => db.pglite.query(text, params(seq++)));
      const viaDatabase = await perStatement(3000, () => db.query(text, params(seq++)));
      console.log(
        `${label.padEnd(30)} PGlite query ${viaPglite.wallUs.toFixed(0).padStart(5)} us (cpu ${viaPglite.cpuUs.toFixed(0).padStart(4)})` +
          `   prepared ${viaDatabase.wallUs.toFixed(0).padStart(5)} us (cpu ${viaDatabase.cpuUs.toFixed(0).padStart(4)})` +
          `   ${(viaPglite.cpuUs / viaDatabase.cpuUs).toFixed(1)}x less CPU`,
      );
    }
  } finally {
    await db.close();
  }

  console.log('\n-- opening a data dir (CPU of PGlite.create, median of 3 alternating rounds)');
  const dir = mkdtempSync(join(tmpdir(), 'lattice-bench-store-'));
  try {
    await (await openPglite(join(dir, 'pgdata'), { autovacuumMs: 0 })).close();
    const rounds: Record<string, number[]> = { '128MB': [], '32MB': [] };
    for (let i = 0; i < 3; i++) {
      rounds['128MB']!.push(await openCpuMs(join(dir, 'pgdata'), null));
      rounds['32MB']!.push(await openCpuMs(join(dir, 'pgdata'), '32MB'));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
    const base = median(rounds['128MB']!);
    const ours = median(rounds['32MB']!);
    console.log(`shared_buffers 128MB (PostgreSQL's default) ${base.toFixed(0)} ms CPU; 32MB (the store's) ${ours.toFixed(0)} ms CPU: ${(ours / base).toFixed(2)}x`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`load average after: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
}
