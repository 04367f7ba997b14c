/**
 * Three `lattice serve` processes on one PostgreSQL serving the positioning service: one runs
 * the receiver and the others answer with its solution; a spoofing attack is one event, also
 * when the leader is killed with SIGKILL during it and another process takes over.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { call } from '../../platform/testing/harness.ts';
import { clusterKey, clusterTestServer, eventually, startCluster, type Cluster } from '../../platform/testing/cluster.ts';

const { url: pg, skip } = await clusterTestServer();
const bin = fileURLToPath(new URL('../../bin/lattice.mjs', import.meta.url));

describe('three processes serving the positioning service', { skip }, () => {
  let cluster: Cluster;
  let auth: Record<string, string>;
  before(async () => {
    cluster = await startCluster(pg!, { services: ['nav'], env: { LATTICE_NAV_RATE: '10' } });
    auth = { authorization: `Bearer ${(await clusterKey(cluster.db, 'nav', 'nav')).key}` };
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
    await eventually('a leader', leaderProcess);
    const answers = await eventually('a fix on every process', async () => {
      const all = await positionsOnAll(cluster.processes);
      return all.every((r) => r.status === 200) && all;
    });
    for (const a of answers) assert.ok(a.body.data.age_ms >= 0 && a.body.data.age_ms < 5_000, JSON.stringify(a.body));
    // A request with a body goes through a follower whole: the leader answers it, in the nav shape.
    const leader = (await leaderProcess())!;
    const follower = cluster.processes.find((p) => p !== leader)!;
    const signed = await call(`${follower.urls.nav}/position`, { headers: auth, body: { authenticate: true } });
    assert.equal(signed.status, 200, JSON.stringify(signed.body));
    assert.ok(signed.body.data.position_id && signed.body.data.signature, JSON.stringify(signed.body));
    const refused = await call(`${follower.urls.nav}/position`, { headers: auth, body: { authenticat: true } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.success, false);
    assert.match(refused.body.error.message, /authenticat/);
    const noKey = await call(`${follower.urls.nav}/position`, { body: {} });
    assert.equal(noKey.status, 401);
  });

  test('a spoofing attack is one event, also when the leader is killed during it and another takes over', async () => {
    scenario('spoofing');
    await eventually('the alert', async () => {
      const r = await call(`${cluster.processes[0]!.urls.nav}/spoofing/status`, { headers: auth });
      return r.status === 200 && r.body.data.status !== 'clear';
    }, 60_000);
    await eventually('the event written', async () => (await events()).length >= 1);
    assert.equal((await events()).length, 1);

    const leader = (await leaderProcess())!;
    await leader.kill('SIGKILL');
    const survivors = cluster.processes.filter((p) => p.alive);
    const next = await eventually('a new leader', async () => {
      const p = await leaderProcess();
      return p && p !== leader && p;
    }, 15_000);
    assert.ok(survivors.includes(next));
    await eventually('the survivors answer again, still under attack', async () => {
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
