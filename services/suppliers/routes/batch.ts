/**
 * Batch simulations: POST /api/v1/batch submits up to 100 circuits to the HPC GPU simulator
 * as one batch (the spec shows only the status route; creating one is decided here), and
 * GET /api/v1/batch/{batch_id}/status follows it (`processing` until every job ended, then
 * `completed`, and a `batch.completed` webhook).
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { newId } from '../../../platform/identity/ids.ts';
import { returnJobSlot, takeJobSlot, who } from '../auth.ts';
import { supplierError } from '../errors.ts';
import { checkLimits, checkShots, findTarget, priced, refresh, submitSupplierJob, type Deps } from '../jobs.ts';
import { supplierPlan } from '../../../platform/quantum-jobs/plans.ts';
import { findBatch, insertBatch, listSupplierJobs } from '../store.ts';
import { historyWord } from './history.ts';
import { Qasm, Shots } from './schemas.ts';
import { security } from './responses.ts';

const MAX_CIRCUITS = 100;

export function registerBatch(app: ServiceApp, deps: Deps): void {
  app.post(
    '/api/v1/batch',
    {
      preValidation: deps.auth,
      schema: {
        security, tags: ['Jobs'],
        summary: 'Submit a batch simulation',
        body: Type.Object({ circuits: Type.Array(Type.Object({ qasm: Qasm, shots: Shots }), { minItems: 1, maxItems: MAX_CIRCUITS }) }),
      },
    },
    async (req, reply) => {
      const id = who(req);
      const plan = supplierPlan(id.plan);
      const target = await findTarget(deps, 'hpc_gpu', 'statevector_simulator', 'backend');
      // Every circuit is checked before any job is written: a bad one refuses the whole batch.
      for (const [i, c] of req.body.circuits.entries()) {
        try {
          checkShots(target, c.shots);
          checkLimits(id, target, priced(target, c.qasm, c.shots).info, c.shots);
        } catch (err) {
          if (err instanceof Error) err.message = `circuits[${i}]: ${err.message}`;
          throw err;
        }
      }
      const n = req.body.circuits.length;
      await takeJobSlot(deps.ctx, id, plan, null, n);
      const batchId = newId('batch');
      try {
        await insertBatch(deps.ctx.db, { id: batchId, accountId: id.accountId, supplier: 'hpc_gpu', target: target.id, jobCount: n }, deps.ctx.now());
        const jobIds: string[] = [];
        for (const c of req.body.circuits) {
          const { job } = await submitSupplierJob(deps, { who: id, target, qasm: c.qasm, shots: c.shots, batchId, slotTaken: true });
          jobIds.push(job.publicId);
        }
        reply.code(201);
        return { batch_id: batchId, job_ids: jobIds, status: 'processing', total: n };
      } catch (err) {
        await returnJobSlot(deps.ctx, id, plan, n);
        throw err;
      }
    },
  );

  app.get(
    '/api/v1/batch/:batch_id/status',
    { preValidation: deps.auth, schema: { security, tags: ['Jobs'], summary: 'Status of a batch simulation', params: Type.Object({ batch_id: Type.String({ minLength: 1, maxLength: 128 }) }) } },
    async (req) => {
      const accountId = who(req).accountId;
      const batch = await findBatch(deps.ctx.db, accountId, req.params.batch_id);
      if (!batch) throw supplierError('NOT_FOUND', 'Batch not found', { batch_id: req.params.batch_id });
      let { jobs } = await listSupplierJobs(deps.ctx.db, { accountId, batchId: batch.id, limit: MAX_CIRCUITS, offset: 0 });
      jobs = await Promise.all(jobs.map((j) => refresh(deps, j)));
      const tally = (w: string) => jobs.filter((j) => historyWord(j.status) === w).length;
      const ended = jobs.length === batch.jobCount && jobs.every((j) => ['completed', 'failed', 'cancelled'].includes(j.status));
      const fresh = ended ? await findBatch(deps.ctx.db, accountId, batch.id) : batch;
      return {
        batch_id: batch.id,
        status: ended ? 'completed' : 'processing',
        total: batch.jobCount,
        queued: tally('queued'),
        processing: tally('processing'),
        completed: tally('completed'),
        failed: tally('failed'),
        cancelled: tally('cancelled'),
        jobs: jobs.reverse().map((j) => ({ job_id: j.publicId, status: historyWord(j.status), result: j.result ? { counts: j.result.counts, shots: j.result.shots } : null })),
        created_at: batch.createdAt.toISOString(),
        completed_at: fresh?.completedAt?.toISOString() ?? null,
      };
    },
  );
}
