/** A restart in the middle of a held job: the hold is kept while the job waits, and settled once it runs, never lost or charged twice. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getBalance, ledgerSum, topUp } from '../../platform/billing/index.ts';
import { createAccount, setPlan } from '../../platform/identity/accounts.ts';
import { createKey } from '../../platform/identity/keys.ts';
import { lazyQueue } from '../../platform/jobs/queue.ts';
import { allMigrations } from '../../platform/server.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { call, openTestDatabase } from '../../platform/testing/harness.ts';
import { buildSuppliers } from './app.ts';
import { loadSuppliersConfig } from './config.ts';
import { suppliersService } from './service.ts';
import { ghz } from './testing.ts';

test('a job held and queued when the process stops is run and settled by the next one', async () => {
  const { db, queueSchema, close } = await openTestDatabase(allMigrations([suppliersService]));
  const queue = lazyQueue(db, { schema: queueSchema, maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 });
  const ctx: ServiceContext = { db, dataDir: '', now: () => new Date(), queue: queue.get };
  try {
    const account = await createAccount(db, { email: 'restart@example.test', name: 'Restart' });
    await setPlan(db, account.id, 'suppliers', 'enterprise');
    const key = (await createKey(db, { accountId: account.id, service: 'suppliers', prefix: 'qsup' })).key;
    await topUp(db, { accountId: account.id, micros: 50_000_000, service: 'operator' });
    const config = loadSuppliersConfig({});

    const first = await buildSuppliers(ctx, { prefix: '' }, config);
    await first.listen({ port: 0, host: '127.0.0.1' });
    const url = (app: typeof first) => {
      const a = app.server.address();
      return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
    };
    const headers = { 'x-api-key': key };
    const ion = { provider: 'lattice_ion', target: 'lattice_ion_11' };
    // The first job keeps the device busy, so the second is still queued (and held) at the stop.
    const busy = await call(`${url(first)}/api/v1/supplier_a_quantum/execute`, { body: { qasm: ghz(11), ...ion, shots: 1000 }, headers });
    const waiting = await call(`${url(first)}/api/v1/supplier_a_quantum/execute`, { body: { qasm: ghz(3), ...ion, shots: 100 }, headers });
    assert.equal(busy.status, 201);
    assert.equal(waiting.status, 201);
    const held = await getBalance(db, account.id);
    assert.ok(held.heldMicros > 0);
    await first.close();

    const second = await buildSuppliers(ctx, { prefix: '' }, config);
    await second.listen({ port: 0, host: '127.0.0.1' });
    try {
      const statusOf = async (id: string) => (await call(`${url(second)}/api/v1/supplier_a_quantum/status/${id}`, { headers })).body.status as string;
      for (const id of [busy.body.job_id, waiting.body.job_id]) {
        let status = await statusOf(id);
        for (let i = 0; i < 300 && status !== 'completed'; i++) {
          await new Promise((r) => setTimeout(r, 100));
          status = await statusOf(id);
        }
        assert.equal(status, 'completed', `${id} ran after the restart`);
      }
      const holds = await db.query<{ status: string; amount_micros: string; charged_micros: string | null }>(
        "SELECT status, amount_micros, charged_micros FROM billing_holds WHERE account_id = $1 AND service = 'suppliers' ORDER BY created_at",
        [account.id],
      );
      assert.deepEqual(holds.map((h) => h.status), ['settled', 'settled'], 'both holds closed by settlement');
      const after = await getBalance(db, account.id);
      assert.equal(after.heldMicros, 0);
      const charged = holds.reduce((s, h) => s + Number(h.charged_micros), 0);
      assert.equal(after.availableMicros, 50_000_000 - charged, 'each job charged once');
      assert.equal(await ledgerSum(db, account.id), after.availableMicros);
    } finally {
      await second.close();
    }
  } finally {
    await queue.stop();
    await close();
  }
});

test('an emulated supplier C result document written before a restart reads back after it', async () => {
  const { db, queueSchema, close } = await openTestDatabase(allMigrations([suppliersService]));
  const queue = lazyQueue(db, { schema: queueSchema, maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 });
  const ctx: ServiceContext = { db, dataDir: '', now: () => new Date(), queue: queue.get };
  try {
    const account = await createAccount(db, { email: 'objects@example.test', name: 'Objects' });
    await setPlan(db, account.id, 'suppliers', 'pro');
    const key = (await createKey(db, { accountId: account.id, service: 'suppliers', prefix: 'qsup' })).key;
    const headers = { 'x-api-key': key };
    const config = loadSuppliersConfig({});
    const url = (app: Awaited<ReturnType<typeof buildSuppliers>>) => {
      const a = app.server.address();
      return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
    };
    const sim = 'arn:lattice:supplier-c:::device/quantum-simulator/lattice/statevector_simulator';
    const first = await buildSuppliers(ctx, { prefix: '' }, config);
    await first.listen({ port: 0, host: '127.0.0.1' });
    const r = await call(`${url(first)}/api/v1/supplier_c/execute`, { body: { qasm: ghz(3), device_arn: sim, shots: 50, storage_bucket: 'kept', storage_prefix: '/exp/1/' }, headers });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    let done = await call(`${url(first)}/api/v1/supplier_c/status/${r.body.task_id}`, { headers });
    for (let i = 0; i < 300 && done.body.status !== 'COMPLETED'; i++) {
      await new Promise((res) => setTimeout(res, 100));
      done = await call(`${url(first)}/api/v1/supplier_c/status/${r.body.task_id}`, { headers });
    }
    assert.equal(done.body.status, 'COMPLETED');
    assert.equal(done.body.storage_result_location, `s3://kept/exp/1/${r.body.task_id}`);
    const before = await call(`${url(first)}/api/v1/supplier_c/storage/kept/exp/1/${r.body.task_id}/results.json`, { headers });
    assert.equal(before.status, 200);
    await first.close();

    const second = await buildSuppliers(ctx, { prefix: '' }, config);
    await second.listen({ port: 0, host: '127.0.0.1' });
    try {
      const after = await call(`${url(second)}/api/v1/supplier_c/storage/kept/exp/1/${r.body.task_id}/results.json`, { headers });
      assert.equal(after.status, 200);
      assert.deepEqual(after.body, before.body, 'the same document after the restart');
      assert.deepEqual(after.body.counts, done.body.result.counts);
    } finally {
      await second.close();
    }
  } finally {
    await queue.stop();
    await close();
  }
});
