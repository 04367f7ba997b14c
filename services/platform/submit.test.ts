/** Submitting, reading and verifying platform jobs through HTTP and the database. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyBundle } from '../../platform/evidence/index.ts';
import { sha3HashJson } from '../../platform/evidence/index.ts';
import type { TestService } from '../../platform/testing/harness.ts';
import { call } from '../../platform/testing/harness.ts';
import { balance, BELL, client, countRows, fund, holdsOf, JOBS, settled, slowCircuit, startPlatform } from './testing.ts';

let svc: TestService;
before(async () => {
  svc = await startPlatform();
});
after(() => svc.close());

describe('QUANTUM_CIRCUIT on the prepaid plan', () => {
  test('a job is held for its worst case, settled to what it measured, verified and evidenced', async () => {
    const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
    await fund(svc.db, accountId, 5);
    const c = client(svc.url, key);
    const s = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 200, seed: 7, max_runtime_seconds: 60 });
    assert.equal(s.status, 201);
    assert.equal(s.body.status, 'QUEUED');
    assert.equal(s.body.billing_mode, 'PREPAID');
    assert.equal(s.body.result_verified, false);
    assert.equal(s.body.usage_metrics, null);
    // Worst case: 60 s of simulator time at $0.001 per second.
    assert.equal(s.body.reservation.held_usd, 0.06);
    assert.equal(s.body.reservation.status, 'open');
    assert.equal(s.body.workload.backend, 'statevector_simulator');

    const done = await settled(c, s.body.id);
    assert.equal(done.status, 200);
    const job = done.body;
    assert.equal(job.status, 'SETTLED');
    assert.equal(job.result_verified, true);
    assert.equal(Object.values(job.result.counts as Record<string, number>).reduce((a, b) => a + b, 0), 200);
    assert.deepEqual(Object.keys(job.result.counts).sort(), ['00', '11']);
    assert.equal(job.result_hash, sha3HashJson(job.result));
    assert.equal(job.usage_metrics.shots, 200);
    assert.equal(job.usage_metrics.qpu_seconds, null, 'a simulator reports no QPU time');
    assert.ok(job.usage_metrics.simulator_seconds >= 0);
    assert.ok(!/\.\d{7,}/.test(JSON.stringify(job.usage_metrics.simulator_seconds)), `seconds to the microsecond the engine measures: ${job.usage_metrics.simulator_seconds}`);
    assert.ok(job.usage_metrics.queue_time_seconds >= 0);
    assert.ok(job.charged_usd > 0 && job.charged_usd <= 0.06);
    assert.equal(job.reservation.status, 'settled');

    // The ledger: one hold, settled to the charge; the balance is the top-up less the charge.
    const holds = await holdsOf(svc.db, accountId);
    assert.equal(holds.length, 1);
    assert.equal(holds[0]!.status, 'settled');
    assert.equal(Number(holds[0]!.amount_micros), 60_000);
    assert.equal(Number(holds[0]!.charged_micros), Math.round(job.charged_usd * 1e6));
    const b = await balance(svc.db, accountId);
    assert.equal(b.availableMicros, 5_000_000 - Number(holds[0]!.charged_micros));
    assert.equal(b.heldMicros, 0);

    // Evidence: the spec's fields, signed, verifiable with the published keys, pinning the result.
    const e = await c.evidence(job.id);
    assert.equal(e.status, 200);
    for (const f of ['bundle', 'hash', 'signature', 'algo', 'key_version', 'checks']) assert.ok(f in e.body, f);
    assert.equal(e.body.algo, 'ML-DSA-65');
    assert.equal(e.body.hash, job.evidence_hash);
    assert.equal(e.body.bundle.result_hash, job.result_hash);
    assert.equal(e.body.bundle.job_id, job.id);
    const keys = await call(`${svc.url}/api/v1/platform/evidence/keys`);
    assert.equal(keys.status, 200);
    assert.ok(keys.body.keys.some((k: { key_id: string }) => k.key_id === e.body.key_version));
    const verified = await verifyBundle(e.body, { keys: keys.body, now: new Date() });
    assert.equal(verified.valid, true, JSON.stringify(verified.checks));
    const tampered = structuredClone(e.body);
    tampered.bundle.charged_usd = 0;
    assert.equal((await verifyBundle(tampered, { keys: keys.body, now: new Date() })).valid, false);
  });

  test('the QASM may come from a data: artifact_uri, and its hash is the text run', async () => {
    const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
    await fund(svc.db, accountId, 1);
    const c = client(svc.url, key);
    const uri = `data:text/plain;base64,${Buffer.from(BELL).toString('base64')}`;
    const s = await c.submit({ type: 'QUANTUM_CIRCUIT', artifact_uri: uri, shots: 50 });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    assert.equal(s.body.workload.artifact_uri, uri);
    const done = await settled(c, s.body.id);
    assert.equal(done.body.status, 'SETTLED');
    const bad = await c.submit({ type: 'QUANTUM_CIRCUIT', artifact_uri: 'ftp://example.test/x.qasm' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.detail, 'invalid_artifact_uri');
  });

  test('an emulated device is priced at its supplier rate (per shot plus task fee)', async () => {
    const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
    await fund(svc.db, accountId, 10);
    const c = client(svc.url, key);
    const s = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 100, backend: 'lattice_grid_16', max_runtime_seconds: 120 });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    assert.deepEqual(s.body.price, { basis: 'device_shot', usd_per_shot: 0.00035, task_fee_usd: 0.3 });
    assert.equal(s.body.reservation.held_usd, 0.335);
    const done = await settled(c, s.body.id, 60);
    assert.equal(done.body.status, 'SETTLED');
    assert.equal(done.body.charged_usd, 0.335);
    assert.ok(done.body.usage_metrics.qpu_seconds >= 0, 'a device reports its run time');
    assert.equal(done.body.usage_metrics.simulator_seconds, null);
  });
});

describe('the wall-clock limit of a circuit', () => {
  test('a run stopped at its limit FAILS and is charged the whole limit it used', async () => {
    const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
    await fund(svc.db, accountId, 1);
    const c = client(svc.url, key);
    const s = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: slowCircuit(24, 20), shots: 10, max_runtime_seconds: 1 });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    assert.equal(s.body.reservation.held_usd, 0.001);
    const done = await settled(c, s.body.id, 60);
    assert.equal(done.body.status, 'FAILED');
    assert.equal(done.body.error.code, 'TIME_LIMIT_EXCEEDED');
    assert.equal(done.body.charged_usd, 0.001);
    assert.equal(done.body.result_verified, false);
    const [hold] = await holdsOf(svc.db, accountId);
    assert.equal(hold!.status, 'settled');
    assert.equal((await balance(svc.db, accountId)).availableMicros, 999_000);
  });
});

describe('billing modes', () => {
  test('free plan: FREE, no hold, no charge, still settled and verified', async () => {
    const { key, accountId } = await svc.newKey({ plan: 'free' });
    const c = client(svc.url, key);
    const s = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 10_000 });
    assert.equal(s.status, 201);
    assert.equal(s.body.billing_mode, 'FREE');
    assert.equal(s.body.reservation.status, 'none');
    const done = await settled(c, s.body.id);
    assert.equal(done.body.status, 'SETTLED');
    assert.equal(done.body.charged_usd, 0);
    assert.equal(done.body.result_verified, true);
    assert.equal((await holdsOf(svc.db, accountId)).length, 0);
    assert.equal((await balance(svc.db, accountId)).availableMicros, 0);
  });

  test('free plan refuses devices, compute jobs and more than 10,000 shots, writing nothing', async () => {
    const { key, accountId } = await svc.newKey({ plan: 'free' });
    const c = client(svc.url, key);
    const device = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, backend: 'lattice_falcon_27' });
    assert.equal(device.status, 403);
    assert.equal(device.body.detail, 'plan_forbids_backend');
    const shots = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 10_001 });
    assert.equal(shots.status, 403);
    assert.equal(shots.body.detail, 'shots_exceeded');
    const cpu = await c.submit({ type: 'CPU_JOB', command: 'true' });
    assert.equal(cpu.status, 403);
    assert.equal(cpu.body.detail, 'plan_forbids_workload');
    assert.equal(await countRows(svc.db, 'platform_jobs', accountId), 0);
  });

  test('paygo plan: PAYGO, nothing held, the measured charge recorded for the invoice', async () => {
    const { key, accountId } = await svc.newKey({ plan: 'PayGo' });
    const c = client(svc.url, key);
    const s = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 100, backend: 'lattice_grid_16' });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    assert.equal(s.body.billing_mode, 'PAYGO');
    assert.equal(s.body.reservation.status, 'none');
    const done = await settled(c, s.body.id, 60);
    assert.equal(done.body.status, 'SETTLED');
    assert.equal(done.body.charged_usd, 0.335);
    assert.equal(done.body.invoiced, true);
    assert.equal((await holdsOf(svc.db, accountId)).length, 0);
    assert.equal((await balance(svc.db, accountId)).availableMicros, 0, 'invoiced, not taken from a balance');
  });

  test('prepaid without enough balance: 402 insufficient_credits, nothing written or held', async () => {
    const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
    await fund(svc.db, accountId, 0.01);
    const c = client(svc.url, key);
    const s = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, max_runtime_seconds: 60 }, 'poor-1');
    assert.equal(s.status, 402);
    assert.equal(s.body.detail, 'insufficient_credits');
    assert.equal(s.body.required_usd, 0.06);
    assert.equal(s.body.available_usd, 0.01);
    assert.equal(await countRows(svc.db, 'platform_jobs', accountId), 0);
    assert.equal((await holdsOf(svc.db, accountId)).length, 0);
    assert.equal((await balance(svc.db, accountId)).availableMicros, 10_000);
    // The refused key is free: once funded, the same key submits.
    await fund(svc.db, accountId, 1);
    const again = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, max_runtime_seconds: 60 }, 'poor-1');
    assert.equal(again.status, 201);
  });

  test('50 concurrent submissions against a balance covering 10 reserve exactly 10', async () => {
    const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
    // A 60 s CPU job holds 60/3600 h x $0.045 = $0.00075: the balance covers ten, none ends during the burst.
    await fund(svc.db, accountId, 0.0075);
    const c = client(svc.url, key);
    const answers = await Promise.all(Array.from({ length: 50 }, () => c.submit({ type: 'CPU_JOB', command: 'sleep 30', max_runtime_seconds: 60 })));
    assert.equal(answers.filter((a) => a.status === 201).length, 10);
    assert.equal(answers.filter((a) => a.status === 402).length, 40);
    assert.ok(answers.filter((a) => a.status === 402).every((a) => a.body.detail === 'insufficient_credits'));
    assert.equal((await holdsOf(svc.db, accountId)).length, 10);
    assert.equal(await countRows(svc.db, 'platform_jobs', accountId), 10);
    const b = await balance(svc.db, accountId);
    assert.equal(b.availableMicros, 0);
    assert.equal(b.heldMicros, 7500);
    for (const a of answers.filter((x) => x.status === 201)) await c.cancel(a.body.id);
  });
});

describe('reads', () => {
  test('an unknown or another account\'s id answers 200 not_found on every job route', async () => {
    const a = await svc.newKey({ plan: 'free' });
    const b = await svc.newKey({ plan: 'free' });
    const ca = client(svc.url, a.key);
    const cb = client(svc.url, b.key);
    const s = await ca.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 10 });
    assert.equal(s.status, 201);
    for (const id of [s.body.id, 'pjob_doesnotexist']) {
      for (const r of [await cb.job(id), await cb.cancel(id), await cb.evidence(id)]) {
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, { id, job_id: id, status: 'not_found' });
      }
    }
    // The owner still sees it, untouched by the other account's cancel.
    const own = await settled(ca, s.body.id);
    assert.equal(own.body.status, 'SETTLED');
  });

  test('evidence before settlement answers 409 evidence_not_ready', async () => {
    const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
    await fund(svc.db, accountId, 1);
    const c = client(svc.url, key);
    const s = await c.submit({ type: 'CPU_JOB', command: ['sleep', '2'], max_runtime_seconds: 10 });
    assert.equal(s.status, 201);
    const e = await c.evidence(s.body.id);
    assert.equal(e.status, 409);
    assert.equal(e.body.detail, 'evidence_not_ready');
    await settled(c, s.body.id);
  });

  test('health and the evidence keys need no key; the job routes need a bearer key', async () => {
    const h = await call(`${svc.url}/health`);
    assert.equal(h.status, 200);
    assert.equal(h.body.status, 'healthy');
    const none = await call(`${svc.url}${JOBS}/x`);
    assert.equal(none.status, 401);
    assert.equal(none.body.detail, 'unauthorized');
    const wrong = await call(`${svc.url}${JOBS}/x`, { headers: { authorization: 'Bearer lplat_nope' } });
    assert.equal(wrong.status, 401);
    const xApiKey = await call(`${svc.url}${JOBS}/x`, { headers: { 'x-api-key': (await svc.newKey()).key } });
    assert.equal(xApiKey.status, 401, 'bearer only');
  });
});
