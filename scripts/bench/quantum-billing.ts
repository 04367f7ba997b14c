/**
 * Billing benchmark (interface 5, `platform`): submissions per second of Bell circuits with a
 * prepaid hold placed at submission (in the transaction that writes the job, keyed by an
 * Idempotency-Key) and settled to the measured cost with its evidence sealed when the run
 * ends, beside the same submissions on interface 1 (`qcos`, enterprise plan) without billing.
 * The ratio says what billing costs at submission. Then the time until every platform job is
 * settled, and a ledger check: every hold closed, the balance equal to top-up minus charges.
 * Each service runs on its own fresh store (embedded PGlite in memory, or DATABASE_URL), with
 * the process's 2 quantum workers, 16 clients, alternating rounds.
 */
import { getBalance, topUp, usdToMicros } from '../../platform/billing/index.ts';
import { startQuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { platformService } from '../../services/platform/service.ts';
import { qcosService } from '../../services/qcos/service.ts';

const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';
const CLIENTS = 16;
const SUBMISSIONS = 400;

async function burst(n: number, submit: (i: number) => Promise<string>): Promise<{ perSecond: number; ids: string[] }> {
  let next = 0;
  const ids: string[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < n) ids.push(await submit(next++));
    }),
  );
  return { perSecond: n / ((performance.now() - t0) / 1000), ids };
}

async function warm(svc: TestService): Promise<void> {
  const workers = await startQuantumWorkers(svc.ctx);
  await workers.pool.warm();
  await workers.release();
}

async function qcosRound(): Promise<number> {
  const svc = await startTestService(qcosService);
  try {
    await warm(svc);
    const { key } = await svc.newKey({ plan: 'enterprise' });
    const headers = { 'x-api-key': key };
    const body = { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', shots: 100 };
    const submit = async () => {
      const r = await call(`${svc.url}/v2/circuits`, { headers, body });
      if (r.status !== 201) throw new Error(`qcos submit: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.job_id as string;
    };
    for (let i = 0; i < 20; i++) await submit();
    const { perSecond, ids } = await burst(SUBMISSIONS, submit);
    for (const id of ids) await call(`${svc.url}/v2/jobs/${id}?wait=60`, { headers });
    return perSecond;
  } finally {
    await svc.close();
  }
}

async function platformRound(): Promise<{ perSecond: number; settleSeconds: number; ledgerOk: boolean; charged: number }> {
  process.env.LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE = '100000000';
  const svc = await startTestService(platformService);
  try {
    await warm(svc);
    const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
    await topUp(svc.db, { accountId, micros: usdToMicros(1000), service: 'operator', reference: 'bench' });
    const headers = { authorization: `Bearer ${key}` };
    const body = { type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 100, max_runtime_seconds: 60 };
    let n = 0;
    const submit = async () => {
      const r = await call(`${svc.url}/api/v1/platform/execution/jobs`, { headers: { ...headers, 'idempotency-key': `bench-${n++}` }, body });
      if (r.status !== 201) throw new Error(`platform submit: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.id as string;
    };
    for (let i = 0; i < 20; i++) await submit();
    const t0 = performance.now();
    const { perSecond, ids } = await burst(SUBMISSIONS, submit);
    for (const id of ids) {
      const r = await call(`${svc.url}/api/v1/platform/execution/jobs/${id}?wait=30`, { headers });
      if (r.body.status !== 'SETTLED' || !r.body.result_verified) throw new Error(`job ${id} ended ${r.body.status}`);
    }
    const settleSeconds = (performance.now() - t0) / 1000;
    const balance = await getBalance(svc.db, accountId);
    const [sum] = await svc.db.query<{ open: number; charged: number | string }>(
      "SELECT count(*) FILTER (WHERE status = 'open')::int AS open, COALESCE(sum(charged_micros), 0) AS charged FROM billing_holds WHERE account_id = $1",
      [accountId],
    );
    const charged = Number(sum!.charged);
    const ledgerOk = sum!.open === 0 && balance.heldMicros === 0 && balance.availableMicros === usdToMicros(1000) - charged;
    return { perSecond, settleSeconds, ledgerOk, charged };
  } finally {
    await svc.close();
  }
}

export async function run(): Promise<void> {
  console.log(`${SUBMISSIONS} Bell submissions (100 shots) per round, ${CLIENTS} clients, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}`);
  const q: number[] = [];
  const p: number[] = [];
  for (let round = 1; round <= 2; round++) {
    q.push(await qcosRound());
    const r = await platformRound();
    p.push(r.perSecond);
    console.log(
      `round ${round}: interface 1 (qcos, no billing) ${q.at(-1)!.toFixed(0)}/s; interface 5 (platform, hold + settle + evidence) ${r.perSecond.toFixed(0)}/s; ` +
        `all ${SUBMISSIONS} settled ${r.settleSeconds.toFixed(2)} s after the first; ledger ${r.ledgerOk ? 'consistent' : 'INCONSISTENT'} ($${(r.charged / 1e6).toFixed(6)} charged)`,
    );
  }
  const best = (xs: number[]) => Math.max(...xs);
  console.log(`submissions per second, best round: platform ${best(p).toFixed(0)} / qcos ${best(q).toFixed(0)} = ratio ${(best(p) / best(q)).toFixed(2)} (aim: above 0.7)`);
}
