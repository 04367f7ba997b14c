/**
 * Cancels requested on a job's row by another service (the quantum jobs page): answered by
 * answerCancelRequests, which the leader loop runs. A job still queued is cancelled through the
 * supplier (here its emulation) and its hold released; a job that started meanwhile keeps
 * running and the refusal is recorded on the row. The loop itself is driven end to end by the
 * quantum jobs page's test (services/qcos/page.test.ts); here the function is called directly,
 * so that what each answer finds does not depend on when a timer fires.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getHold } from '../../platform/billing/index.ts';
import type { TestService } from '../../platform/testing/harness.ts';
import { buildAdapters } from './adapters/index.ts';
import { suppliersAuth } from './auth.ts';
import { answerCancelRequests } from './cancel-requests.ts';
import { loadSuppliersConfig } from './config.ts';
import { ownerName, type Deps } from './jobs.ts';
import { BELL, client, credit, startSuppliers, waitStatus } from './testing.ts';

const A = '/api/v1/supplier_a_quantum';
const ION = { provider: 'lattice_ion', target: 'lattice_ion_11' };

let svc: TestService;
let c: ReturnType<typeof client>;
let accountId: string;
let deps: Deps;
const warnings: string[] = [];
before(async () => {
  // The app's own loop runs once at its start and then not within the test: the calls below are the only answers.
  process.env.LATTICE_SUPPLIERS_POLL_MS = '3600000';
  svc = await startSuppliers();
  delete process.env.LATTICE_SUPPLIERS_POLL_MS;
  const k = await svc.newKey({ plan: 'enterprise' });
  accountId = k.accountId;
  c = client(svc, k.key);
  await credit(svc, accountId, 500);
  // The same parts as the app's own: the emulated suppliers on this store.
  const config = loadSuppliersConfig({});
  deps = { ctx: svc.ctx, config, adapters: buildAdapters(svc.ctx, config), owner: ownerName(), auth: suppliersAuth(svc.ctx) };
});
after(() => svc.close());

/** Records a cancel request on the job's row, as the quantum jobs page does (without its check that the job is queued). */
async function request(publicId: string): Promise<void> {
  const rows = await svc.db.query('UPDATE supplier_jobs SET cancel_requested_at = now(), updated_at = now() WHERE public_id = $1 AND account_id = $2 RETURNING id', [publicId, accountId]);
  assert.equal(rows.length, 1);
}

async function row(publicId: string): Promise<{ status: string; hold_id: string | null; cancel_requested_at: Date | null; cancel_refused: string | null }> {
  const [r] = await svc.db.query<{ status: string; hold_id: string | null; cancel_requested_at: Date | null; cancel_refused: string | null }>(
    'SELECT status, hold_id, cancel_requested_at, cancel_refused FROM supplier_jobs WHERE public_id = $1 AND account_id = $2',
    [publicId, accountId],
  );
  return r!;
}

/**
 * `layers` GHZ preparations in a row on 11 qubits: each layer adds eleven noisy gates to the
 * device's noisy run, so twelve layers run for seconds where a single GHZ ran for 0.1-0.4 s
 * (and a fast machine finished it before a poll saw it running).
 */
function layeredGhz(layers: number): string {
  const lines = ['OPENQASM 2.0;', 'include "qelib1.inc";', 'qreg q[11];', 'creg c[11];'];
  for (let l = 0; l < layers; l++) {
    lines.push('h q[0];');
    for (let i = 1; i < 11; i++) lines.push(`cx q[${i - 1}],q[${i}];`);
  }
  lines.push('measure q -> c;');
  return lines.join('\n');
}

test('a queued job is cancelled at the supplier and its hold released; one that started meanwhile runs on, the refusal on its row', async () => {
  // Long enough to be still running when its own request is answered below.
  const busy = await c.post(`${A}/execute`, { qasm: layeredGhz(12), ...ION, shots: 10_000 });
  assert.equal(busy.status, 201, JSON.stringify(busy.body));
  const waiting = await c.post(`${A}/execute`, { qasm: BELL, ...ION, shots: 10 });
  assert.equal(waiting.status, 201, JSON.stringify(waiting.body));
  await request(waiting.body.job_id);
  assert.equal(await answerCancelRequests(deps, { warn: (line) => warnings.push(line) }), 1);
  const done = await row(waiting.body.job_id);
  assert.equal(done.status, 'cancelled');
  assert.equal(done.cancel_refused, null);
  assert.equal((await c.get(`${A}/status/${waiting.body.job_id}`)).body.status, 'cancelled');
  assert.equal((await getHold(svc.db, done.hold_id!))!.status, 'released');
  // Answered once: the next round finds nothing to do.
  assert.equal(await answerCancelRequests(deps, { warn: (line) => warnings.push(line) }), 0);

  // The running one: the supplier refuses, the job runs on, and the refusal is on its row.
  // The status route writes what it saw to the row, so the answer below finds the job running
  // even if it ends in between (then the supplier's refusal names it completed).
  const seen = await waitStatus(c.get, `${A}/status/${busy.body.job_id}`, ['running', 'completed', 'failed', 'cancelled']);
  assert.equal(seen.body.status, 'running', 'the long job ended before a poll saw it run');
  await request(busy.body.job_id);
  assert.equal(await answerCancelRequests(deps, { warn: (line) => warnings.push(line) }), 0);
  const refused = await row(busy.body.job_id);
  assert.equal(refused.cancel_requested_at, null);
  assert.match(refused.cancel_refused ?? '', /^Only pending or queued jobs can be cancelled; this job is (running|completed)$/);
  assert.notEqual(refused.status, 'cancelled');
  assert.equal((await waitStatus(c.get, `${A}/status/${busy.body.job_id}`)).body.status, 'completed');
  assert.deepEqual(warnings, []);
});
