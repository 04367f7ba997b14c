/**
 * LoRA training jobs on the durable queue (`llm.train`): any process that reaches the store
 * takes them; each runs in a worker thread. Progress (epoch, loss, learning rate) is written
 * to the job row as it happens. When training completes, the adapter's bytes are stored on
 * the job and the tenant's chats use it from the next request; when it fails the job says
 * `failed` with the reason. A process that stops mid-run puts the job back on the queue
 * (another process, or this one after a restart, trains it again from the start); a process
 * that dies leaves it to the queue's expiry, after which it is retried, and after
 * `MAX_ATTEMPTS` starts it fails instead of looping.
 */
import { countTrainingJob } from '../../../platform/observability/families.ts';
import { readFileSync, rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { LoraProgress } from '../../../engines/language/builtin/lora.ts';
import { BUILTIN_MODEL_PATH } from '../../../engines/language/config.ts';
import type { ServiceContext } from '../../../platform/service.ts';
import type { Events } from '../events.ts';
import { forgetTenants } from '../tenants.ts';
import type { Adapters } from './adapters.ts';

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
  status: string;
  params: TrainParams;
  pairs: { prompt: string; completion: string; system?: string }[];
  attempts: number;
  account_id: string;
}

class Interrupted extends Error {}

export class Trainer {
  private readonly running = new Map<string, Worker>();
  private stopping = false;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly events: Events,
    private readonly adapters: Adapters,
  ) {}

  async start(): Promise<void> {
    const queue = await this.ctx.queue();
    // A run that stops reporting for 30 minutes is taken as lost and retried.
    await queue.define(TRAIN_QUEUE, { retryLimit: MAX_ATTEMPTS, retryDelay: 1, retryBackoff: false, expireInSeconds: 30 * 60 });
    await queue.work<{ job_id: string }>(TRAIN_QUEUE, (job) => this.run(job.data.job_id));
  }

  async enqueue(jobId: string): Promise<void> {
    const queue = await this.ctx.queue();
    await queue.send(TRAIN_QUEUE, { job_id: jobId });
  }

  /** Stops every run of this process; their jobs go back on the queue. */
  stop(): void {
    this.stopping = true;
    for (const w of this.running.values()) void w.terminate();
  }

  private async run(jobId: string): Promise<void> {
    const db = this.ctx.db;
    const [job] = await db.query<JobRow>(
      `SELECT j.id, j.tenant_id, j.status, j.params, j.pairs, j.attempts, t.account_id
         FROM llm_training_jobs j JOIN llm_tenants t ON t.id = j.tenant_id WHERE j.id = $1`,
      [jobId],
    );
    // Deleted with its tenant, or already finished by an earlier attempt.
    if (!job || job.status === 'completed' || job.status === 'failed') return;
    if (this.stopping) throw new Interrupted('the process is stopping');
    if (job.attempts >= MAX_ATTEMPTS) {
      await this.fail(job, `training was interrupted ${job.attempts} times; giving up`);
      return;
    }
    await db.query(
      `UPDATE llm_training_jobs SET status = 'running', attempts = attempts + 1, started_at = now(), updated_at = now(),
              progress = 0, current_epoch = 0, loss = NULL, error = NULL WHERE id = $1`,
      [jobId],
    );
    const out = this.adapters.scratchPath(jobId);
    try {
      const result = await this.train(job, out);
      const bytes = readFileSync(out);
      await db.transaction(async (tx) => {
        await tx.query(
          `UPDATE llm_training_jobs SET status = 'completed', progress = 1, current_epoch = total_epochs, adapter = $2,
                  held_out_loss_before = $3, held_out_loss_after = $4, finished_at = now(), updated_at = now() WHERE id = $1`,
          [jobId, bytes, result.heldOutLossBefore, result.heldOutLossAfter],
        );
        await tx.query('UPDATE llm_tenants SET adapter_job_id = $2, updated_at = now() WHERE id = $1', [job.tenant_id, jobId]);
      });
      await forgetTenants(db);
      countTrainingJob('llm', 'completed');
      await this.events.emit(job.account_id, job.tenant_id, 'training.completed', {
        job_id: jobId,
        status: 'completed',
        feedback_samples: job.pairs.length,
        metrics: { held_out_loss_before: result.heldOutLossBefore, held_out_loss_after: result.heldOutLossAfter },
      });
    } catch (err) {
      if (err instanceof Interrupted || this.stopping) {
        await db.query("UPDATE llm_training_jobs SET status = 'queued', progress = 0, current_epoch = 0, updated_at = now() WHERE id = $1", [jobId]);
        throw err instanceof Interrupted ? err : new Interrupted('the process is stopping');
      }
      await this.fail(job, (err as Error).message);
    } finally {
      rmSync(out, { force: true });
    }
  }

  private async fail(job: JobRow, message: string): Promise<void> {
    await this.ctx.db.query("UPDATE llm_training_jobs SET status = 'failed', error = $2, finished_at = now(), updated_at = now() WHERE id = $1", [job.id, message]);
    countTrainingJob('llm', 'failed');
    await this.events.emit(job.account_id, job.tenant_id, 'training.failed', { job_id: job.id, status: 'failed', error: { code: 'TRAINING_FAILED', message } });
  }

  private train(job: JobRow, out: string): Promise<{ heldOutLossBefore: number; heldOutLossAfter: number }> {
    const p = job.params;
    const worker = new Worker(new URL('./thread-bootstrap.mjs', import.meta.url), {
      workerData: { base: BUILTIN_MODEL_PATH, out, pairs: job.pairs, rank: p.lora_r, alpha: p.lora_alpha, epochs: p.epochs, learningRate: p.learning_rate, batchSize: p.batch_size },
    });
    this.running.set(job.id, worker);
    let epochLoss = 0;
    let epochSteps = 0;
    let writes = Promise.resolve();
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
      writes = writes.then(async () => {
        await this.ctx.db.query(
          `UPDATE llm_training_jobs SET progress = $2, current_epoch = $3, loss = $4, learning_rate = $5, updated_at = now() WHERE id = $1 AND status = 'running'`,
          [job.id, m.step / m.steps, epoch, loss, m.learningRate],
        );
      });
    };
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        this.running.delete(job.id);
        void writes.then(fn, fn);
      };
      worker.on('message', (m: { type: string } & Record<string, unknown>) => {
        if (m.type === 'progress') record(m as unknown as LoraProgress);
        else if (m.type === 'done') settle(() => resolve(m as unknown as { heldOutLossBefore: number; heldOutLossAfter: number }));
        else if (m.type === 'error') settle(() => reject(new Error(String(m.message))));
      });
      worker.on('error', (err) => settle(() => reject(err)));
      worker.on('exit', (code) => settle(() => reject(this.stopping ? new Interrupted('the process is stopping') : new Error(`the training thread exited with code ${code}`))));
    }).finally(() => void worker.terminate()) as Promise<{ heldOutLossBefore: number; heldOutLossAfter: number }>;
  }
}
