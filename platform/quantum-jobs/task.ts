/**
 * What a quantum job does, as plain functions over the engine: validate a circuit for a
 * backend, optimize it for the backend's basis and coupling map, run it (ideal or with the
 * device's calibrated noise) and measure the run's quality. Worker threads call these; so can
 * any caller in-process (the benchmark's baseline does).
 */
import { parseQasm, QasmError, run, toQasm, type Backend, type Circuit, type Method, type Operation } from '../../engines/quantum/index.ts';
import { readBackend } from '../../engines/quantum/backends.ts';
import { gateMatrix } from '../../engines/quantum/gates.ts';
import { counts as circuitCounts } from '../../engines/quantum/optimizer/metrics.ts';
import { optimize } from '../../engines/quantum/optimizer/index.ts';

/** Why a task could not be done; `code` is the job system's, services map it to their own. */
export class TaskError extends Error {
  constructor(
    readonly code: 'INVALID_CIRCUIT' | 'INVALID_BACKEND' | 'CIRCUIT_TOO_LARGE' | 'EXECUTION_ERROR',
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'TaskError';
  }
}

export interface Limits {
  /** Most qubits the caller may use (a plan's cap); the backend's own size caps it too. */
  maxQubits?: number;
  /** Deepest circuit the caller may submit (depth as the optimizer counts it). */
  maxDepth?: number;
}

/** What every job's input holds for the runner; services add their own fields beside `task`. */
export interface JobInput {
  task: CircuitTask;
  [field: string]: unknown;
}

export interface CircuitTask {
  qasm: string;
  /** A catalog backend id. */
  backend: string;
  shots: number;
  /** null: run the circuit exactly as given (no optimizer). */
  optimizationLevel: 0 | 1 | 2 | 3 | null;
  /** false: optimize only. */
  execute: boolean;
  preserveLayout?: boolean;
  /** Output format of the optimized circuit (default: the input's version). */
  format?: 'qasm2' | 'qasm3';
  /** Simulation method; default: the backend's (density matrix for small device circuits). */
  method?: Method;
  /** Amplitude precision of a statevector run (default double; single halves memory, see engines/quantum/README.md). */
  precision?: 'double' | 'single';
  /** A catalog device whose calibrated noise the run uses (default: the backend's own, if a device). */
  noise?: string;
  seed?: number;
  memory?: boolean;
  statevector?: boolean;
  /** Compare noiseless and executed distributions (see qualityOf). */
  qualityMetrics?: boolean;
  limits?: Limits;
  /** The optimizer's output computed before (at submission): reused instead of optimizing again. */
  prepared?: Optimization;
  /**
   * The submitted circuit's counts, found when it was validated at submission. With `prepared`
   * on an ideal backend the run needs nothing else of the submitted text, so it does not parse
   * it again (2.7 ms of a 20-qubit job's 15 KB on a slow machine); a noisy run still does.
   */
  preparedCounts?: { num_qubits: number; num_clbits: number };
}

export interface Optimization {
  optimized_circuit: string;
  original_depth: number;
  optimized_depth: number;
  original_gates: number;
  optimized_gates: number;
  depth_reduction_percent: number;
  gate_reduction_percent: number;
  /** logical qubit -> physical qubit at the end */
  qubit_mapping: Record<string, number>;
  initial_layout: Record<string, number>;
}

export interface Quality {
  success_probability: number;
  fidelity_estimate: number;
  /** Hellinger distance-based comparison method used (see qualityOf). */
  method: 'exact_distributions' | 'measured_counts' | 'calibration_product' | 'ideal_simulator';
  total_variation_distance: number | null;
}

export interface TaskResult {
  num_qubits: number;
  num_clbits: number;
  /** Qubits simulated: the qubits the (optimized) circuit acts on. */
  executed_qubits: number;
  method: Method | null;
  shots: number;
  seed: number | null;
  counts: Record<string, number>;
  memory?: string[];
  /** Interleaved re/im (CONTRACT). */
  statevector?: number[];
  optimization?: Optimization;
  quality?: Quality;
  truncation_error?: number;
  /** Time of the engine's run alone. */
  execution_time_ms: number;
}

export type Stage = 'validating' | 'optimizing' | 'running';

/** The backend with this id (the catalog's frozen entry: read only) or a TaskError INVALID_BACKEND. */
export function backendOf(id: string): Readonly<Backend> {
  const b = readBackend(id);
  if (!b) throw new TaskError('INVALID_BACKEND', `Unknown backend '${id}'`, { backend: id });
  return b;
}

function versionOf(text: string): 2 | 3 {
  return /^\s*(\/\/.*\n\s*)*OPENQASM\s+3/m.test(text) ? 3 : 2;
}

/** Parses and checks `qasm` against the backend and limits; QasmError's line and column reach the message. */
export function validateCircuit(qasm: string, backend: Backend, limits: Limits = {}): Circuit {
  let circuit: Circuit;
  try {
    circuit = parseQasm(qasm);
  } catch (err) {
    if (err instanceof QasmError) {
      throw new TaskError('INVALID_CIRCUIT', `Invalid OpenQASM at ${err.message}`, { line: err.line, column: err.column });
    }
    throw new TaskError('INVALID_CIRCUIT', `Invalid OpenQASM: ${(err as Error).message}`);
  }
  if (circuit.numQubits === 0) throw new TaskError('INVALID_CIRCUIT', 'The circuit declares no qubits');
  const cap = Math.min(backend.qubits, limits.maxQubits ?? Infinity);
  if (circuit.numQubits > cap) {
    const why = cap < backend.qubits ? `your plan allows ${cap}` : `${backend.id} has ${backend.qubits}`;
    throw new TaskError('CIRCUIT_TOO_LARGE', `The circuit uses ${circuit.numQubits} qubits but ${why}`, {
      qubits: circuit.numQubits,
      max_qubits: cap,
    });
  }
  if (limits.maxDepth !== undefined) {
    const depth = circuitCounts(circuit).depth;
    if (depth > limits.maxDepth) {
      throw new TaskError('CIRCUIT_TOO_LARGE', `The circuit has depth ${depth} but your plan allows ${limits.maxDepth}`, {
        depth,
        max_depth: limits.maxDepth,
      });
    }
  }
  for (const op of circuit.ops) {
    if (op.kind === 'gate') {
      try {
        gateMatrix(op.name, op.params);
      } catch {
        throw new TaskError('INVALID_CIRCUIT', `Gate '${op.name}' has no definition (opaque gates cannot run)`);
      }
    }
  }
  return circuit;
}

function tableMatrix(name: string, params: number[]): Float64Array | null {
  try {
    return gateMatrix(name, params);
  } catch {
    return null;
  }
}

/** The optimizer's run at `level` for the backend's basis gates and coupling map. */
export function optimizeFor(circuit: Circuit, qasm: string, backend: Backend, level: 0 | 1 | 2 | 3, options: { preserveLayout?: boolean; format?: 'qasm2' | 'qasm3' } = {}): { circuit: Circuit; optimization: Optimization } {
  const basis = backend.basis_gates.filter((g) => g !== 'id' && g !== 'measure' && g !== 'reset');
  const result = optimize(circuit, {
    level,
    basisGates: basis.length ? basis : undefined,
    couplingMap: backend.coupling_map ?? undefined,
    preserveLayout: options.preserveLayout ?? false,
    seed: 11,
    matrixFallback: tableMatrix,
  });
  const version = options.format ? (options.format === 'qasm3' ? 3 : 2) : versionOf(qasm);
  return {
    circuit: result.circuit,
    optimization: {
      optimized_circuit: toQasm(result.circuit, version),
      ...result.metrics,
      qubit_mapping: result.qubitMapping,
      initial_layout: result.initialLayout,
    },
  };
}

/** The qubits any operation touches. */
function usedQubits(c: Circuit): number[] {
  const used = new Set<number>();
  for (const op of c.ops) {
    if (op.kind === 'measure' || op.kind === 'reset') used.add(op.qubit);
    else if (op.kind !== 'barrier') for (const q of op.qubits) used.add(q);
  }
  return [...used].sort((a, b) => a - b);
}

/**
 * The same circuit on only the qubits it uses (a routed circuit spans the whole device). Idle
 * qubits stay |0> and are never measured, and the devices' noise is the same on every qubit,
 * so the counts are unchanged while the simulated state shrinks to what the circuit needs.
 */
export function compact(c: Circuit): Circuit {
  const used = usedQubits(c);
  if (used.length === c.numQubits) return c;
  const map = new Map(used.map((q, i) => [q, i]));
  const m = (q: number) => map.get(q)!;
  const ops: Operation[] = [];
  for (const op of c.ops) {
    if (op.kind === 'measure' || op.kind === 'reset') ops.push({ ...op, qubit: m(op.qubit) });
    else if (op.kind === 'barrier') {
      const qs = op.qubits.filter((q) => map.has(q)).map(m);
      if (qs.length) ops.push({ ...op, qubits: qs });
    } else ops.push({ ...op, qubits: op.qubits.map(m) });
  }
  const n = Math.max(1, used.length);
  return { ...c, numQubits: n, qregs: [{ name: 'q', size: n, offset: 0 }], ops };
}

function defaultMethod(backend: Backend, executedQubits: number): Method {
  if (backend.type === 'simulator') return backend.simulation_methods[0] ?? 'statevector';
  // Exact channels while the density matrix is small; quantum trajectories beyond.
  return executedQubits <= 10 ? 'density_matrix' : 'statevector';
}

function hasMidCircuitMeasurement(c: Circuit): boolean {
  const measured = new Set<number>();
  for (const op of c.ops) {
    if (op.kind === 'barrier') continue;
    if ('condition' in op && op.condition) return true;
    if (op.kind === 'measure') {
      measured.add(op.qubit);
      continue;
    }
    const qs = op.kind === 'reset' ? [op.qubit] : op.qubits;
    if (qs.some((q) => measured.has(q))) return true;
  }
  return false;
}

/** The quality of a run without noise: the ideal distribution itself. */
const IDEAL_QUALITY: Quality = { success_probability: 1, fidelity_estimate: 1, method: 'ideal_simulator', total_variation_distance: 0 };

/**
 * Quality of a run with noise. The noiseless distribution p of the circuit (exact, from the statevector)
 * is compared with the distribution q the backend produced: `fidelity_estimate` is the
 * Hellinger fidelity (Σ √(p q))² and `success_probability` is 1 − TVD = Σ min(p, q).
 * q is exact where the run computed it (the density-matrix method gives the noisy outcome
 * probabilities, readout error included); otherwise it is the measured counts' frequencies.
 * Where p cannot be computed (more than 20 classical bits, mid-circuit measurements, more
 * than 24 qubits) a noisy device falls back to the product of its calibrated gate and
 * readout fidelities (a run without noise reports IDEAL_QUALITY).
 */
function qualityOf(
  original: Circuit,
  backend: Backend,
  executed: { counts: Record<string, number>; probabilities?: Record<string, number>; shots: number },
  executedCircuit: Circuit,
): Quality {
  const exactIdeal = original.numClbits <= 20 && original.numQubits <= 24 && !hasMidCircuitMeasurement(original) && original.numClbits > 0;
  if (exactIdeal) {
    const ideal = run(compact(original), { shots: 0, seed: 1, probabilities: true }).probabilities ?? {};
    let q: Record<string, number>;
    let method: Quality['method'];
    if (executed.probabilities) {
      q = executed.probabilities;
      method = 'exact_distributions';
    } else {
      q = {};
      for (const [k, v] of Object.entries(executed.counts)) q[k] = v / Math.max(1, executed.shots);
      method = 'measured_counts';
    }
    let bc = 0;
    let overlap = 0;
    for (const k of new Set([...Object.keys(ideal), ...Object.keys(q)])) {
      const a = ideal[k] ?? 0;
      const b = q[k] ?? 0;
      bc += Math.sqrt(a * b);
      overlap += Math.min(a, b);
    }
    const round = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 1e6) / 1e6;
    return {
      success_probability: round(overlap),
      fidelity_estimate: round(bc * bc),
      method,
      total_variation_distance: round(1 - overlap),
    };
  }
  const cal = backend.calibration!;
  let f = 1;
  for (const op of executedCircuit.ops) {
    if (op.kind === 'gate' || op.kind === 'unitary') f *= op.qubits.length >= 2 ? 1 - cal.cx_error : 1 - cal.sq_error;
    else if (op.kind === 'measure') f *= 1 - cal.readout_error;
  }
  const r = Math.round(f * 1e6) / 1e6;
  return { success_probability: r, fidelity_estimate: r, method: 'calibration_product', total_variation_distance: null };
}

/** An optimized text and the circuit parseQasm made of it. */
export interface ParsedCircuit {
  text: string;
  circuit: Circuit;
}

/**
 * Runs a task stage by stage, telling `onStage` when each begins. Throws TaskError for a
 * circuit or backend the task cannot take. `parsed`, when its text is the task's optimized
 * text, is used instead of parsing that text again (worker.ts parses it while the job's insert
 * runs).
 */
export function executeTask(
  task: CircuitTask,
  onStage: (stage: Stage, detail?: { optimization?: Optimization }) => void = () => {},
  parsed: ParsedCircuit | null = null,
): TaskResult {
  onStage('validating');
  const backend = backendOf(task.backend);
  const noiseBackend = task.noise ? backendOf(task.noise) : backend.type === 'hardware' ? backend : undefined;
  let original: Circuit | null = null;
  const submitted = (): Circuit => (original ??= validateCircuit(task.qasm, backend, task.limits));
  // Validated and optimized at submission, and run without noise: nothing here needs the submitted text.
  const counts = task.optimizationLevel !== null && task.prepared && task.preparedCounts && !noiseBackend
    ? task.preparedCounts
    : { num_qubits: submitted().numQubits, num_clbits: submitted().numClbits };
  if (noiseBackend && !noiseBackend.calibration) throw new TaskError('INVALID_BACKEND', `Backend '${noiseBackend.id}' is an ideal simulator and has no noise model`);
  if (task.shots > backend.max_shots) throw new TaskError('CIRCUIT_TOO_LARGE', `${backend.id} takes at most ${backend.max_shots} shots`);

  let circuit: Circuit;
  let optimization: Optimization | undefined;
  if (task.optimizationLevel === null) circuit = submitted();
  else {
    onStage('optimizing');
    if (task.prepared) {
      optimization = task.prepared;
      const text = task.prepared.optimized_circuit;
      circuit = parsed?.text === text ? parsed.circuit : parseQasm(text);
    } else {
      const o = optimizeFor(submitted(), task.qasm, backend, task.optimizationLevel, { preserveLayout: task.preserveLayout, format: task.format });
      optimization = o.optimization;
      circuit = o.circuit;
    }
  }
  const base: TaskResult = {
    num_qubits: counts.num_qubits,
    num_clbits: counts.num_clbits,
    executed_qubits: 0,
    method: null,
    shots: 0,
    seed: null,
    counts: {},
    execution_time_ms: 0,
  };
  if (optimization) base.optimization = optimization;
  if (!task.execute) return base;

  onStage('running', { optimization });
  const executed = task.statevector ? circuit : compact(circuit);
  const method = task.method ?? defaultMethod(backend, executed.numQubits);
  const wantProbabilities = Boolean(task.qualityMetrics && noiseBackend && method === 'density_matrix');
  let r;
  try {
    r = run(executed, {
      method,
      precision: task.precision,
      shots: task.shots,
      seed: task.seed,
      memory: task.memory,
      statevector: task.statevector,
      noise: noiseBackend,
      probabilities: wantProbabilities,
    });
  } catch (err) {
    throw new TaskError('EXECUTION_ERROR', (err as Error).message);
  }
  const result: TaskResult = {
    ...base,
    executed_qubits: executed.numQubits,
    method,
    shots: r.shots,
    seed: r.seed,
    counts: r.counts,
    execution_time_ms: Math.round(r.executionTimeMs * 1000) / 1000,
  };
  if (task.memory && r.memory) result.memory = r.memory;
  // A circuit with mid-circuit measurement, reset or conditions has no single final state:
  // its shots are sampled and no statevector is returned (the caller reports null).
  if (task.statevector && r.statevector) result.statevector = numbersOf(r.statevector);
  if (r.truncationError !== undefined) result.truncation_error = r.truncationError;
  if (task.qualityMetrics) result.quality = noiseBackend ? qualityOf(submitted(), noiseBackend, r, executed) : { ...IDEAL_QUALITY };
  return result;
}

/**
 * The amplitudes as a plain array for the JSON result. A loop, not Array.from: Array.from
 * walks a typed array through its iterator, 2.5-4x slower (106 vs 28-43 ms for the 2^21 numbers
 * of a 20-qubit state).
 */
function numbersOf(values: Float64Array | Float32Array): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i]!;
  return out;
}

/** Validation and optimization alone, as at submission: the circuit's facts and the optimizer's output. */
export function prepareTask(task: CircuitTask): { num_qubits: number; num_clbits: number; depth: number; optimization?: Optimization } {
  const backend = backendOf(task.backend);
  const circuit = validateCircuit(task.qasm, backend, task.limits);
  const out: { num_qubits: number; num_clbits: number; depth: number; optimization?: Optimization } = {
    num_qubits: circuit.numQubits,
    num_clbits: circuit.numClbits,
    depth: circuitCounts(circuit).depth,
  };
  if (task.optimizationLevel !== null) {
    out.optimization = optimizeFor(circuit, task.qasm, backend, task.optimizationLevel, { preserveLayout: task.preserveLayout, format: task.format }).optimization;
  }
  return out;
}
