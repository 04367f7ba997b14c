/** Idempotency-Key: a retry replays the first answer and never submits or reserves twice. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestService } from '../../platform/testing/harness.ts';
import { balance, BELL, client, countRows, fund, holdsOf, settled, startPlatform } from './testing.ts';

let svc: TestService;
before(async () => {
  svc = await startPlatform();
});
after(() => svc.close());

const body = { type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 100, seed: 1, max_runtime_seconds: 30 };

test('the same key and body replays the first answer with 200; one job, one hold', async () => {
  const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
  await fund(svc.db, accountId, 1);
  const c = client(svc.url, key);
  const first = await c.submit(body, 'order-1');
  assert.equal(first.status, 201);
  await settled(c, first.body.id);
  const again = await c.submit(body, 'order-1');
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, first.body, 'the first answer, as it was');
  assert.equal(await countRows(svc.db, 'platform_jobs', accountId), 1);
  assert.equal((await holdsOf(svc.db, accountId)).length, 1);
  // A different key is a different job.
  const other = await c.submit(body, 'order-2');
  assert.equal(other.status, 201);
  assert.notEqual(other.body.id, first.body.id);
});

test('20 concurrent retries with one key make one job and one hold', async () => {
  const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
  await fund(svc.db, accountId, 1);
  const c = client(svc.url, key);
  const answers = await Promise.all(Array.from({ length: 20 }, () => c.submit(body, 'burst-key')));
  const created = answers.filter((a) => a.status === 201);
  const replayed = answers.filter((a) => a.status === 200);
  assert.equal(created.length, 1, answers.map((a) => a.status).join(','));
  assert.equal(replayed.length, 19);
  assert.ok(replayed.every((a) => a.body.id === created[0]!.body.id));
  assert.equal(await countRows(svc.db, 'platform_jobs', accountId), 1);
  const holds = await holdsOf(svc.db, accountId);
  assert.equal(holds.length, 1);
  assert.equal(Number(holds[0]!.amount_micros), 30_000);
  const [q] = await svc.db.query<{ n: number }>("SELECT count(*)::int AS n FROM quantum_jobs WHERE service = 'platform' AND account_id = $1", [accountId]);
  assert.equal(q!.n, 1, 'one run on the job system');
  await settled(c, created[0]!.body.id);
  const b = await balance(svc.db, accountId);
  assert.equal(b.heldMicros, 0);
  assert.equal(b.availableMicros, 1_000_000 - Number((await holdsOf(svc.db, accountId))[0]!.charged_micros));
});

test('the same key with another body is refused with 409 and changes nothing', async () => {
  const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
  await fund(svc.db, accountId, 1);
  const c = client(svc.url, key);
  const first = await c.submit(body, 'k-9');
  assert.equal(first.status, 201);
  await settled(c, first.body.id);
  const before = await balance(svc.db, accountId);
  const other = await c.submit({ ...body, shots: 101 }, 'k-9');
  assert.equal(other.status, 409);
  assert.equal(other.body.detail, 'idempotency_key_reused');
  assert.equal(other.body.job_id, first.body.id);
  assert.equal(await countRows(svc.db, 'platform_jobs', accountId), 1);
  assert.deepEqual(await balance(svc.db, accountId), before);
});

test('keys are per account, and a malformed key is refused', async () => {
  const a = await svc.newKey({ plan: 'free' });
  const b = await svc.newKey({ plan: 'free' });
  const ra = await client(svc.url, a.key).submit(body, 'shared');
  const rb = await client(svc.url, b.key).submit(body, 'shared');
  assert.equal(ra.status, 201);
  assert.equal(rb.status, 201);
  assert.notEqual(ra.body.id, rb.body.id);
  const bad = await client(svc.url, a.key).submit(body, 'x'.repeat(256));
  assert.equal(bad.status, 400);
  assert.equal(bad.body.detail, 'invalid_idempotency_key');
  assert.equal(await countRows(svc.db, 'platform_jobs', a.accountId), 1);
});
