/** The per-IP rate limit (spec: 60 per minute, `rate_limit_exceeded`) and bad input: clear reasons, nothing written or charged. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestService } from '../../platform/testing/harness.ts';
import { call } from '../../platform/testing/harness.ts';
import { ratePerMinute } from './auth.ts';
import { balance, BELL, client, fund, holdsOf, JOBS, startPlatform } from './testing.ts';

let svc: TestService;
before(async () => {
  svc = await startPlatform({ ratePerMinute: 60 });
  svc.clock.set('2026-03-02T10:00:05Z');
});
after(() => svc.close());

async function snapshot(accountId: string) {
  const [{ n }] = await svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform_jobs');
  return { jobs: n, holds: (await holdsOf(svc.db, accountId)).length, balance: await balance(svc.db, accountId) };
}

describe('bad input changes nothing', () => {
  test('every malformed or refused submission answers 4xx with a reason in detail', async () => {
    svc.clock.set('2026-03-02T10:01:05Z');
    const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
    await fund(svc.db, accountId, 1);
    const c = client(svc.url, key);
    const before = await snapshot(accountId);
    const cases: Array<[unknown, number, string]> = [
      [{}, 400, 'invalid_request'],
      [{ type: 'QUANTUM_ANNEAL', qasm: BELL }, 400, 'invalid_request'],
      [{ type: 'QUANTUM_CIRCUIT' }, 400, 'invalid_request'],
      [{ type: 'QUANTUM_CIRCUIT', qasm: BELL, artifact_uri: 'data:,x' }, 400, 'invalid_request'],
      [{ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 0 }, 400, 'invalid_request'],
      [{ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 'many' }, 400, 'invalid_request'],
      [{ type: 'QUANTUM_CIRCUIT', qasm: BELL, unknown_field: 1 }, 400, 'invalid_request'],
      [{ type: 'QUANTUM_CIRCUIT', qasm: BELL, command: 'ls' }, 400, 'invalid_request'],
      [{ type: 'QUANTUM_CIRCUIT', qasm: 'OPENQASM 2.0;\nqreg q[2];\nfoo q[0];' }, 400, 'invalid_circuit'],
      [{ type: 'QUANTUM_CIRCUIT', qasm: BELL, backend: 'no_such_backend' }, 400, 'invalid_backend'],
      [{ type: 'QUANTUM_CIRCUIT', qasm: BELL, backend: 'lattice_line_5', shots: 999_999_999 }, 400, 'invalid_request'],
      [{ type: 'QUANTUM_CIRCUIT', qasm: BELL, max_runtime_seconds: 3601 }, 400, 'invalid_request'],
      [{ type: 'QUANTUM_CIRCUIT', artifact_uri: 'data:;base64,***' }, 400, 'invalid_artifact_uri'],
      [{ type: 'QUANTUM_CIRCUIT', artifact_uri: 'not a uri' }, 400, 'invalid_artifact_uri'],
    ];
    for (const [body, status, detail] of cases) {
      const r = await c.submit(body);
      assert.equal(r.status, status, `${JSON.stringify(body).slice(0, 80)} -> ${JSON.stringify(r.body)}`);
      assert.equal(r.body.detail, detail, JSON.stringify(body).slice(0, 80));
      assert.equal(r.body.code, detail);
      assert.ok(r.body.request_id);
    }
    const raw = await call(`${svc.url}${JOBS}`, { rawBody: '{"type": ', headers: { authorization: `Bearer ${key}` } });
    assert.equal(raw.status, 400);
    assert.equal(raw.body.detail, 'invalid_request');
    const big = await call(`${svc.url}${JOBS}`, { body: { type: 'QUANTUM_CIRCUIT', qasm: 'x'.repeat(1_100_000) }, headers: { authorization: `Bearer ${key}` } });
    assert.equal(big.status, 400);
    assert.deepEqual(await snapshot(accountId), before);
  });

  test('an unknown route answers 404 in the same shape', async () => {
    svc.clock.set('2026-03-02T10:02:05Z');
    const r = await call(`${svc.url}/api/v1/platform/nothing`);
    assert.equal(r.status, 404);
    assert.equal(r.body.detail, 'route_not_found');
  });
});

describe('per-IP rate limit', () => {
  test('the 61st request of a minute answers 429 rate_limit_exceeded, charging nothing; the next minute is fresh', async () => {
    svc.clock.set('2026-03-02T11:00:01Z');
    const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
    await fund(svc.db, accountId, 1);
    const c = client(svc.url, key);
    for (let i = 0; i < 59; i++) assert.equal((await c.job(`pjob_${i}`)).status, 200);
    const ok = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 10, max_runtime_seconds: 10 });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const before = await snapshot(accountId);
    const refused = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 10, max_runtime_seconds: 10 });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.detail, 'rate_limit_exceeded');
    assert.equal(refused.body.code, 'rate_limit_exceeded');
    assert.equal(refused.headers.get('retry-after'), '59');
    // Unauthenticated routes and bad keys count too: the limit is the address's.
    assert.equal((await call(`${svc.url}/api/v1/platform/evidence/keys`)).status, 429);
    assert.equal((await call(`${svc.url}${JOBS}/x`, { headers: { authorization: 'Bearer nope' } })).status, 429);
    const after = await snapshot(accountId);
    assert.equal(after.jobs, before.jobs);
    assert.equal(after.holds, before.holds);
    svc.clock.set('2026-03-02T11:01:00Z');
    assert.equal((await c.job(ok.body.id)).status, 200);
  });

  test('the limit is configured by LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE, and a bad value stops the start', () => {
    assert.equal(ratePerMinute({}), 60);
    assert.equal(ratePerMinute({ LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE: '600' }), 600);
    assert.throws(() => ratePerMinute({ LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE: 'lots' }), /LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE/);
  });
});
