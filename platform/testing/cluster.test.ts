/**
 * A cluster of three `lattice serve` processes on one PostgreSQL database behaves as one
 * process: limits are exact with requests spread over the three, a revoked key stops working
 * on all of them, the positioning receiver runs once and hands over when its leader is killed,
 * and circuit jobs accepted before a SIGKILL finish exactly once on the survivors.
 * Runs when a PostgreSQL server is reachable (CI has one), in the embedded pass only.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { createAccount, setPlan } from '../identity/accounts.ts';
import { createKey, revokeKey } from '../identity/keys.ts';
import { call } from './harness.ts';
import { clusterDatabaseUrl, startCluster, type Cluster } from './cluster.ts';

const pg = process.env.DATABASE_URL ? null : await clusterDatabaseUrl();
const skip = process.env.DATABASE_URL ? 'runs once, in the embedded pass' : !pg && 'needs a PostgreSQL server (LATTICE_TEST_POSTGRES_URL)';
const bin = fileURLToPath(new URL('../../bin/lattice.mjs', import.meta.url));

async function newKey(db: Cluster['db'], service: string, prefix: string, plan?: string): Promise<{ key: string; id: string; accountId: string }> {
  const account = await createAccount(db, { email: `cluster-${Math.random().toString(36).slice(2)}@example.test` });
  if (plan) await setPlan(db, account.id, service, plan);
  const key = await createKey(db, { accountId: account.id, service, prefix });
  return { key: key.key, id: key.id, accountId: account.id };
}

/** Waits, when needed, until a fresh UTC minute has at least `seconds` left. */
async function roomInMinute(seconds: number): Promise<void> {
  const left = 60 - new Date().getUTCSeconds();
  if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('three processes serving core and platform', { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster(pg!, { services: ['core', 'platform'], env: { LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE: '20' } });
  });
  after(async () => {
    await cluster?.close();
  });

  test("a key's requests per minute are exact with requests spread over the three", async () => {
    const { key } = await newKey(cluster.db, 'core', 'core', 'free');
    await roomInMinute(30);
    const statuses: number[] = [];
    for (let i = 0; i < 75; i++) {
      const p = cluster.processes[i % 3]!;
      statuses.push((await call(`${p.urls.core}/api/v2/backends`, { headers: { 'x-api-key': key } })).status);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 60, statuses.join(','));
    assert.deepEqual(statuses.slice(60), new Array(15).fill(429));
  });

  test('concurrent requests over the three admit no more than the limit', async () => {
    const { key } = await newKey(cluster.db, 'core', 'core', 'free');
    await roomInMinute(30);
    const all = await Promise.all(
      Array.from({ length: 120 }, (_, i) => call(`${cluster.processes[i % 3]!.urls.core}/api/v2/backends`, { headers: { 'x-api-key': key } })),
    );
    const ok = all.filter((r) => r.status === 200).length;
    assert.ok(ok <= 60, `${ok} admitted`);
    // Units a process held unspent go back within a second: the rest of the minute's budget is then admitted.
    await new Promise((r) => setTimeout(r, 1_500));
    let more = 0;
    for (let i = 0; i < 60; i++) if ((await call(`${cluster.processes[i % 3]!.urls.core}/api/v2/backends`, { headers: { 'x-api-key': key } })).status === 200) more++;
    assert.equal(ok + more, 60);
  });

  test("the platform's per-address limit is counted once for the cluster", async () => {
    await roomInMinute(20);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await call(`${cluster.processes[i % 3]!.urls.platform}/api/v1/platform/execution/jobs/none`)).status);
    // Before the key is looked at: 20 pass the limit (and are 401 without a key), the rest are 429.
    assert.equal(statuses.filter((s) => s !== 429).length, 20, statuses.join(','));
  });

  test('a revoked key stops working on every process at the next request', async () => {
    const { key, id } = await newKey(cluster.db, 'core', 'core', 'pro');
    for (const p of cluster.processes) assert.equal((await call(`${p.urls.core}/api/v2/backends`, { headers: { 'x-api-key': key } })).status, 200);
    await revokeKey(cluster.db, id);
    // NOTIFY is delivered when the revocation commits; allow its delivery (milliseconds), not a cache's lifetime.
    await new Promise((r) => setTimeout(r, 200));
    for (const p of cluster.processes) assert.equal((await call(`${p.urls.core}/api/v2/backends`, { headers: { 'x-api-key': key } })).status, 401);
  });
});

describe('three processes serving the positioning service', { skip }, () => {
  let cluster: Cluster;
  let auth: Record<string, string>;
  before(async () => {
    cluster = await startCluster(pg!, { services: ['nav'], env: { LATTICE_NAV_RATE: '10' } });
    auth = { authorization: `Bearer ${(await newKey(cluster.db, 'nav', 'nav')).key}` };
  });
  after(async () => {
    await cluster?.close();
  });

  const leaderRows = () => cluster.db.query<{ holder: string; address: string }>("SELECT holder, address FROM cluster_leaders WHERE name LIKE 'nav-receiver:%'");
  const leaderProcess = async () => {
    const [row] = await leaderRows();
    return row ? cluster.processes.find((p) => p.alive && row.holder.split(':')[1] === String(p.pid)) : undefined;
  };
  const positionsOnAll = (procs: typeof cluster.processes) =>
    Promise.all(procs.map((p) => call(`${p.urls.nav}/position/latest`, { headers: auth })));
  const scenario = (name: string) => {
    const r = spawnSync(process.execPath, [bin, 'nav', 'scenario', name, '--json', '--wait', '10'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...cluster.env } });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).applied, true, r.stdout);
  };
  const events = () => cluster.db.query<{ event_id: string; resolved_at: Date | null }>('SELECT event_id, resolved_at FROM nav_spoofing_events');

  test('one process runs the receiver; every process answers with its solution', async () => {
    assert.equal((await leaderRows()).length, 1);
    await until('a leader', leaderProcess);
    const answers = await until('a fix on every process', async () => {
      const all = await positionsOnAll(cluster.processes);
      return all.every((r) => r.status === 200) && all;
    });
    for (const a of answers) assert.ok(a.body.data.age_ms >= 0 && a.body.data.age_ms < 5_000, JSON.stringify(a.body));
  });

  test('a spoofing attack is one event, also when the leader is killed during it and another takes over', async () => {
    scenario('spoofing');
    await until('the alert', async () => {
      const r = await call(`${cluster.processes[0]!.urls.nav}/spoofing/status`, { headers: auth });
      return r.status === 200 && r.body.data.status !== 'clear';
    }, 60_000);
    await until('the event written', async () => (await events()).length >= 1);
    assert.equal((await events()).length, 1);

    const leader = (await leaderProcess())!;
    await leader.kill('SIGKILL');
    const survivors = cluster.processes.filter((p) => p.alive);
    const next = await until('a new leader', async () => {
      const p = await leaderProcess();
      return p && p !== leader && p;
    }, 15_000);
    assert.ok(survivors.includes(next));
    await until('the survivors answer again, still under attack', async () => {
      const all = await Promise.all(survivors.map((p) => call(`${p.urls.nav}/spoofing/status`, { headers: auth })));
      return all.every((r) => r.status === 200 && r.body.data.status !== 'clear');
    }, 60_000);
    // The new leader took the open event over instead of opening a second one.
    await new Promise((r) => setTimeout(r, 1_000));
    const rows = await events();
    assert.equal(rows.length, 1, JSON.stringify(rows));
    assert.equal(rows[0]!.resolved_at, null);
    scenario('clear');
  });
});

describe('three processes running circuit jobs', { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster(pg!, { services: ['qcos'] });
  });
  after(async () => {
    await cluster?.close();
  });

  test('jobs accepted before one process is killed with SIGKILL all finish once, readable through the survivors', async () => {
    const { key } = await newKey(cluster.db, 'qcos', 'qcos', 'pro');
    const headers = { 'x-api-key': key };
    // Circuits that take a moment, so that some are running in the process that is killed.
    const n = 21;
    const layer = () => `${Array.from({ length: n }, (_, i) => `rx(0.${i + 1}) q[${i}];`).join('\n')}\n${Array.from({ length: n - 1 }, (_, i) => `cx q[${i}],q[${i + 1}];`).join('\n')}`;
    const qasm = `OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[${n}];\ncreg c[${n}];\n${[1, 2, 3].map(layer).join('\n')}\nmeasure q -> c;\n`;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await call(`${cluster.processes[i % 3]!.urls.qcos}/v2/circuits`, { headers, body: { circuit: { qasm, format: 'qasm2' }, backend: 'statevector_simulator', shots: 100 } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ids.push(r.body.job_id ?? r.body.id);
    }
    const [{ open }] = await cluster.db.query<{ open: number }>("SELECT count(*)::int AS open FROM quantum_jobs WHERE id = ANY($1) AND status <> 'completed'", [ids]);
    await cluster.processes[0]!.kill('SIGKILL');
    assert.ok(open > 0, 'some jobs were still queued or running when the process was killed');
    const survivors = cluster.processes.filter((p) => p.alive);
    for (const [i, id] of ids.entries()) {
      const p = survivors[i % survivors.length]!;
      const done = await until(`job ${id} completed`, async () => {
        const r = await call(`${p.urls.qcos}/v2/jobs/${id}`, { headers });
        return r.status === 200 && ['completed', 'failed'].includes(r.body.status) && r.body;
      }, 90_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
    }
    // Exactly once: one finished row per job, and each job's result written once.
    const rows = await cluster.db.query<{ id: string; status: string }>('SELECT id, status FROM quantum_jobs WHERE id = ANY($1)', [ids]);
    assert.equal(rows.length, ids.length);
    assert.ok(rows.every((r) => r.status === 'completed'));
  });
});
