/**
 * Test helpers the quantum services share (qcos, core, the runtime, the platform, the
 * suppliers): a Bell and a GHZ circuit, a service started with its quantum workers warm, and
 * prepaid credit for an account.
 */
import { topUp, usdToMicros } from '../billing/index.ts';
import { startQuantumWorkers } from '../quantum-jobs/index.ts';
import type { ServiceDefinition } from '../service.ts';
import type { Database } from '../storage/database.ts';
import { startTestService, type TestService } from './harness.ts';

export const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';

/** A GHZ circuit on n qubits, measured: with n above 10 a device runs it shot by shot (slow enough to catch it running). */
export function ghz(n: number): string {
  const lines = ['OPENQASM 2.0;', 'include "qelib1.inc";', `qreg q[${n}];`, `creg c[${n}];`, 'h q[0];'];
  for (let i = 1; i < n; i++) lines.push(`cx q[${i - 1}],q[${i}];`);
  lines.push('measure q -> c;');
  return lines.join('\n');
}

/** The service on a fresh database, its quantum workers' threads started, so that a test's first job does not wait for them. */
export async function startWarm(def: ServiceDefinition): Promise<TestService> {
  const svc = await startTestService(def);
  const workers = await startQuantumWorkers(svc.ctx);
  await workers.pool.warm();
  await workers.release();
  return svc;
}

/** Tops the account's prepaid credit up by `usd`, as an operator would. */
export async function creditUsd(db: Database, accountId: string, usd: number, reference = 'test top-up'): Promise<void> {
  await topUp(db, { accountId, micros: usdToMicros(usd), service: 'operator', reference });
}
