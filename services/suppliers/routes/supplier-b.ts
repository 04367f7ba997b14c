/** Supplier B (runtime with primitives): backends, estimate in quantum seconds, execute, status and cancel. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { who } from '../auth.ts';
import { supplierError } from '../errors.ts';
import { cancelSupplierJob, checkShots, findTarget, priced, refresh, submitSupplierJob, type Deps } from '../jobs.ts';
import { costModelOf, RATES } from '../pricing.ts';
import { findJob } from '../store.ts';
import { statusWord, supplierBView } from '../views.ts';
import { BackendsB, errors, EstimateB, ExecuteB, security, StatusB } from './responses.ts';
import { JobIdParam, Qasm, Shots } from './schemas.ts';

const S = 'supplier_b_quantum' as const;
const Body = Type.Object({ qasm: Qasm, backend: Type.String({ minLength: 1, maxLength: 200 }), shots: Shots });
const tags = ['Supplier B'];

export function registerSupplierB(app: ServiceApp, deps: Deps): void {
  app.get('/api/v1/supplier_b_quantum/backends', { preValidation: deps.auth, schema: { tags, summary: 'Backends', security, response: { 200: BackendsB, ...errors } } }, async () => ({
    backends: (await deps.adapters[S].targets()).map((t) => ({
      name: t.id,
      num_qubits: t.numQubits,
      type: t.type,
      status: t.status,
      cost: costModelOf(t) === 'free' ? { model: 'free', usd_per_quantum_second: 0 } : { model: 'per_second', usd_per_quantum_second: RATES.supplier_b_quantum.usdPerQuantumSecond },
      processor: t.processor,
    })),
  }));

  app.post('/api/v1/supplier_b_quantum/estimate', { preValidation: deps.auth, schema: { tags, summary: 'Cost of a run in quantum seconds', security, body: Body, response: { 200: EstimateB, ...errors } } }, async (req) => {
    const b = req.body;
    const t = await findTarget(deps, S, b.backend, 'backend');
    checkShots(t, b.shots);
    const { cost } = priced(t, b.qasm, b.shots);
    // estimated_cost_qsh: US dollars, quantum_seconds x rate: the device's list price plus the 1 s set-up fee (cost_breakdown names both).
    return {
      backend: t.id, estimated_cost_qsh: cost.usd, quantum_seconds: cost.quantumSeconds ?? 0, shots: b.shots, currency: 'USD',
      list_price_usd: cost.listMicros / 1e6, fees_usd: (cost.micros - cost.listMicros) / 1e6, cost_breakdown: cost.breakdown,
    };
  });

  app.post('/api/v1/supplier_b_quantum/execute', { preValidation: deps.auth, schema: { tags, summary: 'Run a circuit with the sampler primitive', security, body: Body, response: { 201: ExecuteB, ...errors } } }, async (req, reply) => {
    const b = req.body;
    const t = await findTarget(deps, S, b.backend, 'backend');
    const { job } = await submitSupplierJob(deps, { who: who(req), target: t, qasm: b.qasm, shots: b.shots });
    reply.code(201);
    return { job_id: job.publicId, status: statusWord(S, job.status), backend: t.id };
  });

  app.get('/api/v1/supplier_b_quantum/status/:job_id', { preValidation: deps.auth, schema: { tags, summary: 'Job status and result', security, params: JobIdParam, response: { 200: StatusB, ...errors } } }, async (req) => {
    const job = await findJob(deps.ctx.db, who(req).accountId, S, req.params.job_id);
    if (!job) throw supplierError('JOB_NOT_FOUND', `Job ${req.params.job_id} not found`, { supplier: S });
    return supplierBView(await refresh(deps, job));
  });

  app.delete('/api/v1/supplier_b_quantum/jobs/:job_id', { preValidation: deps.auth, schema: { tags, summary: 'Cancel a queued job', security, params: JobIdParam, response: { 200: StatusB, ...errors } } }, async (req) => {
    const job = await findJob(deps.ctx.db, who(req).accountId, S, req.params.job_id);
    if (!job) throw supplierError('JOB_NOT_FOUND', `Job ${req.params.job_id} not found`, { supplier: S });
    return supplierBView(await cancelSupplierJob(deps, job));
  });
}
