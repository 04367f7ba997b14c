/** POST /v2/circuits — submit a circuit: validated and optimized for the backend at once, then queued for it. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { listPrice } from '../../../engines/quantum/pricing.ts';
import { queueAtSubmission } from '../../../platform/quantum-jobs/index.ts';
import { who } from '../auth.ts';
import { QcosError } from '../errors.ts';
import { qcosPlan } from '../plans.ts';
import { CircuitIn, SubmitOut, TAG_JOBS, security } from '../schemas.ts';
import { checkBackend, checkShots, insert, prepare } from '../submit.ts';
import { circuitText, jobView, optimizationSummary } from '../views.ts';
import type { QcosDeps } from './context.ts';

const Body = Type.Object(
  {
    circuit: CircuitIn,
    backend: Type.String({ minLength: 1, maxLength: 100 }),
    shots: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1000 }),
    optimization_level: Type.Integer({ minimum: 0, maximum: 3, default: 2 }),
    options: Type.Optional(
      Type.Object(
        {
          memory: Type.Optional(Type.Boolean({ description: 'Return every shot as a bit string' })),
          seed_simulator: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295, description: 'Same seed, same counts, bit for bit' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export function registerCircuits(app: ServiceApp, deps: QcosDeps): void {
  app.post(
    '/v2/circuits',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_JOBS],
        summary: 'Submit a circuit to a backend',
        description:
          'Validates the circuit, runs the optimizer at `optimization_level` for the backend (its basis gates and coupling map) and ' +
          'queues the job. Emulated devices run their queue one job at a time in submission order; simulators run as soon as a worker is free. ' +
          'Refused submissions (invalid circuit, unknown backend, plan limits, quotas) change nothing and charge nothing.',
        security,
        body: Body,
        response: { 201: SubmitOut, '4xx': QcosError, '5xx': QcosError },
      },
    },
    async (req, reply) => {
      const id = who(req);
      const plan = qcosPlan(id.plan);
      const body = req.body;
      const backend = checkBackend(body.backend);
      checkShots(plan, body.shots, backend.max_shots);
      const level = body.optimization_level as 0 | 1 | 2 | 3;
      const task = {
        qasm: circuitText(body.circuit),
        backend: backend.id,
        shots: body.shots,
        optimizationLevel: level,
        execute: true,
        seed: body.options?.seed_simulator,
        memory: body.options?.memory ?? false,
        qualityMetrics: true,
      };
      const prepared = await prepare(deps.ctx, task, plan);
      const job = await insert(deps.ctx, id, {
        kind: 'run',
        backend: backend.id,
        minutes: backend.type === 'hardware' ? 'quantum' : 'simulation',
        // The list price is fixed at submission from the circuit as submitted (engines/quantum/pricing.ts).
        input: { task: { ...task, prepared: prepared.optimization, preparedCounts: { num_qubits: prepared.num_qubits, num_clbits: prepared.num_clbits } }, optimization_level: level, list_price_micros: listPrice(backend, task.qasm, body.shots).micros },
      });
      // The job's place and wait in its queue: one statement, none when a worker took it at its insert.
      const queue = await queueAtSubmission(deps.ctx, job);
      reply.code(201);
      return {
        ...jobView(job, queue.place),
        estimated_wait: queue.estimatedWaitSeconds,
        optimization: optimizationSummary(prepared.optimization!, level),
      };
    },
  );
}
