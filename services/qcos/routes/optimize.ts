/** POST /v2/optimize — the optimizer for a target backend; one optimization credit per call. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { getJobResult, waitForJob, type TaskResult } from '../../../platform/quantum-jobs/index.ts';
import { who } from '../auth.ts';
import { QcosError, qcosError } from '../errors.ts';
import { qcosPlan } from '../plans.ts';
import { CircuitIn, TAG_TOOLS, security } from '../schemas.ts';
import { checkBackend, insert, prepare } from '../submit.ts';
import { circuitText } from '../views.ts';
import type { QcosDeps } from './context.ts';

const Body = Type.Object(
  {
    circuit: CircuitIn,
    target_backend: Type.String({ minLength: 1, maxLength: 100 }),
    optimization_level: Type.Integer({ minimum: 0, maximum: 3, default: 2 }),
    preserve_layout: Type.Boolean({ default: false, description: 'Keep logical qubit i on physical qubit i at the start and the end' }),
  },
  { additionalProperties: false },
);

const Out = Type.Object({
  optimization_id: Type.String(),
  optimized_circuit: Type.String(),
  metrics: Type.Object({
    original_depth: Type.Integer(),
    optimized_depth: Type.Integer(),
    original_gates: Type.Integer(),
    optimized_gates: Type.Integer(),
    depth_reduction_percent: Type.Number({ description: 'Depth reduction in percent (the spec name of this answer).' }),
    reduction_percent: Type.Number({ description: 'The same figure as depth_reduction_percent, named as in the submit answer.' }),
    gate_reduction_percent: Type.Number(),
  }),
  qubit_mapping: Type.Record(Type.String(), Type.Integer(), { description: 'logical qubit -> physical qubit at the end' }),
  initial_layout: Type.Record(Type.String(), Type.Integer(), { description: 'logical qubit -> physical qubit at the start' }),
  credits_used: Type.Integer(),
});

export function registerOptimize(app: ServiceApp, deps: QcosDeps): void {
  app.post(
    '/v2/optimize',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_TOOLS],
        summary: 'Optimize a circuit for a backend',
        description: 'Translates to the backend basis, maps onto its coupling map (SABRE) and rewrites at the level asked. Costs one optimization credit.',
        security,
        body: Body,
        response: { 200: Out, '4xx': QcosError, '5xx': QcosError },
      },
    },
    async (req) => {
      const id = who(req);
      const plan = qcosPlan(id.plan);
      const backend = checkBackend(req.body.target_backend, 'target_backend');
      const level = req.body.optimization_level as 0 | 1 | 2 | 3;
      const task = {
        qasm: circuitText(req.body.circuit),
        backend: backend.id,
        shots: 0,
        optimizationLevel: level,
        preserveLayout: req.body.preserve_layout,
        execute: false,
      };
      // Validation (and the plan's caps) before anything is written or charged.
      const prepared = await prepare(deps.ctx, { ...task, optimizationLevel: null }, plan);
      void prepared;
      const job = await insert(deps.ctx, id, { kind: 'optimize', backend: backend.id, minutes: null, credits: 1, input: { task, optimization_level: level } });
      const done = await waitForJob(deps.ctx, { service: 'qcos', accountId: id.accountId }, job.id, 120_000);
      if (done?.status !== 'completed') throw qcosError('BACKEND_ERROR', done?.error?.message ?? `optimization ${job.id} did not finish`, { job_id: job.id });
      const r = (await getJobResult<TaskResult>(deps.ctx, { service: 'qcos', accountId: id.accountId }, job.id))!;
      const o = r.optimization!;
      return {
        optimization_id: job.id,
        optimized_circuit: o.optimized_circuit,
        metrics: {
          original_depth: o.original_depth,
          optimized_depth: o.optimized_depth,
          original_gates: o.original_gates,
          optimized_gates: o.optimized_gates,
          depth_reduction_percent: o.depth_reduction_percent,
          reduction_percent: o.depth_reduction_percent,
          gate_reduction_percent: o.gate_reduction_percent,
        },
        qubit_mapping: o.qubit_mapping,
        initial_layout: o.initial_layout,
        credits_used: done.credits,
      };
    },
  );
}
