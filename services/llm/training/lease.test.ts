import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { createAccount, setPlan } from '../../../platform/identity/accounts.ts';
import { createKey } from '../../../platform/identity/keys.ts';
import { newId } from '../../../platform/identity/ids.ts';
import { issueFeatureKey } from '../../../platform/licenses/feature-keys.ts';
import { lazyQueue } from '../../../platform/jobs/queue.ts';
import { allMigrations } from '../../../platform/server.ts';
import { eventually } from '../../../platform/testing/cluster.ts';
import { call, openTestDatabase, type TestDatabase } from '../../../platform/testing/harness.ts';
import { llmService } from '../service.ts';
import { TRAIN_QUEUE, trainingEventId } from './runner.ts';

// One service instance: what another process of a cluster did (held a lease, died, finished a
// job without handing its event over) is written into the rows as that process leaves them.
let store: TestDatabase;
let queue: ReturnType<typeof lazyQueue>;
let app: ServiceApp;
let base = '';
let receiver: Server;
const received: { id: string; event: string; job_id: string }[] = [];
let tenant: { id: string; key: string };
let license = '';

before(async () => {
  store = await openTestDatabase(allMigrations([llmService]));
  const account = await createAccount(store.db, { email: 'leases@example.test' });
  await setPlan(store.db, account.id, 'llm', 'enterprise');
  const admin = (await createKey(store.db, { accountId: account.id, service: 'llm', prefix: 'lq', role: 'admin' })).key;
  license = (await issueFeatureKey(store.db, { service: 'llm', features: ['lora_training'] })).license_key;
  receiver = createServer((r, res) => {
    let body = '';
    r.on('data', (c) => (body += c));
    r.on('end', () => {
      const p = JSON.parse(body) as { id: string; event: string; data: { job_id: string } };
      received.push({ id: p.id, event: p.event, job_id: p.data.job_id });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookAddr = receiver.address();
  queue = lazyQueue(store.db, { schema: store.queueSchema, maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 });
  app = await llmService.build({ db: store.db, dataDir: '', now: () => new Date(), queue: queue.get }, { prefix: '' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const hookUrl = `http://127.0.0.1:${typeof hookAddr === 'object' && hookAddr ? hookAddr.port : 0}/`;
  assert.equal((await call(`${base}/v1/webhooks`, { headers: { authorization: `Bearer ${admin}` }, body: { url: hookUrl, events: ['training.completed', 'training.failed'], secret: 's' } })).status, 201);
  const t = await call(`${base}/v1/tenants`, { headers: { authorization: `Bearer ${admin}` }, body: { name: 'leases', slug: 'leases', tier: 'enterprise', settings: { min_feedback_count: 4 } } });
  tenant = { id: t.body.id, key: t.body.api_key };
  for (const s of ['wing', 'shell', 'nozzle', 'plate']) {
    const r = await call(`${base}/v1/tenants/${tenant.id}/feedback`, { headers: { authorization: `Bearer ${tenant.key}` }, body: { type: 'correction', correction: `zulu ${s}`, metadata: { prompt: `code word for ${s}` } } });
    assert.equal(r.status, 201);
  }
});
after(async () => {
  await app.close();
  await queue.stop();
  receiver.close();
  await store.close();
});

interface Row {
  status: string;
  attempts: number;
  lease_owner: string | null;
  progress: number;
  finished_at: Date | null;
  has_adapter: boolean;
  event_pending: boolean;
  queue_job_id: string | null;
}

const row = async (id: string): Promise<Row> =>
  (await store.db.query<Row>('SELECT status, attempts, lease_owner, progress, finished_at, adapter IS NOT NULL AS has_adapter, event_pending, queue_job_id FROM llm_training_jobs WHERE id = $1', [id]))[0]!;

async function submit(epochs: number): Promise<string> {
  const r = await call(`${base}/v1/tenants/${tenant.id}/train/lora`, {
    headers: { authorization: `Bearer ${tenant.key}`, 'x-license-key': license },
    body: { epochs, batch_size: 2, lora_r: 2, lora_alpha: 4, learning_rate: 0.02 },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.job_id;
}

/** A job row of `epochs` epochs as another process left it, with the training set of `like`. */
async function insertJob(like: string, epochs: number, columns: Record<string, unknown>): Promise<string> {
  const id = newId('ftjob');
  const names = Object.keys(columns);
  await store.db.query(
    `INSERT INTO llm_training_jobs (id, tenant_id, model, params, pairs, feedback_samples, total_epochs, ${names.join(', ')})
     SELECT $1, tenant_id, model, jsonb_set(params, '{epochs}', to_jsonb($3::int)), pairs, feedback_samples, $3, ${names.map((_, i) => `$${i + 4}`).join(', ')}
       FROM llm_training_jobs WHERE id = $2`,
    [id, like, epochs, ...Object.values(columns)],
  );
  return id;
}

const completed = (id: string) => eventually(`job ${id} completed`, async () => ((await row(id)).status === 'completed' ? row(id) : null), 120_000);
const eventsOf = (id: string) => received.filter((d) => d.job_id === id);

let template = '';

test('a run that loses its lease stops without writing, and the job is finished once by the process that holds it next', async () => {
  const id = await submit(40);
  template = id;
  await eventually('training under way', async () => (await row(id)).progress > 0, 120_000);
  // Another process takes the job (as when this one stalled past its lease).
  await store.db.query(`UPDATE llm_training_jobs SET lease_owner = 'elsewhere:1:000000000000', lease_expires_at = now() + interval '1 hour' WHERE id = $1`, [id]);
  const stolen = await row(id);
  // The run returned (its queue message is done) without touching the row.
  await eventually('the run gave up', async () => (await (await queue.get()).state(TRAIN_QUEUE, stolen.queue_job_id!))?.state === 'completed', 60_000);
  const left = await row(id);
  assert.deepEqual(
    { status: left.status, owner: left.lease_owner, progress: left.progress, finished: left.finished_at, adapter: left.has_adapter },
    { status: 'running', owner: 'elsewhere:1:000000000000', progress: stolen.progress, finished: null, adapter: false },
  );
  assert.deepEqual(eventsOf(id), []);
  // That process dies: its lease runs out, the leader re-queues the job, and it is trained once more.
  await store.db.query(`UPDATE llm_training_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
  const done = await completed(id);
  assert.equal(done.attempts, 2);
  assert.ok(done.has_adapter);
  await eventually('its event', async () => eventsOf(id).length > 0);
  assert.deepEqual(eventsOf(id), [{ id: trainingEventId(id, 'training.completed'), event: 'training.completed', job_id: id }]);
});

test('a message for a job a live process holds is dropped; once that holder dies the job is trained again', async () => {
  const id = await insertJob(template, 2, { status: 'running', attempts: 1, lease_owner: 'alive:2:000000000000', lease_expires_at: new Date(Date.now() + 3_600_000) });
  const q = await queue.get();
  const message = await q.send(TRAIN_QUEUE, { job_id: id });
  await eventually('the message handled', async () => (await q.state(TRAIN_QUEUE, message!))?.state === 'completed', 60_000);
  const held = await row(id);
  assert.deepEqual({ status: held.status, attempts: held.attempts, owner: held.lease_owner }, { status: 'running', attempts: 1, owner: 'alive:2:000000000000' });
  // The holder is killed: nothing renews its lease.
  await store.db.query(`UPDATE llm_training_jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
  const done = await completed(id);
  assert.equal(done.attempts, 2);
  assert.notEqual(done.lease_owner, 'alive:2:000000000000');
});

test('a job accepted by a process that died before queuing it is sent by the leader', async () => {
  const id = await insertJob(template, 1, { status: 'queued', updated_at: new Date(Date.now() - 60_000) });
  const done = await completed(id);
  assert.equal(done.attempts, 1);
  assert.ok(done.queue_job_id);
});

test('the event of a job finished by a process that died before handing it over is handed over once, with the id the job fixes', async () => {
  const id = await insertJob(template, 1, {
    status: 'completed',
    attempts: 1,
    progress: 1,
    held_out_loss_before: 2.5,
    held_out_loss_after: 1.5,
    finished_at: new Date(Date.now() - 60_000),
    event_pending: true,
  });
  await eventually('the event handed over', async () => !(await row(id)).event_pending, 60_000);
  await eventually('the event delivered', async () => eventsOf(id).length > 0);
  assert.deepEqual(eventsOf(id), [{ id: trainingEventId(id, 'training.completed'), event: 'training.completed', job_id: id }]);
});
