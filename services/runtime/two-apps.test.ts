import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ServiceApp } from '../../platform/http/app.ts';
import type { TestService } from '../../platform/testing/harness.ts';
import { runtimeService } from './service.ts';
import { addCredits, BELL, client, PER_SHOT_DEVICE, startRuntime } from './testing.ts';

/** Two runtime apps in one process on one store: each has its own end-of-run handler, and closing one leaves the other's. */
describe('two runtime apps in one process', () => {
  let svc: TestService;
  let second: ServiceApp;
  let secondUrl: string;
  before(async () => {
    svc = await startRuntime();
    second = await runtimeService.build(svc.ctx, { prefix: '' });
    await second.listen({ port: 0, host: '127.0.0.1' });
    const address = second.server.address();
    secondUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(async () => {
    await second.close();
    await svc.close();
  });

  async function settledThrough(url: string): Promise<{ hold: string; charged: number }> {
    const k = await svc.newKey();
    await addCredits(svc, k.accountId, 5);
    const api = client({ ...svc, url }, k.key);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 1000 });
    assert.equal(sub.status, 202);
    const ok = await api.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${encodeURIComponent(sub.body.approval_token)}`);
    assert.equal(ok.status, 200);
    // Read the store, not the API: a read of an ended job would do the end's work itself.
    const sql = `SELECT h.status, r.charged_micros::text AS charged FROM runtime_jobs r JOIN billing_holds h ON h.id = r.hold_id
                  WHERE r.id = $1 AND r.finished_at IS NOT NULL`;
    let row: { status: string; charged: string } | undefined;
    for (let i = 0; i < 400 && !row; i++) {
      [row] = await svc.db.query<{ status: string; charged: string }>(sql, [sub.body.job_id]);
      if (!row) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(row, 'the end of the run was handled');
    return { hold: row.status, charged: Number(row.charged) / 1e6 };
  }

  test('a job run through either app has its hold settled when it ends, without anyone reading it', async () => {
    assert.deepEqual(await settledThrough(svc.url), { hold: 'settled', charged: 0.65 });
    assert.deepEqual(await settledThrough(secondUrl), { hold: 'settled', charged: 0.65 });
  });

  test('closing the newer app leaves the first one settling its jobs', async () => {
    await second.close();
    assert.deepEqual(await settledThrough(svc.url), { hold: 'settled', charged: 0.65 });
  });
});
