import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import canonicalize from 'canonicalize';
import type { TestService } from '../../platform/testing/harness.ts';
import { BELL, client, startQcos } from './testing.ts';

let svc: TestService;
let receiver: Server;
let url: string;
const received: Array<{ body: string; signature: string | undefined }> = [];

before(async () => {
  svc = await startQcos();
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ body, signature: req.headers['x-signature'] as string | undefined });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const address = receiver.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
});
after(async () => {
  await svc.close();
  receiver.close();
});

const hmac = (secret: string, text: string) => `sha256=${createHmac('sha256', secret).update(text).digest('hex')}`;
const canonical = canonicalize as unknown as (v: unknown) => string;

async function delivery(jobId: string): Promise<{ body: string; signature: string | undefined }> {
  for (let i = 0; i < 300; i++) {
    const hit = received.find((d) => d.body.includes(jobId));
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no delivery for ${jobId}`);
}

describe('webhooks', () => {
  it('delivers job.completed and job.failed signed in the body and in X-Signature', async () => {
    const { key } = await svc.newKey({ plan: 'pro' });
    const api = client(svc, key);
    const secret = 'a-shared-secret';
    const reg = await api.post('/v2/webhooks', { url, events: ['job.completed', 'job.failed'], secret });
    assert.equal(reg.status, 201, JSON.stringify(reg.body));
    assert.deepEqual(reg.body.events, ['job.completed', 'job.failed']);
    assert.equal((await api.get('/v2/webhooks')).body.webhooks.length, 1);

    const ok = await api.post('/v2/circuits', { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', shots: 10 });
    const d = await delivery(ok.body.job_id);
    const payload = JSON.parse(d.body);
    assert.equal(payload.event, 'job.completed');
    assert.deepEqual(payload.data, { job_id: ok.body.job_id, status: 'completed', backend: 'statevector_simulator' });
    assert.ok(payload.id && payload.timestamp && payload.created_at);
    const { signature, ...unsigned } = payload;
    assert.equal(signature, hmac(secret, canonical(unsigned)), 'body signature over the canonical JSON without it');
    assert.equal(d.signature, hmac(secret, d.body), 'X-Signature over the raw body');

    // MPS runs only terminal measurements: this circuit passes validation and fails when run.
    const midMeasure = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[1];\ncreg c[1];\nmeasure q[0] -> c[0];\nx q[0];\n';
    const bad = await api.post('/v2/circuits', { circuit: { qasm: midMeasure, format: 'qasm2' }, backend: 'mps_simulator', shots: 10 });
    assert.equal(bad.status, 201, JSON.stringify(bad.body));
    const f = JSON.parse((await delivery(bad.body.job_id)).body);
    assert.equal(f.event, 'job.failed');
    assert.equal(f.data.status, 'failed');
    const job = await api.get(`/v2/jobs/${bad.body.job_id}`);
    assert.equal(job.body.status, 'failed');
    assert.ok(job.body.error.message);

    const del = await api.del(`/v2/webhooks/${reg.body.webhook_id}`);
    assert.equal(del.status, 200);
    assert.equal((await client(svc, (await svc.newKey()).key).del(`/v2/webhooks/${reg.body.webhook_id}`)).status, 404);
  });
});
