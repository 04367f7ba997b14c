/**
 * Turns per-shot samples into counts keyed the project's way (CONTRACT): the string of all
 * classical bits, highest-numbered bit first, each classical bit taking the value of the
 * qubit measured into it (the last measurement wins, unmeasured bits read 0).
 */
import type { Circuit } from '../../../engines/quantum/index.ts';

/** clbit -> measured qubit of the circuit. */
export function measureMap(c: Circuit): Map<number, number> {
  const map = new Map<number, number>();
  for (const op of c.ops) if (op.kind === 'measure') map.set(op.clbit, op.qubit);
  return map;
}

/** `qubitValue(shot, q)` reads qubit q of one shot. */
export function countsFromShots<S>(shots: readonly S[], c: Circuit, qubitValue: (shot: S, qubit: number) => number): Record<string, number> {
  const map = measureMap(c);
  const out: Record<string, number> = {};
  for (const shot of shots) {
    let key = '';
    for (let b = c.numClbits - 1; b >= 0; b--) {
      const q = map.get(b);
      key += q === undefined ? '0' : qubitValue(shot, q) ? '1' : '0';
    }
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}
