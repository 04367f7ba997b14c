/** Request and response schemas shared by the interface 1 routes (declared once for the docs). */
import { Type } from 'typebox';

export const TAG_JOBS = 'Jobs';
export const TAG_BACKENDS = 'Backends';
export const TAG_TOOLS = 'Optimize and simulate';
export const TAG_ACCOUNT = 'Account';
export const security = [{ apiKey: [] }];

export const CircuitIn = Type.Object(
  {
    qasm: Type.Optional(Type.String({ maxLength: 512 * 1024, description: 'OpenQASM 2 or 3 text' })),
    sdk_json: Type.Optional(Type.String({ maxLength: 512 * 1024, description: 'SDK export: JSON {num_qubits, num_clbits, instructions: [{name, qubits, clbits?, params?}]}' })),
    format: Type.Union([Type.Literal('qasm2'), Type.Literal('qasm3'), Type.Literal('sdk')]),
  },
  { $id: 'Circuit', additionalProperties: false },
);

const Int = Type.Integer();
const Num = Type.Number();
const NullableDate = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const OptimizationSummary = Type.Object(
  {
    original_depth: Int,
    optimized_depth: Int,
    reduction_percent: Type.Number({ description: 'Depth reduction in percent (the spec name of the submit answer).' }),
    depth_reduction_percent: Type.Number({ description: 'The same figure as reduction_percent, named as in /v2/optimize metrics.' }),
    original_gates: Int,
    optimized_gates: Int,
    gate_reduction_percent: Num,
    optimization_level: Int,
  },
  { description: 'The optimizer run for the backend: depth and gates before and after.' },
);

export const JobOut = Type.Object(
  {
    job_id: Type.String(),
    status: Type.String({ enum: ['queued', 'validating', 'optimizing', 'running', 'completed', 'failed', 'cancelled'] }),
    backend: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    started_at: NullableDate,
    completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the job ended (completed, failed or cancelled).' }),
    execution_time_ms: Type.Union([Num, Type.Null()]),
    quantum_minutes: Type.Number({ description: 'Emulated device minutes charged (0 on simulators).' }),
    simulation_minutes: Type.Number({ description: 'Simulator minutes charged (0 on emulated devices).' }),
    shots: Int,
    queue_position: Type.Union([Int, Type.Null()], {
      description: '1-based place in the backend queue while queued (null once it left the queue); in the submit answer, its place when it was queued: the queue length just after the insert.',
    }),
    error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
    estimated_cost_usd: Type.Number({
      description: 'US dollars: the device list price of the run (catalog price list, the circuit as submitted; 0 on simulators), the same amount every quantum service prices the job at. Counted in the usage estimated_bill once the job completes.',
    }),
  },
  { $id: 'Job' },
);

export const SubmitOut = Type.Object(
  {
    ...JobOut.properties,
    estimated_wait: Type.Integer({ description: 'Seconds until the job is expected to start, from the backend queue.' }),
    optimization: OptimizationSummary,
  },
  { $id: 'SubmittedJob' },
);

export const QualityOut = Type.Object({
  success_probability: Num,
  fidelity_estimate: Num,
  method: Type.String({ description: 'exact_distributions, measured_counts, calibration_product or ideal_simulator' }),
  total_variation_distance: Type.Union([Num, Type.Null()]),
});

export const ResultsOut = Type.Object(
  {
    job_id: Type.String(),
    counts: Type.Record(Type.String(), Int),
    memory: Type.Optional(Type.Array(Type.String())),
    metadata: Type.Object({
      backend: Type.String(),
      shots: Int,
      execution_time_ms: Num,
      optimization_level: Int,
      seed_simulator: Type.Union([Int, Type.Null()]),
      method: Type.String(),
      executed_qubits: Int,
    }),
    quality_metrics: QualityOut,
  },
  { $id: 'JobResults' },
);
