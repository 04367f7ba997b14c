/**
 * LoRA training jobs on the durable queue (`llm.train`): any process that reaches the store
 * takes them; each runs in a worker thread. Progress (epoch, loss, learning rate) is written
 * to the job row as it happens. When training completes, the adapter's bytes are stored on
 * the job and the tenant's chats use it from the next request; when it fails the job says
 * `failed` with the reason.
 *
 * The queue only wakes a process; the job row's lease (lease.ts) says who trains it. A process
 * that stops mid-run puts the job back on the queue (another process, or this one after a
 * restart, trains it again from the start); the leader re-queues the job of a process that
 * died once its lease runs out (seconds, not the queue's 30-minute expiry). After
 * `MAX_ATTEMPTS` starts a job fails instead of looping. The job's event is marked pending in
 * the transaction that finishes it and handed to webhook delivery after it, under an id fixed
 * by the job, so that the leader can hand it over again if the process died in between.
 * What a process keeps: the worker thread and lease of each run, while it runs.
 */
import { countTrainingJob } from '../../../platform/observability/families.ts';
import { sha256Hex } from '../../../engines/crypto/encoding.ts';
import { readFileSync, rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { LoraProgress } from '../../../engines/language/builtin/lora.ts';
import { BUILTIN_MODEL_PATH } from '../../../engines/language/config.ts';
import type { JobQueue } from '../../../platform/jobs/queue.ts';
import type { ServiceContext } from '../../../platform/service.ts';
import { emitEvent } from '../../../platform/webhooks/index.ts';
import type { QEvent } from '../events.ts';
import { forgetTenants } from '../tenants.ts';
import type { Adapters } from './adapters.ts';
import { claimJob, LEASE_RENEWAL, LEASE_SECONDS, newLeaseOwner, recoverJobs, releaseJob, renewLease, RENEW_MS, sendJob } from './lease.ts';
import { workerEntry } from '../../../platform/threads.ts';

export const TRAIN_QUEUE = 'llm.train';
export const MAX_ATTEMPTS = 3;
/** Rough cost of one optimiser step on the built-in model, for `estimated_duration_minutes`. */
export const SECONDS_PER_STEP = 0.5;

export interface TrainParams {
  lora_r: number;
  lora_alpha: number;
  epochs: number;
  learning_rate: number;
  batch_size: number;
}

interface JobRow {
  id: string;
  tenant_id: string;
  params: TrainParams;
  pairs: { prompt: string; completion: string; system?: string }[];
  attempts: number;
  account_id: string;
}

/** A finished job whose event is pending, as the leader reads it. */
interface FinishedRow {
  id: string;
  tenant_id: string;
  account_id: string;
  status: 'completed' | 'failed';
  feedback_samples: number;
  held_out_loss_before: number | null;
  held_out_loss_after: number | null;
  error: string | null;
  finished_at: Date;
}

type TrainResult = { heldOutLossBefore: number; heldOutLossAfter: number };

class Interrupted extends Error {}
/** Another process holds the job now: this run writes nothing more. */
class LeaseLost extends Error {}

/** The event id of a job's end: the same in every process that hands it over. */
export function trainingEventId(jobId: string, event: string): string {
  return `evt_${sha256Hex(`${jobId}:${event}`).slice(0, 24)}`;
}

export class Trainer {
  private readonly running = new Map<string, Worker>();
  private stopping = false;
  /** The job queue with `llm.train` defined on it: started on first need, kept for the process's life (a failure is retried on the next need). */
  private defined: Promise<JobQueue> | null = null;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly adapters: Adapters,
  ) {}

  /**
   * Takes this process's share of training jobs from the queue. app.ts runs it after the service
   * answers (it starts the job queue, seconds on a loaded machine); a job sent before it runs
   * waits in the queue, and jobs queued before a restart are the leader's to re-send.
   */
  async start(): Promise<void> {
    if (this.stopping) return;
    const queue = await this.queue();
    if (this.stopping) return;
    await queue.work<{ job_id: string }>(TRAIN_QUEUE, (job) => this.run(job.data.job_id));
  }

  async enqueue(jobId: string): Promise<void> {
    await sendJob(this.ctx.db, await this.queue(), TRAIN_QUEUE, jobId);
  }

  /** The queue, with `llm.train` defined before anything is sent to it or taken from it. */
  private queue(): Promise<JobQueue> {
    if (!this.defined) {
      const defined = (async () => {
        const queue = await this.ctx.queue();
        // The lease finds a dead process's job within seconds; the queue's own expiry is the
        // fallback for jobs an earlier version started without a lease.
        await queue.define(TRAIN_QUEUE, { retryLimit: MAX_ATTEMPTS, retryDelay: 1, retryBackoff: false, expireInSeconds: 30 * 60 });
        return queue;
      })();
      this.defined = defined;
      defined.catch(() => {
        if (this.defined === defined) this.defined = null;
      });
    }
    return this.defined;
  }

  /** Stops every run of this process; their jobs go back on the queue. */
  stop(): void {
    this.stopping = true;
    for (const w of this.running.values()) void w.terminate();
  }

  /**
   * The leader's round (app.ts runs it in one process of the cluster): re-queues the jobs of
   * processes that died, and hands over the events of jobs finished by a process that died
   * before it could. A lease's length after the finish, so as not to race the finisher.
   */
  async recover(): Promise<void> {
    if (this.stopping) return;
    await recoverJobs(this.ctx.db, () => this.queue(), TRAIN_QUEUE);
    const pending = await this.ctx.db.query<FinishedRow>(
      `SELECT j.id, j.tenant_id, t.account_id, j.status, j.feedback_samples, j.held_out_loss_before, j.held_out_loss_after, j.error, j.finished_at
         FROM llm_training_jobs j JOIN llm_tenants t ON t.id = j.tenant_id
        WHERE j.event_pending AND j.finished_at < now() - make_interval(secs => ${LEASE_SECONDS}) ORDER BY j.finished_at LIMIT 100`,
    );
    if (pending.some((r) => r.status === 'completed')) await forgetTenants(this.ctx.db);
    for (const row of pending) await this.announce(row);
  }

  private async run(jobId: string): Promise<void> {
    const db = this.ctx.db;
    if (this.stopping) throw new Interrupted('the process is stopping');
    const owner = newLeaseOwner();
    const claim = await claimJob(db, jobId, owner, MAX_ATTEMPTS);
    // Finished, deleted with its tenant, or trained by a live process now.
    if (!claim) return;
    const [job] = await db.query<JobRow>(
      `SELECT j.id, j.tenant_id, j.params, j.pairs, j.attempts, t.account_id
         FROM llm_training_jobs j JOIN llm_tenants t ON t.id = j.tenant_id WHERE j.id = $1`,
      [jobId],
    );
    if (!job) return;
    if (claim === 'exhausted') {
      await this.fail(job, owner, `training was interrupted ${job.attempts} times; giving up`);
      return;
    }
    // Named by the run: a run that lost its lease never shares a file with the one that took it.
    const out = this.adapters.scratchPath(`${jobId}.${owner.slice(-12)}`);
    try {
      const result = await this.train(job, owner, out);
      const bytes = readFileSync(out);
      const finished = await db.transaction(async (tx) => {
        const [row] = await tx.query<{ finished_at: Date }>(
          `UPDATE llm_training_jobs SET status = 'completed', progress = 1, current_epoch = total_epochs, adapter = $3,
                  held_out_loss_before = $4, held_out_loss_after = $5, finished_at = now(), updated_at = now(),
                  lease_expires_at = NULL, event_pending = true
            WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING finished_at`,
          [jobId, owner, bytes, result.heldOutLossBefore, result.heldOutLossAfter],
        );
        if (!row) return null;
        await tx.query('UPDATE llm_tenants SET adapter_job_id = $2, updated_at = now() WHERE id = $1', [job.tenant_id, jobId]);
        return row.finished_at;
      });
      // Lost the lease at the last moment: the process that holds it finishes the job.
      if (!finished) return;
      await forgetTenants(db);
      countTrainingJob('llm', 'completed');
      await this.announce({
        id: jobId,
        tenant_id: job.tenant_id,
        account_id: job.account_id,
        status: 'completed',
        feedback_samples: job.pairs.length,
        held_out_loss_before: result.heldOutLossBefore,
        held_out_loss_after: result.heldOutLossAfter,
        error: null,
        finished_at: finished,
      });
    } catch (err) {
      if (err instanceof LeaseLost) return;
      if (err instanceof Interrupted || this.stopping) {
        await releaseJob(db, jobId, owner);
        throw err instanceof Interrupted ? err : new Interrupted('the process is stopping');
      }
      await this.fail(job, owner, (err as Error).message);
    } finally {
      rmSync(out, { force: true });
    }
  }

  private async fail(job: JobRow, owner: string, message: string): Promise<void> {
    const rows = await this.ctx.db.query<{ finished_at: Date }>(
      `UPDATE llm_training_jobs SET status = 'failed', error = $3, finished_at = now(), updated_at = now(), lease_expires_at = NULL, event_pending = true
        WHERE id = $1 AND lease_owner = $2 AND status IN ('queued', 'running') RETURNING finished_at`,
      [job.id, owner, message],
    );
    if (!rows[0]) return;
    countTrainingJob('llm', 'failed');
    const { id, tenant_id, account_id } = job;
    await this.announce({ id, tenant_id, account_id, status: 'failed', feedback_samples: job.pairs.length, held_out_loss_before: null, held_out_loss_after: null, error: message, finished_at: rows[0].finished_at });
  }

  /**
   * Hands a finished job's event to webhook delivery (under its fixed id and time) and marks it
   * handed over; when that fails the mark stays and the leader tries again.
   */
  private async announce(row: FinishedRow): Promise<void> {
    const event: QEvent = row.status === 'completed' ? 'training.completed' : 'training.failed';
    const data =
      row.status === 'completed'
        ? { job_id: row.id, status: 'completed', feedback_samples: row.feedback_samples, metrics: { held_out_loss_before: row.held_out_loss_before, held_out_loss_after: row.held_out_loss_after } }
        : { job_id: row.id, status: 'failed', error: { code: 'TRAINING_FAILED', message: row.error ?? '' } };
    try {
      await emitEvent(this.ctx, {
        service: 'llm',
        accountId: row.account_id,
        scope: row.tenant_id,
        event,
        data: { tenant_id: row.tenant_id, ...data },
        eventId: trainingEventId(row.id, event),
        createdAt: new Date(row.finished_at),
      });
    } catch (err) {
      process.emitWarning(`llm: could not enqueue ${event} for tenant ${row.tenant_id}: ${(err as Error).message}`);
      return;
    }
    await this.ctx.db.query('UPDATE llm_training_jobs SET event_pending = false WHERE id = $1', [row.id]);
  }

  private train(job: JobRow, owner: string, out: string): Promise<TrainResult> {
    const p = job.params;
    const db = this.ctx.db;
    const worker = new Worker(workerEntry('training', new URL('./thread-bootstrap.mjs', import.meta.url)), {
      workerData: { base: BUILTIN_MODEL_PATH, out, pairs: job.pairs, rank: p.lora_r, alpha: p.lora_alpha, epochs: p.epochs, learningRate: p.learning_rate, batchSize: p.batch_size },
    });
    this.running.set(job.id, worker);
    let epochLoss = 0;
    let epochSteps = 0;
    let writes = Promise.resolve();
    let lost = false;
    // One write at a time, in order; a failed one (the database briefly away) is skipped, and
    // the lease's slack covers it.
    const write = (fn: () => Promise<void>): void => {
      writes = writes.then(fn).catch(() => {});
    };
    const loseLease = (): void => {
      lost = true;
      void worker.terminate();
    };
    const record = (m: LoraProgress): void => {
      epochLoss += m.loss;
      epochSteps++;
      const perEpoch = m.steps / m.epochs;
      const epochDone = m.step % perEpoch === 0;
      // Per step: progress and the step's loss; at each epoch's end: the epoch and its mean loss.
      const loss = epochDone ? epochLoss / epochSteps : m.loss;
      const epoch = epochDone ? m.epoch : m.epoch - 1;
      if (epochDone) {
        epochLoss = 0;
        epochSteps = 0;
      }
      // Each progress write renews the lease; one that finds the lease gone stops the run.
      write(async () => {
        const rows = await db.query(
          `UPDATE llm_training_jobs SET progress = $3, current_epoch = $4, loss = $5, learning_rate = $6, ${LEASE_RENEWAL}
            WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id`,
          [job.id, owner, m.step / m.steps, epoch, loss, m.learningRate],
        );
        if (rows.length === 0) loseLease();
      });
    };
    // Between progress writes (the model loading, the held-out evaluation, a long step).
    const renewal = setInterval(() => {
      write(async () => {
        if (!(await renewLease(db, job.id, owner))) loseLease();
      });
    }, RENEW_MS);
    renewal.unref();
    return new Promise<TrainResult>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearInterval(renewal);
        this.running.delete(job.id);
        void writes.then(fn, fn);
      };
      const ended = (err: Error): Error => (lost ? new LeaseLost('another process holds the job') : err);
      worker.on('message', (m: { type: string } & Record<string, unknown>) => {
        if (m.type === 'progress') record(m as unknown as LoraProgress);
        else if (m.type === 'done') settle(() => (lost ? reject(new LeaseLost('another process holds the job')) : resolve(m as unknown as TrainResult)));
        else if (m.type === 'error') settle(() => reject(ended(new Error(String(m.message)))));
      });
      worker.on('error', (err) => settle(() => reject(ended(err))));
      worker.on('exit', (code) => settle(() => reject(ended(this.stopping ? new Interrupted('the process is stopping') : new Error(`the training thread exited with code ${code}`)))));
    }).finally(() => void worker.terminate());
  }
}
