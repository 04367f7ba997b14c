/** GET /api/v1/jobs/history: the account's jobs of every supplier, newest first, filtered by status, provider and period. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { who } from '../auth.ts';
import type { SupplierId } from '../config.ts';
import type { Deps } from '../jobs.ts';
import { listSupplierJobs, type JobState, type SupplierJob } from '../store.ts';
import { statusWord } from '../views.ts';
import { Period } from './schemas.ts';
import { security } from './responses.ts';

/** The history's words: `processing` is a job that left the queue and has not ended. */
export const HISTORY_STATES: Record<string, JobState[]> = {
  queued: ['queued'],
  processing: ['running'],
  completed: ['completed'],
  failed: ['failed'],
  cancelled: ['cancelled'],
};

export function historyWord(s: JobState): string {
  return s === 'running' ? 'processing' : s;
}

export function historyItem(j: SupplierJob) {
  return {
    job_id: j.publicId,
    provider: j.supplier,
    backend: j.target,
    status: historyWord(j.status),
    supplier_status: statusWord(j.supplier, j.status),
    shots: j.shots,
    num_qubits: j.numQubits,
    cost_model: j.costModel,
    estimated_cost_usd: j.estimatedMicros / 1e6,
    cost_usd: j.chargedMicros === null ? null : j.chargedMicros / 1e6,
    batch_id: j.batchId,
    created_at: j.createdAt.toISOString(),
    completed_at: j.completedAt?.toISOString() ?? null,
  };
}

export function registerHistory(app: ServiceApp, deps: Deps): void {
  app.get(
    '/api/v1/jobs/history',
    {
      preValidation: deps.auth,
      schema: {
        security, tags: ['Jobs'],
        summary: 'Job history with filters',
        querystring: Type.Object({
          status: Type.Optional(Type.Union(Object.keys(HISTORY_STATES).map((s) => Type.Literal(s)))),
          provider: Type.Optional(Type.Union(['supplier_b_quantum', 'supplier_a_quantum', 'supplier_c', 'hpc_gpu'].map((s) => Type.Literal(s)))),
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
          offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
          ...Period,
        }),
      },
    },
    async (req) => {
      const q = req.query;
      const { jobs, total } = await listSupplierJobs(deps.ctx.db, {
        accountId: who(req).accountId,
        states: q.status ? HISTORY_STATES[q.status] : undefined,
        supplier: q.provider as SupplierId | undefined,
        from: q.from ? new Date(q.from) : undefined,
        to: q.to ? new Date(q.to) : undefined,
        limit: q.limit,
        offset: q.offset,
      });
      return { jobs: jobs.map(historyItem), total, limit: q.limit, offset: q.offset };
    },
  );
}
