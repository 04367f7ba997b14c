/** Whole-state helpers for callers outside the compiled path (density matrix, trajectories, branching). */
import { positionsOf } from './kernels.ts';
import { runStepAll } from './steps.ts';

function maskOf(qubits: ArrayLike<number>): number {
  let m = 0;
  for (let j = 0; j < qubits.length; j++) m |= 1 << qubits[j]!;
  return m;
}

/** Apply a 2^k x 2^k matrix (qubits[0] the low matrix bit) to a state or vectorised density matrix. */
export function applyMatrix(st: Float64Array, qubits: number[], m: Float64Array): void {
  const pos = positionsOf(maskOf(qubits));
  if (qubits.length === 1) runStepAll(st, { k: 'm1', q: qubits[0]!, m, cmask: 0, pos });
  else if (qubits.length === 2) runStepAll(st, { k: 'm2', q0: qubits[0]!, q1: qubits[1]!, m, cmask: 0, pos });
  else runStepAll(st, { k: 'mk', qubits: Int32Array.from(qubits), m, cmask: 0, pos });
}

export function applyPauliX(st: Float64Array, q: number): void {
  runStepAll(st, { k: 'x', q, cmask: 0, pos: positionsOf(1 << q) });
}
