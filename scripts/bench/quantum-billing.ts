/**
 * Billing benchmark (interface 5, `platform`): submissions per second of Bell circuits with a
 * prepaid hold placed at submission (in the transaction that writes the job, keyed by an
 * Idempotency-Key) and settled to the measured cost with its evidence sealed when the run
 * ends, beside the same submissions on interface 1 (`qcos`, enterprise plan) without billing.
 * The ratio says what billing costs at submission. Then the time until every platform job is
 * settled, and a ledger check: every hold closed, the balance equal to top-up minus charges.
 * Each service runs on its own fresh store (embedded PGlite in memory, or DATABASE_URL), with
 * the process's 2 quantum workers, 16 clients; rounds alternate the two services so that the
 * machine's load drifts alike for both, and the median paired ratio is reported.
 */
import { getBalance, topUp, usdToMicros } from '../../platform/billing/index.ts';
import { startQuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { platformService } from '../../services/platform/service.ts';
import { qcosService } from '../../services/qcos/service.ts';

const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';
const CLIENTS = 16;
// On a PostgreSQL server submissions can outrun the 2 workers: stay under qcos enterprise's
// 100 concurrent jobs, which would otherwise refuse the baseline's submissions.
const SUBMISSIONS = process.env.DATABASE_URL ? 90 : 200;
const ROUNDS = 5;

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

interface Side {
  submit(): Promise<string>;
  /** Waits for the jobs to end (qcos: completed; platform: SETTLED and verified). */
  drain(ids: string[]): Promise<void>;
  close(): Promise<void>;
}

async function qcosSide(): Promise<Side> {
  const svc = await startTestService(qcosService);
  await warm(svc);
  const { key } = await svc.newKey({ plan: 'enterprise' });
  const headers = { 'x-api-key': key };
  const body = { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', shots: 100 };
  return {
    async submit() {
      const r = await call(`${svc.url}/v2/circuits`, { headers, body });
      if (r.status !== 201) throw new Error(`qcos submit: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.job_id as string;
    },
    async drain(ids) {
      for (const id of ids) await call(`${svc.url}/v2/jobs/${id}?wait=60`, { headers });
    },
    close: () => svc.close(),
  };
}

async function platformSide(): Promise<Side & { ledger(): Promise<{ ok: boolean; charged: number; jobs: number }> }> {
  process.env.LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE = '100000000';
  const svc = await startTestService(platformService);
  await warm(svc);
  const { key, accountId } = await svc.newKey({ plan: 'prepaid' });
  await topUp(svc.db, { accountId, micros: usdToMicros(1000), service: 'operator', reference: 'bench' });
  const headers = { authorization: `Bearer ${key}` };
  const body = { type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 100, max_runtime_seconds: 60 };
  let n = 0;
  return {
    async submit() {
      const r = await call(`${svc.url}/api/v1/platform/execution/jobs`, { headers: { ...headers, 'idempotency-key': `bench-${n++}` }, body });
      if (r.status !== 201) throw new Error(`platform submit: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.id as string;
    },
    async drain(ids) {
      for (const id of ids) {
        const r = await call(`${svc.url}/api/v1/platform/execution/jobs/${id}?wait=30`, { headers });
        if (r.body.status !== 'SETTLED' || !r.body.result_verified) throw new Error(`job ${id} ended ${r.body.status}`);
      }
    },
    async ledger() {
      const balance = await getBalance(svc.db, accountId);
      const [sum] = await svc.db.query<{ open: number; jobs: number; charged: number | string }>(
        "SELECT count(*) FILTER (WHERE status = 'open')::int AS open, count(*)::int AS jobs, COALESCE(sum(charged_micros), 0) AS charged FROM billing_holds WHERE account_id = $1",
        [accountId],
      );
      const charged = Number(sum!.charged);
      return { ok: sum!.open === 0 && balance.heldMicros === 0 && balance.availableMicros === usdToMicros(1000) - charged, charged, jobs: sum!.jobs };
    },
    close: () => svc.close(),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<void> {
  console.log(`${ROUNDS} paired rounds of ${SUBMISSIONS} Bell submissions (100 shots), ${CLIENTS} clients, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}`);
  const q = await qcosSide();
  const p = await platformSide();
  try {
    for (const side of [q, p]) await side.drain(await Promise.all(Array.from({ length: 20 }, () => side.submit())));
    const ratios: number[] = [];
    const qs: number[] = [];
    const ps: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate which goes first, so that a drift of the machine's load favours neither.
      const order = round % 2 ? [q, p] : [p, q];
      const rates = new Map<Side, number>();
      let settleSeconds = 0;
      for (const side of order) {
        const t0 = performance.now();
        const { perSecond, ids } = await burst(SUBMISSIONS, () => side.submit());
        await side.drain(ids);
        if (side === p) settleSeconds = (performance.now() - t0) / 1000;
        rates.set(side, perSecond);
      }
      qs.push(rates.get(q)!);
      ps.push(rates.get(p)!);
      ratios.push(rates.get(p)! / rates.get(q)!);
      console.log(
        `round ${round}: interface 1 (qcos, no billing) ${rates.get(q)!.toFixed(0)}/s; interface 5 (platform, hold + settle + evidence) ` +
          `${rates.get(p)!.toFixed(0)}/s, all settled and verified ${settleSeconds.toFixed(2)} s after the first; ratio ${ratios.at(-1)!.toFixed(2)}`,
      );
    }
    const ledger = await p.ledger();
    console.log(`ledger after ${ledger.jobs} platform jobs: ${ledger.ok ? 'consistent (no open hold, balance = top-up - charges)' : 'INCONSISTENT'}, $${(ledger.charged / 1e6).toFixed(6)} charged`);
    console.log(`submissions per second, median of ${ROUNDS} rounds: platform ${median(ps).toFixed(0)} / qcos ${median(qs).toFixed(0)}; median paired ratio ${median(ratios).toFixed(2)} (aim: above 0.7)`);
  } finally {
    await p.close();
    await q.close();
  }
}
