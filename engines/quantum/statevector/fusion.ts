/**
 * Compiles unitary operations into kernel steps and fuses them: runs of one-qubit gates on a
 * qubit become one 2x2 matrix, which is then absorbed into the next non-diagonal two-qubit
 * gate on that qubit (one dense 4x4 pass instead of three passes). Controlled gates keep
 * their controls as masks so that only the controlled subspace is touched; phase gates
 * touch only the amplitudes they change.
 */
import type { GateOp, Operation } from '../circuit.ts';
import { gateInfo, gateMatrix } from '../gates.ts';
import { kron, matmul } from '../matrix.ts';
import { positionsOf } from './kernels.ts';
import type { Step } from './steps.ts';

/** Bases that are diag(1, e^{iφ}): applied to the |1> amplitudes (with controls) only. */
const PHASE_ANGLE: Record<string, (p: number[]) => number> = {
  z: () => Math.PI,
  s: () => Math.PI / 2,
  sdg: () => -Math.PI / 2,
  t: () => Math.PI / 4,
  tdg: () => -Math.PI / 4,
  p: (p) => p[0]!,
  u1: (p) => p[0]!,
};

function maskOf(qubits: ArrayLike<number>): number {
  let m = 0;
  for (let j = 0; j < qubits.length; j++) m |= 1 << qubits[j]!;
  return m;
}

/** The kernel step of one gate (its table controls folded into the control mask). */
export function compileGate(op: GateOp): Step | null {
  const info = gateInfo(op.name);
  if (!info) throw new Error(`gate '${op.name}' has no definition (opaque) and cannot be simulated`);
  const extra = op.controls ?? 0;
  if (op.qubits.length !== info.numQubits + extra) {
    throw new Error(`gate '${op.name}' needs ${info.numQubits + extra} qubit(s), got ${op.qubits.length}`);
  }
  if (info.name === 'id' || info.name === 'u0') return null;
  let name = info.name;
  let nctrl = extra;
  if (info.base && info.numParams === (gateInfo(info.base)?.numParams ?? -1)) {
    name = info.base;
    nctrl += info.numControls;
  }
  const ctrls = op.qubits.slice(0, nctrl);
  const targets = op.qubits.slice(nctrl);
  const cmask = maskOf(ctrls);
  const all = cmask | maskOf(targets);
  const phase = PHASE_ANGLE[name];
  if (phase && targets.length === 1) {
    const a = phase(op.params);
    return { k: 'phase', mask: all, c: Math.cos(a), s: Math.sin(a), pos: positionsOf(all) };
  }
  const pos = positionsOf(all);
  if (name === 'x') return { k: 'x', q: targets[0]!, cmask, pos };
  if (name === 'swap') return { k: 'swap', a: targets[0]!, b: targets[1]!, cmask, pos };
  const m = gateMatrix(name, op.params);
  if (targets.length === 1) {
    if (name === 'rz') return { k: 'd1', q: targets[0]!, d: Float64Array.of(m[0]!, m[1]!, m[6]!, m[7]!), cmask, pos };
    return { k: 'm1', q: targets[0]!, m, cmask, pos };
  }
  if (targets.length === 2) return { k: 'm2', q0: targets[0]!, q1: targets[1]!, m, cmask, pos };
  return { k: 'mk', qubits: Int32Array.from(targets), m, cmask, pos };
}

export function compileOp(op: Operation): Step | null {
  if (op.kind === 'gate') return compileGate(op);
  if (op.kind === 'barrier') return null;
  if (op.kind !== 'unitary') throw new Error(`cannot compile a ${op.kind} into a unitary step`);
  const pos = positionsOf(maskOf(op.qubits));
  if (op.qubits.length === 1) return { k: 'm1', q: op.qubits[0]!, m: op.matrix, cmask: 0, pos };
  if (op.qubits.length === 2) return { k: 'm2', q0: op.qubits[0]!, q1: op.qubits[1]!, m: op.matrix, cmask: 0, pos };
  return { k: 'mk', qubits: Int32Array.from(op.qubits), m: op.matrix, cmask: 0, pos };
}

/** The 2x2 matrix of an uncontrolled one-qubit step, or null. */
function oneQubitMatrix(s: Step): { q: number; m: Float64Array } | null {
  if (s.pos.length !== 1) return null;
  switch (s.k) {
    case 'm1':
      return { q: s.q, m: s.m };
    case 'd1':
      return { q: s.q, m: Float64Array.of(s.d[0]!, s.d[1]!, 0, 0, 0, 0, s.d[2]!, s.d[3]!) };
    case 'x':
      return { q: s.q, m: Float64Array.of(0, 0, 1, 0, 1, 0, 0, 0) };
    case 'phase':
      return { q: s.pos[0]!, m: Float64Array.of(1, 0, 0, 0, 0, 0, s.c, s.s) };
    default:
      return null;
  }
}

/** The 4x4 matrix of an uncontrolled non-diagonal two-qubit step on (q0, q1), or null. */
function twoQubitMatrix(s: Step): { q0: number; q1: number; m: Float64Array } | null {
  if (s.k === 'm2' && s.cmask === 0) return { q0: s.q0, q1: s.q1, m: s.m };
  if (s.k === 'x' && s.pos.length === 2) {
    const c = s.pos[0] === s.q ? s.pos[1]! : s.pos[0]!;
    return { q0: c, q1: s.q, m: gateMatrix('cx', []) };
  }
  if (s.k === 'swap' && s.cmask === 0) return { q0: s.a, q1: s.b, m: gateMatrix('swap', []) };
  return null;
}


const I2 = Float64Array.of(1, 0, 0, 0, 0, 0, 1, 0);

/** Compile and fuse a list of unitary ops into kernel steps. */
export function compile(ops: Operation[]): Step[] {
  const out: Step[] = [];
  const pending = new Map<number, Float64Array>();
  const flush = (q: number): void => {
    const m = pending.get(q);
    if (!m) return;
    pending.delete(q);
    out.push({ k: 'm1', q, m, cmask: 0, pos: positionsOf(1 << q) });
  };
  for (const op of ops) {
    const step = compileOp(op);
    if (!step) continue;
    const one = oneQubitMatrix(step);
    if (one) {
      const prev = pending.get(one.q);
      pending.set(one.q, prev ? matmul(one.m, prev) : one.m);
      continue;
    }
    // A CX after one-qubit gates: both in one pass with the tensor-product kernel.
    if (step.k === 'x' && step.pos.length === 2 && (pending.has(step.pos[0]!) || pending.has(step.pos[1]!))) {
      const target = step.q;
      const control = step.pos[0] === target ? step.pos[1]! : step.pos[0]!;
      const a = pending.get(control) ?? I2;
      const b = pending.get(target) ?? I2;
      pending.delete(control);
      pending.delete(target);
      out.push({ k: 'kron2', q0: control, q1: target, a, b, cx: 1, pos: step.pos });
      continue;
    }
    const two = twoQubitMatrix(step);
    if (two && (pending.has(two.q0) || pending.has(two.q1))) {
      const pre = kron(pending.get(two.q1) ?? I2, pending.get(two.q0) ?? I2);
      pending.delete(two.q0);
      pending.delete(two.q1);
      const m = matmul(two.m, pre);
      out.push({ k: 'm2', q0: two.q0, q1: two.q1, m, cmask: 0, pos: positionsOf((1 << two.q0) | (1 << two.q1)) });
      continue;
    }
    for (let j = 0; j < step.pos.length; j++) flush(step.pos[j]!);
    out.push(step);
  }
  for (const q of [...pending.keys()]) flush(q);
  return fanPhases(out);
}

/** Fewest two-qubit phases worth a fan pass (each costs a quarter pass; a fan costs two halves). */
const MIN_FAN = 4;

/** Merge runs of two-qubit phase steps that share a qubit into fan steps. */
function fanPhases(steps: Step[]): Step[] {
  const out: Step[] = [];
  let i = 0;
  while (i < steps.length) {
    const s = steps[i]!;
    if (s.k !== 'phase' || s.pos.length !== 2) {
      out.push(s);
      i++;
      continue;
    }
    // Extend the run while a common hub qubit remains.
    let hubs = [s.pos[0]!, s.pos[1]!];
    let j = i + 1;
    while (j < steps.length) {
      const t = steps[j]!;
      if (t.k !== 'phase' || t.pos.length !== 2) break;
      const next = hubs.filter((h) => h === t.pos[0] || h === t.pos[1]);
      if (next.length === 0) break;
      hubs = next;
      j++;
    }
    if (j - i < MIN_FAN) {
      for (let k = i; k < j; k++) out.push(steps[k]!);
    } else out.push(buildFan(steps.slice(i, j) as Array<Extract<Step, { k: 'phase' }>>, hubs[0]!));
    i = j;
  }
  return out;
}

function buildFan(run: Array<Extract<Step, { k: 'phase' }>>, h: number): Step {
  const angle = new Map<number, number>();
  let top = h;
  for (const s of run) {
    const k = s.pos[0] === h ? s.pos[1]! : s.pos[0]!;
    angle.set(k, (angle.get(k) ?? 0) + Math.atan2(s.s, s.c));
    top = Math.max(top, k);
  }
  const loBits = Math.ceil((top + 1) / 2);
  const table = (bits: number, shift: number): Float64Array => {
    const size = 2 ** bits;
    const ph = new Float64Array(size);
    for (let x = 1; x < size; x++) {
      const low = 31 - Math.clz32(x & -x);
      ph[x] = ph[x & (x - 1)]! + (angle.get(low + shift) ?? 0);
    }
    const t = new Float64Array(2 * size);
    for (let x = 0; x < size; x++) {
      t[2 * x] = Math.cos(ph[x]!);
      t[2 * x + 1] = Math.sin(ph[x]!);
    }
    return t;
  };
  return { k: 'fan', h, lo: table(loBits, 0), hi: table(Math.max(0, top + 1 - loBits), loBits), loBits, pos: positionsOf(1 << h) };
}
