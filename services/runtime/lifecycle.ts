/**
 * The life of a runtime job around the shared job system:
 *
 *   submit  -> (circuit checked and transpiled, cost estimated)
 *              simulator: submitted at once (free) | device: awaiting_approval with a token
 *   approve -> token checked, the estimate held on the account's balance (platform/billing),
 *              then submitted to the job system (same id) (approval.ts)
 *   end     -> completed: the hold settled to the cost of what ran, evidence sealed;
 *              failed or cancelled: the hold released
 *
 * Every phase change is a conditional UPDATE (records.ts) and every hold is closed by one
 * guarded statement, so races (approve vs cancel, two approvals, a cancel vs the run's end)
 * leave one outcome and never a lost or doubled hold. What a stopped process left is finished
 * at start (recovery.ts).
 */
import { getBackend, type Backend } from '../../engines/quantum/index.ts';
import { getHold, releaseHold, settleHold } from '../../platform/billing/index.ts';
import { newId } from '../../platform/identity/ids.ts';
import type { Identity } from '../../platform/identity/keys.ts';
import {
  cancelJob,
  getJob,
  getJobWithResult,
  prepareCircuit,
  submitJob,
  TaskFailure,
  TERMINAL,
  type CircuitTask,
  type Optimization,
  type QuantumJob,
  type TaskResult,
} from '../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { runtimeError, type RuntimeCode } from './errors.ts';
import { RuntimeEvidence } from './evidence.ts';
import { estimate, priceOf } from './pricing.ts';
import { statusOf } from './views.ts';
import {
  insertRuntimeJob,
  newApprovalToken,
  recordFinish,
  selectRuntimeJob,
  transition,
  type RuntimeJob,
} from './records.ts';

export const SERVICE = 'runtime';

/** The optimizer level every runtime job is transpiled with (the job system's default). */
const OPTIMIZATION_LEVEL = 2;

export interface SubmitInput {
  backend_id: string;
  qasm: string;
  shots: number;
}

export interface Submitted {
  job: RuntimeJob;
  /** Shown once; null when the job needs no approval. */
  token: string | null;
}

const TASK_CODES: Record<string, RuntimeCode> = {
  INVALID_CIRCUIT: 'INVALID_CIRCUIT',
  INVALID_BACKEND: 'INVALID_BACKEND',
  CIRCUIT_TOO_LARGE: 'CIRCUIT_TOO_LARGE',
};

function taskOf(job: { backendId: string; qasm: string; shots: number }, prepared?: Optimization | null): CircuitTask {
  return {
    qasm: job.qasm,
    backend: job.backendId,
    shots: job.shots,
    optimizationLevel: OPTIMIZATION_LEVEL,
    execute: true,
    ...(prepared ? { prepared } : {}),
  };
}

/** The backend, or 400 INVALID_BACKEND; shots above the device's limit answer 400 SHOTS_EXCEEDED. */
export function checkBackend(input: SubmitInput): Backend {
  const backend = getBackend(input.backend_id);
  if (!backend) throw runtimeError('INVALID_BACKEND', `Unknown backend '${input.backend_id}'`, { backend_id: input.backend_id });
  if (input.shots > backend.max_shots) {
    throw runtimeError('SHOTS_EXCEEDED', `${backend.id} runs at most ${backend.max_shots} shots per job; ${input.shots} were asked for`, {
      shots: input.shots,
      max_shots: backend.max_shots,
    });
  }
  return backend;
}

export class RuntimeLifecycle {
  readonly evidence: RuntimeEvidence;

  constructor(private readonly ctx: ServiceContext) {
    this.evidence = new RuntimeEvidence(ctx.db);
  }

  /** Checks and transpiles the circuit for its backend, and prices the run. Throws the runtime's 400s. */
  private async plan(backend: Backend, job: { backendId: string; qasm: string; shots: number }) {
    let optimization: Optimization | undefined;
    try {
      optimization = (await prepareCircuit(this.ctx, taskOf(job))).optimization;
    } catch (err) {
      if (err instanceof TaskFailure) throw runtimeError(TASK_CODES[err.code] ?? 'INVALID_CIRCUIT', err.message, err.details);
      throw err;
    }
    // The list price of the circuit as submitted (engines/quantum/pricing.ts), as every quantum service prices it.
    const priced = estimate(backend, job.qasm, job.shots);
    return { optimization: optimization ?? null, priced };
  }

  /** POST /jobs: answers once the job is priced and either submitted (free) or waiting for approval. */
  async submit(who: Identity, input: SubmitInput): Promise<Submitted> {
    const backend = checkBackend(input);
    const draft = { backendId: backend.id, qasm: input.qasm, shots: input.shots };
    const { optimization, priced } = await this.plan(backend, draft);
    const needsApproval = priceOf(backend) !== null;
    const token = needsApproval ? newApprovalToken() : null;
    const job = await insertRuntimeJob(this.ctx.db, {
      id: newId('rtj'),
      accountId: who.accountId,
      keyId: who.keyId,
      ...draft,
      mode: 'sync',
      phase: needsApproval ? 'awaiting_approval' : 'submitted',
      approvalRequired: needsApproval,
      approvalTokenHash: token?.hash ?? null,
      estimatedMicros: priced.micros,
      costBasis: priced.basis,
      prepared: optimization,
      now: this.ctx.now(),
    });
    if (!needsApproval) await this.run(job);
    return { job, token: token?.token ?? null };
  }

  /**
   * POST /jobs/async: answers after the checks that need no circuit work (backend, shots); the
   * circuit is checked, transpiled and priced after the answer. A circuit refused then leaves
   * the job `failed` with the reason, and nothing is charged.
   */
  async submitAsync(who: Identity, input: SubmitInput): Promise<Submitted> {
    const backend = checkBackend(input);
    const needsApproval = priceOf(backend) !== null;
    const token = needsApproval ? newApprovalToken() : null;
    const job = await insertRuntimeJob(this.ctx.db, {
      id: newId('rtj'),
      accountId: who.accountId,
      keyId: who.keyId,
      backendId: backend.id,
      qasm: input.qasm,
      shots: input.shots,
      mode: 'async',
      phase: 'validating',
      approvalRequired: needsApproval,
      approvalTokenHash: token?.hash ?? null,
      estimatedMicros: null,
      costBasis: null,
      prepared: null,
      now: this.ctx.now(),
    });
    setImmediate(() => void this.validate(job).catch((err) => process.emitWarning(`runtime job ${job.id}: ${(err as Error).message}`)));
    return { job, token: token?.token ?? null };
  }

  /** Prices an async job after its answer; a refused circuit fails the job (nothing held). */
  async validate(job: RuntimeJob): Promise<RuntimeJob | null> {
    const backend = getBackend(job.backendId)!;
    let planned;
    try {
      planned = await this.plan(backend, job);
    } catch (err) {
      const e = err as { code?: string; message: string; extra?: Record<string, unknown> };
      return transition(this.ctx.db, job.id, ['validating'], 'failed', this.ctx.now(), {
        error: { code: e.code ?? 'INTERNAL_ERROR', message: e.message, details: e.extra ?? {} },
        finished_at: this.ctx.now(),
      });
    }
    const next = await transition(this.ctx.db, job.id, ['validating'], job.approvalRequired ? 'awaiting_approval' : 'submitted', this.ctx.now(), {
      estimated_micros: planned.priced.micros,
      cost_basis: planned.priced.basis,
      prepared: planned.optimization,
    });
    if (next && next.phase === 'submitted') await this.run(next);
    return next;
  }

  /** Puts a submitted job on the job system (same id); a refusal there fails it and releases its hold. */
  async run(job: RuntimeJob): Promise<void> {
    try {
      await submitJob(this.ctx, {
        id: job.id,
        service: SERVICE,
        accountId: job.accountId,
        keyId: job.keyId,
        kind: 'run',
        backend: job.backendId,
        input: { task: taskOf(job, job.prepared) },
      });
    } catch (err) {
      if (job.holdId) await releaseHold(this.ctx.db, job.holdId);
      await transition(this.ctx.db, job.id, ['submitted'], 'failed', this.ctx.now(), {
        error: { code: 'INTERNAL_ERROR', message: `The job could not be queued: ${(err as Error).message}` },
        finished_at: this.ctx.now(),
      });
      throw err;
    }
  }

  /**
   * DELETE /jobs/{id}. Before submission the job just ends (nothing was held); after it, the
   * job system cancels the run and the end handler releases the hold in full.
   */
  async cancel(who: Identity, id: string): Promise<{ job: RuntimeJob; previous: string }> {
    const job = await this.find(who.accountId, id);
    if (job.phase === 'validating' || job.phase === 'awaiting_approval') {
      const done = await transition(this.ctx.db, id, ['validating', 'awaiting_approval'], 'cancelled', this.ctx.now(), { finished_at: this.ctx.now() });
      if (done) return { job: done, previous: job.phase };
      return this.cancel(who, id); // it moved on meanwhile: cancel it where it is now
    }
    if (job.phase !== 'submitted') throw runtimeError('CONFLICT', `Job ${id} already ${job.phase}; only jobs that have not ended can be cancelled`, { status: job.phase });
    const scope = { service: SERVICE, accountId: who.accountId };
    // An approval writes `submitted` just before the job system's row: wait out that instant.
    for (let tries = 0; ; tries++) {
      const out = await cancelJob(this.ctx, scope, id);
      if (out.outcome === 'cancelled') return { job: (await selectRuntimeJob(this.ctx.db, id))!, previous: out.previous };
      if (out.outcome === 'already_finished') {
        throw runtimeError('CONFLICT', `Job ${id} already ${out.job.status}; only jobs that have not ended can be cancelled`, { status: out.job.status });
      }
      if (tries >= 40) throw runtimeError('CONFLICT', `Job ${id} is being submitted; try again`, { status: 'queued' });
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The account's job or 404 (another account's job is not found either). */
  async find(accountId: string, id: string): Promise<RuntimeJob> {
    const job = await selectRuntimeJob(this.ctx.db, id, accountId);
    if (!job) throw runtimeError('NOT_FOUND', `Job ${id} not found`);
    return job;
  }

  async statusOf(job: RuntimeJob): Promise<string> {
    if (job.phase !== 'submitted') return job.phase;
    return statusOf(job, await getJob(this.ctx, { service: SERVICE, accountId: job.accountId }, job.id));
  }

  /** The job with its run and result (null until it completed). */
  async read(accountId: string, id: string): Promise<{ job: RuntimeJob; run: QuantumJob<unknown> | null; result: TaskResult | null }> {
    const job = await this.find(accountId, id);
    if (job.phase !== 'submitted') return { job, run: null, result: null };
    const read = await getJobWithResult<TaskResult>(this.ctx, { service: SERVICE, accountId }, id);
    if (read && TERMINAL.includes(read.job.status) && job.finishedAt === null) {
      // The run ended but its end handler has not finished (it runs just after the status is
      // written): do its work now, once, so that an ended job never reads with an open hold.
      await this.finished(read.job);
      return { job: (await selectRuntimeJob(this.ctx.db, id, accountId))!, run: read.job, result: read.result };
    }
    return { job, run: read?.job ?? null, result: read?.result ?? null };
  }

  /**
   * A run ended: settle the hold to the cost of what ran (completed) or release it (failed,
   * cancelled), then seal the evidence of a completed job. Safe to call twice: a closed hold
   * is not closed again and a job has one bundle.
   */
  async finished(run: QuantumJob<unknown>): Promise<void> {
    if (!TERMINAL.includes(run.status)) return;
    const job = await selectRuntimeJob(this.ctx.db, run.id);
    if (!job) return;
    const finishedAt = run.finishedAt ?? this.ctx.now();
    let result: TaskResult | null = null;
    if (run.status === 'completed') result = (await getJobWithResult<TaskResult>(this.ctx, { service: SERVICE }, run.id))?.result ?? null;
    if (job.holdId) {
      if (run.status === 'completed' && result) {
        const cost = estimate(getBackend(job.backendId)!, job.qasm, result.shots);
        await settleHold(this.ctx.db, job.holdId, cost.micros);
      } else await releaseHold(this.ctx.db, job.holdId);
      const hold = await getHold(this.ctx.db, job.holdId);
      await recordFinish(this.ctx.db, job.id, { chargedMicros: hold?.chargedMicros ?? 0, finishedAt });
    } else await recordFinish(this.ctx.db, job.id, { chargedMicros: 0, finishedAt });
    if (run.status === 'completed' && result) {
      await this.evidence.issue((await selectRuntimeJob(this.ctx.db, job.id))!, run, result, this.ctx.now());
    }
  }

}
