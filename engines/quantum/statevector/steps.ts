/** Compiled statevector steps: one kernel call each, with the data a worker thread needs to run its share. */
import { apply1, apply2, applyDiag1, applyFan, applyK, applyKron2, applyPhase, applySwap, applyX, iterations } from './kernels.ts';

export type Step =
  | { k: 'm1'; q: number; m: Float64Array; cmask: number; pos: Int32Array }
  | { k: 'd1'; q: number; d: Float64Array; cmask: number; pos: Int32Array }
  | { k: 'x'; q: number; cmask: number; pos: Int32Array }
  | { k: 'phase'; mask: number; c: number; s: number; pos: Int32Array }
  | { k: 'swap'; a: number; b: number; cmask: number; pos: Int32Array }
  | { k: 'm2'; q0: number; q1: number; m: Float64Array; cmask: number; pos: Int32Array }
  | { k: 'kron2'; q0: number; q1: number; a: Float64Array; b: Float64Array; cx: number; pos: Int32Array }
  | { k: 'fan'; h: number; lo: Float64Array; hi: Float64Array; loBits: number; pos: Int32Array }
  | { k: 'mk'; qubits: Int32Array; m: Float64Array; cmask: number; pos: Int32Array };

/** Number of loop iterations of a step on a state of `len` doubles (the range workers split). */
export function stepCount(step: Step, len: number): number {
  return iterations(len, step.pos.length);
}

export function runStep(st: Float64Array, s: Step, lo: number, hi: number): void {
  switch (s.k) {
    case 'm1':
      return apply1(st, s.q, s.m, s.cmask, s.pos, lo, hi);
    case 'd1':
      return applyDiag1(st, s.q, s.d, s.cmask, s.pos, lo, hi);
    case 'x':
      return applyX(st, s.q, s.cmask, s.pos, lo, hi);
    case 'phase':
      return applyPhase(st, s.mask, s.c, s.s, s.pos, lo, hi);
    case 'swap':
      return applySwap(st, s.a, s.b, s.cmask, s.pos, lo, hi);
    case 'm2':
      return apply2(st, s.q0, s.q1, s.m, s.cmask, s.pos, lo, hi);
    case 'kron2':
      return applyKron2(st, s.q0, s.q1, s.a, s.b, s.cx, s.pos, lo, hi);
    case 'fan':
      return applyFan(st, s.h, s.lo, s.hi, s.loBits, lo, hi);
    case 'mk':
      return applyK(st, s.qubits, s.m, s.cmask, s.pos, lo, hi);
  }
}

/** Run a step over the whole state on this thread. */
export function runStepAll(st: Float64Array, s: Step): void {
  runStep(st, s, 0, stepCount(s, st.length));
}
