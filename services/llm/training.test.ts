import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import type { ServiceApp } from '../../platform/http/app.ts';
import { createAccount, setPlan } from '../../platform/identity/accounts.ts';
import { createKey } from '../../platform/identity/keys.ts';
import { issueFeatureKey } from '../../platform/licenses/feature-keys.ts';
import { lazyQueue } from '../../platform/jobs/queue.ts';
import { allMigrations } from '../../platform/server.ts';
import { call, openTestDatabase, type TestDatabase } from '../../platform/testing/harness.ts';
import { llmService } from './service.ts';

// Two service instances on one database, as a process and its restart would be.
let store: TestDatabase;
let receiver: Server;
let hookUrl = '';
const received: { body: string; signature: string | undefined }[] = [];
let admin = '';
let license = '';

async function startInstance(): Promise<{ url: string; app: ServiceApp; close(): Promise<void> }> {
  const queue = lazyQueue(store.db, { schema: store.queueSchema, maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 });
  const app = await llmService.build({ db: store.db, dataDir: '', now: () => new Date(), queue: queue.get }, { prefix: '' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  return {
    url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    app,
    async close() {
      await app.close();
      await queue.stop();
    },
  };
}

let main: Awaited<ReturnType<typeof startInstance>>;
const req = (path: string, key: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
  call(`${main.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });

before(async () => {
  store = await openTestDatabase(allMigrations([llmService]));
  const account = await createAccount(store.db, { email: 'trainer@example.test' });
  await setPlan(store.db, account.id, 'llm', 'enterprise');
  admin = (await createKey(store.db, { accountId: account.id, service: 'llm', prefix: 'lq', role: 'admin' })).key;
  license = (await issueFeatureKey(store.db, { service: 'llm', features: ['lora_training'] })).license_key;
  receiver = createServer((r, res) => {
    let body = '';
    r.on('data', (c) => (body += c));
    r.on('end', () => {
      received.push({ body, signature: r.headers['x-signature'] as string | undefined });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const addr = receiver.address();
  hookUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
  main = await startInstance();
  assert.equal((await req('/v1/webhooks', admin, { body: { url: hookUrl, events: ['training.completed', 'training.failed'], secret: 's3cret' } })).status, 201);
});
after(async () => {
  await main.close();
  receiver.close();
  await store.close();
});

async function tenant(slug: string): Promise<{ id: string; key: string }> {
  const r = await req('/v1/tenants', admin, { body: { name: slug, slug, tier: 'enterprise', settings: { min_feedback_count: 4 } } });
  return { id: r.body.id, key: r.body.api_key };
}

const subjects = ['wing', 'shell', 'nozzle', 'plate', 'cone', 'jet', 'panel', 'inlet'];

async function correct(t: { id: string; key: string }, prompt: string, correction: string): Promise<void> {
  const r = await req(`/v1/tenants/${t.id}/feedback`, t.key, { body: { type: 'correction', correction, metadata: { prompt } } });
  assert.equal(r.status, 201);
}

async function waitFor(t: { id: string; key: string }, job: string, done: (b: { status: string; progress: number }) => boolean, ms: number) {
  const end = Date.now() + ms;
  for (;;) {
    const r = await req(`/v1/tenants/${t.id}/train/${job}`, t.key);
    if (done(r.body) || Date.now() > end) return r.body;
    await new Promise((x) => setTimeout(x, 200));
  }
}

const ask = (t: { key: string }, content: string) =>
  req('/v1/chat/completions', t.key, { body: { model: 'lattice-tiny', messages: [{ role: 'user', content }], max_tokens: 8, temperature: 0 } });

test('training needs the lora_training license and enough feedback', async () => {
  const t = await tenant('gated');
  const body = { epochs: 1 };
  const denied = await req(`/v1/tenants/${t.id}/train/lora`, t.key, { body });
  assert.equal(denied.status, 403);
  assert.match(denied.body.error.message, /lora_training/);
  const few = await req(`/v1/tenants/${t.id}/train/lora`, t.key, { body, headers: { 'x-license-key': license } });
  assert.equal(few.status, 400);
  assert.match(few.body.error.message, /0 usable samples, 4 needed/);
});

test('a completed training job changes the tenant’s next reply, reporting progress per epoch and a signed event', async () => {
  const t = await tenant('learner');
  const before = (await ask(t, 'code word for wing')).body.choices[0].message.content;
  for (const s of subjects) await correct(t, `code word for ${s}`, `zulu zulu ${s} zulu`);
  const start = await req(`/v1/tenants/${t.id}/train/lora`, t.key, {
    body: { lora_r: 4, lora_alpha: 8, epochs: 12, learning_rate: 0.02, batch_size: 4 },
    headers: { 'x-license-key': license },
  });
  assert.equal(start.status, 200);
  assert.equal(start.body.status, 'queued');
  assert.equal(start.body.feedback_samples, 8);
  assert.ok(start.body.estimated_duration_minutes > 0);
  const seen = new Set<number>();
  const end = Date.now() + 90_000;
  let job;
  for (;;) {
    job = (await req(`/v1/tenants/${t.id}/train/${start.body.job_id}`, t.key)).body;
    if (job.status === 'running' && job.current_epoch > 0) {
      seen.add(job.current_epoch);
      assert.ok(job.metrics.loss > 0);
      assert.equal(job.metrics.learning_rate, 0.02);
    }
    if (job.status === 'completed' || job.status === 'failed' || Date.now() > end) break;
    await new Promise((x) => setTimeout(x, 150));
  }
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.current_epoch, 12);
  assert.equal(job.progress, 1);
  assert.ok(job.metrics.held_out_loss_after < job.metrics.held_out_loss_before);
  const afterReply = await ask(t, 'code word for wing');
  assert.notEqual(afterReply.body.choices[0].message.content, before);
  assert.match(afterReply.body.choices[0].message.content, /zulu/);
  assert.equal(afterReply.body.meta.adapter, start.body.job_id);
  const list = await req(`/v1/tenants/${t.id}/train`, t.key);
  assert.equal(list.body.data[0].job_id, start.body.job_id);
  // Another tenant's chats are the base model's.
  const other = await tenant('bystander');
  assert.equal((await ask(other, 'code word for wing')).body.choices[0].message.content, before);
  const deadline = Date.now() + 10_000;
  while (!received.some((r) => r.body.includes('training.completed')) && Date.now() < deadline) await new Promise((x) => setTimeout(x, 100));
  const ev = received.find((r) => r.body.includes('training.completed'))!;
  assert.equal(ev.signature, `sha256=${createHmac('sha256', 's3cret').update(ev.body).digest('hex')}`);
  assert.equal(JSON.parse(ev.body).data.job_id, start.body.job_id);
  assert.ok(seen.size >= 1, 'progress was seen while running');
});

test('a job whose training cannot run ends failed with TRAINING_FAILED and a training.failed event', async () => {
  const t = await tenant('failing');
  // Longer than the built-in model's 256-token context: the trainer refuses the pair.
  const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
  for (const s of subjects.slice(0, 4)) await correct(t, `code word for ${s}`, long);
  const start = await req(`/v1/tenants/${t.id}/train/lora`, t.key, { body: { epochs: 1 }, headers: { 'x-license-key': license } });
  assert.equal(start.status, 200);
  const job = await waitFor(t, start.body.job_id, (b) => b.status === 'failed' || b.status === 'completed', 60_000);
  assert.equal(job.status, 'failed');
  assert.equal(job.error.code, 'TRAINING_FAILED');
  assert.match(job.error.message, /context/);
  const deadline = Date.now() + 10_000;
  while (!received.some((r) => r.body.includes('training.failed')) && Date.now() < deadline) await new Promise((x) => setTimeout(x, 100));
  assert.ok(received.some((r) => r.body.includes('training.failed')));
  // The tenant's chats go on without an adapter.
  assert.equal((await ask(t, 'code word for wing')).body.meta.adapter, null);
});

test('a restart in the middle of training puts the job back, and the next process finishes it', async () => {
  const t = await tenant('restarted');
  for (const s of subjects) await correct(t, `code word for ${s}`, `zulu ${s}`);
  const start = await req(`/v1/tenants/${t.id}/train/lora`, t.key, { body: { epochs: 20, batch_size: 4, lora_r: 2 }, headers: { 'x-license-key': license } });
  const running = await waitFor(t, start.body.job_id, (b) => b.status === 'running' && b.progress > 0, 60_000);
  assert.equal(running.status, 'running');
  await main.close();
  const row = await store.db.query<{ status: string }>('SELECT status FROM llm_training_jobs WHERE id = $1', [start.body.job_id]);
  assert.equal(row[0]!.status, 'queued');
  main = await startInstance();
  const job = await waitFor(t, start.body.job_id, (b) => b.status === 'completed' || b.status === 'failed', 120_000);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.attempts, 2);
});
