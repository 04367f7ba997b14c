/** The shapes a {CX, Rz} region takes while it is resynthesised, shared by the phase-polynomial pass and its parity-network builders. */
import type { Vec } from './gf2.ts';

/** A region as a phase polynomial: terms (parity -> angle), output parities and constants. */
export interface PhasePoly {
  m: number;
  words: number;
  terms: Array<{ v: Vec; angle: number }>;
  out: Vec[];
  outConst: Uint8Array;
  /** global phase collected from the gates' own phases and the angle normalisation */
  phase: number;
}

/** One gate of a synthesised region on local wires: a CX (control, target) or an Rz (wire, angle). */
export type LocalOp = { cx: [number, number] } | { rz: [number, number] };
