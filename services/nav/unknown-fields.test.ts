/** Unknown fields on the positioning service: 400 in the envelope naming the field, never dropped (a misspelt `generate_evidnce` once gave a position without evidence). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, type TestService } from '../../platform/testing/harness.ts';
import { startNav } from './testing.ts';

let nav: TestService & { auth: Record<string, string> };
before(async () => {
  nav = await startNav();
});
after(() => nav.close());

const post = (path: string, body: unknown) => call(`${nav.url}${path}`, { body, headers: nav.auth });

function assertRefused(r: { status: number; body: any }, message: RegExp) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.success, false);
  assert.equal(typeof r.body.error.code, 'string');
  assert.match(r.body.error.message, message);
}

describe('unknown fields (nav)', () => {
  it('position, timing, analysis and evidence refuse fields they do not take', async () => {
    assertRefused(await post('/position', { generate_evidnce: true }), /body\.generate_evidnce is not a known field \(did you mean generate_evidence\?\)/);
    assertRefused(await post('/timing', { include_bound: true }), /body\.include_bound is not a known field \(did you mean include_bounds\?\)/);
    assertRefused(await post('/spoofing/analyze', { depth: 'full', raw: true }), /body\.raw is not a known field/);
    assertRefused(await post('/evidence', { position_id: 'p', include_timing: true, timing: true }), /body\.timing is not a known field/);
    assertRefused(await post('/timing/sync', { force: true }), /body\.force is not a known field; this route takes no body/);
    assertRefused(await call(`${nav.url}/spoofing/history?limt=5`, { headers: nav.auth }), /querystring\.limt is not a known field \(did you mean limit\?\)/);
  });

  it('a body of known fields is still served', async () => {
    const r = await post('/timing', { include_bounds: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
  });
});

describe('requests without a body (nav)', () => {
  it('POST /position, /timing and /spoofing/analyze sent with no body take the spec defaults', async () => {
    const position = await call(`${nav.url}/position`, { method: 'POST', headers: nav.auth });
    assert.equal(position.status, 200, JSON.stringify(position.body));
    assert.equal(position.body.data.evidence_bundle_id, null, 'generate_evidence defaults to false');
    assert.equal(position.body.data.signature.algorithm, 'ML-DSA-65', 'authenticate defaults to true with ML-DSA-65');
    const timing = await call(`${nav.url}/timing`, { method: 'POST', headers: nav.auth });
    assert.equal(timing.status, 200, JSON.stringify(timing.body));
    assert.equal(timing.body.data.bounds, undefined, 'include_bounds defaults to false');
    const analysis = await call(`${nav.url}/spoofing/analyze`, { method: 'POST', headers: nav.auth });
    assert.equal(analysis.status, 200, JSON.stringify(analysis.body));
    const evidence = await call(`${nav.url}/evidence`, { method: 'POST', headers: nav.auth });
    assert.equal(evidence.status, 400);
    assert.match(evidence.body.error.message, /body\.position_id is required/);
  });
});

