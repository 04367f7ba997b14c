/**
 * Evidence bundles of optimize jobs: issued on completion, pinned to the submitted text,
 * private to their account, verified with a verdict per check (one flipped byte in any field
 * fails the check that names it), exported as JSON, CBOR and PDF, checkable offline against
 * the published keys.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decodeBundleCbor, EvidenceKeys, sha3Hash, sha3HashJson, verifyBundle } from '../../../platform/evidence/index.ts';
import { call } from '../../../platform/testing/harness.ts';
import { startCore, BELL, type CoreTest } from '../testing.ts';

let c: CoreTest;
let key: string;
/** Submitted exactly so: CRLF line ends, a trailing space and a comment are part of the hashed text. */
const TEXT = 'OPENQASM 2.0;\r\ninclude "qelib1.inc"; // bell \r\nqreg q[2];\r\ncreg c[2];\r\nh q[0];\r\ncx q[0],q[1];\r\nmeasure q -> c;\r\n';
let job: Record<string, any>;
let bundle: Record<string, any>;

before(async () => {
  c = await startCore();
  key = await c.key('pro');
  const res = await c.as(key, '/api/v2/optimize', {
    method: 'POST',
    body: { qasm: TEXT, backend: 'lattice_line_5', shots: 256, options: { evidence: true, optimization_level: 2 } },
  });
  assert.equal(res.status, 202);
  job = await c.settle(key, res.body.data.job_id);
  assert.equal(job.status, 'completed');
  const got = await c.as(key, `/api/v2/evidence/${job.evidence_bundle_id}`);
  assert.equal(got.status, 200);
  bundle = got.body.data;
});
after(() => c.svc.close());

async function verify(b: unknown, as = key) {
  const res = await c.as(as, '/api/v2/evidence/verify', { method: 'POST', body: { bundle: b } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { valid: boolean; checks: Record<string, { verdict: string; reason?: string }>; key_id: string | null };
}

/** The bundle with one byte of the JSON text of the value at `path` changed (its lowest bit flipped). */
function flipped(b: Record<string, any>, path: string): Record<string, any> {
  const copy = structuredClone(b);
  const parts = path.split('.');
  let holder = copy;
  for (const p of parts.slice(0, -1)) holder = holder[p];
  const last = parts[parts.length - 1]!;
  const value = holder[last];
  const text = String(value);
  // A digit of a date or number flips to another digit; any other character to its neighbour.
  let i = Math.floor(text.length / 2);
  if (typeof value === 'number') i = text.length - 1;
  const flippedChar = String.fromCharCode(text.charCodeAt(i) ^ 1);
  const changed = text.slice(0, i) + flippedChar + text.slice(i + 1);
  holder[last] = typeof value === 'number' ? Number(changed) : changed;
  assert.notDeepEqual(copy, b);
  return copy;
}

describe('issuing', () => {
  test('a job with options.evidence gets a bundle: version 3.0, circuit_hash of the exact text, an execution proof of backend, shots and time', () => {
    assert.match(job.evidence_bundle_id, /^evb_/);
    assert.equal(bundle.bundle_id, job.evidence_bundle_id);
    assert.equal(bundle.version, '3.0');
    assert.equal(bundle.job_id, job.job_id);
    assert.equal(bundle.circuit_hash, sha3Hash(TEXT));
    assert.notEqual(bundle.circuit_hash, sha3Hash(TEXT.replaceAll('\r\n', '\n')), 'the text is hashed as submitted, not normalised');
    assert.equal(bundle.execution_proof.backend, 'lattice_line_5');
    assert.equal(bundle.execution_proof.shots, 256);
    assert.equal(bundle.execution_proof.optimization_level, 2);
    assert.equal(bundle.execution_proof.results_hash, sha3HashJson(job.results.counts));
    assert.ok(Date.parse(bundle.execution_proof.timestamp) <= Date.parse(bundle.created_at));
    assert.equal(bundle.signatures.algorithm, 'ML-DSA-65');
    assert.match(bundle.signatures.signature, /^base64:[A-Za-z0-9+/]+=*$/);
    assert.match(bundle.key_id, /^core-mldsa65-/);
  });

  test('the bundle time is the job end; job details name the same bundle', async () => {
    const details = (await c.as(key, `/api/v2/jobs/${job.job_id}`)).body.data;
    assert.equal(bundle.execution_proof.timestamp, details.completed_at);
    assert.equal(details.evidence_bundle_id, bundle.bundle_id);
    assert.equal(details.circuit_hash, bundle.circuit_hash);
  });

  test('options.pqc_signing alone also asks for a bundle; evidence without the post-quantum signature is refused', async () => {
    const res = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', shots: 32, options: { pqc_signing: true } } });
    const done = await c.settle(key, res.body.data.job_id);
    assert.match(done.evidence_bundle_id, /^evb_/);
    const refused = await c.as(key, '/api/v2/optimize', {
      method: 'POST',
      body: { qasm: BELL, backend: 'statevector_simulator', options: { evidence: true, pqc_signing: false } },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, 'INVALID_REQUEST');
  });

  test('a bundle missing at read time is issued once, however many reads race for it', async () => {
    const res = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', shots: 16, options: { evidence: true } } });
    const id = res.body.data.job_id as string;
    await c.settle(key, id);
    // As if the job had completed in a process whose handler never ran.
    await c.svc.db.query(`DELETE FROM evidence_bundles WHERE service = 'core' AND subject_id = $1`, [id]);
    const reads = await Promise.all(Array.from({ length: 6 }, () => c.as(key, `/api/v2/optimize/${id}`)));
    const ids = new Set(reads.map((r) => r.body.data.evidence_bundle_id));
    assert.equal(ids.size, 1);
    assert.match([...ids][0], /^evb_/);
    const [row] = await c.svc.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM evidence_bundles WHERE service = 'core' AND subject_id = $1`, [id]);
    assert.equal(row!.n, 1);
  });

  test("another account's bundle is 404, like an unknown one, on get and export", async () => {
    const stranger = await c.key('pro');
    for (const path of [`/api/v2/evidence/${bundle.bundle_id}`, `/api/v2/evidence/export/${bundle.bundle_id}?format=json`]) {
      const res = await c.as(stranger, path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, 'NOT_FOUND');
      assert.equal((await c.as(key, path.replace(bundle.bundle_id, 'evb_unknown'))).status, 404);
    }
    assert.equal((await call(`${c.svc.url}/api/v2/evidence/${bundle.bundle_id}`)).status, 401);
  });
});

describe('verification', () => {
  test('the bundle as issued verifies: signature, hash and timestamp all valid', async () => {
    const r = await verify(bundle);
    assert.equal(r.valid, true);
    assert.deepEqual(Object.keys(r.checks).sort(), ['hash', 'signature', 'timestamp']);
    for (const check of Object.values(r.checks)) assert.equal(check.verdict, 'valid');
    assert.equal(r.key_id, bundle.key_id);
    // Anyone holding the bundle can check it, with their own key.
    assert.equal((await verify(bundle, await c.key('free'))).valid, true);
  });

  const fields: Array<[string, 'signature' | 'hash' | 'timestamp']> = [
    ['bundle_id', 'signature'],
    ['version', 'signature'],
    ['created_at', 'timestamp'],
    ['job_id', 'signature'],
    ['circuit_hash', 'hash'],
    ['execution_proof.backend', 'signature'],
    ['execution_proof.shots', 'signature'],
    ['execution_proof.timestamp', 'timestamp'],
    ['execution_proof.optimization_level', 'signature'],
    ['execution_proof.execution_time_ms', 'signature'],
    ['execution_proof.results_hash', 'hash'],
    ['signatures.algorithm', 'signature'],
    ['signatures.signature', 'signature'],
    ['key_id', 'signature'],
  ];
  for (const [path, check] of fields) {
    test(`one flipped byte in ${path} fails the ${check} check`, async () => {
      const r = await verify(flipped(bundle, path));
      assert.equal(r.valid, false);
      assert.equal(r.checks[check]!.verdict, 'invalid', JSON.stringify(r.checks));
      assert.equal(typeof r.checks[check]!.reason, 'string');
      if (check !== 'signature') assert.equal(r.checks.signature!.verdict, 'invalid', 'the signature covers every field');
    });
  }

  test('a removed signature or a bundle of no known shape is invalid, not an error', async () => {
    const { signatures: _drop, ...unsigned } = bundle;
    const r = await verify(unsigned);
    assert.equal(r.valid, false);
    assert.equal(r.checks.signature!.verdict, 'invalid');
    const odd = await verify({ hello: 'world' });
    assert.equal(odd.valid, false);
    assert.equal(odd.checks.signature!.verdict, 'invalid');
  });

  test('verify takes the bundle itself as the body as well as {bundle}, and refuses an empty or non-object bundle', async () => {
    const bare = await c.as(key, '/api/v2/evidence/verify', { method: 'POST', body: bundle });
    assert.equal(bare.status, 200, JSON.stringify(bare.body));
    assert.equal(bare.body.data.valid, true);
    assert.deepEqual(bare.body.data, await verify(bundle), 'the same verdicts as the wrapped form');
    const file = await (await fetch(`${c.svc.url}/api/v2/evidence/export/${bundle.bundle_id}?format=json`, { headers: { 'x-api-key': key } })).text();
    const posted = await c.as(key, '/api/v2/evidence/verify', { method: 'POST', rawBody: file, headers: { 'content-type': 'application/json' } });
    assert.equal(posted.body.data.valid, true, 'a downloaded export posts as it is');
    const tampered = await c.as(key, '/api/v2/evidence/verify', { method: 'POST', body: { ...bundle, job_id: 'job_other' } });
    assert.equal(tampered.body.data.valid, false);
    for (const body of [{}, { bundle: 'text' }, { bundle: null }]) {
      const r = await c.as(key, '/api/v2/evidence/verify', { method: 'POST', body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error.code, 'INVALID_REQUEST');
    }
  });

  test('after a key rotation the bundle still verifies, and the retired key stays published', async () => {
    await new EvidenceKeys(c.svc.db, 'core').rotate();
    assert.equal((await verify(bundle)).valid, true);
    const keys = (await call(`${c.svc.url}/api/v2/evidence/keys`)).body.keys as Array<{ key_id: string; status: string }>;
    assert.equal(keys.find((k) => k.key_id === bundle.key_id)?.status, 'retired');
    assert.equal(keys.filter((k) => k.status === 'active').length, 1);
  });
});

describe('export and public keys', () => {
  test('JSON export is the bundle as issued, as a file', async () => {
    const res = await fetch(`${c.svc.url}/api/v2/evidence/export/${bundle.bundle_id}?format=json`, { headers: { 'x-api-key': key } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^application\/json/);
    assert.match(res.headers.get('content-disposition')!, new RegExp(`${bundle.bundle_id}\\.json`));
    assert.deepEqual(JSON.parse(await res.text()), bundle);
    const byDefault = await fetch(`${c.svc.url}/api/v2/evidence/export/${bundle.bundle_id}`, { headers: { 'x-api-key': key } });
    assert.match(byDefault.headers.get('content-type')!, /^application\/json/);
  });

  test('CBOR export decodes to the same bundle, which verifies offline against the published keys', async () => {
    const res = await fetch(`${c.svc.url}/api/v2/evidence/export/${bundle.bundle_id}?format=cbor`, { headers: { 'x-api-key': key } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/cbor');
    const decoded = await decodeBundleCbor(new Uint8Array(await res.arrayBuffer()));
    assert.deepEqual(decoded, bundle);
    const published = (await call(`${c.svc.url}/api/v2/evidence/keys`)).body;
    const offline = await verifyBundle(decoded, { keys: published });
    assert.equal(offline.valid, true, JSON.stringify(offline.checks));
    const withText = await verifyBundle(decoded, { keys: published, hashInputs: { circuit_hash: TEXT } });
    assert.equal(withText.checks.hash!.verdict, 'valid');
    const otherText = await verifyBundle(decoded, { keys: published, hashInputs: { circuit_hash: TEXT.trim() } });
    assert.equal(otherText.checks.hash!.verdict, 'invalid');
  });

  test('PDF export is a real PDF showing the bundle id, the circuit hash and the signature', async () => {
    const res = await fetch(`${c.svc.url}/api/v2/evidence/export/${bundle.bundle_id}?format=pdf`, { headers: { 'x-api-key': key } });
    assert.equal(res.status, 200, res.status === 200 ? '' : await res.text());
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    const file = join(mkdtempSync(join(tmpdir(), 'core-pdf-')), 'bundle.pdf');
    writeFileSync(file, bytes);
    const text = spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    assert.equal(text.status, 0, text.stderr);
    const flat = text.stdout.replace(/\s+/g, '');
    assert.ok(flat.includes(bundle.bundle_id), 'bundle id shown');
    assert.ok(flat.includes(bundle.circuit_hash.slice(0, 40)), 'circuit hash shown');
    assert.ok(flat.includes(bundle.key_id), 'key id shown');
  });

  test('public keys are served without a key in the CONTRACT shape', async () => {
    const res = await call(`${c.svc.url}/api/v2/evidence/keys`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, undefined, 'the key list shape of the licensing service, not the envelope');
    for (const k of res.body.keys) {
      assert.deepEqual(Object.keys(k).sort(), ['algorithm', 'created_at', 'key_id', 'public_key', 'status']);
      assert.match(k.public_key, /^[A-Za-z0-9+/]+=*$/);
    }
  });
});
