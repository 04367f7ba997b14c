/** Supplier A (trapped-ion cloud): providers, estimate, execute, status and cancel under /api/v1/supplier_a_quantum. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { who } from '../auth.ts';
import { SUPPLIER_A_PROVIDER } from '../catalog.ts';
import { supplierError } from '../errors.ts';
import { cancelSupplierJob, checkShots, findTarget, priced, refresh, submitSupplierJob, type Deps } from '../jobs.ts';
import { findJob } from '../store.ts';
import { statusWord, supplierAView } from '../views.ts';
import { errors, EstimateA, ExecuteA, ProvidersA, security, StatusA } from './responses.ts';
import { JobIdParam, Qasm, Shots } from './schemas.ts';

const S = 'supplier_a_quantum' as const;
const Body = Type.Object({ qasm: Qasm, provider: Type.String({ minLength: 1, maxLength: 200 }), target: Type.String({ minLength: 1, maxLength: 200 }), shots: Shots });
const tags = ['Supplier A'];

export function registerSupplierA(app: ServiceApp, deps: Deps): void {
  const target = async (provider: string, id: string) => {
    const t = await findTarget(deps, S, id, 'target');
    if (t.provider !== provider) throw supplierError('INVALID_PARAMETERS', `Target '${id}' belongs to provider '${t.provider}', not '${provider}'`, { supplier: S });
    return t;
  };

  app.get('/api/v1/supplier_a_quantum/providers', { preValidation: deps.auth, schema: { tags, summary: 'Providers and their targets', security, response: { 200: ProvidersA, ...errors } } }, async () => {
    const targets = await deps.adapters[S].targets();
    const byProvider = new Map<string, typeof targets>();
    for (const t of targets) byProvider.set(t.provider, [...(byProvider.get(t.provider) ?? []), t]);
    const emulated = deps.adapters[S].mode === 'emulated';
    return {
      providers: [...byProvider.entries()].map(([id, ts]) => ({
        id,
        name: emulated ? SUPPLIER_A_PROVIDER.name : id,
        num_qubits: Math.max(...ts.map((t) => t.numQubits)),
        targets: ts.map((t) => t.id),
        description: emulated ? SUPPLIER_A_PROVIDER.description : `Workspace ${id}: ${ts.map((t) => t.name).join(', ')}`,
        cost_model: SUPPLIER_A_PROVIDER.cost_model,
        status: ts.some((t) => t.status === 'ONLINE') ? 'ONLINE' : 'OFFLINE',
      })),
    };
  });

  app.post('/api/v1/supplier_a_quantum/estimate', { preValidation: deps.auth, schema: { tags, summary: 'Cost of a run, per AQT', security, body: Body, response: { 200: EstimateA, ...errors } } }, async (req) => {
    const b = req.body;
    const t = await target(b.provider, b.target);
    checkShots(t, b.shots);
    const { cost } = priced(t, b.qasm, b.shots);
    return {
      provider: t.provider, target: t.id, estimated_cost_usd: cost.usd, currency: 'USD', list_price_usd: cost.listMicros / 1e6, fees_usd: (cost.micros - cost.listMicros) / 1e6,
      cost_breakdown: { aqt: cost.aqt ?? 0, rate_per_aqt: cost.costModel === 'free' ? 0 : (cost.breakdown.rate_per_aqt as number), ...cost.breakdown },
    };
  });

  app.post('/api/v1/supplier_a_quantum/execute', { preValidation: deps.auth, schema: { tags, summary: 'Run a circuit', security, body: Body, response: { 201: ExecuteA, ...errors } } }, async (req, reply) => {
    const b = req.body;
    const t = await target(b.provider, b.target);
    const { job, cost } = await submitSupplierJob(deps, { who: who(req), target: t, qasm: b.qasm, shots: b.shots });
    reply.code(201);
    return { job_id: job.publicId, status: statusWord(S, job.status), provider: t.provider, target: t.id, estimated_cost: cost.usd };
  });

  app.get('/api/v1/supplier_a_quantum/status/:job_id', { preValidation: deps.auth, schema: { tags, summary: 'Job status and result', security, params: JobIdParam, response: { 200: StatusA, ...errors } } }, async (req) => {
    const job = await findJob(deps.ctx.db, who(req).accountId, S, req.params.job_id);
    if (!job) throw supplierError('JOB_NOT_FOUND', `Job ${req.params.job_id} not found`, { supplier: S });
    return supplierAView(await refresh(deps, job));
  });

  app.delete('/api/v1/supplier_a_quantum/jobs/:job_id', { preValidation: deps.auth, schema: { tags, summary: 'Cancel a queued job', security, params: JobIdParam, response: { 200: StatusA, ...errors } } }, async (req) => {
    const job = await findJob(deps.ctx.db, who(req).accountId, S, req.params.job_id);
    if (!job) throw supplierError('JOB_NOT_FOUND', `Job ${req.params.job_id} not found`, { supplier: S });
    return supplierAView(await cancelSupplierJob(deps, job));
  });
}
