/** Unknown fields are refused in the envelope with a 400 naming them, never dropped: a top-level `evidence` once ran a job without a bundle. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BELL, startCore, type CoreTest } from './testing.ts';

let core: CoreTest;
let key: string;

before(async () => {
  core = await startCore();
  key = await core.key('pro');
});
after(() => core.svc.close());

const jobCount = async () => Number((await core.svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM quantum_jobs'))[0]!.n);

function assertRefused(r: { status: number; body: any }, message: RegExp) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.success, false);
  assert.equal(typeof r.body.error.code, 'string');
  assert.match(r.body.error.message, message);
}

describe('unknown fields (core)', () => {
  it('refuses a top-level evidence (it belongs under options) and uses no evaluation', async () => {
    const r = await core.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', evidence: true } });
    assertRefused(r, /body\.evidence is not a known field; known fields: .*options/);
    assert.equal(await jobCount(), 0);
    const stats = await core.as(key, '/api/v2/optimize/stats');
    assert.equal(stats.body.data.evaluations_used, 0);
  });

  it('refuses unknown options and batch fields, and unknown query parameters', async () => {
    assertRefused(
      await core.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', options: { optimisation_level: 1 } } }),
      /body\.options\.optimisation_level is not a known field \(did you mean optimization_level\?\)/,
    );
    assertRefused(
      await core.as(key, '/api/v2/optimize/batch', { method: 'POST', body: { circuits: [{ qasm: BELL, backend: 'statevector_simulator', shot: 10 }] } }),
      /body\.circuits\.0\.shot is not a known field \(did you mean shots\?\)/,
    );
    assertRefused(await core.as(key, '/api/v2/jobs?limt=5'), /querystring\.limt is not a known field/);
    assert.equal(await jobCount(), 0);
  });

  it('still runs a request whose fields are all known', async () => {
    const r = await core.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', shots: 64, options: { evidence: true } } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(await jobCount(), 1);
  });
});
