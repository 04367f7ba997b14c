/**
 * LoRA training from a tenant's feedback (licensed: `X-License-Key` with `lora_training`).
 * POST builds the training set (training/dataset.ts), fixes it on the job and queues the job
 * (200, status `queued`); a worker thread trains it; GET reads progress per epoch with the
 * real loss and learning rate. Statuses: queued, running, completed, failed. A failed job
 * carries `error: {code: TRAINING_FAILED, message}`.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { newId } from '../../../platform/identity/ids.ts';
import { BUILTIN_MODEL_ID } from '../../../engines/language/config.ts';
import { pathTenant } from '../caller.ts';
import { commonErrors, qError } from '../errors.ts';
import { trainingPairs } from '../training/dataset.ts';
import { SECONDS_PER_STEP } from '../training/runner.ts';
import { begin, beginForTenant, bearerSecurity, requireLicense, TAG, type QDeps } from './context.ts';
import { TenantIdParams, extend } from './schemas.ts';

interface JobRow {
  id: string;
  tenant_id: string;
  status: string;
  model: string;
  params: Record<string, number>;
  feedback_samples: number;
  progress: number;
  current_epoch: number;
  total_epochs: number;
  loss: number | null;
  learning_rate: number | null;
  held_out_loss_before: number | null;
  held_out_loss_after: number | null;
  attempts: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const COLUMNS = `id, tenant_id, status, model, params, feedback_samples, progress, current_epoch, total_epochs, loss, learning_rate,
  held_out_loss_before, held_out_loss_after, attempts, error, created_at, started_at, finished_at`;

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function estimateMinutes(samples: number, p: { epochs: number; batch_size: number }): number {
  const steps = Math.ceil(samples / p.batch_size) * p.epochs;
  return Math.round(((steps * SECONDS_PER_STEP + 10) / 60) * 10) / 10;
}

function jobView(j: JobRow) {
  return {
    job_id: j.id,
    tenant_id: j.tenant_id,
    status: j.status,
    model: j.model,
    params: j.params,
    feedback_samples: j.feedback_samples,
    estimated_duration_minutes: estimateMinutes(j.feedback_samples, j.params as { epochs: number; batch_size: number }),
    progress: j.progress,
    current_epoch: j.current_epoch,
    total_epochs: j.total_epochs,
    metrics: { loss: j.loss, learning_rate: j.learning_rate, held_out_loss_before: j.held_out_loss_before, held_out_loss_after: j.held_out_loss_after },
    attempts: j.attempts,
    error: j.error ? { code: 'TRAINING_FAILED', message: j.error } : null,
    created_at: new Date(j.created_at).toISOString(),
    started_at: iso(j.started_at),
    finished_at: iso(j.finished_at),
  };
}

const Num = Type.Union([Type.Number(), Type.Null()]);
const Job = Type.Object({
  job_id: Type.String(),
  tenant_id: Type.String(),
  status: Type.String({ description: 'queued, running, completed or failed' }),
  model: Type.String(),
  params: Type.Record(Type.String(), Type.Number()),
  feedback_samples: Type.Integer(),
  estimated_duration_minutes: Type.Number(),
  progress: Type.Number({ description: '0 to 1' }),
  current_epoch: Type.Integer({ description: 'Epochs completed' }),
  total_epochs: Type.Integer(),
  metrics: Type.Object({ loss: Num, learning_rate: Num, held_out_loss_before: Num, held_out_loss_after: Num }, { description: 'loss: mean training loss of the last completed epoch (the last step’s while the first runs)' }),
  attempts: Type.Integer(),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  created_at: Type.String(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  finished_at: Type.Union([Type.String(), Type.Null()]),
});

export function registerTraining(app: ServiceApp, deps: QDeps): void {
  const db = deps.ctx.db;

  app.post(
    '/v1/tenants/:tenant_id/train/lora',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.training],
        summary: 'Start LoRA training of the built-in model on the tenant’s feedback (licensed: lora_training)',
        security: bearerSecurity,
        params: TenantIdParams,
        body: Type.Object({
          min_feedback_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, description: 'Default: the tenant’s min_feedback_count' })),
          lora_r: Type.Integer({ minimum: 1, maximum: 64, default: 8 }),
          lora_alpha: Type.Number({ exclusiveMinimum: 0, maximum: 1024, default: 16 }),
          epochs: Type.Integer({ minimum: 1, maximum: 100, default: 3 }),
          learning_rate: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.01 }),
          batch_size: Type.Integer({ minimum: 1, maximum: 64, default: 4 }),
        }),
        response: { 200: Job, ...commonErrors },
      },
    },
    async (req) => {
      const { caller, tenant: t } = await beginForTenant(deps, req, req.params.tenant_id);
      await requireLicense(deps, req, caller, 'lora_training');
      if (t.settings.default_model !== BUILTIN_MODEL_ID) {
        throw qError('INVALID_REQUEST', `LoRA training runs on the built-in model ${BUILTIN_MODEL_ID}; the tenant's default_model is ${t.settings.default_model}`);
      }
      const { min_feedback_count, ...params } = req.body;
      const min = min_feedback_count ?? t.settings.min_feedback_count;
      const pairs = await trainingPairs(db, t.id, t.settings.custom_system_prompt);
      if (pairs.length < min) throw qError('INVALID_REQUEST', `Not enough feedback to train: ${pairs.length} usable samples, ${min} needed`);
      const [row] = await db.query<JobRow>(
        `INSERT INTO llm_training_jobs (id, tenant_id, status, model, params, pairs, feedback_samples, total_epochs) VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
        [newId('ftjob'), t.id, BUILTIN_MODEL_ID, JSON.stringify(params), JSON.stringify(pairs), pairs.length, params.epochs],
      );
      try {
        await deps.trainer.enqueue(row!.id);
      } catch (err) {
        await db.query("UPDATE llm_training_jobs SET status = 'failed', error = $2 WHERE id = $1", [row!.id, `could not queue the job: ${(err as Error).message}`]);
        throw qError('TRAINING_FAILED', `The training job could not be queued: ${(err as Error).message}`);
      }
      return jobView(row!);
    },
  );

  app.get(
    '/v1/tenants/:tenant_id/train/:job_id',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.training],
        summary: 'A training job’s status and progress',
        security: bearerSecurity,
        params: extend(TenantIdParams, Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 100 }) })),
        response: { 200: Job, ...commonErrors },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      const t = await pathTenant(db, caller, req.params.tenant_id);
      const [row] = await db.query<JobRow>(`SELECT ${COLUMNS} FROM llm_training_jobs WHERE id = $1 AND tenant_id = $2`, [req.params.job_id, t.id]);
      if (!row) throw qError('NOT_FOUND', `Training job not found: ${req.params.job_id}`);
      return jobView(row);
    },
  );

  app.get(
    '/v1/tenants/:tenant_id/train',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.training],
        summary: 'A tenant’s training jobs, newest first',
        security: bearerSecurity,
        params: TenantIdParams,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }), offset: Type.Integer({ minimum: 0, default: 0 }) }),
        response: { 200: Type.Object({ data: Type.Array(Job), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...commonErrors },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      const t = await pathTenant(db, caller, req.params.tenant_id);
      const [count] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM llm_training_jobs WHERE tenant_id = $1', [t.id]);
      const rows = await db.query<JobRow>(`SELECT ${COLUMNS} FROM llm_training_jobs WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`, [t.id, req.query.limit, req.query.offset]);
      return { data: rows.map(jobView), total: count?.n ?? 0, limit: req.query.limit, offset: req.query.offset };
    },
  );
}
