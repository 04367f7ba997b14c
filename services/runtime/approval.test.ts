import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getBalance, ledgerEntries } from '../../platform/billing/index.ts';
import type { TestService } from '../../platform/testing/harness.ts';
import { addCredits, BELL, client, PER_MINUTE_DEVICE, PER_SHOT_DEVICE, snapshot, startRuntime } from './testing.ts';

describe('runtime approval and credits', () => {
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

  test('approving with the token holds the estimate, runs the job, and settles the actual cost on completion', async () => {
    const { api, accountId } = await account(5);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 1000 });
    assert.equal(sub.status, 202);
    const { job_id, approval_token } = sub.body;
    const ok = await api.post(`/api/v1/runtime/jobs/${job_id}/approve?approval_token=${encodeURIComponent(approval_token)}`);
    assert.equal(ok.status, 200);
    // The job system may already have taken it (validating, optimizing) when the approval answers.
    assert.ok(['queued', 'validating', 'optimizing', 'running', 'completed'].includes(ok.body.status), ok.body.status);
    assert.ok(ok.body.approved_at);
    // Held while it runs (or already settled when the device was quick).
    assert.ok(['open', 'settled'].includes(ok.body.billing.hold_status));
    const done = await api.get(`/api/v1/runtime/jobs/${job_id}?wait=30`);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.result.shots, 1000);
    assert.deepEqual(done.body.billing, { hold_status: 'settled', held_usd: 0, charged_usd: 0.65 });
    const balance = await getBalance(svc.db, accountId);
    assert.equal(balance.availableMicros, 5_000_000 - 650_000);
    assert.equal(balance.heldMicros, 0);
    const rows = await ledgerEntries(svc.db, accountId, { service: 'runtime' });
    assert.deepEqual(rows.map((r) => [r.kind, r.amountMicros]).sort(), [['charge', -650_000], ['hold', -650_000], ['release', 650_000]].sort());
    assert.ok(rows.every((r) => r.reference === job_id));
    const [row] = await svc.db.query<{ charged_micros: string | number }>('SELECT charged_micros FROM runtime_jobs WHERE id = $1', [job_id]);
    assert.equal(Number(row!.charged_micros), 650_000);
  });

  test('a per-minute device job settles the cost of the schedule it ran', async () => {
    const { api } = await account(5);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_MINUTE_DEVICE, qasm: BELL, shots: 2000 });
    await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`);
    const done = await api.get(`/api/v1/runtime/jobs/${sub.body.job_id}?wait=30`);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.billing.hold_status, 'settled');
    assert.equal(done.body.billing.charged_usd, sub.body.estimated_cost_usd);
  });

  test('a wrong token is refused with 403 and the job keeps waiting, with nothing held', async () => {
    const { api } = await account(5);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    const before = await snapshot(svc);
    for (const token of ['apv_wrong', `${sub.body.approval_token}x`, sub.body.approval_token.slice(0, -1)]) {
      const res = await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${encodeURIComponent(token)}`);
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'INVALID_APPROVAL_TOKEN');
      assert.match(res.body.request_id, /./);
    }
    assert.equal(await snapshot(svc), before);
    assert.equal((await api.get(`/api/v1/runtime/jobs/${sub.body.job_id}`)).body.status, 'awaiting_approval');
    // The right token still works afterwards.
    const ok = await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`);
    assert.equal(ok.status, 200);
    assert.equal((await api.get(`/api/v1/runtime/jobs/${sub.body.job_id}?wait=30`)).body.status, 'completed');
  });

  test("another job's token does not approve this one", async () => {
    const { api } = await account(5);
    const a = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    const b = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    const res = await api.post(`/api/v1/runtime/jobs/${a.body.job_id}/approve?approval_token=${b.body.approval_token}`);
    assert.equal(res.status, 403);
    assert.equal((await api.get(`/api/v1/runtime/jobs/${a.body.job_id}`)).body.status, 'awaiting_approval');
  });

  test('without enough credit the approval answers 402, holds nothing, and the job can be approved after a top-up', async () => {
    const { api, accountId } = await account(0.5);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 1000 });
    assert.equal(sub.body.credits_required, 0.65);
    const before = await snapshot(svc);
    const res = await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`);
    assert.equal(res.status, 402);
    assert.equal(res.body.error.code, 'INSUFFICIENT_CREDITS');
    assert.equal(res.body.error.details.credits_required, 0.65);
    assert.equal(await snapshot(svc), before);
    assert.equal((await getBalance(svc.db, accountId)).availableMicros, 500_000);
    assert.equal((await api.get(`/api/v1/runtime/jobs/${sub.body.job_id}`)).body.status, 'awaiting_approval');
    await addCredits(svc, accountId, 1);
    const ok = await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`);
    assert.equal(ok.status, 200);
    const done = await api.get(`/api/v1/runtime/jobs/${sub.body.job_id}?wait=30`);
    assert.equal(done.body.status, 'completed');
    assert.equal((await getBalance(svc.db, accountId)).availableMicros, 1_500_000 - 650_000);
  });

  test('approving twice answers 409 and holds once; concurrent approvals hold once', async () => {
    const { api, accountId } = await account(10);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    const url = `/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`;
    const answers = await Promise.all(Array.from({ length: 5 }, () => api.post(url)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409, 409, 409, 409]);
    const again = await api.post(url);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'CONFLICT');
    await api.get(`/api/v1/runtime/jobs/${sub.body.job_id}?wait=30`);
    const holds = await svc.db.query<{ status: string }>("SELECT status FROM billing_holds WHERE account_id = $1 AND service = 'runtime'", [accountId]);
    // A losing approval that got as far as a hold gave it back at once.
    assert.equal(holds.filter((h) => h.status === 'settled').length, 1);
    assert.ok(holds.every((h) => h.status === 'settled' || h.status === 'released'));
    assert.equal((await getBalance(svc.db, accountId)).availableMicros, 10_000_000 - 335_000);
  });

  test('a simulator job needs no approval: approving it answers 409', async () => {
    const { api } = await account(0);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: 'statevector_simulator', qasm: BELL, shots: 10 });
    const res = await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=anything`);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'CONFLICT');
  });

  test('an approval without a token is a 400 and changes nothing', async () => {
    const { api } = await account(5);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    const before = await snapshot(svc);
    const res = await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve`);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'INVALID_REQUEST');
    assert.equal(await snapshot(svc), before);
  });
});
