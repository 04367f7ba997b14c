/**
 * `lattice backup` / `lattice restore` on the embedded store: a backup taken from a running
 * `lattice serve` while requests and ledger writes keep arriving is a copy of one instant, and
 * it comes back whole into an empty data dir; restore refuses a non-empty one.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { topUp } from '../billing/ledger.ts';
import { allMigrations } from '../server.ts';
import { call } from '../testing/harness.ts';
import { services } from '../../services/index.ts';
import type { Sql } from './database.ts';
import { openStore } from './store.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');
const base = mkdtempSync(join(tmpdir(), 'lattice-backup-'));
after(() => rmSync(base, { recursive: true, force: true }));
const env = { ...process.env, DATABASE_URL: '', LATTICE_LICENSING_PORT: '0', LATTICE_QCOS_PORT: '0' };

function lattice(args: string[]): { status: number | null; out: Record<string, any> } {
  const r = spawnSync(process.execPath, [bin, ...args, '--json'], { cwd: root, encoding: 'utf8', env });
  return { status: r.status, out: JSON.parse(r.stdout.trim().split('\n').pop() || '{}') as Record<string, any> };
}

function latticeAsync(args: string[]): Promise<{ status: number | null; out: Record<string, any> }> {
  const child = spawn(process.execPath, [bin, ...args, '--json'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, out: JSON.parse(stdout.trim().split('\n').pop() || '{}') as Record<string, any> })));
}

async function startServe(dataDir: string): Promise<{ child: ChildProcess; urls: Record<string, string> }> {
  const child = spawn(process.execPath, [bin, 'serve', '--only', 'licensing,qcos', '--data-dir', dataDir], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => log.includes('lattice: store') && (clearInterval(timer), resolve()), 100);
    child.once('exit', (code) => (clearInterval(timer), reject(new Error(`serve exited with ${code}: ${log}`))));
  });
  const urls: Record<string, string> = {};
  for (const m of log.matchAll(/^(\S+)\s+(http:\/\/\S+)\s+\(docs/gm)) urls[m[1]!] = m[2]!;
  return { child, urls };
}

const literal = (v: unknown) => (v === null || v === undefined ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`);

const stop = (child: ChildProcess) => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM')));

const TABLES = {
  accounts: 'id',
  api_keys: 'id',
  licensing_b_licenses: 'license_key',
  quantum_jobs: 'id',
  billing_ledger: 'id',
  billing_balances: 'account_id',
} as const;

async function snapshot(db: Sql): Promise<Record<string, Map<string, string>>> {
  const out: Record<string, Map<string, string>> = {};
  for (const [table, key] of Object.entries(TABLES)) {
    const rows = await db.query<Record<string, unknown>>(`SELECT * FROM ${table} ORDER BY ${key}`);
    out[table] = new Map(rows.map((r) => [String(r[key]), JSON.stringify(r)]));
  }
  return out;
}

test('a backup under write load restores into an empty data dir with every row and equal balances; a non-empty dir is refused', { skip: process.env.DATABASE_URL ? 'embedded store only' : false, timeout: 300_000 }, async () => {
  const source = join(base, 'source');
  const licensingKey = lattice(['keys', 'create', '--service', 'licensing', '--data-dir', source]).out;
  const qcosKey = lattice(['keys', 'create', '--service', 'qcos', '--account', licensingKey.account_id, '--data-dir', source]).out;
  assert.equal(lattice(['credits', 'add', '--account', licensingKey.account_id, '--usd', '25', '--data-dir', source]).status, 0);

  const { child, urls } = await startServe(source);
  const file = join(base, 'store.backup');
  let before: Record<string, Map<string, string>>;
  let during: Record<string, Map<string, string>>;
  const store = await openStore({ dataDir: source });
  try {
    assert.equal(store.mode, 'embedded-via-socket');
    // The ledger's own statements, each sent as one simple-protocol message: every client of
    // the socket shares PGlite's one session, where one client's parse and bind may not be split.
    const simple: Sql = {
      query: <T>(text: string, params: readonly unknown[] = []) =>
        store.db.exec(text.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1]))) as Promise<T[]>,
    };
    const lic = { 'x-api-key': licensingKey.key };
    for (let i = 0; i < 5; i++) {
      assert.equal((await call(`${urls.licensing}/api/v1/licenses/generate`, { headers: lic, body: { end_customer_id: `before-${i}` } })).status, 201);
    }
    const job = await call(`${urls.qcos}/v2/circuits`, {
      headers: { 'x-api-key': qcosKey.key },
      body: { circuit: { qasm: 'OPENQASM 2.0; include "qelib1.inc"; qreg q[2]; creg c[2]; h q[0]; cx q[0],q[1]; measure q -> c;', format: 'qasm2' }, backend: 'statevector_simulator', shots: 100 },
    });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    before = await snapshot(store.db);

    // Load: licenses over HTTP and top-ups over the socket, until the backup is written.
    let loading = true;
    let written = 0;
    const load = (async () => {
      for (let i = 0; loading; i++) {
        await Promise.all([
          call(`${urls.licensing}/api/v1/licenses/generate`, { headers: lic, body: { end_customer_id: `during-${i}` } }),
          topUp(simple, { accountId: licensingKey.account_id, micros: 1000 + i, reference: `load-${i}` }),
        ]);
        written++;
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const backup = await latticeAsync(['backup', file, '--data-dir', source]);
    loading = false;
    await load;
    assert.equal(backup.status, 0, JSON.stringify(backup.out));
    assert.equal(backup.out.file, file);
    assert.ok(backup.out.bytes > 100_000 && backup.out.tables > 20, JSON.stringify(backup.out));
    assert.ok(written > 2, `${written} rounds of writes ran alongside the backup`);
    during = await snapshot(store.db);
  } finally {
    await store.close();
    await stop(child);
  }

  // A PostgreSQL store is backed up with pg_dump: the command says so and touches nothing.
  const pg = lattice(['backup', join(base, 'pg.backup'), '--database-url', 'postgres://nobody@127.0.0.1:1/none']);
  assert.equal(pg.status, 1);
  assert.equal(pg.out.error.code, 'postgres_store');
  assert.match(pg.out.error.message, /pg_dump/);

  // Restore refuses a non-empty data dir, and a file that is not a backup.
  const refused = lattice(['restore', file, '--data-dir', source]);
  assert.equal(refused.status, 1);
  assert.equal(refused.out.error.code, 'data_dir_not_empty');
  assert.match(refused.out.error.message, /not empty/);
  const junk = join(base, 'junk.backup');
  writeFileSync(junk, 'not a backup');
  assert.equal(lattice(['restore', junk, '--data-dir', join(base, 'junk-target')]).out.error.code, 'not_a_backup');

  const target = join(base, 'restored');
  mkdirSync(target);
  const restored = lattice(['restore', file, '--data-dir', target]);
  assert.equal(restored.status, 0, JSON.stringify(restored.out));
  assert.deepEqual(restored.out, { restored: true, tables: restored.out.tables });
  assert.ok(restored.out.tables > 20);
  assert.equal(existsSync(join(target, 'lattice.lock')), false);

  // The master key is not in the backup: the restored store opens only once it is put back.
  await assert.rejects(openStore({ dataDir: target, migrations: allMigrations(services) }), /no master key is configured/);
  assert.equal(existsSync(join(target, 'master.key')), false, 'no new key was made');
  copyFileSync(join(source, 'master.key'), join(target, 'master.key'));
  const copy = await openStore({ dataDir: target, migrations: allMigrations(services) });
  try {
    const got = await snapshot(copy.db);
    for (const table of ['accounts', 'api_keys', 'licensing_b_licenses', 'billing_ledger'] as const) {
      for (const [id, row] of before[table]!) assert.equal(got[table]!.get(id), row, `${table} ${id} came back unchanged`);
      // Nothing that was not there: every restored row is one the live store had.
      for (const [id, row] of got[table]!) assert.equal(during[table]!.get(id), row, `${table} ${id} is a row of the live store`);
    }
    for (const id of before.quantum_jobs!.keys()) assert.ok(got.quantum_jobs!.has(id), `job ${id}`);
    // One instant: the balance equals the sum of the ledger rows that came back.
    const [sums] = await copy.db.query<{ ledger: number; balance: number; rows: number }>(
      `SELECT (SELECT sum(amount_micros)::float8 FROM billing_ledger WHERE account_id = $1) AS ledger,
              (SELECT available_micros::float8 FROM billing_balances WHERE account_id = $1) AS balance,
              (SELECT count(*)::int FROM billing_ledger WHERE account_id = $1) AS rows`,
      [licensingKey.account_id],
    );
    assert.equal(sums!.balance, sums!.ledger);
    assert.ok(sums!.rows > before.billing_ledger!.size, 'rows written under load are in the copy too');
  } finally {
    await copy.close();
  }
});
