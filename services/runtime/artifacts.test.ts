import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sha3Hash, verifyBundle } from '../../platform/evidence/index.ts';
import type { TestService } from '../../platform/testing/harness.ts';
import { addCredits, BELL, client, PER_SHOT_DEVICE, startRuntime } from './testing.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'runtime-artifacts-'));

/** `lattice evidence verify` as a user runs it, offline: a saved keys file, no store, no server. */
function verifyOffline(args: string[]): { status: number | null; out: any } {
  const r = spawnSync(process.execPath, [join(root, 'bin/lattice.mjs'), 'evidence', 'verify', ...args, '--json'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '' },
  });
  return { status: r.status, out: JSON.parse(r.stdout.trim().split('\n').pop() ?? 'null') };
}

describe('runtime artifacts and execution evidence', () => {
  let svc: TestService;
  let api: ReturnType<typeof client>;
  let jobId: string;
  let key: string;
  let artifacts: Array<{ name: string; content: string; sha3_256: string; size_bytes: number; content_type: string; url: string }>;
  before(async () => {
    svc = await startRuntime();
    const k = await svc.newKey();
    await addCredits(svc, k.accountId, 5);
    key = k.key;
    api = client(svc, key);
    const sub = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 400 });
    jobId = sub.body.job_id;
    const early = await api.get(`/api/v1/runtime/jobs/${jobId}/artifacts`);
    assert.equal(early.status, 409, 'no artifacts while the job waits for approval');
    assert.equal(early.body.error.details.status, 'awaiting_approval');
    await api.post(`/api/v1/runtime/jobs/${jobId}/approve?approval_token=${sub.body.approval_token}`);
    assert.equal((await api.get(`/api/v1/runtime/jobs/${jobId}?wait=30`)).body.status, 'completed');
    const res = await api.get(`/api/v1/runtime/jobs/${jobId}/artifacts`);
    assert.equal(res.status, 200);
    artifacts = res.body.artifacts;
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string) => artifacts.find((a) => a.name === name)!;

  test('a completed job lists its circuit, executed circuit, result and sealed evidence with exact sizes and hashes', async () => {
    assert.deepEqual(artifacts.map((a) => a.name), ['circuit.qasm', 'executed_circuit.qasm', 'result.json', 'execution_evidence.json']);
    for (const a of artifacts) {
      assert.equal(a.size_bytes, Buffer.byteLength(a.content));
      assert.equal(a.sha3_256, sha3Hash(a.content));
      assert.equal((await fetch(`${svc.url}${a.url}`)).status, 401, 'the raw file needs the key too');
    }
    assert.equal(file('circuit.qasm').content, BELL);
    const result = JSON.parse(file('result.json').content);
    assert.equal(result.job_id, jobId);
    assert.equal(result.shots, 400);
    assert.equal(Object.values(result.counts as Record<string, number>).reduce((a, n) => a + n, 0), 400);
  });

  test('the raw artifact route serves the exact bytes the hashes pin', async () => {
    for (const a of artifacts) {
      const raw = await fetch(`${svc.url}${a.url}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(raw.status, 200);
      assert.equal(raw.headers.get('content-type'), a.content_type);
      const bytes = Buffer.from(await raw.arrayBuffer());
      assert.equal(bytes.length, a.size_bytes);
      assert.equal(sha3Hash(bytes), a.sha3_256);
    }
    const unknown = await api.get(`/api/v1/runtime/jobs/${jobId}/artifacts/secrets.txt`);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'INVALID_REQUEST');
  });

  test('execution_evidence.json is signed, names the job, and pins the circuit and the result', async () => {
    const bundle = JSON.parse(file('execution_evidence.json').content);
    assert.equal(bundle.type, 'execution_evidence');
    assert.equal(bundle.job_id, jobId);
    assert.equal(bundle.backend_id, PER_SHOT_DEVICE);
    assert.equal(bundle.shots, 400);
    assert.equal(bundle.qasm_hash, sha3Hash(BELL));
    assert.equal(bundle.result_hash, sha3Hash(file('result.json').content));
    assert.equal(bundle.executed_circuit_hash, sha3Hash(file('executed_circuit.qasm').content));
    assert.deepEqual(bundle.cost, { currency: 'USD', estimated_usd: 0.44, charged_usd: 0.44 });
    assert.equal(bundle.approval.required, true);
    assert.equal(bundle.signature.algorithm, 'ML-DSA-65');
    const keys = await fetch(`${svc.url}/api/v1/runtime/evidence/keys`);
    assert.equal(keys.status, 200, 'keys are published without authentication');
    const doc = (await keys.json()) as { keys: Array<{ key_id: string }> };
    assert.ok(doc.keys.some((k) => k.key_id === bundle.signature.key_id));
    const result = await verifyBundle(bundle, { keys: doc as never, hashInputs: { qasm_hash: BELL, result_hash: file('result.json').content } });
    assert.equal(result.valid, true, JSON.stringify(result.checks));
    assert.equal(result.kind, 'runtime');
  });

  test('the evidence is issued once: reading the artifacts again gives the same bundle', async () => {
    const again = await api.get(`/api/v1/runtime/jobs/${jobId}/artifacts`);
    const bundle = again.body.artifacts.find((a: { name: string }) => a.name === 'execution_evidence.json').content;
    assert.equal(bundle, file('execution_evidence.json').content);
    const [n] = await svc.db.query<{ n: string | number }>("SELECT count(*) AS n FROM evidence_bundles WHERE service = 'runtime' AND subject_id = $1", [jobId]);
    assert.equal(Number(n!.n), 1);
  });

  test('lattice evidence verify checks it offline, and a changed byte anywhere makes it invalid', async () => {
    const keys = await (await fetch(`${svc.url}/api/v1/runtime/evidence/keys`)).text();
    const keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, keys);
    const paths: Record<string, string> = {};
    for (const a of artifacts) {
      paths[a.name] = join(dir, a.name);
      writeFileSync(paths[a.name]!, a.content);
    }
    const ok = verifyOffline([paths['execution_evidence.json']!, '--keys', keysFile, '--hash-input', `result_hash=${paths['result.json']}`, '--hash-input', `qasm_hash=${paths['circuit.qasm']}`]);
    assert.equal(ok.status, 0);
    assert.equal(ok.out.valid, true);
    assert.equal(ok.out.kind, 'runtime');
    assert.equal(ok.out.checks.signature.verdict, 'valid');
    assert.equal(ok.out.checks.result_hash.verdict, 'valid');

    // A tampered result file no longer matches the pinned hash.
    const forged = join(dir, 'forged-result.json');
    writeFileSync(forged, file('result.json').content.replace('"shots":400', '"shots":401'));
    const badResult = verifyOffline([paths['execution_evidence.json']!, '--keys', keysFile, '--hash-input', `result_hash=${forged}`]);
    assert.equal(badResult.status, 1);
    assert.equal(badResult.out.checks.result_hash.verdict, 'invalid');

    // A changed field of the bundle breaks the signature.
    const bundle = JSON.parse(file('execution_evidence.json').content);
    bundle.shots = 401;
    const tampered = join(dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify(bundle));
    const bad = verifyOffline([tampered, '--keys', keysFile]);
    assert.equal(bad.status, 1);
    assert.equal(bad.out.valid, false);
    assert.equal(bad.out.checks.signature.verdict, 'invalid');
  });
});
