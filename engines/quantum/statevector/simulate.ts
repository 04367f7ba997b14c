/** The final statevector of a circuit with no mid-circuit measurement, reset or classical condition. */
import type { Circuit, Operation } from '../circuit.ts';
import { compile } from './fusion.ts';
import { runSteps } from './parallel.ts';
import { runNative, viewAsDouble } from './native.ts';
import { applyGlobalPhase, checkStatevectorSize, type Precision, zeroState } from './state.ts';
import { MAX_VIEW_QUBITS } from '../native/index.ts';

/**
 * Split ops into the unitary part and the terminal measurements. Throws when a measurement is
 * followed by an operation on its qubit, or when a reset or condition is present.
 */
export function splitTerminal(c: Circuit): { unitary: Operation[]; measures: Array<{ qubit: number; clbit: number }> } | null {
  const measured = new Set<number>();
  const unitary: Operation[] = [];
  const measures: Array<{ qubit: number; clbit: number }> = [];
  for (const op of c.ops) {
    if (op.kind === 'barrier') continue;
    if (op.kind === 'reset' || ('condition' in op && op.condition)) return null;
    if (op.kind === 'measure') {
      measured.add(op.qubit);
      measures.push({ qubit: op.qubit, clbit: op.clbit });
      continue;
    }
    if (op.qubits.some((q) => measured.has(q))) return null;
    unitary.push(op);
  }
  return { unitary, measures };
}

export interface SimulateOptions {
  /**
   * 'single' runs the native kernels on complex64 amplitudes (half the memory traffic); the
   * result is still returned as a Float64Array. Default 'double'.
   */
  precision?: Precision;
}

/**
 * Simulate a circuit's unitary part from |0...0> and return the statevector (interleaved re/im,
 * qubit 0 least significant). Terminal measurements are ignored.
 *
 * @example
 * const sv = simulateStatevector(parseQasm('OPENQASM 3; qubit[2] q; h q[0]; cx q[0], q[1];'));
 * // sv = [0.7071, 0, 0, 0, 0, 0, 0.7071, 0]
 */
export function simulateStatevector(c: Circuit, opts: SimulateOptions = {}): Float64Array {
  const split = splitTerminal(c);
  if (!split) throw new Error('the circuit has mid-circuit measurement, reset or conditions: use run() to sample it');
  const precision = opts.precision ?? 'double';
  checkStatevectorSize(c.numQubits, 1, precision);
  if (c.numQubits > MAX_VIEW_QUBITS) {
    throw new Error(`a statevector of ${c.numQubits} qubits cannot be returned (at most ${MAX_VIEW_QUBITS}); sample it with run() instead`);
  }
  const nat = runNative(split.unitary, c.numQubits, { precision });
  const st = (nat && viewAsDouble(nat)) ?? unitaryJs(c.numQubits, split.unitary);
  applyGlobalPhase(st, c.globalPhase);
  return st;
}

/** The JavaScript kernels' run of unitary ops from |0...0> (worker threads for large states). */
export function unitaryJs(n: number, ops: Operation[]): Float64Array {
  const st = zeroState(n);
  runSteps(st, n, compile(ops));
  return st;
}
