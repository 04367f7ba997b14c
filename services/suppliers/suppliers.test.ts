/** Interface 2 through HTTP and the database: each supplier's listing, estimate, execute, status and cancel, the legacy routes, health and billing. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getBalance, ledgerSum } from '../../platform/billing/index.ts';
import type { TestService } from '../../platform/testing/harness.ts';
import { BELL, client, credit, ghz, startSuppliers, waitStatus } from './testing.ts';
import { secondsOfMs } from './views.ts';

let svc: TestService;
let c: ReturnType<typeof client>;
let accountId: string;
before(async () => {
  svc = await startSuppliers();
  const k = await svc.newKey({ plan: 'enterprise' });
  accountId = k.accountId;
  c = client(svc, k.key);
  await credit(svc, accountId, 100);
});
after(() => svc.close());

const A = '/api/v1/supplier_a_quantum';
const B = '/api/v1/supplier_b_quantum';
const C = '/api/v1/supplier_c';
const ION = { provider: 'lattice_ion', target: 'lattice_ion_11' };
const GRID = 'arn:lattice:supplier-c:::device/qpu/lattice/lattice_grid_16';
const GRID_SIM = 'arn:lattice:supplier-c:::device/quantum-simulator/lattice/statevector_simulator';

describe('health and supplier status', () => {
  test('/health reports version 2.1, every supplier configured (emulated) and the macro services, without a key', async () => {
    const r = await client(svc, 'none').get('/health');
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'healthy');
    assert.equal(r.body.version, '2.1');
    assert.deepEqual(r.body.suppliers, { hpc_gpu: 'configured', supplier_b_quantum: 'configured', supplier_a_quantum: 'configured', supplier_c: 'configured' });
    assert.equal(r.body.modes.supplier_c, 'emulated');
    assert.equal(r.body.services.database, 'ok');
  });

  test('/api/v1/suppliers/status counts suppliers and providers with their qubits and status', async () => {
    const r = await c.get('/api/v1/suppliers/status');
    assert.equal(r.status, 200);
    assert.equal(r.body.total_suppliers, 4);
    assert.equal(r.body.enabled_suppliers, 4);
    assert.equal(r.body.configured_suppliers, 4);
    const total = r.body.suppliers.reduce((n: number, s: any) => n + s.providers.length, 0);
    assert.equal(r.body.total_providers, total);
    const a = r.body.suppliers.find((s: any) => s.id === 'supplier_a_quantum');
    assert.deepEqual(a.providers, [{ id: 'lattice_ion_11', name: 'Trapped-ion 11-qubit device (emulated)', num_qubits: 11, status: 'ONLINE' }]);
    assert.equal(typeof a.name, 'string');
    assert.equal(a.configured, true);
  });
});

describe('supplier A (per AQT)', () => {
  test('providers list targets, qubits, description and the per_aqt cost model', async () => {
    const r = await c.get(`${A}/providers`);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body.providers[0]).sort(), ['cost_model', 'description', 'id', 'name', 'num_qubits', 'status', 'targets']);
    assert.equal(r.body.providers[0].id, 'lattice_ion');
    assert.deepEqual(r.body.providers[0].targets, ['lattice_ion_11']);
    assert.equal(r.body.providers[0].cost_model, 'per_aqt');
  });

  test('estimate is the device list price in AQT: one AQT per shot at the per-shot price, plus the task fee', async () => {
    const r = await c.post(`${A}/estimate`, { qasm: ghz(4), ...ION, shots: 2000 });
    assert.equal(r.status, 200);
    // The catalog list price of lattice_ion_11: $0.30 per task + $0.03 per shot.
    assert.equal(r.body.cost_breakdown.aqt, 2000);
    assert.equal(r.body.cost_breakdown.rate_per_aqt, 0.03);
    assert.equal(r.body.cost_breakdown.task_fee_usd, 0.3);
    assert.equal(r.body.estimated_cost_usd, 60.3);
    assert.equal(r.body.list_price_usd, 60.3);
    assert.equal(r.body.fees_usd, 0);
    assert.equal(r.body.currency, 'USD');
    assert.equal(r.body.provider, 'lattice_ion');
    assert.equal(r.body.target, 'lattice_ion_11');
    const small = await c.post(`${A}/estimate`, { qasm: BELL, ...ION, shots: 10 });
    assert.equal(small.body.cost_breakdown.aqt, 10);
    assert.equal(small.body.estimated_cost_usd, 0.6);
  });

  test('a target of another provider is refused', async () => {
    const r = await c.post(`${A}/estimate`, { qasm: BELL, provider: 'other', target: 'lattice_ion_11', shots: 10 });
    assert.equal(r.status, 400);
    assert.equal(r.body.error_code, 'INVALID_PARAMETERS');
    assert.equal(r.body.supplier, 'supplier_a_quantum');
  });

  test('execute answers 201 queued, holds the estimate, and the status shows the counts once completed; the hold settles to the cost', async () => {
    const before = await getBalance(svc.db, accountId);
    const r = await c.post(`${A}/execute`, { qasm: BELL, ...ION, shots: 200 });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.body).sort(), ['estimated_cost', 'job_id', 'provider', 'status', 'target']);
    assert.equal(r.body.status, 'queued');
    assert.equal(r.body.estimated_cost, 6.3, 'the list price: $0.30 + 200 x $0.03');
    const done = await waitStatus(c.get, `${A}/status/${r.body.job_id}`);
    assert.equal(done.status, 200);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.result.shots, 200);
    assert.equal(Object.values(done.body.result.counts as Record<string, number>).reduce((a, b) => a + b, 0), 200);
    assert.ok((done.body.result.counts['00'] ?? 0) + (done.body.result.counts['11'] ?? 0) > 150, 'a Bell pair mostly reads 00 or 11');
    assert.equal(done.body.cost_usd, 6.3);
    const afterBal = await getBalance(svc.db, accountId);
    assert.equal(before.availableMicros - afterBal.availableMicros, 6_300_000);
    assert.equal(afterBal.heldMicros, 0);
    assert.equal(await ledgerSum(svc.db, accountId), afterBal.availableMicros);
  });

  test('only a queued job can be cancelled: the waiting one is, its hold is released; a completed one answers JOB_NOT_CANCELLABLE', async () => {
    const busy = await c.post(`${A}/execute`, { qasm: ghz(11), ...ION, shots: 2000 });
    assert.equal(busy.status, 201);
    const waiting = await c.post(`${A}/execute`, { qasm: BELL, ...ION, shots: 10 });
    assert.equal(waiting.status, 201);
    const held = (await getBalance(svc.db, accountId)).heldMicros;
    const cancelled = await c.del(`${A}/jobs/${waiting.body.job_id}`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(cancelled.body.cost_usd, 0);
    assert.equal((await getBalance(svc.db, accountId)).heldMicros, held - 600_000, "the waiting job's list price, $0.30 + 10 x $0.03, is released");
    const again = await c.del(`${A}/jobs/${waiting.body.job_id}`);
    assert.equal(again.status, 400);
    assert.equal(again.body.error_code, 'JOB_NOT_CANCELLABLE');
    await waitStatus(c.get, `${A}/status/${busy.body.job_id}`);
    const late = await c.del(`${A}/jobs/${busy.body.job_id}`);
    assert.equal(late.status, 400);
    assert.equal(late.body.error_code, 'JOB_NOT_CANCELLABLE');
    assert.equal(late.body.supplier, 'supplier_a_quantum');
  });
});

describe('supplier B (per quantum second)', () => {
  test('backends show name, qubits, type, status, cost and processor', async () => {
    const r = await c.get(`${B}/backends`);
    assert.equal(r.status, 200);
    const falcon = r.body.backends.find((b: any) => b.name === 'lattice_falcon_27');
    assert.equal(falcon.num_qubits, 27);
    assert.equal(falcon.type, 'qpu');
    assert.equal(falcon.status, 'ONLINE');
    assert.equal(falcon.cost.usd_per_quantum_second, 1.6);
    assert.equal(typeof falcon.processor, 'string');
    assert.equal(r.body.backends.find((b: any) => b.name === 'statevector_simulator').type, 'simulator');
  });

  test('estimate: quantum seconds from the scheduled gate durations and the shots', async () => {
    const r = await c.post(`${B}/estimate`, { qasm: BELL, backend: 'lattice_falcon_27', shots: 1000 });
    assert.equal(r.status, 200);
    // one shot: h (35 ns), cx (420 ns), measure (5000 ns) + 250 us delay; plus 1 s set-up
    const perShot = (35 + 420 + 5000) / 1e9 + 250e-6;
    assert.ok(Math.abs(r.body.quantum_seconds - (1 + 1000 * perShot)) < 1e-6);
    assert.ok(Math.abs(r.body.estimated_cost_qsh - r.body.quantum_seconds * 1.6) < 1e-5);
    assert.equal(r.body.shots, 1000);
    assert.equal(r.body.backend, 'lattice_falcon_27');
    const deeper = await c.post(`${B}/estimate`, { qasm: ghz(5), backend: 'lattice_falcon_27', shots: 1000 });
    assert.ok(deeper.body.quantum_seconds > r.body.quantum_seconds, 'a longer circuit costs more quantum seconds');
  });

  test('execute and status: lower-case statuses and execution_time in the result', async () => {
    const r = await c.post(`${B}/execute`, { qasm: BELL, backend: 'lattice_line_5', shots: 300 });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body, { job_id: r.body.job_id, status: 'queued', backend: 'lattice_line_5' });
    const done = await waitStatus(c.get, `${B}/status/${r.body.job_id}`);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.backend, 'lattice_line_5');
    assert.equal(done.body.result.shots, 300);
    assert.equal(typeof done.body.result.execution_time, 'number');
    assert.equal(done.body.result.execution_time, Math.round(done.body.result.execution_time * 1e6) / 1e6, 'seconds to the microsecond the engine measures');
    assert.ok(!/\.\d{7,}/.test(JSON.stringify(done.body.result.execution_time)), `no floating-point noise: ${done.body.result.execution_time}`);
  });

  test('run times convert to seconds as measured, without floating-point digits', () => {
    // 0.461 ms / 1000 is 0.00046100000000000004 in floating point, as supplier B once reported.
    assert.equal(secondsOfMs(0.461), 0.000461);
    assert.equal(JSON.stringify(secondsOfMs(0.461)), '0.000461');
    assert.equal(secondsOfMs(1234.5678), 1.234568);
    assert.equal(secondsOfMs(2000), 2);
  });

  test('the simulator backend costs nothing and holds nothing', async () => {
    const before = await getBalance(svc.db, accountId);
    const r = await c.post(`${B}/execute`, { qasm: BELL, backend: 'statevector_simulator', shots: 100 });
    const done = await waitStatus(c.get, `${B}/status/${r.body.job_id}`);
    assert.equal(done.body.cost_usd, 0);
    assert.equal((await getBalance(svc.db, accountId)).availableMicros, before.availableMicros);
  });
});

describe('supplier C (per shot plus task fee, upper-case statuses)', () => {
  test('devices show arn, name, type, qubits, upper-case status and a note', async () => {
    const r = await c.get(`${C}/devices`);
    assert.equal(r.status, 200);
    const grid = r.body.devices.find((d: any) => d.arn === GRID);
    assert.deepEqual(Object.keys(grid).sort(), ['arn', 'name', 'note', 'num_qubits', 'status', 'type']);
    assert.equal(grid.status, 'ONLINE');
    assert.equal(grid.type, 'QPU');
    assert.equal(grid.num_qubits, 16);
  });

  test('estimate is shots x per_shot + task fee', async () => {
    const r = await c.post(`${C}/estimate`, { qasm: BELL, device_arn: GRID, shots: 1000 });
    assert.equal(r.status, 200);
    assert.equal(r.body.device, GRID);
    assert.deepEqual(r.body.pricing, { per_shot: 0.00035, shots: 1000, task_fee: 0.3 });
    assert.equal(r.body.estimated_cost_usd, 0.65);
  });

  test('execute answers QUEUED with the task id; status ends COMPLETED with the storage fields', async () => {
    const r = await c.post(`${C}/execute`, { qasm: BELL, device_arn: GRID, shots: 100, storage_bucket: 'my-results', storage_prefix: 'runs' });
    assert.equal(r.status, 201);
    assert.equal(r.body.status, 'QUEUED');
    assert.equal(r.body.device, GRID);
    assert.equal(r.body.shots, 100);
    assert.match(r.body.task_id, /^task_/);
    const done = await waitStatus(c.get, `${C}/status/${r.body.task_id}`);
    assert.equal(done.body.status, 'COMPLETED');
    assert.equal(done.body.task_id, r.body.task_id);
    assert.equal(done.body.result.shots, 100);
    assert.equal(done.body.storage_result_location, `s3://my-results/runs/${r.body.task_id}`, 'bucket, prefix and task');
    assert.equal(done.body.cost_usd, 0.335);
    // The emulated device wrote the result document to the local object store; it reads back.
    const doc = await c.get(`${C}/storage/my-results/runs/${r.body.task_id}/results.json`);
    assert.equal(doc.status, 200, JSON.stringify(doc.body));
    assert.match(doc.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(doc.body.task_id, r.body.task_id);
    assert.equal(doc.body.device_arn, GRID);
    assert.equal(doc.body.status, 'COMPLETED');
    assert.deepEqual(doc.body.counts, done.body.result.counts);
    assert.equal(doc.body.shots, 100);
    assert.match(doc.body.result_hash, /^sha3-256:[0-9a-f]{64}$/);
  });

  test('an emulated task without a bucket writes to the default local bucket; objects are per account', async () => {
    const r = await c.post(`${C}/execute`, { qasm: BELL, device_arn: GRID_SIM, shots: 20 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.status, 'QUEUED');
    const done = await waitStatus(c.get, `${C}/status/${r.body.task_id}`);
    assert.equal(done.body.storage_result_location, `s3://lattice-local/lattice/${r.body.task_id}`);
    const path = `${C}/storage/lattice-local/lattice/${r.body.task_id}/results.json`;
    const doc = await c.get(path);
    assert.equal(doc.status, 200);
    assert.deepEqual(doc.body.counts, done.body.result.counts);
    const stranger = client(svc, (await svc.newKey({ plan: 'pro' })).key);
    const hidden = await stranger.get(path);
    assert.equal(hidden.status, 404, 'another account has its own buckets');
    assert.equal(hidden.body.error_code, 'NOT_FOUND');
    assert.equal((await c.get(`${C}/storage/lattice-local/lattice/task_none/results.json`)).status, 404);
  });

  test('cancel of a finished task answers JOB_NOT_CANCELLABLE naming supplier_c; an unknown task 404', async () => {
    const r = await c.post(`${C}/execute`, { qasm: BELL, device_arn: GRID, shots: 10 });
    await waitStatus(c.get, `${C}/status/${r.body.task_id}`);
    const late = await c.del(`${C}/jobs/${r.body.task_id}`);
    assert.equal(late.status, 400);
    assert.equal(late.body.error_code, 'JOB_NOT_CANCELLABLE');
    assert.equal(late.body.status, 'COMPLETED');
    const unknown = await c.get(`${C}/status/task_nope`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(Object.keys(unknown.body).sort(), ['detail', 'error_code', 'request_id', 'supplier']);
    assert.equal(unknown.body.error_code, 'JOB_NOT_FOUND');
    assert.equal(unknown.body.supplier, 'supplier_c');
  });
});

describe('legacy HPC GPU routes', () => {
  test('POST /execute takes the caller\'s job_id, GET /status/{job_id} returns the result fields', async () => {
    const r = await c.post('/execute', { qasm: ghz(3), shots: 256, job_id: 'exp-42' });
    assert.equal(r.status, 201);
    assert.equal(r.body.job_id, 'exp-42');
    assert.equal(r.body.backend, 'hpc_gpu');
    assert.equal(typeof r.body.message, 'string');
    assert.ok(Number.isInteger(r.body.estimated_time_seconds));
    const done = await waitStatus(c.get, '/status/exp-42');
    assert.equal(done.body.status, 'completed');
    assert.deepEqual(Object.keys(done.body.result).sort(), ['backend', 'counts', 'device', 'execution_time_seconds', 'num_qubits', 'shots']);
    assert.equal(done.body.result.num_qubits, 3);
    assert.deepEqual(Object.keys(done.body.result.counts).sort(), ['000', '111']);
    assert.ok(done.body.created_at && done.body.completed_at);
  });

  test('a job_id used twice by the account is refused; another account may use the same id and sees only its own', async () => {
    const dup = await c.post('/execute', { qasm: BELL, shots: 10, job_id: 'exp-42' });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.error_code, 'INVALID_PARAMETERS');
    assert.equal(dup.body.supplier, 'hpc_gpu');
    const other = await svc.newKey();
    const o = client(svc, other.key);
    assert.equal((await o.get('/status/exp-42')).status, 404, "another account's job is not found");
    const mine = await o.post('/execute', { qasm: BELL, shots: 10, job_id: 'exp-42' });
    assert.equal(mine.status, 201);
    const done = await waitStatus(o.get, '/status/exp-42');
    assert.equal(done.body.result.num_qubits, 2);
  });

  test('without job_id an id is chosen', async () => {
    const r = await c.post('/execute', { qasm: BELL, shots: 10 });
    assert.equal(r.status, 201);
    assert.match(r.body.job_id, /^job_/);
  });
});
