/**
 * One device, one price: the same job (circuit, shots, device) costs the catalog's list price
 * (engines/quantum/pricing.ts) on qcos, the runtime, the platform and the suppliers API, each
 * through its own HTTP routes and database, plus only the fee a service states (supplier B's
 * set-up second). It spans four services, so it stands beside their list (services/index.ts)
 * rather than in one of them: each starts from its own test helpers, the rest is the
 * platform's (platform/testing).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getBackend } from '../engines/quantum/backends.ts';
import { listPrice } from '../engines/quantum/pricing.ts';
import { jsonClient, type TestService } from '../platform/testing/harness.ts';
import { BELL, creditUsd } from '../platform/testing/quantum.ts';
import { client as platformClient, settled, startPlatform } from './platform/testing.ts';
import { startQcos } from './qcos/testing.ts';
import { startRuntime } from './runtime/testing.ts';
import { startSuppliers } from './suppliers/testing.ts';

const SHOTS = 200;
const DEVICES = ['lattice_line_5', 'lattice_falcon_27', 'lattice_ion_11', 'lattice_grid_16'];
const list = (id: string) => listPrice(getBackend(id)!, BELL, SHOTS).usd;

let qcos: TestService;
let runtime: TestService;
let platform: TestService;
let suppliers: TestService;

before(async () => {
  qcos = await startQcos();
  runtime = await startRuntime();
  platform = await startPlatform();
  suppliers = await startSuppliers();
});
after(async () => {
  await Promise.all([qcos?.close(), runtime?.close(), platform?.close(), suppliers?.close()]);
});

describe('the list price of a job', () => {
  test('a Bell job of 200 shots on lattice_line_5 is $0.081404 of QPU time at $96 per minute', () => {
    // One shot: sx (35 ns) + cx (350 ns) + readout (4 us) = 4.385 us, plus 250 us between shots.
    assert.equal(list('lattice_line_5'), Math.ceil(((200 * (4.385 + 250)) / 1e6 / 60) * 96 * 1e6) / 1e6);
    assert.equal(list('lattice_line_5'), 0.081404);
    assert.equal(list('lattice_ion_11'), 6.3);
    assert.equal(list('lattice_grid_16'), 0.37);
  });

  test('qcos, the runtime, the platform and the suppliers API price the same job the same, plus stated fees', async () => {
    const q = jsonClient(qcos.url, { 'x-api-key': (await qcos.newKey({ plan: 'hybrid' })).key });
    const r = jsonClient(runtime.url, { authorization: `Bearer ${(await runtime.newKey()).key}` });
    const pk = await platform.newKey({ plan: 'prepaid' });
    await creditUsd(platform.db, pk.accountId, 100);
    const p = platformClient(platform.url, pk.key);
    const sk = await suppliers.newKey({ plan: 'pro' });
    await creditUsd(suppliers.db, sk.accountId, 100, 'test');
    const s = jsonClient(suppliers.url, { 'x-api-key': sk.key });

    const platformJobs: Record<string, string> = {};
    const qcosJobs: string[] = [];
    for (const id of DEVICES) {
      const expected = list(id);
      const qj = await q.post('/v2/circuits', { circuit: { qasm: BELL, format: 'qasm2' }, backend: id, shots: SHOTS, optimization_level: 1 });
      assert.equal(qj.status, 201, JSON.stringify(qj.body));
      assert.equal(qj.body.estimated_cost_usd, expected, `qcos ${id}`);
      qcosJobs.push(qj.body.job_id);

      const rj = await r.post('/api/v1/runtime/jobs', { backend_id: id, qasm: BELL, shots: SHOTS });
      assert.equal(rj.status, 202, JSON.stringify(rj.body));
      assert.equal(rj.body.estimated_cost_usd, expected, `runtime ${id}`);
      assert.equal(rj.body.cost_basis.fees_usd, 0);

      const pj = await p.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: SHOTS, backend: id, max_runtime_seconds: 120 });
      assert.equal(pj.status, 201, JSON.stringify(pj.body));
      assert.equal(pj.body.reservation.held_usd, expected, `platform ${id} holds the list price`);
      platformJobs[id] = pj.body.id;
    }

    const a = await s.post('/api/v1/supplier_a_quantum/estimate', { qasm: BELL, provider: 'lattice_ion', target: 'lattice_ion_11', shots: SHOTS });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.estimated_cost_usd, list('lattice_ion_11'));
    assert.equal(a.body.fees_usd, 0);
    const c = await s.post('/api/v1/supplier_c/estimate', { qasm: BELL, device_arn: 'arn:lattice:supplier-c:::device/qpu/lattice/lattice_grid_16', shots: SHOTS });
    assert.equal(c.body.estimated_cost_usd, list('lattice_grid_16'));
    assert.equal(c.body.fees_usd, 0);
    for (const id of ['lattice_line_5', 'lattice_falcon_27']) {
      const b = await s.post('/api/v1/supplier_b_quantum/estimate', { qasm: BELL, backend: id, shots: SHOTS });
      assert.equal(b.status, 200, JSON.stringify(b.body));
      assert.equal(b.body.list_price_usd, list(id), `supplier B ${id} list price`);
      assert.equal(b.body.fees_usd, 1.6, 'the stated set-up fee: one quantum second');
      assert.equal(b.body.cost_breakdown.setup_fee_usd, 1.6);
      assert.equal(Math.round((b.body.estimated_cost_qsh - 1.6) * 1e6) / 1e6, list(id), `supplier B ${id}: list price plus the set-up fee`);
      assert.equal(Math.round(b.body.quantum_seconds * 1.6 * 1e6) / 1e6 >= b.body.estimated_cost_qsh - 1e-6, true);
    }

    // What a completed job is charged is the same list price.
    const done = await settled(p, platformJobs.lattice_line_5!, 90);
    assert.equal(done.body.status, 'SETTLED', JSON.stringify(done.body));
    assert.equal(done.body.charged_usd, list('lattice_line_5'));
    // qcos bills the completed runs at their list price (to the cent).
    let sum = 0;
    for (const id of qcosJobs) {
      const j = (await q.get(`/v2/jobs/${id}?wait=60`)).body;
      assert.equal(j.status, 'completed', JSON.stringify(j));
      sum += j.estimated_cost_usd;
    }
    assert.equal((await q.get('/v2/account/usage')).body.estimated_bill, Math.round(sum * 100) / 100);
    const executed = await s.post('/api/v1/supplier_c/execute', { qasm: BELL, device_arn: 'arn:lattice:supplier-c:::device/qpu/lattice/lattice_grid_16', shots: SHOTS });
    assert.equal(executed.status, 201, JSON.stringify(executed.body));
    const task = await s.get(`/api/v1/supplier_c/status/${executed.body.task_id}`);
    assert.equal(task.body.estimated_cost_usd, list('lattice_grid_16'), 'supplier C holds the list price');
  });

  test('every service publishes the same rates for each device', async () => {
    const q = jsonClient(qcos.url, { 'x-api-key': (await qcos.newKey({ plan: 'pro' })).key });
    const backends = (await q.get('/v2/backends')).body.backends as Array<{ id: string; pricing: Record<string, number> }>;
    const s = jsonClient(suppliers.url, { 'x-api-key': (await suppliers.newKey({ plan: 'pro' })).key });
    const prices = (await s.get('/api/v1/pricing')).body.prices as Array<{ backend: string; rates: Record<string, number> }>;
    for (const id of DEVICES) {
      const p = getBackend(id)!.price;
      const shown = backends.find((b) => b.id === id)!.pricing;
      if (p.model === 'per_shot') {
        assert.deepEqual(shown, { rate_per_shot: p.rate_per_shot, task_fee: p.task_fee, currency: 'USD' }, id);
      } else if (p.model === 'per_qpu_minute') {
        assert.deepEqual(shown, { rate_per_minute: p.rate_per_minute, currency: 'USD' }, id);
        const b = prices.find((x) => x.backend === id)!;
        assert.equal(b.rates.usd_per_quantum_second * 60, p.rate_per_minute, id);
      }
    }
    const grid = prices.find((x) => x.backend.endsWith('/lattice_grid_16'))!;
    assert.deepEqual(grid.rates, { per_shot: 0.00035, task_fee: 0.3 });
    const ion = prices.find((x) => x.backend === 'lattice_ion_11')!;
    assert.equal(ion.rates.rate_per_aqt, 0.03);
    assert.equal(ion.rates.task_fee, 0.3);
  });
});
