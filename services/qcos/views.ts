/** How jobs, results and circuits read on interface 1. */
import type { JobInput, Optimization, QuantumJob, TaskResult } from '../../platform/quantum-jobs/index.ts';
import { qcosError } from './errors.ts';

/** What qcos keeps in a job's input beside the engine task. */
export interface QcosInput extends JobInput {
  optimization_level: number;
  /** The run's list price in micro-dollars (engines/quantum/pricing.ts), fixed at submission; absent on optimize and simulate jobs. */
  list_price_micros?: number;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function jobView(job: QuantumJob<JobInput>, position: number | null = null) {
  return {
    job_id: job.id,
    status: job.status,
    backend: job.backend,
    created_at: job.createdAt.toISOString(),
    started_at: iso(job.startedAt),
    completed_at: iso(job.finishedAt),
    execution_time_ms: job.executionMs,
    quantum_minutes: job.minutesKind === 'quantum' ? r6(job.chargedMinutes) : 0,
    simulation_minutes: job.minutesKind === 'simulation' ? r6(job.chargedMinutes) : 0,
    shots: job.input.task.shots,
    queue_position: position,
    // The device's list price of the run (0 on simulators): the same amount every quantum service prices this job at.
    estimated_cost_usd: typeof job.input.list_price_micros === 'number' ? job.input.list_price_micros / 1e6 : 0,
    error: job.error ? { code: job.error.code, message: job.error.message } : null,
  };
}

export function optimizationSummary(o: Optimization, level: number) {
  return {
    original_depth: o.original_depth,
    optimized_depth: o.optimized_depth,
    reduction_percent: o.depth_reduction_percent,
    // The same figure under the name /v2/optimize gives it, so one name reads both answers.
    depth_reduction_percent: o.depth_reduction_percent,
    original_gates: o.original_gates,
    optimized_gates: o.optimized_gates,
    gate_reduction_percent: o.gate_reduction_percent,
    optimization_level: level,
  };
}

export function resultsView(job: QuantumJob<QcosInput>, r: TaskResult) {
  const out: {
    job_id: string;
    counts: Record<string, number>;
    memory?: string[];
    metadata: { backend: string; shots: number; execution_time_ms: number; optimization_level: number; seed_simulator: number | null; method: string; executed_qubits: number };
    quality_metrics: { success_probability: number; fidelity_estimate: number; method: string; total_variation_distance: number | null };
  } = {
    job_id: job.id,
    counts: r.counts,
    metadata: {
      backend: job.backend,
      shots: r.shots,
      execution_time_ms: r.execution_time_ms,
      optimization_level: job.input.optimization_level,
      seed_simulator: r.seed,
      method: r.method ?? 'none',
      executed_qubits: r.executed_qubits,
    },
    quality_metrics: r.quality ?? { success_probability: 1, fidelity_estimate: 1, method: 'ideal_simulator', total_variation_distance: 0 },
  };
  if (r.memory) out.memory = r.memory;
  return out;
}

interface SdkInstruction {
  name: string;
  qubits: number[];
  clbits?: number[];
  params?: number[];
}

/**
 * The SDK export format (`format: 'sdk'`, `sdk_json`): a JSON document
 * `{num_qubits, num_clbits, instructions: [{name, qubits, clbits?, params?}]}` with gate names
 * of the OpenQASM 2 standard library, `measure` (one qubit into one clbit), `reset` and
 * `barrier`. It is read into OpenQASM 2, so every later step treats it like any circuit.
 */
export function sdkToQasm(text: string): string {
  let doc: { num_qubits?: unknown; num_clbits?: unknown; instructions?: unknown };
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw qcosError('INVALID_CIRCUIT', `sdk_json is not valid JSON: ${(err as Error).message}`);
  }
  const nq = doc?.num_qubits;
  const nc = doc?.num_clbits ?? 0;
  if (!Number.isInteger(nq) || (nq as number) < 1 || (nq as number) > 1000) throw qcosError('INVALID_CIRCUIT', 'sdk_json.num_qubits must be an integer from 1 to 1000');
  if (!Number.isInteger(nc) || (nc as number) < 0 || (nc as number) > 1000) throw qcosError('INVALID_CIRCUIT', 'sdk_json.num_clbits must be an integer from 0 to 1000');
  if (!Array.isArray(doc.instructions)) throw qcosError('INVALID_CIRCUIT', 'sdk_json.instructions must be an array');
  const lines = ['OPENQASM 2.0;', 'include "qelib1.inc";', `qreg q[${nq}];`];
  if ((nc as number) > 0) lines.push(`creg c[${nc}];`);
  const index = (list: unknown, size: number, what: string, i: number): number[] => {
    if (!Array.isArray(list) || !list.every((x) => Number.isInteger(x) && x >= 0 && x < size)) {
      throw qcosError('INVALID_CIRCUIT', `sdk_json.instructions[${i}].${what} must list ${what} below ${size}`);
    }
    return list as number[];
  };
  (doc.instructions as SdkInstruction[]).forEach((ins, i) => {
    if (!ins || typeof ins.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(ins.name)) throw qcosError('INVALID_CIRCUIT', `sdk_json.instructions[${i}].name must be a gate name`);
    const qs = index(ins.qubits, nq as number, 'qubits', i);
    if (ins.name === 'measure') {
      const cs = index(ins.clbits, nc as number, 'clbits', i);
      if (qs.length !== 1 || cs.length !== 1) throw qcosError('INVALID_CIRCUIT', `sdk_json.instructions[${i}]: measure takes one qubit and one clbit`);
      lines.push(`measure q[${qs[0]}] -> c[${cs[0]}];`);
      return;
    }
    const params = ins.params ?? [];
    if (!Array.isArray(params) || !params.every((p) => typeof p === 'number' && Number.isFinite(p))) {
      throw qcosError('INVALID_CIRCUIT', `sdk_json.instructions[${i}].params must be finite numbers`);
    }
    const args = qs.map((q) => `q[${q}]`).join(', ');
    lines.push(`${ins.name}${params.length ? `(${params.map((p) => String(p)).join(', ')})` : ''} ${args};`);
  });
  return lines.join('\n');
}

/** The OpenQASM text of a request's `circuit` object. */
export function circuitText(c: { qasm?: string; sdk_json?: string; format: string }): string {
  if (c.format === 'sdk') {
    if (c.sdk_json === undefined) throw qcosError('INVALID_CIRCUIT', 'circuit.sdk_json is required when circuit.format is sdk');
    return sdkToQasm(c.sdk_json);
  }
  if (c.qasm === undefined) throw qcosError('INVALID_CIRCUIT', `circuit.qasm is required when circuit.format is ${c.format}`);
  const v3 = /^\s*(\/\/.*\n\s*)*OPENQASM\s+3/m.test(c.qasm);
  const v2 = /^\s*(\/\/.*\n\s*)*OPENQASM\s+2/m.test(c.qasm);
  if ((c.format === 'qasm2' && v3) || (c.format === 'qasm3' && v2)) {
    throw qcosError('INVALID_CIRCUIT', `circuit.format is ${c.format} but the text declares OpenQASM ${v3 ? 3 : 2}`);
  }
  return c.qasm;
}
