/** Applies one unitary operation of the circuit model to a statevector, choosing the fastest kernel. */
import type { GateOp, UnitaryOp } from '../circuit.ts';
import { gateInfo, gateMatrix } from '../gates.ts';
import { controlled } from '../matrix.ts';
import { apply1, apply2, applyDiag1, applyK, applyPhase, applySwap, applyX } from './kernels.ts';

/** Phase-gate angles for bases that are diag(1, e^{iφ}). */
const PHASE_ANGLE: Record<string, (p: number[]) => number> = {
  z: () => Math.PI,
  s: () => Math.PI / 2,
  sdg: () => -Math.PI / 2,
  t: () => Math.PI / 4,
  tdg: () => -Math.PI / 4,
  p: (p) => p[0]!,
  u1: (p) => p[0]!,
};

function maskOf(qubits: number[]): number {
  let m = 0;
  for (const q of qubits) m |= 1 << q;
  return m;
}

export function applyGate(st: Float64Array, op: GateOp): void {
  const info = gateInfo(op.name);
  if (!info) throw new Error(`gate '${op.name}' has no definition (opaque) and cannot be simulated`);
  const extra = op.controls ?? 0;
  if (op.qubits.length !== info.numQubits + extra) {
    throw new Error(`gate '${op.name}' needs ${info.numQubits + extra} qubit(s), got ${op.qubits.length}`);
  }
  if (info.name === 'id' || info.name === 'u0') return;
  // Expand the table's own controls (cx = controlled x) so that the base kernels apply.
  let name = op.name;
  const params = op.params;
  let nctrl = extra;
  if (info.base && info.numParams === (gateInfo(info.base)?.numParams ?? -1)) {
    name = info.base;
    nctrl += info.numControls;
  }
  const ctrls = op.qubits.slice(0, nctrl);
  const targets = op.qubits.slice(nctrl);
  const cmask = maskOf(ctrls);
  const phase = PHASE_ANGLE[name];
  if (phase && targets.length === 1) {
    const a = phase(params);
    applyPhase(st, cmask | (1 << targets[0]!), Math.cos(a), Math.sin(a));
    return;
  }
  if (name === 'x') return applyX(st, targets[0]!, cmask);
  if (name === 'swap') return applySwap(st, targets[0]!, targets[1]!, cmask);
  const m = gateMatrix(name, params);
  if (targets.length === 1) {
    if (name === 'rz') return applyDiag1(st, targets[0]!, [m[0]!, m[1]!, m[6]!, m[7]!], cmask);
    return apply1(st, targets[0]!, m, cmask);
  }
  if (targets.length === 2) return apply2(st, targets[0]!, targets[1]!, m, cmask);
  applyK(st, targets, m, cmask);
}

export function applyUnitary(st: Float64Array, op: UnitaryOp): void {
  const k = op.qubits.length;
  if (k === 1) return apply1(st, op.qubits[0]!, op.matrix);
  if (k === 2) return apply2(st, op.qubits[0]!, op.qubits[1]!, op.matrix);
  applyK(st, op.qubits, op.matrix);
}

/** Full matrix of a gate op, including extra controls (for fusion). */
export function gateOpMatrix(op: GateOp): Float64Array {
  return controlled(gateMatrix(op.name, op.params), op.controls ?? 0);
}
