/**
 * What every interface 1 route that makes a job shares: the plan's per-job limits, validation
 * and optimization off the event loop, the quota checks done with the insert (nothing is
 * written or charged when one fails), and the job system's errors in interface 1's words.
 */
import type { Identity } from '../../platform/identity/keys.ts';
import {
  prepareCircuit,
  QuotaError,
  submitJob,
  TaskFailure,
  type CircuitTask,
  type JobKind,
  type Prepared,
  type QuantumJob,
} from '../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { findBackend } from './catalog.ts';
import { qcosError } from './errors.ts';
import { billingPeriod, MAX_JOB_MINUTES, qcosPlan, type QcosPlan } from './plans.ts';
import type { QcosInput } from './views.ts';

export function checkBackend(id: string, field = 'backend') {
  const b = findBackend(id);
  if (!b) throw qcosError('INVALID_BACKEND', `Unknown backend '${id}'`, { [field]: id });
  return b;
}

export function checkShots(plan: QcosPlan, shots: number, backendMax: number): void {
  if (shots > backendMax) throw qcosError('INVALID_REQUEST', `At most ${backendMax} shots on this backend`, { shots, max_shots: backendMax });
  if (shots > plan.maxShots) throw qcosError('FORBIDDEN', `The ${plan.name} plan allows at most ${plan.maxShots} shots per job`, { shots, max_shots: plan.maxShots });
}

/** Validates and optimizes on the worker pool; the circuit's problems come back as 400s, the plan's caps as 403s. */
export async function prepare(ctx: ServiceContext, task: CircuitTask, plan: QcosPlan): Promise<Prepared> {
  let prepared: Prepared;
  try {
    prepared = await prepareCircuit(ctx, task);
  } catch (err) {
    if (err instanceof TaskFailure) {
      if (err.code === 'INVALID_BACKEND') throw qcosError('INVALID_BACKEND', err.message, err.details);
      if (err.code === 'INVALID_CIRCUIT' || err.code === 'CIRCUIT_TOO_LARGE') throw qcosError('INVALID_CIRCUIT', err.message, err.details);
      throw qcosError('BACKEND_ERROR', err.message, err.details);
    }
    throw err;
  }
  const backend = findBackend(task.backend)!;
  if (backend.type === 'simulator' && prepared.num_qubits > plan.maxQubits) {
    throw qcosError('FORBIDDEN', `The ${plan.name} plan allows at most ${plan.maxQubits} qubits on simulators; the circuit uses ${prepared.num_qubits}`, {
      qubits: prepared.num_qubits,
      max_qubits: plan.maxQubits,
    });
  }
  if (plan.maxDepth !== null && prepared.depth > plan.maxDepth) {
    throw qcosError('FORBIDDEN', `The ${plan.name} plan allows circuits of depth ${plan.maxDepth}; this one has depth ${prepared.depth}`, {
      depth: prepared.depth,
      max_circuit_depth: plan.maxDepth,
    });
  }
  return prepared;
}

export async function insert(
  ctx: ServiceContext,
  who: Identity,
  o: { kind: JobKind; backend: string; input: QcosInput; minutes: 'quantum' | 'simulation' | null; credits?: number },
): Promise<QuantumJob<QcosInput>> {
  const plan = qcosPlan(who.plan);
  const included = o.minutes === 'quantum' ? plan.quantumMinutes : o.minutes === 'simulation' ? plan.simulationMinutes : null;
  try {
    return (await submitJob(ctx, {
      service: 'qcos',
      accountId: who.accountId,
      keyId: who.keyId,
      kind: o.kind,
      backend: o.backend,
      input: o.input,
      minutesKind: o.minutes,
      holdMinutes: o.minutes ? MAX_JOB_MINUTES : 0,
      credits: o.credits ?? 0,
      limits: {
        maxConcurrent: plan.concurrentJobs,
        minutesIncluded: included ?? undefined,
        creditsIncluded: o.credits ? (plan.optimizationCredits ?? undefined) : undefined,
        periodStart: billingPeriod(ctx.now()).start,
      },
    })) as QuantumJob<QcosInput>;
  } catch (err) {
    if (err instanceof QuotaError) {
      throw qcosError('QUOTA_EXCEEDED', err.message, { quota: err.reason, limit: err.limit, used: Math.round(err.used * 1e6) / 1e6 });
    }
    throw err;
  }
}
