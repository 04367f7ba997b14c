/** The level-dependent rewrite loop on the working form. */
import { cancelPass } from './cancel.ts';
import { reduceHadamards } from './hadamard.ts';
import type { Ir } from './ir.ts';
import { mergeRotations } from './merge.ts';

/** Level 1: adjacent inverse cancellation; level 2 and up: through commuting gates, Hadamard reduction and rotation merging. */
export function simplify(ir: Ir, level: number): void {
  if (level < 1) return;
  for (let round = 0; round < 20; round++) {
    let changed = cancelPass(ir, level >= 2);
    if (level >= 2) changed = reduceHadamards(ir) || changed;
    if (level >= 2) changed = mergeRotations(ir, round % 2 === 1) || changed;
    if (!changed) break;
  }
}
