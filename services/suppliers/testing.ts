/** Test helpers for suppliers: the service on a fresh database with its workers warm, clients, circuits and credits. */
import { topUp, usdToMicros } from '../../platform/billing/index.ts';
import { startQuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { suppliersService } from './service.ts';

export const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';

export async function startSuppliers(): Promise<TestService> {
  const svc = await startTestService(suppliersService);
  const workers = await startQuantumWorkers(svc.ctx);
  await workers.pool.warm();
  await workers.release();
  return svc;
}

export function client(svc: TestService, key: string, style: 'x-api-key' | 'bearer' = 'x-api-key') {
  const headers: Record<string, string> = style === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
  return {
    get: (path: string) => call(`${svc.url}${path}`, { headers }),
    post: (path: string, body: unknown) => call(`${svc.url}${path}`, { method: 'POST', body, headers }),
    raw: (path: string, rawBody: string, method = 'POST') => call(`${svc.url}${path}`, { method, rawBody, headers }),
    del: (path: string) => call(`${svc.url}${path}`, { method: 'DELETE', headers }),
  };
}

export async function credit(svc: TestService, accountId: string, usd: number): Promise<void> {
  await topUp(svc.db, { accountId, micros: usdToMicros(usd), service: 'operator', reference: 'test' });
}

/** Polls a status path until the job's status is one of `done` (case-insensitive). */
export async function waitStatus(get: (p: string) => Promise<{ status: number; body: any }>, path: string, done = ['completed', 'failed', 'cancelled'], ms = 120_000) {
  const end = Date.now() + ms;
  for (;;) {
    const r = await get(path);
    if (r.status !== 200 || done.includes(String(r.body.status).toLowerCase()) || Date.now() > end) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** A GHZ circuit on n qubits, measured. */
export function ghz(n: number): string {
  const lines = ['OPENQASM 2.0;', 'include "qelib1.inc";', `qreg q[${n}];`, `creg c[${n}];`, 'h q[0];'];
  for (let i = 1; i < n; i++) lines.push(`cx q[${i - 1}],q[${i}];`);
  lines.push('measure q -> c;');
  return lines.join('\n');
}
