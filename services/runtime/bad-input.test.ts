import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestService } from '../../platform/testing/harness.ts';
import { BELL, client, ghz, PER_MINUTE_DEVICE, PER_SHOT_DEVICE, snapshot, startRuntime } from './testing.ts';

describe('runtime bad input changes nothing', () => {
  let svc: TestService;
  let api: ReturnType<typeof client>;
  before(async () => {
    svc = await startRuntime();
    api = client(svc, (await svc.newKey()).key);
    // Some history, so that "nothing changed" compares non-empty tables.
    await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 10 });
  });
  after(() => svc.close());

  async function refused(res: { status: number; body: any }, status: number, code: string) {
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.error.code, code);
    assert.equal(typeof res.body.error.message, 'string');
    assert.equal(typeof res.body.request_id, 'string');
    assert.doesNotMatch(JSON.stringify(res.body), /at .*\.ts:\d+/, 'no stack trace');
  }

  for (const path of ['/api/v1/runtime/jobs', '/api/v1/runtime/jobs/async']) {
    test(`POST ${path}: malformed JSON, wrong types, out-of-range values and unknown backends get a 400`, async () => {
      const before = await snapshot(svc);
      await refused(await api.raw(path, '{"backend_id": "statevector_simulator", "qasm": '), 400, 'INVALID_REQUEST');
      await refused(await api.raw(path, ''), 400, 'INVALID_REQUEST');
      const bodies: unknown[] = [
        { backend_id: 'statevector_simulator', qasm: BELL, shots: '100' },
        { backend_id: 'statevector_simulator', qasm: BELL, shots: 1.5 },
        { backend_id: 'statevector_simulator', qasm: BELL, shots: 0 },
        { backend_id: 'statevector_simulator', qasm: BELL, shots: -3 },
        { backend_id: 'statevector_simulator', qasm: BELL, shots: 1_000_001 },
        { backend_id: 42, qasm: BELL, shots: 10 },
        { backend_id: 'statevector_simulator', qasm: ['x'], shots: 10 },
        { backend_id: 'statevector_simulator', shots: 10 },
        { qasm: BELL, shots: 10 },
        { backend_id: 'statevector_simulator', qasm: '', shots: 10 },
        [],
        'text',
      ];
      for (const body of bodies) await refused(await api.post(path, body), 400, 'INVALID_REQUEST');
      await refused(await api.post(path, { backend_id: 'no_such_backend', qasm: BELL, shots: 10 }), 400, 'INVALID_BACKEND');
      const tooMany = await api.post(path, { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 100_001 });
      await refused(tooMany, 400, 'SHOTS_EXCEEDED');
      assert.equal(tooMany.body.error.details.max_shots, 100_000);
      await refused(await api.raw(path, JSON.stringify({ backend_id: 'statevector_simulator', qasm: 'x'.repeat(2 * 1024 * 1024), shots: 1 })), 400, 'INVALID_REQUEST');
      assert.equal(await snapshot(svc), before);
    });
  }

  test('a circuit that does not parse, or does not fit the backend, is refused by the synchronous submit with nothing kept', async () => {
    const before = await snapshot(svc);
    const bad = await api.post('/api/v1/runtime/jobs', { backend_id: PER_MINUTE_DEVICE, qasm: 'OPENQASM 2.0;\nqreg q[2];\nh q[0]\n', shots: 10 });
    await refused(bad, 400, 'INVALID_CIRCUIT');
    const big = await api.post('/api/v1/runtime/jobs', { backend_id: PER_MINUTE_DEVICE, qasm: ghz(6), shots: 10 });
    await refused(big, 400, 'CIRCUIT_TOO_LARGE');
    assert.equal(big.body.error.details.max_qubits, 5);
    assert.equal(await snapshot(svc), before);
  });

  test('unknown job ids answer 404 on every job route, and a bad query is a 400', async () => {
    const before = await snapshot(svc);
    await refused(await api.get('/api/v1/runtime/jobs/rtj_unknown'), 404, 'NOT_FOUND');
    await refused(await api.post('/api/v1/runtime/jobs/rtj_unknown/approve?approval_token=apv_x'), 404, 'NOT_FOUND');
    await refused(await api.del('/api/v1/runtime/jobs/rtj_unknown'), 404, 'NOT_FOUND');
    await refused(await api.get('/api/v1/runtime/jobs/rtj_unknown/artifacts'), 404, 'NOT_FOUND');
    await refused(await api.get(`/api/v1/runtime/jobs/${'x'.repeat(65)}`), 400, 'INVALID_REQUEST');
    await refused(await api.get('/api/v1/runtime/jobs/rtj_unknown?wait=61'), 400, 'INVALID_REQUEST');
    await refused(await api.get('/api/v1/runtime/nothing-here'), 404, 'NOT_FOUND');
    assert.equal(await snapshot(svc), before);
  });

  test('a body that is not JSON is refused in the same shape', async () => {
    const { key } = await svc.newKey();
    const before = await snapshot(svc);
    const res = await fetch(`${svc.url}/api/v1/runtime/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${key}` },
      body: 'backend_id=statevector_simulator',
    });
    assert.ok(res.status === 400 || res.status === 415, String(res.status));
    const body = (await res.json()) as { error: { code: string } };
    assert.equal(body.error.code, 'INVALID_REQUEST');
    assert.equal(await snapshot(svc), before);
  });
});
