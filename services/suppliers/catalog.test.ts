/** Interface 4 through HTTP and the database: catalog, validation, estimates, credits, history, batches, webhooks, reports and provenance. */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { TestService } from '../../platform/testing/harness.ts';
import { BELL, client, credit, ghz, startSuppliers, waitStatus } from './testing.ts';

let svc: TestService;
let c: ReturnType<typeof client>;
let accountId: string;
let receiver: Server;
let hookUrl: string;
const received: Array<{ body: any; raw: string; signature: string | undefined }> = [];

before(async () => {
  svc = await startSuppliers();
  const k = await svc.newKey({ plan: 'enterprise' });
  accountId = k.accountId;
  c = client(svc, k.key);
  await credit(svc, accountId, 200);
  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      received.push({ raw, body: JSON.parse(raw), signature: req.headers['x-signature'] as string | undefined });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const address = receiver.address();
  hookUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
});
after(async () => {
  await svc.close();
  receiver.close();
});

async function delivered(event: string, match: (b: any) => boolean, ms = 120_000) {
  const end = Date.now() + ms;
  for (;;) {
    const hit = received.find((d) => d.body.event === event && match(d.body));
    if (hit || Date.now() > end) return hit;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('catalog', () => {
  test('GET /api/v1/backends/all lists every supplier\'s backends in one normalized form with queue figures', async () => {
    const r = await c.get('/api/v1/backends/all');
    assert.equal(r.status, 200);
    assert.deepEqual([...new Set(r.body.backends.map((b: any) => b.provider))].sort(), ['hpc_gpu', 'supplier_a_quantum', 'supplier_b_quantum', 'supplier_c']);
    assert.equal(r.body.total, r.body.backends.length);
    for (const b of r.body.backends) {
      for (const f of ['id', 'provider', 'name', 'type', 'num_qubits', 'status', 'max_shots', 'cost_model', 'queue_length', 'average_wait_minutes']) assert.ok(f in b, `${b.id} has ${f}`);
      assert.ok(['qpu', 'simulator'].includes(b.type));
    }
    assert.equal(r.body.backends.find((b: any) => b.id === 'lattice_ion_11').cost_model, 'per_aqt');
  });

  test('GET /api/v1/pricing: cost per shot and minimum charge of every backend from the cost models', async () => {
    const r = await c.get('/api/v1/pricing');
    assert.equal(r.status, 200);
    const by = (p: string, b: string) => r.body.prices.find((x: any) => x.provider === p && x.backend === b);
    const ion = by('supplier_a_quantum', 'lattice_ion_11');
    assert.equal(ion.cost_per_shot_usd, 0.03, 'the list price per shot (one AQT per shot)');
    assert.equal(ion.minimum_charge_usd, 0.3, 'the task fee');
    const grid = by('supplier_c', 'arn:lattice:supplier-c:::device/qpu/lattice/lattice_grid_16');
    assert.equal(grid.cost_per_shot_usd, 0.00035);
    assert.equal(grid.minimum_charge_usd, 0.3);
    const falcon = by('supplier_b_quantum', 'lattice_falcon_27');
    assert.ok(Math.abs(falcon.cost_per_shot_usd - ((35 + 420 + 5000) / 1e9 + 250e-6) * 1.6) < 1e-8);
    assert.equal(falcon.minimum_charge_usd, 1.6);
    assert.equal(by('hpc_gpu', 'statevector_simulator').cost_per_shot_usd, 0);
  });

  test('GET /api/v1/tiers: execution tiers with pricing and the plans of the spec\'s table', async () => {
    const r = await c.get('/api/v1/tiers');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.tiers.map((t: any) => t.cost_model), ['free', 'per_aqt', 'per_second', 'per_shot']);
    assert.deepEqual(r.body.plans, [
      { name: 'free', requests_per_minute: 10, jobs_per_day: 10, max_qubits: 20 },
      { name: 'pro', requests_per_minute: 60, jobs_per_day: 100, max_qubits: 50 },
      { name: 'enterprise', requests_per_minute: 300, jobs_per_day: null, max_qubits: 256 },
    ]);
    assert.equal(r.body.current_plan, 'enterprise');
  });

  test('GET /api/v1/credits/balance reads the ledger: top-ups minus charges, holds apart', async () => {
    const k = await svc.newKey();
    const fresh = client(svc, k.key);
    assert.deepEqual((await fresh.get('/api/v1/credits/balance')).body, { account_id: k.accountId, balance_usd: 0, held_usd: 0, currency: 'USD' });
    await credit(svc, k.accountId, 12.5);
    assert.equal((await fresh.get('/api/v1/credits/balance')).body.balance_usd, 12.5);
  });
});

describe('validate and estimate', () => {
  test('a good circuit: valid, with per-target findings (native gates, qubit limits) and no execution', async () => {
    const before = Number((await svc.db.query<{ n: string }>('SELECT count(*) AS n FROM quantum_jobs'))[0]!.n);
    const r = await c.post('/api/v1/validate', { qasm: ghz(12), shots: 20_000 });
    assert.equal(r.status, 200);
    assert.equal(r.body.valid, true);
    assert.deepEqual(r.body.syntax, { valid: true, errors: [] });
    assert.equal(r.body.circuit.num_qubits, 12);
    assert.equal(r.body.circuit.two_qubit_gates, 11);
    const ion = r.body.targets.find((t: any) => t.backend === 'lattice_ion_11');
    assert.equal(ion.valid, false);
    assert.deepEqual(ion.errors.map((e: any) => e.code).sort(), ['QUBITS_EXCEEDED', 'SHOTS_EXCEEDED']);
    assert.equal(ion.warnings[0].code, 'GATES_TRANSLATED');
    const sv = r.body.targets.find((t: any) => t.provider === 'hpc_gpu');
    assert.equal(sv.valid, true);
    assert.equal(Number((await svc.db.query<{ n: string }>('SELECT count(*) AS n FROM quantum_jobs'))[0]!.n), before, 'nothing ran');
  });

  test('syntax errors, missing measurements, and mid-circuit measurements on supplier A', async () => {
    const bad = await c.post('/api/v1/validate', { qasm: 'OPENQASM 2.0;\nqreg q[1];\nfoo q[0];' });
    assert.equal(bad.status, 200);
    assert.equal(bad.body.valid, false);
    assert.equal(bad.body.syntax.valid, false);
    assert.equal(bad.body.errors[0].code, 'CIRCUIT_INVALID');
    const none = await c.post('/api/v1/validate', { qasm: 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\nh q[0];' });
    assert.equal(none.body.warnings[0].code, 'NO_MEASUREMENTS');
    const mid = await c.post('/api/v1/validate', {
      qasm: 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\nmeasure q[0] -> c[0];\nx q[0];\nmeasure q[1] -> c[1];',
      targets: [{ provider: 'supplier_a_quantum', backend: 'lattice_ion_11' }, { provider: 'supplier_b_quantum', backend: 'lattice_line_5' }],
    });
    assert.equal(mid.body.targets.length, 2);
    assert.equal(mid.body.targets[0].errors[0].code, 'MID_CIRCUIT_MEASUREMENT');
    assert.equal(mid.body.targets[1].valid, true);
    assert.equal(mid.body.targets[1].warnings.some((w: any) => w.code === 'MID_CIRCUIT_MEASUREMENT'), true);
    const unknown = await c.post('/api/v1/validate', { qasm: BELL, targets: [{ provider: 'supplier_c', backend: 'nope' }] });
    assert.equal(unknown.status, 400);
  });

  test('POST /api/v1/estimate prices a circuit on every backend, cheapest runnable first', async () => {
    const r = await c.post('/api/v1/estimate', { qasm: BELL, shots: 1000 });
    assert.equal(r.status, 200);
    assert.equal(r.body.cheapest.estimated_cost_usd, 0);
    const costs = r.body.estimates.map((e: any) => e.estimated_cost_usd);
    assert.deepEqual(costs, [...costs].sort((a: number, b: number) => a - b));
    const ion = r.body.estimates.find((e: any) => e.backend === 'lattice_ion_11');
    assert.equal(ion.estimated_cost_usd, 30.3, 'the list price: $0.30 + 1000 x $0.03');
    assert.equal(ion.cost_model, 'per_aqt');
    const big = await c.post('/api/v1/estimate', { qasm: ghz(12), shots: 100, targets: [{ provider: 'supplier_a_quantum', backend: 'lattice_ion_11' }] });
    assert.equal(big.body.estimates[0].runnable, false);
    assert.equal(big.body.cheapest, null);
  });
});

describe('jobs, batches and webhooks', () => {
  let hookSecret: string;
  test('POST /api/v1/webhooks registers the four events; other names are refused', async () => {
    const bad = await c.post('/api/v1/webhooks', { url: hookUrl, events: ['job.started'] });
    assert.equal(bad.status, 422);
    const badUrl = await c.post('/api/v1/webhooks', { url: 'ftp://x', events: ['job.completed'] });
    assert.equal(badUrl.status, 400);
    const r = await c.post('/api/v1/webhooks', { url: hookUrl, events: ['job.completed', 'job.failed', 'optimization.done', 'batch.completed'], secret: 'shh-123' });
    assert.equal(r.status, 201);
    assert.equal(r.body.secret, 'shh-123');
    hookSecret = r.body.secret;
    const list = await c.get('/api/v1/webhooks');
    assert.equal(list.body.webhooks.length, 1);
    assert.equal('secret' in list.body.webhooks[0], false);
  });

  test('a device job delivers optimization.done and job.completed with its details, signed with the secret', async () => {
    const r = await c.post('/api/v1/supplier_b_quantum/execute', { qasm: ghz(3), backend: 'lattice_line_5', shots: 100 });
    await waitStatus(c.get, `/api/v1/supplier_b_quantum/status/${r.body.job_id}`);
    const done = await delivered('job.completed', (b) => b.data.job_id === r.body.job_id);
    assert.ok(done, 'job.completed delivered');
    assert.equal(done!.signature, `sha256=${createHmac('sha256', hookSecret).update(done!.raw).digest('hex')}`);
    assert.equal(done!.body.data.status, 'completed');
    assert.equal(done!.body.data.provider, 'supplier_b_quantum');
    assert.equal(done!.body.data.result.shots, 100);
    const opt = await delivered('optimization.done', (b) => b.data.job_id === r.body.job_id);
    assert.ok(opt, 'optimization.done delivered');
    assert.equal(typeof opt!.body.data.optimization.optimized_depth, 'number');
    const hooks = (await c.get('/api/v1/webhooks')).body.webhooks;
    const log = await c.get(`/api/v1/webhooks/${hooks[0].webhook_id}/deliveries`);
    assert.equal(log.status, 200);
    assert.ok(log.body.deliveries.some((d: any) => d.success === true));
    const foreign = await client(svc, (await svc.newKey()).key).get(`/api/v1/webhooks/${hooks[0].webhook_id}/deliveries`);
    assert.equal(foreign.status, 404, "another account's webhook is not found");
  });

  test('a batch simulation: 201 with its jobs, status processing then completed, batch.completed delivered; unknown batch 404', async () => {
    const r = await c.post('/api/v1/batch', { circuits: [{ qasm: BELL, shots: 50 }, { qasm: ghz(3), shots: 60 }, { qasm: ghz(4), shots: 70 }] });
    assert.equal(r.status, 201);
    assert.equal(r.body.job_ids.length, 3);
    assert.equal(r.body.status, 'processing');
    const path = `/api/v1/batch/${r.body.batch_id}/status`;
    const done = await waitStatus(c.get, path, ['completed']);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.total, 3);
    assert.equal(done.body.completed, 3);
    assert.deepEqual(done.body.jobs.map((j: any) => j.result.shots), [50, 60, 70]);
    const hook = await delivered('batch.completed', (b) => b.data.batch_id === r.body.batch_id);
    assert.ok(hook, 'batch.completed delivered');
    assert.equal(hook!.body.data.completed, 3);
    const unknown = await c.get('/api/v1/batch/batch_missing/status');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.detail, 'Batch not found');
    const bad = await c.post('/api/v1/batch', { circuits: [{ qasm: BELL, shots: 5 }, { qasm: 'nonsense', shots: 5 }] });
    assert.equal(bad.status, 400);
    assert.match(bad.body.detail, /^circuits\[1\]/);
  });

  test('GET /api/v1/jobs/history filters by status and provider, newest first', async () => {
    const all = await c.get('/api/v1/jobs/history?limit=100');
    assert.equal(all.status, 200);
    assert.ok(all.body.total >= 4);
    const times = all.body.jobs.map((j: any) => j.created_at);
    assert.deepEqual(times, [...times].sort().reverse());
    const hpc = await c.get('/api/v1/jobs/history?provider=hpc_gpu&status=completed');
    assert.ok(hpc.body.jobs.length >= 3);
    assert.ok(hpc.body.jobs.every((j: any) => j.provider === 'hpc_gpu' && j.status === 'completed'));
    const queued = await c.get('/api/v1/jobs/history?status=queued');
    assert.ok(queued.body.jobs.every((j: any) => j.status === 'queued'));
    const future = await c.get(`/api/v1/jobs/history?from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    assert.equal(future.body.total, 0, 'nothing was created after the period start');
    const past = await c.get(`/api/v1/jobs/history?to=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}&limit=500`);
    assert.equal(past.body.total, all.body.total);
    const missing = await c.get('/api/v1/supplier_a_quantum/status/job_none');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('x-ratelimit-limit'), '300', 'the rate-limit headers are on errors too');
    const page = await c.get('/api/v1/jobs/history?limit=1&offset=1');
    assert.equal(page.body.jobs.length, 1);
    assert.equal(page.body.jobs[0].job_id, all.body.jobs[1].job_id);
  });
});

describe('webhook removal', () => {
  test('DELETE /api/v1/webhooks/{id} removes it; another account\'s delete and a second delete answer 404', async () => {
    const id = (await c.get('/api/v1/webhooks')).body.webhooks[0].webhook_id;
    const foreign = await client(svc, (await svc.newKey()).key).del(`/api/v1/webhooks/${id}`);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error_code, 'NOT_FOUND');
    const r = await c.del(`/api/v1/webhooks/${id}`);
    assert.deepEqual(r.body, { webhook_id: id, deleted: true });
    assert.equal((await c.del(`/api/v1/webhooks/${id}`)).status, 404);
    assert.deepEqual((await c.get('/api/v1/webhooks')).body.webhooks, []);
  });
});

describe('reports and provenance', () => {
  test('chargeback per provider sums the charges of the job table and the ledger, as JSON and CSV', async () => {
    const r = await c.post('/api/v1/reports/chargeback', { group_by: 'provider' });
    assert.equal(r.status, 200);
    const b = r.body.rows.find((x: any) => x.group === 'supplier_b_quantum');
    assert.ok(b.charged_usd > 0);
    assert.equal(b.charged_usd, b.ledger_charged_usd, 'jobs and ledger agree');
    assert.equal(r.body.total_usd, Math.round(r.body.rows.reduce((s: number, x: any) => s + x.charged_usd, 0) * 1e6) / 1e6);
    const csv = await c.post('/api/v1/reports/chargeback', { group_by: 'backend', format: 'csv' });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /text\/csv/);
    const lines = String(csv.body).trim().split('\r\n');
    assert.equal(lines[0], 'group,jobs,completed_jobs,shots,charged_usd,ledger_charged_usd,held_usd');
    assert.ok(lines.some((l) => l.startsWith('supplier_b_quantum:lattice_line_5,')));
    const bad = await c.post('/api/v1/reports/chargeback', { from: '2026-12-01T00:00:00Z', to: '2026-11-01T00:00:00Z' });
    assert.equal(bad.status, 400);
  });

  test('audit lists ledger movements and job events in time order; usage sums by provider and day', async () => {
    const r = await c.post('/api/v1/reports/audit', {});
    assert.equal(r.status, 200);
    const actions = new Set(r.body.entries.map((e: any) => `${e.source}:${e.action}`));
    for (const a of ['ledger:topup', 'ledger:hold', 'ledger:charge', 'ledger:release', 'job:submitted', 'job:completed']) assert.ok(actions.has(a), a);
    const at = r.body.entries.map((e: any) => e.at);
    assert.deepEqual(at, [...at].sort());
    const csv = await c.post('/api/v1/reports/audit', { format: 'csv' });
    assert.equal(String(csv.body).split('\r\n')[0], 'at,source,action,service,job_id,provider,backend,amount_usd,reference,hash');
    const u = await c.get('/api/v1/reports/usage');
    assert.equal(u.status, 200);
    const hist = await c.get('/api/v1/jobs/history?limit=500');
    assert.equal(u.body.totals.jobs, hist.body.total);
    assert.equal(u.body.by_provider.reduce((s: number, p: any) => s + p.jobs, 0), hist.body.total);
    const ucsv = await c.get('/api/v1/reports/usage?format=csv');
    assert.equal(String(ucsv.body).split('\r\n')[0], 'day,provider,jobs,completed,failed,cancelled,shots,charged_usd');
  });

  test('provenance: hashes, the lineage chain and its check; a changed record breaks the chain; other plans get 403', async () => {
    const r = await c.post('/api/v1/supplier_c/execute', { qasm: BELL, device_arn: 'arn:lattice:supplier-c:::device/qpu/lattice/lattice_grid_16', shots: 20 });
    await waitStatus(c.get, `/api/v1/supplier_c/status/${r.body.task_id}`);
    const p = await c.get(`/api/v1/provenance/${r.body.task_id}`);
    assert.equal(p.status, 200);
    assert.match(p.body.hashes.circuit_hash, /^sha3-256:[0-9a-f]{64}$/);
    assert.match(p.body.hashes.result_hash, /^sha3-256:[0-9a-f]{64}$/);
    assert.deepEqual(p.body.lineage.map((l: any) => l.event), ['submitted', 'completed']);
    assert.equal(p.body.lineage[1].prev_hash, p.body.lineage[0].hash);
    assert.equal(p.body.chain_verification.valid, true);
    assert.equal(p.body.reproducibility_score, 1);
    await svc.db.query(`UPDATE supplier_provenance SET payload = jsonb_set(payload, '{shots}', '999') WHERE seq = 1 AND job_row_id = (SELECT id FROM supplier_jobs WHERE public_id = $1)`, [r.body.task_id]);
    const tampered = await c.get(`/api/v1/provenance/${r.body.task_id}`);
    assert.equal(tampered.body.chain_verification.valid, false);
    assert.equal(tampered.body.chain_verification.broken_at, 1);
    assert.ok(tampered.body.reproducibility_score < 1);
    const pro = client(svc, (await svc.newKey({ plan: 'pro' })).key);
    const refused = await pro.get(`/api/v1/provenance/${r.body.task_id}`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error_code, 'LICENSE_REQUIRED');
  });
});
