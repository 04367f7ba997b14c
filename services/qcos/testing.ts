/** Test helpers for qcos: the service on a fresh database with its workers warm, and circuits. */
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { startQuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import { qcosService } from './service.ts';

export const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';

export async function startQcos(): Promise<TestService> {
  const svc = await startTestService(qcosService);
  const workers = await startQuantumWorkers(svc.ctx);
  await workers.pool.warm();
  await workers.release();
  return svc;
}

export function client(svc: TestService, key: string) {
  const headers = { 'x-api-key': key };
  return {
    get: (path: string) => call(`${svc.url}${path}`, { headers }),
    post: (path: string, body: unknown) => call(`${svc.url}${path}`, { method: 'POST', body, headers }),
    del: (path: string) => call(`${svc.url}${path}`, { method: 'DELETE', headers }),
  };
}

/** A GHZ circuit on n qubits, measured. */
export function ghz(n: number): string {
  const lines = ['OPENQASM 2.0;', 'include "qelib1.inc";', `qreg q[${n}];`, `creg c[${n}];`, 'h q[0];'];
  for (let i = 1; i < n; i++) lines.push(`cx q[${i - 1}],q[${i}];`);
  lines.push('measure q -> c;');
  return lines.join('\n');
}
