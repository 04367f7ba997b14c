import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getBalance } from '../../platform/billing/index.ts';
import type { TestService } from '../../platform/testing/harness.ts';
import { addCredits, BELL, client, ghz, PER_SHOT_DEVICE, snapshot, startRuntime, until } from './testing.ts';

describe('runtime cancel', () => {
  let svc: TestService;
  before(async () => {
    svc = await startRuntime();
  });
  after(() => svc.close());

  async function account(usd: number) {
    const k = await svc.newKey();
    if (usd > 0) await addCredits(svc, k.accountId, usd);
    return { ...k, api: client(svc, k.key) };
  }

  test('cancelling before approval ends the job with nothing held; its token approves nothing afterwards', async () => {
    const { api, accountId } = await account(5);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    const res = await api.del(`/api/v1/runtime/jobs/${sub.body.job_id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'cancelled');
    assert.equal(res.body.previous_status, 'awaiting_approval');
    assert.equal(res.body.billing.hold_status, 'none');
    const approve = await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`);
    assert.equal(approve.status, 409);
    assert.equal(approve.body.error.details.status, 'cancelled');
    assert.equal((await getBalance(svc.db, accountId)).availableMicros, 5_000_000);
    const [n] = await svc.db.query<{ n: string | number }>('SELECT count(*) AS n FROM quantum_jobs WHERE id = $1', [sub.body.job_id]);
    assert.equal(Number(n!.n), 0);
    // Cancelling again: 409, nothing changes.
    const before = await snapshot(svc);
    const again = await api.del(`/api/v1/runtime/jobs/${sub.body.job_id}`);
    assert.equal(again.status, 409);
    assert.equal(await snapshot(svc), before);
  });

  test('cancelling after approval stops the run (running and queued) and releases each hold in full', async () => {
    const { api, accountId } = await account(100);
    // The device runs one job at a time: the first runs shot by shot for a while, the second queues behind it.
    const first = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: ghz(12), shots: 100_000 });
    const second = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 1000 });
    assert.equal(first.status, 202);
    for (const s of [first, second]) {
      const ok = await api.post(`/api/v1/runtime/jobs/${s.body.job_id}/approve?approval_token=${s.body.approval_token}`);
      assert.equal(ok.status, 200);
    }
    const held = first.body.estimated_cost_usd * 1e6 + second.body.estimated_cost_usd * 1e6;
    assert.equal((await getBalance(svc.db, accountId)).heldMicros, Math.round(held));
    const running = await until(api, first.body.job_id, (b) => b.status === 'running');
    assert.equal(running.body.status, 'running');
    assert.equal((await api.get(`/api/v1/runtime/jobs/${second.body.job_id}`)).body.status, 'queued');

    const c2 = await api.del(`/api/v1/runtime/jobs/${second.body.job_id}`);
    assert.equal(c2.status, 200);
    assert.equal(c2.body.status, 'cancelled');
    assert.equal(c2.body.previous_status, 'queued');
    assert.deepEqual(c2.body.billing, { hold_status: 'released', held_usd: 0, charged_usd: 0 });

    const c1 = await api.del(`/api/v1/runtime/jobs/${first.body.job_id}`);
    assert.equal(c1.status, 200);
    assert.equal(c1.body.status, 'cancelled');
    assert.equal(c1.body.billing.hold_status, 'released');
    const balance = await getBalance(svc.db, accountId);
    assert.equal(balance.availableMicros, 100_000_000);
    assert.equal(balance.heldMicros, 0);
    // No artifacts for a cancelled job, and a cancelled job stays cancelled.
    const art = await api.get(`/api/v1/runtime/jobs/${first.body.job_id}/artifacts`);
    assert.equal(art.status, 409);
    assert.equal((await api.del(`/api/v1/runtime/jobs/${first.body.job_id}`)).status, 409);
  });

  test('a completed job cannot be cancelled and keeps its charge', async () => {
    const { api, accountId } = await account(5);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`);
    await api.get(`/api/v1/runtime/jobs/${sub.body.job_id}?wait=30`);
    const res = await api.del(`/api/v1/runtime/jobs/${sub.body.job_id}`);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.details.status, 'completed');
    assert.equal((await getBalance(svc.db, accountId)).availableMicros, 5_000_000 - 335_000);
  });

  test('approvals racing cancels: every job ends once, no hold stays open, and only completed jobs are charged', async () => {
    const { api, accountId } = await account(50);
    const subs = await Promise.all(Array.from({ length: 8 }, () => api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 })));
    await Promise.all(
      subs.flatMap((s) => [
        api.post(`/api/v1/runtime/jobs/${s.body.job_id}/approve?approval_token=${s.body.approval_token}`),
        api.del(`/api/v1/runtime/jobs/${s.body.job_id}`),
      ]),
    );
    let charged = 0;
    for (const s of subs) {
      const read = await api.get(`/api/v1/runtime/jobs/${s.body.job_id}?wait=30`);
      assert.ok(['completed', 'cancelled'].includes(read.body.status), read.body.status);
      if (read.body.status === 'completed') {
        assert.equal(read.body.billing.hold_status, 'settled');
        charged += 335_000;
      } else assert.ok(['none', 'released'].includes(read.body.billing.hold_status), read.body.billing.hold_status);
    }
    const open = await svc.db.query("SELECT id FROM billing_holds WHERE account_id = $1 AND status = 'open'", [accountId]);
    assert.equal(open.length, 0);
    const balance = await getBalance(svc.db, accountId);
    assert.equal(balance.availableMicros, 50_000_000 - charged);
  });
});
