/**
 * A restart in the middle of a held job: the service is stopped while the job runs and a new
 * one is started on the same store; the hold ends settled or released, never lost.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { placeHold } from '../../platform/billing/index.ts';
import { balance, BELL, client, fund, holdsOf, ledgerOf, openStore, settled, slowCircuit, until } from './testing.ts';
import { insertJob, setHold } from './store.ts';
import { jobView } from './views.ts';

let store: Awaited<ReturnType<typeof openStore>>;
before(async () => {
  store = await openStore();
});
after(() => store.close());

test('a compute job running when the service stops is closed at the next start, its hold released', async () => {
  const { key, accountId } = await store.newKey('prepaid');
  await fund(store.db, accountId, 1);
  const first = await store.startApp();
  const c1 = client(first.url, key);
  const s = await c1.submit({ type: 'CPU_JOB', command: 'sleep 30', max_runtime_seconds: 60 });
  assert.equal(s.status, 201);
  await until(c1, s.body.id, 'RUNNING');
  await first.app.close();
  // Stopped mid-job: the row still says RUNNING and the hold is open, as after a crash.
  const [hold] = await holdsOf(store.db, accountId);
  assert.equal(hold!.status, 'open');
  assert.equal((await balance(store.db, accountId)).heldMicros, Number(hold!.amount_micros));

  // On PostgreSQL the job's claim must lapse first (another process might still run it); the
  // embedded store belongs to one process, so there a stopped runner is known dead at once.
  store.clock.set(new Date(Date.now() + 60_000));
  const second = await store.startApp();
  try {
    const c2 = client(second.url, key);
    const job = (await c2.job(s.body.id)).body;
    assert.equal(job.status, 'FAILED');
    assert.equal(job.error.code, 'worker_lost');
    assert.equal(job.charged_usd, 0);
    const [after] = await holdsOf(store.db, accountId);
    assert.equal(after!.status, 'released');
    assert.deepEqual(await ledgerOf(store.db, after!.id), { hold: 1, release: 1 });
    assert.deepEqual(await balance(store.db, accountId), { accountId, availableMicros: 1_000_000, heldMicros: 0 });
  } finally {
    await second.app.close();
    store.clock.set(new Date());
  }
});

test('a circuit job running when the service stops is run again by the next start and settled', async () => {
  const { key, accountId } = await store.newKey('prepaid');
  await fund(store.db, accountId, 1);
  const first = await store.startApp();
  const c1 = client(first.url, key);
  const s = await c1.submit({ type: 'QUANTUM_CIRCUIT', qasm: slowCircuit(22, 12), shots: 20, max_runtime_seconds: 120 });
  assert.equal(s.status, 201, JSON.stringify(s.body));
  await until(c1, s.body.id, 'RUNNING');
  await first.app.close();
  assert.equal((await holdsOf(store.db, accountId))[0]!.status, 'open');

  const second = await store.startApp();
  try {
    const c2 = client(second.url, key);
    const done = await settled(c2, s.body.id, 120);
    assert.equal(done.body.status, 'SETTLED');
    assert.equal(done.body.result_verified, true);
    const [hold] = await holdsOf(store.db, accountId);
    assert.equal(hold!.status, 'settled');
    assert.equal(Number(hold!.charged_micros), Math.round(done.body.charged_usd * 1e6));
    const b = await balance(store.db, accountId);
    assert.equal(b.heldMicros, 0);
    assert.equal(b.availableMicros, 1_000_000 - Number(hold!.charged_micros));
  } finally {
    await second.app.close();
  }
});

test('a job committed with its hold but never queued (a crash in between) is queued by the next start and settled', async () => {
  const { key, accountId } = await store.newKey('prepaid');
  await fund(store.db, accountId, 1);
  // Exactly what the submit route commits before it queues the run.
  const now = new Date();
  const job = {
    id: 'pjob_crashedbeforequeue', accountId, keyId: null, idempotencyKey: 'crash-1', requestHash: 'x', type: 'QUANTUM_CIRCUIT' as const,
    status: 'QUEUED' as const, billingMode: 'PREPAID' as const, plan: 'prepaid',
    workload: { type: 'QUANTUM_CIRCUIT' as const, max_runtime_seconds: 30, labels: { image: null, kind: null, resource_type: null, region: null, cloud: null },
      circuit: { qasm: BELL, source: 'inline' as const, artifact_uri: null, backend: 'statevector_simulator', shots: 100, seed: 3 } },
    backend: 'statevector_simulator', price: { basis: 'simulator_second' as const, usd_per_second: 0.001 }, holdId: null, heldMicros: 30_000,
    chargedMicros: null, firstResponse: '', owner: null, leaseUntil: null, usageMetrics: null, result: null, resultHash: null, evidenceHash: null,
    evidenceBundleId: null, error: null, createdAt: now, startedAt: null, finishedAt: null, settledAt: null, cancelRequestedAt: null,
  };
  job.firstResponse = JSON.stringify(jobView(job));
  await store.db.transaction(async (tx) => {
    await insertJob(tx, job);
    const hold = await placeHold(tx, { accountId, service: 'platform', reference: job.id, micros: 30_000, owner: 'platform', expiresAt: new Date(Date.now() + 3_600_000) });
    await setHold(tx, job.id, hold.id);
  });
  const app = await store.startApp();
  try {
    const done = await settled(client(app.url, key), job.id);
    assert.equal(done.body.status, 'SETTLED');
    assert.equal((await holdsOf(store.db, accountId))[0]!.status, 'settled');
    assert.equal((await balance(store.db, accountId)).heldMicros, 0);
  } finally {
    await app.app.close();
  }
});

test('a hold whose job row is gone is released at start', async () => {
  const { accountId } = await store.newKey('prepaid');
  await fund(store.db, accountId, 1);
  await placeHold(store.db, { accountId, service: 'platform', reference: 'pjob_never_written', micros: 5000, owner: 'platform', expiresAt: new Date(Date.now() + 3_600_000) });
  const app = await store.startApp();
  await app.app.close();
  const [hold] = await holdsOf(store.db, accountId);
  assert.equal(hold!.status, 'released');
  assert.deepEqual(await balance(store.db, accountId), { accountId, availableMicros: 1_000_000, heldMicros: 0 });
});
