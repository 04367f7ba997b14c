/** Runs a list of unitary operations on a statevector (each op with its specialised kernel). */
import type { Operation } from '../circuit.ts';
import { applyOp } from './state.ts';

export function runFused(st: Float64Array, _n: number, ops: Operation[]): void {
  for (const op of ops) applyOp(st, op);
}
