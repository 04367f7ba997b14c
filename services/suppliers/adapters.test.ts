/**
 * The three suppliers' real APIs, against a local server that answers as each is documented
 * to (mock-apis.ts): listing, estimate, execute, poll, results, cancel and failures through
 * the service's HTTP routes; the request signature against the published test vector; and the
 * service with emulation switched off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseQasm, run } from '../../engines/quantum/index.ts';
import { getBalance } from '../../platform/billing/index.ts';
import type { ServiceApp } from '../../platform/http/app.ts';
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { SupplierAAdapter } from './adapters/supplier-a.ts';
import { SupplierBAdapter } from './adapters/supplier-b.ts';
import type { SupplierJob } from './store.ts';
import { signRequest } from './adapters/sigv4.ts';
import { buildSuppliers } from './app.ts';
import { loadSuppliersConfig } from './config.ts';
import { C_DEVICE, startMockApis, TOKENS, type MockApis } from './mock-apis.ts';
import { suppliersService } from './service.ts';
import { BELL, client, credit, ghz, waitStatus } from './testing.ts';

let mock: MockApis;
let svc: TestService;
let c: ReturnType<typeof client>;
let accountId: string;

before(async () => {
  mock = await startMockApis();
  const config = loadSuppliersConfig({
    LATTICE_SUPPLIER_A_TOKEN: TOKENS.a,
    LATTICE_SUPPLIER_A_URL: `${mock.url}/aqt/api/v1`,
    LATTICE_SUPPLIER_B_API_KEY: TOKENS.bApiKey,
    LATTICE_SUPPLIER_B_IAM_URL: `${mock.url}/iam/identity/token`,
    LATTICE_SUPPLIER_B_URL: `${mock.url}/runtime/api/v1`,
    LATTICE_SUPPLIER_B_INSTANCE: 'crn:mock:instance',
    LATTICE_SUPPLIER_C_ACCESS_KEY_ID: TOKENS.c.accessKeyId,
    LATTICE_SUPPLIER_C_SECRET_ACCESS_KEY: TOKENS.c.secretAccessKey,
    LATTICE_SUPPLIER_C_REGION: TOKENS.c.region,
    LATTICE_SUPPLIER_C_URL: `${mock.url}/tasks`,
    LATTICE_SUPPLIER_C_STORAGE_URL: `${mock.url}/store/{bucket}`,
    LATTICE_SUPPLIERS_POLL_MS: '200',
  });
  svc = await startTestService({ ...suppliersService, build: (ctx, o) => buildSuppliers(ctx, o, config) });
  const k = await svc.newKey({ plan: 'enterprise' });
  accountId = k.accountId;
  c = client(svc, k.key);
  await credit(svc, accountId, 100);
});
after(async () => {
  await svc.close();
  await mock.close();
});

/** Total variation distance between two count maps. */
function tvd(a: Record<string, number>, b: Record<string, number>): number {
  const na = Object.values(a).reduce((s, x) => s + x, 0);
  const nb = Object.values(b).reduce((s, x) => s + x, 0);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  let d = 0;
  for (const k of keys) d += Math.abs((a[k] ?? 0) / na - (b[k] ?? 0) / nb);
  return d / 2;
}

const ROTATIONS = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\ncreg c[3];\nrx(-0.7) q[0];\nry(2.6) q[1];\ncx q[1],q[2];\nrz(-1.1) q[2];\nh q[2];\nrxx(-2.2) q[0],q[2];\nmeasure q -> c;\n';

describe('with credentials, each adapter speaks its supplier\'s API', () => {
  test('/health says configured and remote for the three suppliers', async () => {
    const r = await c.get('/health');
    assert.deepEqual(r.body.suppliers, { hpc_gpu: 'configured', supplier_b_quantum: 'configured', supplier_a_quantum: 'configured', supplier_c: 'configured' });
    assert.deepEqual(r.body.modes, { hpc_gpu: 'emulated', supplier_b_quantum: 'remote', supplier_a_quantum: 'remote', supplier_c: 'remote' });
  });

  test('supplier A: workspaces become providers; a run is translated to R/RZ/RXX, polled and counted', async () => {
    const p = await c.get('/api/v1/supplier_a_quantum/providers');
    assert.deepEqual(p.body.providers.map((x: any) => [x.id, x.targets, x.num_qubits]), [['ws-lab', ['ibex'], 12]]);
    const r = await c.post('/api/v1/supplier_a_quantum/execute', { qasm: BELL, provider: 'ws-lab', target: 'ibex', shots: 400 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.ok(mock.seen.includes('POST /aqt/api/v1/submit/ws-lab/ibex'));
    const done = await waitStatus(c.get, `/api/v1/supplier_a_quantum/status/${r.body.job_id}`);
    assert.equal(done.body.status, 'completed');
    assert.deepEqual(Object.keys(done.body.result.counts).sort(), ['00', '11']);
    assert.equal(done.body.result.shots, 400);
    assert.equal(done.body.cost_usd, r.body.estimated_cost);
  });

  test('supplier A: negative and large angles translate exactly (the device\'s distribution equals the ideal one)', async () => {
    const r = await c.post('/api/v1/supplier_a_quantum/execute', { qasm: ROTATIONS, provider: 'ws-lab', target: 'ibex', shots: 2000 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const done = await waitStatus(c.get, `/api/v1/supplier_a_quantum/status/${r.body.job_id}`);
    const ideal = run(parseQasm(ROTATIONS), { shots: 20_000, seed: 99 }).counts;
    assert.ok(tvd(done.body.result.counts, ideal) < 0.06, `distance ${tvd(done.body.result.counts, ideal)}`);
    assert.deepEqual(mock.problems, []);
    assert.equal(mock.seen.filter((x) => x === 'GET /aqt/api/v1/workspaces').length, 1, 'the target list is reused between requests');
  });

  test('supplier B: backends from the configuration; the sampler gets an ISA circuit; counts from hex samples', async () => {
    const b = await c.get('/api/v1/supplier_b_quantum/backends');
    assert.deepEqual(b.body.backends.map((x: any) => [x.name, x.num_qubits, x.type, x.status, x.processor]), [['mock_eagle', 5, 'qpu', 'ONLINE', 'Eagle r3'], ['mock_ecr', 5, 'qpu', 'ONLINE', 'Eagle r3']]);
    const r = await c.post('/api/v1/supplier_b_quantum/execute', { qasm: ghz(4), backend: 'mock_eagle', shots: 500 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const done = await waitStatus(c.get, `/api/v1/supplier_b_quantum/status/${r.body.job_id}`);
    assert.equal(done.body.status, 'completed');
    assert.deepEqual(Object.keys(done.body.result.counts).sort(), ['0000', '1111']);
    assert.equal(done.body.result.execution_time, 2, 'the quantum seconds the supplier reported');
    assert.ok(done.body.cost_usd <= done.body.estimated_cost_usd);
    const twoRegs = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\ncreg a[1];\ncreg b[2];\nx q[0];\nx q[2];\nmeasure q[0] -> a[0];\nmeasure q[1] -> b[0];\nmeasure q[2] -> b[1];\n';
    const r2 = await c.post('/api/v1/supplier_b_quantum/execute', { qasm: twoRegs, backend: 'mock_eagle', shots: 50 });
    const d2 = await waitStatus(c.get, `/api/v1/supplier_b_quantum/status/${r2.body.job_id}`);
    assert.deepEqual(d2.body.result.counts, { '101': 50 }, 'registers in declaration order, bit 0 rightmost');
    const ecr = await c.post('/api/v1/supplier_b_quantum/execute', { qasm: ROTATIONS, backend: 'mock_ecr', shots: 2000 });
    assert.equal(ecr.status, 201, JSON.stringify(ecr.body));
    const d3 = await waitStatus(c.get, `/api/v1/supplier_b_quantum/status/${ecr.body.job_id}`);
    const ideal = run(parseQasm(ROTATIONS), { shots: 20_000, seed: 5 }).counts;
    assert.ok(tvd(d3.body.result.counts, ideal) < 0.06, `an ECR device reads the ideal distribution (distance ${tvd(d3.body.result.counts, ideal)})`);
    assert.deepEqual(mock.problems, []);
    assert.equal(mock.seen.filter((x) => x === 'token issued').length, 1, 'the API key was exchanged once and the token reused');
  });

  test('supplier C: signed requests; a task needs a bucket; results come from the object store', async () => {
    const d = await c.get('/api/v1/supplier_c/devices');
    assert.deepEqual(d.body.devices, [{ arn: C_DEVICE, name: 'Grid-9', type: 'QPU', num_qubits: 9, status: 'ONLINE' }]);
    const before = await getBalance(svc.db, accountId);
    const noBucket = await c.post('/api/v1/supplier_c/execute', { qasm: BELL, device_arn: C_DEVICE, shots: 100 });
    assert.equal(noBucket.status, 400);
    assert.equal(noBucket.body.supplier, 'supplier_c');
    assert.deepEqual(await getBalance(svc.db, accountId), before, 'a refused task holds nothing');
    const r = await c.post('/api/v1/supplier_c/execute', { qasm: ghz(3), device_arn: C_DEVICE, shots: 300, storage_bucket: 'lab-results', storage_prefix: 'exp' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.status, 'QUEUED');
    const done = await waitStatus(c.get, `/api/v1/supplier_c/status/${encodeURIComponent(r.body.task_id)}`);
    assert.equal(done.body.status, 'COMPLETED');
    assert.deepEqual(Object.keys(done.body.result.counts).sort(), ['000', '111']);
    assert.match(done.body.storage_result_location, /^s3:\/\/lab-results\/exp\//);
    const rot = await c.post('/api/v1/supplier_c/execute', { qasm: ROTATIONS, device_arn: C_DEVICE, shots: 4000, storage_bucket: 'lab-results' });
    assert.equal(rot.status, 201, JSON.stringify(rot.body));
    const d2 = await waitStatus(c.get, `/api/v1/supplier_c/status/${encodeURIComponent(rot.body.task_id)}`);
    const ideal = run(parseQasm(ROTATIONS), { shots: 20_000, seed: 3 }).counts;
    assert.ok(tvd(d2.body.result.counts, ideal) < 0.05, `the program in the supplier's gate names reads the ideal distribution (distance ${tvd(d2.body.result.counts, ideal)})`);
    assert.deepEqual(mock.problems, [], 'every signature matched');
  });

  test('cancel reaches each supplier while its job is queued', async () => {
    mock.hold = true;
    try {
      const a = await c.post('/api/v1/supplier_a_quantum/execute', { qasm: BELL, provider: 'ws-lab', target: 'ibex', shots: 10 });
      const b = await c.post('/api/v1/supplier_b_quantum/execute', { qasm: BELL, backend: 'mock_eagle', shots: 10 });
      const t = await c.post('/api/v1/supplier_c/execute', { qasm: BELL, device_arn: C_DEVICE, shots: 10, storage_bucket: 'lab-results' });
      assert.equal((await c.del(`/api/v1/supplier_a_quantum/jobs/${a.body.job_id}`)).body.status, 'cancelled');
      assert.equal((await c.del(`/api/v1/supplier_b_quantum/jobs/${b.body.job_id}`)).body.status, 'cancelled');
      assert.equal((await c.del(`/api/v1/supplier_c/jobs/${encodeURIComponent(t.body.task_id)}`)).body.status, 'CANCELLED');
      assert.ok(mock.seen.some((s) => s.startsWith('DELETE /aqt/api/v1/jobs/')));
      assert.ok(mock.seen.some((s) => /^POST \/runtime\/api\/v1\/jobs\/[\w-]+\/cancel$/.test(s)));
      assert.ok(mock.seen.some((s) => s.startsWith('PUT /tasks/quantum-task/') && s.endsWith('/cancel')));
      assert.equal((await getBalance(svc.db, accountId)).heldMicros, 0, 'the holds were released');
    } finally {
      mock.hold = false;
    }
  });

  test('a job the supplier fails reads failed with JOB_FAILED, charges nothing, and is finished by the poller without a read', async () => {
    const before = (await getBalance(svc.db, accountId)).availableMicros;
    mock.failNext = true;
    const r = await c.post('/api/v1/supplier_b_quantum/execute', { qasm: BELL, backend: 'mock_eagle', shots: 10 });
    assert.equal(r.status, 201);
    let row: { status: string } | undefined;
    for (let i = 0; i < 50 && row?.status !== 'failed'; i++) {
      await new Promise((res) => setTimeout(res, 100));
      [row] = await svc.db.query<{ status: string }>('SELECT status FROM supplier_jobs WHERE public_id = $1', [r.body.job_id]);
    }
    assert.equal(row?.status, 'failed', 'the poller ended it');
    const s = await c.get(`/api/v1/supplier_b_quantum/status/${r.body.job_id}`);
    assert.equal(s.body.status, 'failed');
    assert.equal(s.body.error.error_code, 'JOB_FAILED');
    assert.match(s.body.error.detail, /calibration drift/);
    assert.equal((await getBalance(svc.db, accountId)).availableMicros, before);
  });

  test('credentials a supplier refuses answer SUPPLIER_NOT_CONFIGURED, an unreachable one PROVIDER_UNAVAILABLE, a refusal BACKEND_ERROR', async () => {
    await assert.rejects(new SupplierAAdapter({ token: 'wrong', url: `${mock.url}/aqt/api/v1` }).targets(), (e: any) => e.code === 'SUPPLIER_NOT_CONFIGURED' && e.status === 503);
    await assert.rejects(new SupplierAAdapter({ token: 'x', url: 'http://127.0.0.1:9/api/v1' }).targets(), (e: any) => e.code === 'PROVIDER_UNAVAILABLE');
    const b = new SupplierBAdapter({ token: TOKENS.b, url: `${mock.url}/runtime/api/v1`, instance: 'crn:mock:instance' });
    await assert.rejects(b.observe({ remoteId: 'no-such-job' } as SupplierJob), (e: any) => e.code === 'BACKEND_ERROR' && /job not found/.test(e.message));
  });
});

describe('configuration', () => {
  test('the request signature matches the published get-vanilla test vector', async () => {
    const h = await signRequest({ method: 'GET', url: 'https://example.amazonaws.com/' }, { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }, {
      region: 'us-east-1', service: 'service', now: new Date('2015-08-30T12:36:00Z'),
    });
    assert.equal(h.authorization, 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
  });

  test("the result store's signature matches the published S3 GET-object example (payload hash signed, path not encoded again)", async () => {
    const h = await signRequest({ method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/test.txt', headers: { Range: 'bytes=0-9' } }, {
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    }, { region: 'us-east-1', service: 's3', now: new Date('2013-05-24T00:00:00Z') });
    assert.equal(h.authorization, 'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    assert.equal(h['x-amz-content-sha256'], 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  test('bad configuration stops the start with a message naming the variable', () => {
    assert.throws(() => loadSuppliersConfig({ LATTICE_SUPPLIER_A_TOKEN: 't', LATTICE_SUPPLIER_A_URL: 'not a url' }), /LATTICE_SUPPLIER_A_URL/);
    assert.throws(() => loadSuppliersConfig({ LATTICE_SUPPLIERS_EMULATION: 'maybe' }), /LATTICE_SUPPLIERS_EMULATION/);
    assert.throws(() => loadSuppliersConfig({ LATTICE_SUPPLIER_C_ACCESS_KEY_ID: 'x' }), /set together/);
    assert.throws(() => loadSuppliersConfig({ LATTICE_SUPPLIERS_POLL_MS: '5' }), /LATTICE_SUPPLIERS_POLL_MS/);
  });

  test('with emulation off and no credentials: needs_token, and the supplier\'s routes answer 503 SUPPLIER_NOT_CONFIGURED', async () => {
    const off: ServiceApp = await buildSuppliers(svc.ctx, { prefix: '' }, loadSuppliersConfig({ LATTICE_SUPPLIERS_EMULATION: 'off' }));
    await off.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = off.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const k = await svc.newKey({ plan: 'pro' });
      const h = await call(`${base}/health`);
      assert.deepEqual(h.body.suppliers, { hpc_gpu: 'configured', supplier_b_quantum: 'needs_token', supplier_a_quantum: 'needs_token', supplier_c: 'needs_token' });
      const r = await call(`${base}/api/v1/supplier_b_quantum/execute`, { body: { qasm: BELL, backend: 'lattice_line_5', shots: 10 }, headers: { 'x-api-key': k.key } });
      assert.equal(r.status, 503);
      assert.equal(r.body.error_code, 'SUPPLIER_NOT_CONFIGURED');
      assert.equal(r.body.supplier, 'supplier_b_quantum');
      const list = await call(`${base}/api/v1/supplier_b_quantum/backends`, { headers: { 'x-api-key': k.key } });
      assert.equal(list.status, 503);
      assert.equal(list.body.error_code, 'SUPPLIER_NOT_CONFIGURED');
      const all = await call(`${base}/api/v1/backends/all`, { headers: { 'x-api-key': k.key } });
      assert.deepEqual([...new Set(all.body.backends.map((b: any) => b.provider))], ['hpc_gpu']);
      const st = await call(`${base}/api/v1/suppliers/status`, { headers: { 'x-api-key': k.key } });
      assert.equal(st.body.configured_suppliers, 1);
      const existing = await c.post('/api/v1/supplier_c/execute', { qasm: BELL, device_arn: C_DEVICE, shots: 10, storage_bucket: 'lab-results' });
      const again = await call(`${base}/api/v1/supplier_c/status/${encodeURIComponent(existing.body.task_id)}`, { headers: { 'x-api-key': k.key } });
      assert.equal(again.status, 404, 'another account');
    } finally {
      await off.close();
    }
  });
});
