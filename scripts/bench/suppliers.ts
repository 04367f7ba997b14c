/**
 * Multi-supplier API benchmark (interfaces 2 and 4, `suppliers`): the latency of an estimate
 * through HTTP against the same cost computed in-process (the difference is the HTTP, key
 * check and rate-limit counter); then submissions per second with 8 clients each submitting
 * and waiting for its job, on a priced emulated device (hold at submit, settle at the end,
 * provenance chain) beside the free HPC GPU simulator (no credits), on the same store.
 * The store is the embedded PGlite in memory (or DATABASE_URL).
 */
import { topUp } from '../../platform/billing/index.ts';
import { startQuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import { call, startTestService } from '../../platform/testing/harness.ts';
import { emulatedTargets } from '../../services/suppliers/catalog.ts';
import { analyzeCircuit } from '../../services/suppliers/circuit.ts';
import { estimate } from '../../services/suppliers/pricing.ts';
import { suppliersService } from '../../services/suppliers/service.ts';
import { timeIt } from './lib/timing.ts';

const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';
const GRID = 'arn:lattice:supplier-c:::device/qpu/lattice/lattice_grid_16';

const ms = (x: number) => `${x.toFixed(3).padStart(9)} ms`;

export async function run(): Promise<void> {
  const svc = await startTestService(suppliersService);
  const workers = await startQuantumWorkers(svc.ctx);
  await workers.pool.warm();
  try {
    const { key, accountId } = await svc.newKey({ plan: 'enterprise' });
    await topUp(svc.db, { accountId, micros: 1_000_000_000_000, service: 'operator' });
    // A key allows 300 requests a minute (enterprise): the load is spread over a pool of keys of the account.
    const keys = [key];
    for (let i = 0; i < 80; i++) keys.push((await svc.newKey({ plan: 'enterprise', accountId })).key);
    let next = 0;
    const headersFor = () => ({ 'x-api-key': keys[next++ % keys.length]! });
    const post = async (path: string, body: unknown) => {
      const r = await call(`${svc.url}${path}`, { headers: headersFor(), body });
      if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    };

    const falcon = emulatedTargets('supplier_b_quantum')[0]!;
    const inProcess = await timeIt(2000, () => estimate(falcon, analyzeCircuit(BELL), 1000));
    const viaHttp = await timeIt(300, () => post('/api/v1/supplier_b_quantum/estimate', { qasm: BELL, backend: 'lattice_falcon_27', shots: 1000 }));
    console.log('-- estimate of a Bell pair on lattice_falcon_27 (quantum seconds)');
    console.log(`in-process (parse + schedule + price)  p50 ${ms(inProcess.p50)}  p99 ${ms(inProcess.p99)}`);
    console.log(`POST /api/v1/supplier_b_quantum/estimate  p50 ${ms(viaHttp.p50)}  p99 ${ms(viaHttp.p99)}`);

    const throughput = async (label: string, submit: () => Promise<string>, statusPath: (id: string) => string, seconds = 8, clients = 8) => {
      let done = 0;
      const end = performance.now() + seconds * 1000;
      await Promise.all(Array.from({ length: clients }, async () => {
        while (performance.now() < end) {
          const id = await submit();
          for (;;) {
            const s = await call(`${svc.url}${statusPath(id)}`, { headers: headersFor() });
            if (['completed', 'COMPLETED'].includes(s.body.status)) break;
            if (s.status !== 200 || ['failed', 'FAILED', 'cancelled', 'CANCELLED'].includes(s.body.status)) throw new Error(JSON.stringify(s.body));
            await new Promise((r) => setTimeout(r, 5));
          }
          done++;
        }
      }));
      const rate = done / seconds;
      console.log(`${label.padEnd(58)} ${rate.toFixed(1).padStart(7)} jobs/s`);
      return rate;
    };
    console.log('\n-- submit and wait, 8 clients, Bell 100 shots');
    const free = await throughput('HPC GPU simulator (POST /execute, no credits)', async () => (await post('/execute', { qasm: BELL, shots: 100 })).job_id, (id) => `/status/${id}`);
    const sim = await throughput('supplier C simulator (free target, same path)', async () => (await post('/api/v1/supplier_c/execute', { qasm: BELL, device_arn: emulatedTargets('supplier_c')[1]!.id, shots: 100 })).task_id, (id) => `/api/v1/supplier_c/status/${encodeURIComponent(id)}`);
    const paid = await throughput('supplier C device (hold + settle, one FIFO device queue)', async () => (await post('/api/v1/supplier_c/execute', { qasm: BELL, device_arn: GRID, shots: 100 })).task_id, (id) => `/api/v1/supplier_c/status/${encodeURIComponent(id)}`);
    console.log(`ratio simulator target / HPC GPU: ${(sim / free).toFixed(2)}; device / simulator target: ${(paid / sim).toFixed(2)} (the device runs one job at a time, with noise)`);
  } finally {
    await workers.release();
    await svc.close();
  }
}
