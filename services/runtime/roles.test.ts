import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKey } from '../../platform/identity/keys.ts';
import type { TestService } from '../../platform/testing/harness.ts';
import { addCredits, BELL, client, PER_SHOT_DEVICE, snapshot, startRuntime } from './testing.ts';

describe('runtime roles and authentication', () => {
  let svc: TestService;
  let accountId: string;
  let developer: ReturnType<typeof client>;
  let viewer: ReturnType<typeof client>;
  let admin: ReturnType<typeof client>;
  before(async () => {
    svc = await startRuntime();
    const dev = await svc.newKey();
    accountId = dev.accountId;
    await addCredits(svc, accountId, 10);
    developer = client(svc, dev.key);
    viewer = client(svc, (await svc.newKey({ accountId, role: 'viewer' })).key);
    admin = client(svc, (await svc.newKey({ accountId, role: 'admin' })).key);
  });
  after(() => svc.close());

  test('a key made without a role is a developer', async () => {
    const [row] = await svc.db.query<{ role: string }>("SELECT role FROM api_keys WHERE service = 'runtime' ORDER BY created_at LIMIT 1");
    assert.equal(row!.role, 'developer');
  });

  test('a viewer reads jobs and artifacts of its account but may not submit, approve or cancel (403, nothing changes)', async () => {
    const sub = await developer.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    const sim = await developer.post('/api/v1/runtime/jobs', { backend_id: 'statevector_simulator', qasm: BELL, shots: 100 });
    await developer.get(`/api/v1/runtime/jobs/${sim.body.job_id}?wait=20`);
    const before = await snapshot(svc);
    const refused = [
      await viewer.post('/api/v1/runtime/jobs', { backend_id: 'statevector_simulator', qasm: BELL, shots: 10 }),
      await viewer.post('/api/v1/runtime/jobs/async', { backend_id: 'statevector_simulator', qasm: BELL, shots: 10 }),
      await viewer.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`),
      await viewer.del(`/api/v1/runtime/jobs/${sub.body.job_id}`),
    ];
    for (const res of refused) {
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'FORBIDDEN');
      assert.equal(res.body.error.details.required_permission, 'runtime:execute');
      assert.equal(res.body.error.details.role, 'viewer');
      assert.equal(typeof res.body.request_id, 'string');
    }
    assert.equal(await snapshot(svc), before);
    const read = await viewer.get(`/api/v1/runtime/jobs/${sub.body.job_id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.status, 'awaiting_approval');
    const art = await viewer.get(`/api/v1/runtime/jobs/${sim.body.job_id}/artifacts`);
    assert.equal(art.status, 200);
  });

  test('an admin executes: submits, approves another key\'s job of the account and cancels', async () => {
    const sub = await developer.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    const ok = await admin.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`);
    assert.equal(ok.status, 200);
    assert.equal((await admin.get(`/api/v1/runtime/jobs/${sub.body.job_id}?wait=30`)).body.status, 'completed');
    const own = await admin.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    assert.equal(own.status, 202);
    assert.equal((await admin.del(`/api/v1/runtime/jobs/${own.body.job_id}`)).status, 200);
  });

  test('no key, a malformed header, an unknown key, an X-API-Key header or a key of another service get 401', async () => {
    const otherService = await createKey(svc.db, { accountId, service: 'qcos', prefix: 'qcos' });
    const cases: Record<string, string>[] = [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer qrt_unknownunknownunknownunknown12' },
      { 'x-api-key': otherService.key },
      { authorization: `Bearer ${otherService.key}` },
    ];
    for (const headers of cases) {
      const res = await fetch(`${svc.url}/api/v1/runtime/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ backend_id: 'statevector_simulator', qasm: BELL, shots: 1 }),
      });
      assert.equal(res.status, 401);
      const body = (await res.json()) as { error: { code: string } };
      assert.equal(body.error.code, 'UNAUTHORIZED');
    }
    assert.equal((await fetch(`${svc.url}/api/v1/runtime/jobs/rtj_x`)).status, 401);
  });

  test("another account's job is not found on every route, even with its token", async () => {
    const sub = await developer.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100 });
    const sim = await developer.post('/api/v1/runtime/jobs', { backend_id: 'statevector_simulator', qasm: BELL, shots: 10 });
    await developer.get(`/api/v1/runtime/jobs/${sim.body.job_id}?wait=20`);
    const stranger = client(svc, (await svc.newKey({ role: 'admin' })).key);
    const before = await snapshot(svc);
    const answers = [
      await stranger.get(`/api/v1/runtime/jobs/${sub.body.job_id}`),
      await stranger.post(`/api/v1/runtime/jobs/${sub.body.job_id}/approve?approval_token=${sub.body.approval_token}`),
      await stranger.del(`/api/v1/runtime/jobs/${sub.body.job_id}`),
      await stranger.get(`/api/v1/runtime/jobs/${sim.body.job_id}/artifacts`),
      await stranger.get(`/api/v1/runtime/jobs/${sim.body.job_id}/artifacts/result.json`),
    ];
    for (const res of answers) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    }
    assert.equal(await snapshot(svc), before);
    assert.equal((await developer.get(`/api/v1/runtime/jobs/${sub.body.job_id}`)).body.status, 'awaiting_approval');
  });
});
