/** Cancel: not started releases everything; running reads CANCEL_REQUESTED, then settles what ran; races close once. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestService } from '../../platform/testing/harness.ts';
import { balance, BELL, client, fund, holdsOf, ledgerOf, settled, slowCircuit, startPlatform, until } from './testing.ts';

let svc: TestService;
before(async () => {
  svc = await startPlatform();
});
after(() => svc.close());

async function prepaid(usd = 10) {
  const k = await svc.newKey({ plan: 'prepaid' });
  await fund(svc.db, k.accountId, usd);
  return { c: client(svc.url, k.key), accountId: k.accountId };
}

describe('compute jobs', () => {
  test('a running job reads CANCEL_REQUESTED, then CANCELLED, settled for the time it ran', async () => {
    const { c, accountId } = await prepaid();
    const s = await c.submit({ type: 'CPU_JOB', command: 'sleep 30', max_runtime_seconds: 60 });
    await until(c, s.body.id, 'RUNNING');
    await new Promise((r) => setTimeout(r, 300));
    const x = await c.cancel(s.body.id);
    assert.equal(x.status, 200);
    assert.equal(x.body.status, 'CANCEL_REQUESTED');
    assert.ok(x.body.cancel_requested_at);
    const done = await settled(c, s.body.id);
    assert.equal(done.body.status, 'CANCELLED');
    assert.equal(done.body.result_verified, false);
    assert.ok(done.body.charged_usd > 0 && done.body.charged_usd < done.body.reservation.held_usd);
    assert.ok(done.body.usage_metrics.wall_clock_seconds < 10);
    const [hold] = await holdsOf(svc.db, accountId);
    assert.equal(hold!.status, 'settled');
    assert.equal(Number(hold!.charged_micros), Math.round(done.body.charged_usd * 1e6));
    assert.deepEqual(await balance(svc.db, accountId), { accountId, availableMicros: 10_000_000 - Number(hold!.charged_micros), heldMicros: 0 });
    const evidence = await c.evidence(s.body.id);
    assert.equal(evidence.status, 409);
  });

  test('a queued job is CANCELLED at once and its whole hold released', async () => {
    const { c, accountId } = await prepaid();
    // Two slots: two long jobs take them, the third waits.
    const busy = [await c.submit({ type: 'CPU_JOB', command: 'sleep 30', max_runtime_seconds: 60 }), await c.submit({ type: 'CPU_JOB', command: 'sleep 30', max_runtime_seconds: 60 })];
    for (const b of busy) await until(c, b.body.id, 'RUNNING');
    const waiting = await c.submit({ type: 'CPU_JOB', command: 'echo hi', max_runtime_seconds: 60 });
    assert.equal((await c.job(waiting.body.id)).body.status, 'QUEUED');
    const x = await c.cancel(waiting.body.id);
    assert.equal(x.body.status, 'CANCELLED');
    assert.equal(x.body.charged_usd, 0);
    assert.equal(x.body.reservation.status, 'released');
    const hold = (await holdsOf(svc.db, accountId)).find((h) => h.reference === waiting.body.id)!;
    assert.equal(hold.status, 'released');
    // Cancelling a closed job changes nothing.
    const again = await c.cancel(waiting.body.id);
    assert.equal(again.status, 200);
    assert.equal(again.body.status, 'CANCELLED');
    for (const b of busy) await c.cancel(b.body.id);
    for (const b of busy) assert.equal((await settled(c, b.body.id)).body.status, 'CANCELLED');
  });
});

describe('circuit jobs', () => {
  test('queued behind a busy device: CANCELLED at once, nothing charged; running: CANCEL_REQUESTED, then settled for what ran', async () => {
    const { c, accountId } = await prepaid();
    // An emulated device runs one job at a time: a long one takes it, a Bell job waits behind it.
    const a = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: slowCircuit(16, 6), shots: 1000, backend: 'lattice_grid_16', max_runtime_seconds: 120 });
    assert.equal(a.status, 201, JSON.stringify(a.body));
    await until(c, a.body.id, 'RUNNING');
    const queued = await c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 10, backend: 'lattice_grid_16', max_runtime_seconds: 60 });
    assert.equal((await c.job(queued.body.id)).body.status, 'QUEUED');
    const q = await c.cancel(queued.body.id);
    assert.equal(q.body.status, 'CANCELLED');
    assert.equal(q.body.charged_usd, 0, 'not at the provider yet: no task fee');
    assert.equal(q.body.reservation.status, 'released');

    const x = await c.cancel(a.body.id);
    assert.equal(x.body.status, 'CANCEL_REQUESTED');
    const done = await settled(c, a.body.id);
    assert.equal(done.body.status, 'CANCELLED');
    // The provider took the task: its fee is due; no shot was returned, so none is charged.
    assert.equal(done.body.charged_usd, 0.3);
    assert.equal(done.body.reservation.held_usd, 0.65);
    assert.equal(done.body.reservation.released_usd, 0.35);
    const b2 = await balance(svc.db, accountId);
    assert.equal(b2.heldMicros, 0);
    assert.equal(b2.availableMicros, 10_000_000 - 300_000);
  });

  test('cancels racing the jobs\' own ends close every job and every hold exactly once', async () => {
    const { c, accountId } = await prepaid();
    const jobs = await Promise.all(Array.from({ length: 12 }, () => c.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 50, max_runtime_seconds: 30 })));
    const compute = await Promise.all(Array.from({ length: 4 }, () => c.submit({ type: 'CPU_JOB', command: 'true', max_runtime_seconds: 30 })));
    const all = [...jobs, ...compute];
    await Promise.all(all.map((j) => c.cancel(j.body.id)));
    await Promise.all(all.map((j) => c.cancel(j.body.id)));
    const ends = await Promise.all(all.map((j) => settled(c, j.body.id)));
    const holds = await holdsOf(svc.db, accountId);
    assert.equal(holds.length, all.length);
    for (const end of ends) {
      assert.ok(['SETTLED', 'CANCELLED'].includes(end.body.status), end.body.status);
      const hold = holds.find((h) => h.reference === end.body.id)!;
      assert.notEqual(hold.status, 'open');
      assert.equal(Number(hold.charged_micros ?? 0), Math.round(end.body.charged_usd * 1e6));
      const rows = await ledgerOf(svc.db, hold.id);
      assert.equal(rows.hold, 1);
      assert.equal(rows.release, 1);
      assert.ok((rows.charge ?? 0) <= 1);
    }
    const b = await balance(svc.db, accountId);
    assert.equal(b.heldMicros, 0);
    assert.equal(b.availableMicros, 10_000_000 - holds.reduce((s, h) => s + Number(h.charged_micros ?? 0), 0));
  });
});
