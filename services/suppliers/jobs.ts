/**
 * A supplier job's life: checks and estimate, credits hold, the row, the adapter's submission;
 * then, whenever it is read, polled or the job system reports its end, one finalization that
 * settles the hold to the cost, seals the result in the provenance chain and sends webhooks.
 */
import { hostname } from 'node:os';
import type { preHandlerAsyncHookHandler } from 'fastify';
import { canonicalJson } from '../../engines/crypto/encoding.ts';
import { BillingError, placeHold, releaseHold, settleHold } from '../../platform/billing/index.ts';
import type { Identity } from '../../platform/identity/keys.ts';
import { newId } from '../../platform/identity/ids.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { emitEvent } from '../../platform/webhooks/index.ts';
import type { Adapters } from './adapters/index.ts';
import type { Observed } from './adapters/types.ts';
import { returnJobSlot, takeJobSlot } from './auth.ts';
import type { SupplierTarget } from './catalog.ts';
import { analyzeCircuit, sha3, type CircuitInfo } from './circuit.ts';
import type { SupplierId, SuppliersConfig } from './config.ts';
import { supplierError } from './errors.ts';
import { storeTaskResult } from './objects.ts';
import { supplierPlan } from '../../platform/quantum-jobs/plans.ts';
import { estimate, RATES, type Estimate } from './pricing.ts';
import { appendProvenance } from './provenance.ts';
import {
  attachSubmission,
  completeBatchIfDone,
  deleteSupplierJob,
  finishJob,
  FINAL,
  insertSupplierJob,
  jobById,
  listSupplierJobs,
  markRunning,
  type JobResult,
  type SupplierJob,
} from './store.ts';
import { statusWord } from './views.ts';

export const SERVICE = 'suppliers';
/** How long a hold lasts before the repair looks at it again (a device queue may be long); extended while the job is active. */
export const HOLD_HOURS = 7 * 24;

export interface Deps {
  ctx: ServiceContext;
  /** The key check with the plan's request limits, run before every authenticated route. */
  auth: preHandlerAsyncHookHandler;
  config: SuppliersConfig;
  adapters: Adapters;
  owner: string;
}

export function ownerName(): string {
  return `suppliers@${hostname()}:${process.pid}`;
}

/** The target of a supplier by id, or the route's 404/400 in the supplier's words. */
export async function findTarget(deps: Deps, supplier: SupplierId, id: string, field: string): Promise<SupplierTarget> {
  const targets = await deps.adapters[supplier].targets();
  const t = targets.find((x) => x.id === id);
  if (!t) {
    throw supplierError('INVALID_PARAMETERS', `Unknown ${field} '${id}' for ${supplier}; known: ${targets.map((x) => x.id).join(', ') || 'none'}`, { supplier, [field]: id });
  }
  if (t.status !== 'ONLINE') throw supplierError('PROVIDER_UNAVAILABLE', `${id} is ${t.status.toLowerCase()}`, { supplier });
  return t;
}

/** The plan's and the target's limits on qubits and shots (QUBITS_EXCEEDED, SHOTS_EXCEEDED). */
export function checkLimits(who: Identity, target: SupplierTarget, info: CircuitInfo, shots: number): void {
  const plan = supplierPlan(who.plan);
  const supplier = target.supplier;
  if (info.undefinedGates.length) {
    throw supplierError('CIRCUIT_INVALID', `Gates without a definition cannot run: ${info.undefinedGates.join(', ')}`, { supplier });
  }
  if (info.numQubits > plan.maxQubits) {
    throw supplierError('QUBITS_EXCEEDED', `The circuit uses ${info.numQubits} qubits; the ${plan.name} plan allows ${plan.maxQubits}`, { supplier, qubits: info.numQubits, max_qubits: plan.maxQubits });
  }
  if (info.numQubits > target.numQubits) {
    throw supplierError('QUBITS_EXCEEDED', `The circuit uses ${info.numQubits} qubits; ${target.id} has ${target.numQubits}`, { supplier, qubits: info.numQubits, max_qubits: target.numQubits });
  }
  checkShots(target, shots);
}

/**
 * The target's own shot limit (SHOTS_EXCEEDED naming it), checked on every route that takes
 * shots, execute and estimate alike. The request schema sets no upper bound of its own, so an
 * excess is always reported against the supplier's limit, never as a generic validation error.
 */
export function checkShots(target: SupplierTarget, shots: number): void {
  if (shots > target.maxShots) {
    throw supplierError('SHOTS_EXCEEDED', `${shots} shots requested; ${target.supplier} allows at most ${target.maxShots} shots per job on ${target.id}`, {
      supplier: target.supplier, shots, max_shots: target.maxShots,
    });
  }
}

export function priced(target: SupplierTarget, qasm: string, shots: number): { info: CircuitInfo; cost: Estimate } {
  const info = analyzeCircuit(qasm, target.supplier);
  return { info, cost: estimate(target, info, shots) };
}

export interface SubmitArgs {
  who: Identity;
  target: SupplierTarget;
  qasm: string;
  shots: number;
  publicId?: string;
  storage?: { bucket: string | null; prefix: string | null };
  batchId?: string | null;
  /** Job slots already taken by the caller (a batch takes them all at once). */
  slotTaken?: boolean;
}

/**
 * Submits one job. Every check runs before anything is written; a refusal after the hold or
 * the row (a duplicate id, a supplier that refuses the job) undoes them, so a refused
 * submission changes nothing and charges nothing.
 */
export async function submitSupplierJob(deps: Deps, a: SubmitArgs): Promise<{ job: SupplierJob; cost: Estimate; info: CircuitInfo }> {
  const { ctx } = deps;
  const { target, who } = a;
  const supplier = target.supplier;
  checkShots(target, a.shots);
  const { info, cost } = priced(target, a.qasm, a.shots);
  checkLimits(who, target, info, a.shots);
  const plan = supplierPlan(who.plan);
  if (!a.slotTaken) await takeJobSlot(ctx, who, plan, supplier);
  const undo: Array<() => Promise<unknown>> = a.slotTaken ? [] : [() => returnJobSlot(ctx, who, plan)];
  const rollback = async () => {
    for (const u of undo.reverse()) await u().catch(() => {});
  };
  try {
    const rowId = newId('sj');
    let holdId: string | null = null;
    if (cost.micros > 0) {
      try {
        const hold = await placeHold(ctx.db, {
          accountId: who.accountId, service: SERVICE, reference: rowId, micros: cost.micros, owner: deps.owner,
          expiresAt: new Date(ctx.now().getTime() + HOLD_HOURS * 3_600_000),
        });
        holdId = hold.id;
        undo.push(() => releaseHold(ctx.db, hold.id));
      } catch (err) {
        if (err instanceof BillingError) {
          throw supplierError('INSUFFICIENT_CREDITS', `This job costs $${cost.usd.toFixed(2)} and the account's credit balance does not cover it (${err.message})`, { supplier, estimated_cost_usd: cost.usd });
        }
        throw err;
      }
    }
    const mode = deps.adapters[supplier].mode === 'remote' ? 'remote' : 'emulated';
    const quantumJobId = mode === 'emulated' ? newId('job') : null;
    const publicId = a.publicId ?? (mode === 'emulated' && supplier !== 'supplier_c' ? quantumJobId! : newId(supplier === 'supplier_c' ? 'task' : 'job'));
    const job = await insertSupplierJob(ctx.db, {
      id: rowId, accountId: who.accountId, keyId: who.keyId, supplier, publicId, mode, provider: target.provider, target: target.id,
      backend: target.backend, shots: a.shots, numQubits: info.numQubits, qasm: a.qasm, circuitHash: sha3(a.qasm), costModel: cost.costModel,
      estimatedMicros: cost.micros, holdId, quantumJobId, batchId: a.batchId ?? null, storageBucket: a.storage?.bucket ?? null, storagePrefix: a.storage?.prefix ?? null,
    }, ctx.now());
    if (!job) throw supplierError('INVALID_PARAMETERS', `job_id '${publicId}' is already used by another job of this account`, { supplier, job_id: publicId });
    undo.push(() => deleteSupplierJob(ctx.db, job.id));
    // The chain starts before the job can run: an emulated job may end before submit() returns.
    await appendProvenance(ctx.db, job.id, 'submitted', {
      job_id: publicId, supplier, provider: target.provider, target: target.id, backend: target.backend, mode, shots: a.shots,
      circuit_hash: job.circuitHash, num_qubits: info.numQubits, estimated_cost_usd: cost.usd, cost_model: cost.costModel,
      quantum_job_id: quantumJobId, batch_id: a.batchId ?? null,
    }, ctx.now());
    const submitted = await deps.adapters[supplier].submit(job, info, target);
    await attachSubmission(ctx.db, job.id, submitted, ctx.now());
    // A remote job ends only when it is polled, which needs the id recorded here first.
    if (submitted.remoteId) {
      await appendProvenance(ctx.db, job.id, 'accepted', { remote_id: submitted.remoteId, remote_status: submitted.remoteStatus ?? null }, ctx.now());
    }
    return { job: { ...job, remoteId: submitted.remoteId ?? null, remoteStatus: submitted.remoteStatus ?? null }, cost, info };
  } catch (err) {
    await rollback();
    throw err;
  }
}

/** What a finished job is charged: the estimate, or a remote supplier's measured quantum seconds when lower. */
function chargeFor(job: SupplierJob, o: Observed): number {
  if (o.status !== 'completed') return 0;
  if (job.mode === 'remote' && job.supplier === 'supplier_b_quantum' && typeof o.result?.execution_time === 'number') {
    const measured = Math.round(o.result.execution_time * RATES.supplier_b_quantum.usdPerQuantumSecond * 1e6);
    return Math.min(job.estimatedMicros, measured);
  }
  return job.estimatedMicros;
}

export function resultHash(result: JobResult): string {
  return sha3(canonicalJson({ counts: result.counts, shots: result.shots }));
}

/** Applies what the supplier reports: running, or the one finalization of an ended job. */
export async function applyObserved(deps: Deps, job: SupplierJob, o: Observed): Promise<SupplierJob> {
  const { ctx } = deps;
  if (FINAL.includes(job.status)) return job;
  if (o.status === 'queued') return job;
  if (o.status === 'running') {
    await markRunning(ctx.db, job.id, o.remoteStatus ?? null, ctx.now());
    return { ...job, status: 'running', remoteStatus: o.remoteStatus ?? job.remoteStatus };
  }
  const status = o.status;
  const charged = chargeFor(job, o);
  const hash = o.result ? resultHash(o.result) : null;
  let location = o.resultLocation ?? null;
  // An emulated supplier C task writes its result document where the supplier would (objects.ts).
  if (o.status === 'completed' && o.result && job.supplier === 'supplier_c' && job.mode === 'emulated') {
    location = await storeTaskResult(ctx.db, job, o.result, hash, ctx.now());
  }
  // The end and its hold's close commit together: whoever reads the job finished (another path
  // that lost this race reloads it) finds its money settled too.
  const done = await ctx.db.transaction(async (tx) => {
    const finished = await finishJob(tx, job.id, {
      status, result: o.result ?? null, error: o.error ?? null, resultHash: hash, chargedMicros: charged,
      remoteStatus: o.remoteStatus ?? null, resultLocation: location,
    }, ctx.now());
    if (finished?.holdId) {
      if ((finished.chargedMicros ?? 0) > 0) await settleHold(tx, finished.holdId, finished.chargedMicros ?? 0);
      else await releaseHold(tx, finished.holdId);
    }
    return finished;
  });
  if (!done) return (await reload(deps, job)) ?? job;
  await afterFinish(deps, done, o);
  return done;
}

async function reload(deps: Deps, job: SupplierJob): Promise<SupplierJob | null> {
  return jobById(deps.ctx.db, job.id);
}

/** Seals the end in the provenance chain and tells the webhooks (the hold closed with the end). */
async function afterFinish(deps: Deps, job: SupplierJob, o: Observed): Promise<void> {
  const { ctx } = deps;
  await appendProvenance(ctx.db, job.id, job.status, {
    job_id: job.publicId, status: job.status, result_hash: job.resultHash, charged_usd: (job.chargedMicros ?? 0) / 1e6,
    remote_status: job.remoteStatus, error: job.error, optimization: job.result?.optimization ?? null,
  }, ctx.now());
  const base = { job_id: job.publicId, provider: job.supplier, backend: job.target, status: statusWord(job.supplier, job.status), shots: job.shots };
  if (job.status === 'completed') {
    if (o.result?.optimization) {
      await emitEvent(ctx, { service: SERVICE, accountId: job.accountId, event: 'optimization.done', data: { ...base, optimization: o.result.optimization } });
    }
    await emitEvent(ctx, {
      service: SERVICE, accountId: job.accountId, event: 'job.completed',
      data: { ...base, cost_usd: (job.chargedMicros ?? 0) / 1e6, result: { counts: job.result?.counts ?? {}, shots: job.result?.shots ?? job.shots }, result_hash: job.resultHash },
    });
  } else if (job.status === 'failed') {
    await emitEvent(ctx, { service: SERVICE, accountId: job.accountId, event: 'job.failed', data: { ...base, error: job.error } });
  }
  if (job.batchId) {
    const batch = await completeBatchIfDone(ctx.db, job.batchId, ctx.now());
    if (batch) {
      const { jobs } = await listSupplierJobs(ctx.db, { accountId: job.accountId, batchId: batch.id, limit: 10_000, offset: 0 });
      const tally = (s: string) => jobs.filter((j) => j.status === s).length;
      await emitEvent(ctx, {
        service: SERVICE, accountId: job.accountId, event: 'batch.completed',
        data: { batch_id: batch.id, status: 'completed', total: batch.jobCount, completed: tally('completed'), failed: tally('failed'), cancelled: tally('cancelled') },
      });
    }
  }
}

/** The job as it is now: asks the supplier (or the job system) when it has not ended. */
export async function refresh(deps: Deps, job: SupplierJob): Promise<SupplierJob> {
  if (FINAL.includes(job.status)) return job;
  const o = await deps.adapters[job.supplier].observe(job);
  if (o.resultLocation && !job.resultLocation) job = { ...job, resultLocation: o.resultLocation };
  return applyObserved(deps, job, o);
}

/** Cancels a job still waiting in its queue; anything else answers JOB_NOT_CANCELLABLE. */
export async function cancelSupplierJob(deps: Deps, job: SupplierJob): Promise<SupplierJob> {
  const now = await refresh(deps, job);
  const notCancellable = () =>
    supplierError('JOB_NOT_CANCELLABLE', `Only pending or queued jobs can be cancelled; this job is ${statusWord(now.supplier, now.status)}`, {
      supplier: now.supplier, status: statusWord(now.supplier, now.status),
    });
  if (now.status !== 'queued') throw notCancellable();
  const outcome = await deps.adapters[job.supplier].cancel(now);
  if (outcome !== 'cancelled') throw notCancellable();
  return applyObserved(deps, now, { status: 'cancelled', remoteStatus: now.mode === 'remote' ? (now.supplier === 'supplier_c' ? 'CANCELLING' : 'cancelled') : 'cancelled' });
}
