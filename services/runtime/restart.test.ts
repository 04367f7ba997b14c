import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getBalance, getHold, placeHold } from '../../platform/billing/index.ts';
import type { ServiceApp } from '../../platform/http/app.ts';
import type { TestService } from '../../platform/testing/harness.ts';
import { runtimeService } from './service.ts';
import { addCredits, BELL, client, ghz, PER_SHOT_DEVICE, startRuntime, until } from './testing.ts';

/**
 * A restart is the app closed and built again on the same store (what `lattice serve` does
 * after a stop): its workers put running jobs back in their queue, and the new app's start
 * finishes what was left half done.
 */
describe('runtime across a restart', () => {
  let svc: TestService;
  let app: ServiceApp | null = null;
  let base = '';
  before(async () => {
    svc = await startRuntime();
    base = svc.url;
  });
  after(async () => {
    await app?.close();
    await svc.close();
  });

  async function restart(): Promise<string> {
    await (app ?? svc.app).close();
    app = await runtimeService.build(svc.ctx, { prefix: '' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    return base;
  }

  test('a held job stopped in the middle of its run runs again after the restart, and its hold is settled once', async () => {
    const k = await svc.newKey();
    await addCredits(svc, k.accountId, 20);
    let api = client({ ...svc, url: base }, k.key);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: ghz(12), shots: 20_000 });
    const approved = await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`);
    assert.equal(approved.status, 200);
    assert.equal((await until(api, sub.body.job_id, (b) => b.status === 'running')).body.status, 'running');

    const url = await restart();
    api = client({ ...svc, url }, k.key);
    const [hold] = await svc.db.query<{ status: string }>("SELECT status FROM billing_holds WHERE reference = $1", [sub.body.job_id]);
    // Still open, or already settled by the new process's rerun on a fast machine: never released.
    assert.ok(hold && ['open', 'settled'].includes(hold.status), `the hold survives the restart: ${hold?.status}`);
    const done = await api.get(`/api/v1/runtime/jobs/${sub.body.job_id}?wait=60`);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.result.shots, 20_000);
    assert.deepEqual(done.body.billing, { hold_status: 'settled', held_usd: 0, charged_usd: 7.3 });
    assert.equal((await getBalance(svc.db, k.accountId)).availableMicros, 20_000_000 - 7_300_000);
    const [run] = await svc.db.query<{ attempts: number }>('SELECT attempts FROM quantum_jobs WHERE id = $1', [sub.body.job_id]);
    assert.equal(run!.attempts, 2, 'stopped once, run again');
    const holds = await svc.db.query('SELECT id FROM billing_holds WHERE reference = $1', [sub.body.job_id]);
    assert.equal(holds.length, 1);
  });

  test('an approval cut off between its hold and the job system is run at start; holds of jobs that will never run are released', async () => {
    const k = await svc.newKey();
    await addCredits(svc, k.accountId, 5);
    let api = client({ ...svc, url: base }, k.key);
    const cut = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    const dead = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 200 });
    // The state a process leaves when it stops right after the approval's UPDATE...
    const hold = await placeHold(svc.db, { accountId: k.accountId, service: 'runtime', reference: cut.body.job_id, micros: 335_000, owner: 'gone', expiresAt: new Date(Date.now() + 3_600_000) });
    await svc.db.query("UPDATE runtime_jobs SET phase = 'submitted', hold_id = $2, approved_at = now() WHERE id = $1", [cut.body.job_id, hold.id]);
    // ...and the one it leaves when it stops after the hold, while a cancel of the job won.
    const orphan = await placeHold(svc.db, { accountId: k.accountId, service: 'runtime', reference: dead.body.job_id, micros: 370_000, owner: 'gone', expiresAt: new Date(Date.now() + 3_600_000) });
    await svc.db.query("UPDATE runtime_jobs SET phase = 'cancelled' WHERE id = $1", [dead.body.job_id]);
    assert.equal((await getBalance(svc.db, k.accountId)).heldMicros, 705_000);

    const url = await restart();
    api = client({ ...svc, url }, k.key);
    const done = await api.get(`/api/v1/runtime/jobs/${cut.body.job_id}?wait=30`);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.billing.hold_status, 'settled');
    assert.equal((await getHold(svc.db, orphan.id))!.status, 'released');
    const balance = await getBalance(svc.db, k.accountId);
    assert.equal(balance.heldMicros, 0);
    assert.equal(balance.availableMicros, 5_000_000 - 335_000);
  });

  test('an async job left validating is priced at start', async () => {
    const k = await svc.newKey();
    let api = client({ ...svc, url: base }, k.key);
    const sub = await api.post('/api/v1/runtime/jobs/async', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    // As if the process had stopped before pricing it.
    await until(api, sub.body.job_id, (b) => b.status !== 'validating');
    await svc.db.query("UPDATE runtime_jobs SET phase = 'validating', estimated_micros = NULL, cost_basis = NULL WHERE id = $1", [sub.body.job_id]);
    const url = await restart();
    api = client({ ...svc, url }, k.key);
    const read = await api.get(`/api/v1/runtime/jobs/${sub.body.job_id}`);
    assert.equal(read.body.status, 'awaiting_approval');
    assert.equal(read.body.estimated_cost_usd, 0.335);
  });
});
