/** GET /api/v1/platform/usage: the month's jobs and money per billing mode. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestService } from '../../platform/testing/harness.ts';
import { BELL, client, fund, settled, startPlatform } from './testing.ts';

let svc: TestService;
before(async () => {
  svc = await startPlatform();
});
after(() => svc.close());

test('paygo: the month\'s charges are its open invoice; nothing is held', async () => {
  const { key } = await svc.newKey({ plan: 'paygo' });
  const c = client(svc.url, key);
  const a = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 100, backend: 'lattice_grid_16' });
  const b = await c.submit({ type: 'CPU_JOB', command: 'true', max_runtime_seconds: 5 });
  const charges = [(await settled(c, a.body.id, 60)).body.charged_usd, (await settled(c, b.body.id)).body.charged_usd];
  const u = await c.get('/api/v1/platform/usage');
  assert.equal(u.status, 200);
  assert.equal(u.body.billing_mode, 'PAYGO');
  assert.equal(u.body.jobs.total, 2);
  assert.deepEqual(u.body.jobs.by_status, { SETTLED: 2 });
  assert.deepEqual(u.body.jobs.by_type, { QUANTUM_CIRCUIT: 1, CPU_JOB: 1 });
  assert.equal(u.body.charged_usd, Math.round((charges[0] + charges[1]) * 1e6) / 1e6);
  assert.equal(u.body.invoice.status, 'open');
  assert.equal(u.body.invoice.amount_usd, u.body.charged_usd);
  assert.equal(u.body.balance, null);
  const past = await c.get('/api/v1/platform/usage?period=2020-01');
  assert.equal(past.body.jobs.total, 0);
  assert.equal(past.body.invoice.status, 'closed');
});

test('prepaid: the balance and what is held on it; a bad period is refused', async () => {
  const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
  await fund(svc.db, accountId, 2);
  const c = client(svc.url, key);
  const s = await c.submit({ type: 'CPU_JOB', command: 'sleep 20', max_runtime_seconds: 3600 });
  assert.equal(s.status, 201);
  const u = await c.get('/api/v1/platform/usage');
  assert.equal(u.body.billing_mode, 'PREPAID');
  assert.equal(u.body.invoice, null);
  assert.equal(u.body.balance.held_usd, 0.045);
  assert.equal(u.body.balance.available_usd, 2 - 0.045);
  await c.cancel(s.body.id);
  for (const period of ['2026-13', 'May', '2999-01']) {
    const bad = await c.get(`/api/v1/platform/usage?period=${period}`);
    assert.equal(bad.status, 400, period);
    assert.equal(bad.body.detail, 'invalid_request');
  }
});
