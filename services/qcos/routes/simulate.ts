/**
 * POST /v2/simulate — runs the circuit as given on one of the three simulators, ideal or with
 * the calibrated noise of any catalog device, and answers with the counts (and the
 * statevector, interleaved re/im, when the state is pure: statevector method, no noise).
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { getJobResult, waitForJob, type TaskResult } from '../../../platform/quantum-jobs/index.ts';
import { who } from '../auth.ts';
import { QcosError, qcosError } from '../errors.ts';
import { MAX_JOB_MINUTES, qcosPlan } from '../plans.ts';
import { CircuitIn, TAG_TOOLS, security } from '../schemas.ts';
import { checkBackend, checkShots, insert, prepare } from '../submit.ts';
import { circuitText } from '../views.ts';
import type { QcosDeps } from './context.ts';

/** Statevectors are returned up to this many qubits (2^16 amplitudes, about 2.5 MB of JSON). */
export const MAX_STATEVECTOR_QUBITS = 16;

const Body = Type.Object(
  {
    circuit: CircuitIn,
    shots: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 1000 }),
    noise_model: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A catalog device whose calibrated noise to emulate' })),
    method: Type.Union([Type.Literal('statevector'), Type.Literal('density_matrix'), Type.Literal('mps')], { default: 'statevector' }),
    seed_simulator: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295 })),
    precision: Type.Union([Type.Literal('double'), Type.Literal('single')], {
      default: 'double',
      description: 'Amplitude precision of the statevector method: single (complex64, as qsim) halves memory and its traffic; amplitudes agree with double to about 1e-7',
    }),
  },
  { additionalProperties: false },
);

const Out = Type.Object({
  simulation_id: Type.String(),
  counts: Type.Record(Type.String(), Type.Integer()),
  statevector: Type.Union([Type.Array(Type.Number()), Type.Null()], {
    description: `Interleaved [re(0), im(0), re(1), im(1), ...], qubit 0 least significant; null with noise, for density_matrix and mps, and above ${MAX_STATEVECTOR_QUBITS} qubits`,
  }),
  execution_time_ms: Type.Number(),
  simulation_minutes: Type.Number(),
  method: Type.String(),
  noise_model: Type.Union([Type.String(), Type.Null()]),
  seed_simulator: Type.Integer(),
  precision: Type.String({ description: 'the precision asked for: double, or single (statevector method only)' }),
});

export function registerSimulate(app: ServiceApp, deps: QcosDeps): void {
  app.post(
    '/v2/simulate',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_TOOLS],
        summary: 'Simulate a circuit (statevector, density matrix or MPS), optionally with a device noise model',
        description: 'Counts against the plan simulation minutes (the simulator time measured).',
        security,
        body: Body,
        response: { 200: Out, '4xx': QcosError, '5xx': QcosError },
      },
    },
    async (req) => {
      const id = who(req);
      const plan = qcosPlan(id.plan);
      const b = req.body;
      const simulator = checkBackend(`${b.method}_simulator`);
      let noise: string | undefined;
      if (b.noise_model !== undefined) {
        const device = checkBackend(b.noise_model, 'noise_model');
        if (!device.calibration) throw qcosError('INVALID_BACKEND', `Backend '${device.id}' is an ideal simulator and has no noise model`, { noise_model: device.id });
        if (b.method === 'mps') throw qcosError('INVALID_REQUEST', 'The mps method has no noise model; use statevector (trajectories) or density_matrix');
        noise = device.id;
      }
      if (b.precision === 'single' && b.method !== 'statevector') throw qcosError('INVALID_REQUEST', `precision single is for the statevector method; ${b.method} runs in double`, { method: b.method });
      checkShots(plan, b.shots, simulator.max_shots);
      const qasm = circuitText(b.circuit);
      const probe = await prepare(deps.ctx, { qasm, backend: simulator.id, shots: b.shots, optimizationLevel: null, execute: false }, plan);
      const wantState = b.method === 'statevector' && !noise && probe.num_qubits <= MAX_STATEVECTOR_QUBITS;
      const task = {
        qasm,
        backend: simulator.id,
        shots: b.shots,
        optimizationLevel: null,
        execute: true,
        method: b.method,
        precision: b.precision,
        noise,
        seed: b.seed_simulator,
        statevector: wantState,
      };
      const job = await insert(deps.ctx, id, { kind: 'simulate', backend: simulator.id, minutes: 'simulation', input: { task, optimization_level: 0 } });
      const scope = { service: 'qcos', accountId: id.accountId };
      const done = await waitForJob(deps.ctx, scope, job.id, MAX_JOB_MINUTES * 60_000 + 30_000);
      if (done?.status !== 'completed') {
        const e = done?.error;
        throw qcosError(e?.code === 'EXECUTION_ERROR' ? 'INVALID_CIRCUIT' : 'BACKEND_ERROR', e?.message ?? `simulation ${job.id} did not finish`, { simulation_id: job.id, status: done?.status });
      }
      const r = (await getJobResult<TaskResult>(deps.ctx, scope, job.id))!;
      return {
        simulation_id: job.id,
        counts: r.counts,
        statevector: r.statevector ?? null,
        execution_time_ms: r.execution_time_ms,
        simulation_minutes: Math.round(done.chargedMinutes * 1e9) / 1e9,
        method: r.method ?? b.method,
        noise_model: noise ?? null,
        seed_simulator: r.seed ?? 0,
        precision: b.precision,
      };
    },
  );
}
