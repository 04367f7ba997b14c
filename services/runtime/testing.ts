/** Test helpers for the runtime: the service on a fresh database with warm workers, a client, credits. */
import { topUp } from '../../platform/billing/index.ts';
import { startQuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { runtimeService } from './service.ts';

export const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';

/** The priced devices used by the tests: per shot (supplier C), per QPU minute (supplier B). */
export const PER_SHOT_DEVICE = 'lattice_grid_16';
export const PER_MINUTE_DEVICE = 'lattice_line_5';

export async function startRuntime(): Promise<TestService> {
  const svc = await startTestService(runtimeService);
  const workers = await startQuantumWorkers(svc.ctx);
  await workers.pool.warm();
  await workers.release();
  return svc;
}

export function client(svc: TestService, key: string) {
  const headers = { authorization: `Bearer ${key}` };
  return {
    get: (path: string) => call(`${svc.url}${path}`, { headers }),
    post: (path: string, body?: unknown) => call(`${svc.url}${path}`, { method: 'POST', body, headers }),
    raw: (path: string, rawBody: string, method = 'POST') => call(`${svc.url}${path}`, { method, rawBody, headers }),
    del: (path: string) => call(`${svc.url}${path}`, { method: 'DELETE', headers }),
  };
}

export async function addCredits(svc: TestService, accountId: string, usd: number): Promise<void> {
  await topUp(svc.db, { accountId, micros: Math.round(usd * 1e6), service: 'operator', reference: 'test top-up' });
}

/** Everything a test compares to prove that a refused request changed nothing. */
export async function snapshot(svc: TestService): Promise<string> {
  const q = async (sql: string) => JSON.stringify(await svc.db.query(sql));
  return [
    await q('SELECT id, phase, hold_id, approved_at, charged_micros FROM runtime_jobs ORDER BY id'),
    await q("SELECT id, status FROM quantum_jobs WHERE service = 'runtime' ORDER BY id"),
    await q('SELECT id, status, amount_micros, charged_micros FROM billing_holds ORDER BY id'),
    await q('SELECT account_id, kind, amount_micros FROM billing_ledger ORDER BY id'),
  ].join('\n');
}

/** A GHZ circuit on n qubits, measured: with n above 10 a device runs it shot by shot (slow enough to catch it running). */
export function ghz(n: number): string {
  const lines = ['OPENQASM 2.0;', 'include "qelib1.inc";', `qreg q[${n}];`, `creg c[${n}];`, 'h q[0];'];
  for (let i = 1; i < n; i++) lines.push(`cx q[${i - 1}],q[${i}];`);
  lines.push('measure q -> c;');
  return lines.join('\n');
}

/** Polls the job until `done` says so (or about 20 s pass); returns the last read. */
export async function until(api: ReturnType<typeof client>, jobId: string, done: (body: any) => boolean) {
  let read = await api.get(`/api/v1/runtime/jobs/${jobId}`);
  for (let i = 0; i < 400 && !done(read.body); i++) {
    await new Promise((r) => setTimeout(r, 50));
    read = await api.get(`/api/v1/runtime/jobs/${jobId}`);
  }
  return read;
}
