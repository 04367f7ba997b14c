/**
 * Three `lattice serve` processes on one PostgreSQL running circuit jobs of qcos, the runtime and
 * the platform: jobs accepted before one process is killed with SIGKILL all finish, once, are
 * readable through the survivors, and the platform's charges add up; the webhooks of jobs
 * submitted to every process are each delivered once (the durable queue's workers are per
 * process, their wake-ups too; which process takes a delivery is the queue table's).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { getBalance, ledgerSum, topUp } from '../../platform/billing/index.ts';
import { call } from '../../platform/testing/harness.ts';
import { BELL } from '../../platform/testing/quantum.ts';
import { clusterKey, clusterTestServer, eventually, startCluster, type Cluster } from '../../platform/testing/cluster.ts';

const { url: pg, skip } = await clusterTestServer();

describe('three processes running circuit jobs (qcos, the runtime and the platform)', { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster(pg!, { services: ['qcos', 'runtime', 'platform'], env: { LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE: '100000' } });
  });
  after(async () => {
    await cluster?.close();
  });

  test('the job.completed webhook of jobs submitted to each of the three processes is delivered once', async () => {
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const address = receiver.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
      const { key } = await clusterKey(cluster.db, 'qcos', 'qcos', 'pro');
      const headers = { 'x-api-key': key };
      const reg = await call(`${cluster.processes[0]!.urls.qcos}/v2/webhooks`, { headers, body: { url, events: ['job.completed'], secret: 'cluster-secret' } });
      assert.equal(reg.status, 201, JSON.stringify(reg.body));
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await call(`${cluster.processes[i % 3]!.urls.qcos}/v2/circuits`, { headers, body: { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', shots: 10 } });
        assert.equal(r.status, 201, JSON.stringify(r.body));
        ids.push(r.body.job_id);
      }
      const deliveries = (id: string) => received.filter((b) => JSON.parse(b).data?.job_id === id).length;
      await eventually('every job.completed delivered', async () => ids.every((id) => deliveries(id) > 0), 60_000);
      // Longer than a worker's poll (1 s) and a maintenance round: a second take would have shown.
      await new Promise((r) => setTimeout(r, 3000));
      assert.deepEqual(ids.map(deliveries), ids.map(() => 1), 'each job.completed once');
      assert.ok(received.every((b) => JSON.parse(b).event === 'job.completed'));
    } finally {
      receiver.close();
    }
  });

  test('jobs accepted before one process is killed with SIGKILL all finish once, readable through the survivors', async () => {
    const { key } = await clusterKey(cluster.db, 'qcos', 'qcos', 'pro');
    const headers = { 'x-api-key': key };
    // Circuits that take a moment, so that some are running in the process that is killed.
    const n = 21;
    const layer = () => `${Array.from({ length: n }, (_, i) => `rx(0.${i + 1}) q[${i}];`).join('\n')}\n${Array.from({ length: n - 1 }, (_, i) => `cx q[${i}],q[${i + 1}];`).join('\n')}`;
    const qasm = `OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[${n}];\ncreg c[${n}];\n${[1, 2, 3].map(layer).join('\n')}\nmeasure q -> c;\n`;
    const ids: string[] = [];
    const runtime = { authorization: `Bearer ${(await clusterKey(cluster.db, 'runtime', 'qrt', undefined, 'developer')).key}` };
    const runtimeIds: string[] = [];
    const platformKey = await clusterKey(cluster.db, 'platform', 'lplat');
    await topUp(cluster.db, { accountId: platformKey.accountId, micros: 50_000_000 });
    const platform = { authorization: `Bearer ${platformKey.key}` };
    const platformIds: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await call(`${cluster.processes[i % 3]!.urls.qcos}/v2/circuits`, { headers, body: { circuit: { qasm, format: 'qasm2' }, backend: 'statevector_simulator', shots: 100 } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ids.push(r.body.job_id ?? r.body.id);
      if (i % 2) continue;
      const pj = await call(`${cluster.processes[i % 3]!.urls.platform}/api/v1/platform/execution/jobs`, {
        headers: platform,
        body: { type: 'QUANTUM_CIRCUIT', qasm, shots: 100, max_runtime_seconds: 300 },
      });
      assert.ok([200, 201, 202].includes(pj.status), JSON.stringify(pj.body));
      platformIds.push(pj.body.id);
      const rt = await call(`${cluster.processes[i % 3]!.urls.runtime}/api/v1/runtime/jobs`, { headers: runtime, body: { backend_id: 'statevector_simulator', qasm, shots: 100 } });
      assert.equal(rt.status, 202, JSON.stringify(rt.body));
      runtimeIds.push(rt.body.job_id);
    }
    const [{ open }] = await cluster.db.query<{ open: number }>("SELECT count(*)::int AS open FROM quantum_jobs WHERE id = ANY($1) AND status <> 'completed'", [ids]);
    await cluster.processes[0]!.kill('SIGKILL');
    assert.ok(open > 0, 'some jobs were still queued or running when the process was killed');
    const survivors = cluster.processes.filter((p) => p.alive);
    for (const [i, id] of ids.entries()) {
      const p = survivors[i % survivors.length]!;
      const done = await eventually(`job ${id} completed`, async () => {
        const r = await call(`${p.urls.qcos}/v2/jobs/${id}`, { headers });
        return r.status === 200 && ['completed', 'failed'].includes(r.body.status) && r.body;
      }, 90_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
    }
    for (const [i, id] of runtimeIds.entries()) {
      const p = survivors[i % survivors.length]!;
      const done = await eventually(`runtime job ${id} completed`, async () => {
        const r = await call(`${p.urls.runtime}/api/v1/runtime/jobs/${id}`, { headers: runtime });
        return r.status === 200 && ['completed', 'failed', 'cancelled'].includes(r.body.status) && r.body;
      }, 90_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(Object.values(done.result.counts as Record<string, number>).reduce((a, n) => a + n, 0), 100);
    }
    for (const [i, id] of platformIds.entries()) {
      const p = survivors[i % survivors.length]!;
      const done = await eventually(`platform job ${id} settled`, async () => {
        const r = await call(`${p.urls.platform}/api/v1/platform/execution/jobs/${id}`, { headers: platform });
        return r.status === 200 && ['SETTLED', 'FAILED', 'CANCELLED'].includes(r.body.status) && r.body;
      }, 90_000);
      assert.equal(done.status, 'SETTLED', JSON.stringify(done));
    }
    // Charged once each: no hold left open, and the ledger adds up to the balance.
    const openHolds = await cluster.db.query("SELECT id FROM billing_holds WHERE account_id = $1 AND status = 'open'", [platformKey.accountId]);
    assert.deepEqual(openHolds, []);
    const balance = await getBalance(cluster.db, platformKey.accountId);
    assert.equal(await ledgerSum(cluster.db, platformKey.accountId), balance.availableMicros);
    // Exactly once: one finished row per job, and each job's result written once.
    const rows = await cluster.db.query<{ id: string; status: string }>('SELECT id, status FROM quantum_jobs WHERE id = ANY($1)', [ids]);
    assert.equal(rows.length, ids.length);
    assert.ok(rows.every((r) => r.status === 'completed'));
  });
  test('small circuits, run on the event loop of the process that took them, read the same from every process', async () => {
    const { key } = await clusterKey(cluster.db, 'qcos', 'qcos', 'pro');
    const headers = { 'x-api-key': key };
    const bell = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';
    const alive = cluster.processes.filter((p) => p.alive);
    const counts: string[] = [];
    for (let i = 0; i < 6; i++) {
      const [submitTo, readFrom] = [alive[i % alive.length]!, alive[(i + 1) % alive.length]!];
      const s = await call(`${submitTo.urls.qcos}/v2/circuits`, { headers, body: { circuit: { qasm: bell, format: 'qasm2' }, backend: 'statevector_simulator', shots: 1000, options: { seed_simulator: 7 } } });
      assert.equal(s.status, 201, JSON.stringify(s.body));
      const r = await call(`${readFrom.urls.qcos}/v2/jobs/${s.body.job_id}/results?wait=30`, { headers });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(Object.keys(r.body.counts).sort(), ['00', '11']);
      counts.push(JSON.stringify(r.body.counts));
    }
    // The same seed gives the same counts whichever process ran the job.
    assert.equal(new Set(counts).size, 1, counts.join(' '));
  });
});
