/**
 * The legacy routes of interface 2 (still supported): POST /execute runs a circuit on the
 * HPC GPU supplier (the project's statevector simulator) under a caller-chosen `job_id`, and
 * GET /status/{job_id} reads it back.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { deviceQueueStats } from '../../../platform/quantum-jobs/index.ts';
import { who } from '../auth.ts';
import { supplierError } from '../errors.ts';
import { findTarget, refresh, submitSupplierJob, type Deps } from '../jobs.ts';
import { findJob } from '../store.ts';
import { legacyView, statusWord } from '../views.ts';
import { errors, ExecuteLegacy, security, StatusLegacy } from './responses.ts';
import { JobIdParam, Qasm, Shots } from './schemas.ts';

const S = 'hpc_gpu' as const;
const Body = Type.Object({
  qasm: Qasm,
  shots: Shots,
  job_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$', description: 'Your own id for the job (unique within your account)' })),
});
const tags = ['Legacy (HPC GPU)'];

export function registerLegacy(app: ServiceApp, deps: Deps): void {
  app.post('/execute', { preValidation: deps.auth, schema: { tags, summary: 'Run a circuit on the HPC GPU simulator', security, body: Body, response: { 201: ExecuteLegacy, ...errors } } }, async (req, reply) => {
    const b = req.body;
    const t = await findTarget(deps, S, 'statevector_simulator', 'backend');
    const { job } = await submitSupplierJob(deps, { who: who(req), target: t, qasm: b.qasm, shots: b.shots, publicId: b.job_id });
    const q = (await deviceQueueStats(deps.ctx, [t.backend])).get(t.backend);
    reply.code(201);
    return {
      job_id: job.publicId,
      status: statusWord(S, job.status),
      message: `Job accepted: ${job.numQubits} qubits, ${job.shots} shots on the statevector simulator`,
      // Seconds until it is expected to finish: the measured queue wait plus one more run.
      estimated_time_seconds: Math.max(1, Math.ceil(q?.estimated_wait ?? 0) + 1),
      backend: S,
    };
  });

  app.get('/status/:job_id', { preValidation: deps.auth, schema: { tags, summary: 'Status and result of a legacy job', security, params: JobIdParam, response: { 200: StatusLegacy, ...errors } } }, async (req) => {
    const job = await findJob(deps.ctx.db, who(req).accountId, S, req.params.job_id);
    if (!job) throw supplierError('JOB_NOT_FOUND', `Job ${req.params.job_id} not found`, { supplier: S });
    return legacyView(await refresh(deps, job));
  });
}
