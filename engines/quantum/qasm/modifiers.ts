/**
 * Gate modifiers on already-elaborated operation lists: adding controls (ctrl/negctrl),
 * inverting (inv) and powers (pow). A `gphase` item carries a global phase until it is
 * either controlled (becoming a phase gate on the controls) or folded into the circuit.
 */
import type { GateOp, Operation, UnitaryOp } from '../circuit.ts';
import { angleScalable, gateInfo, gateInverse, gateMatrix } from '../gates.ts';
import { adjoint, controlled, dimOf } from '../matrix.ts';
import type { CMatrix } from '../matrix.ts';

export interface GPhase {
  kind: 'gphase';
  angle: number;
}

export type Item = Operation | GPhase;

/** Add positive controls `ctrls` (qubit indices) in front of every item. */
export function addControls(items: Item[], ctrls: number[]): Item[] {
  const n = ctrls.length;
  return items.map((it): Item => {
    switch (it.kind) {
      case 'gphase':
        // ctrl @ gphase(a) is a phase gate on the controls.
        if (n === 1) return { kind: 'gate', name: 'p', qubits: [ctrls[0]!], params: [it.angle] };
        return { kind: 'gate', name: 'p', qubits: [...ctrls], params: [it.angle], controls: n - 1 };
      case 'gate':
        return { ...it, qubits: [...ctrls, ...it.qubits], controls: (it.controls ?? 0) + n };
      case 'unitary':
        return { ...it, qubits: [...ctrls, ...it.qubits], matrix: controlled(it.matrix, n), label: `c${n}_${it.label}` };
      case 'barrier':
        return it;
      default:
        throw new Error(`cannot control a ${it.kind} operation`);
    }
  });
}

/** The full matrix of a gate operation, controls included. */
export function opMatrix(op: GateOp): CMatrix {
  return controlled(gateMatrix(op.name, op.params), op.controls ?? 0);
}

function invertOne(it: Item): Item {
  switch (it.kind) {
    case 'gphase':
      return { kind: 'gphase', angle: -it.angle };
    case 'gate': {
      const inv = gateInverse(it.name, it.params);
      if (inv) return { ...it, name: inv.name, params: inv.params };
      // A controlled table gate without its own inverse: invert the base gate, keep the controls.
      const info = gateInfo(it.name);
      if (info?.base && info.numParams === 0) {
        const baseInv = gateInverse(info.base, []);
        if (baseInv) return { ...it, name: baseInv.name, params: baseInv.params, controls: (it.controls ?? 0) + info.numControls };
      }
      return { kind: 'unitary', label: `${it.name}_dg`, qubits: it.qubits, matrix: adjoint(opMatrix(it)), condition: it.condition };
    }
    case 'unitary':
      return { ...it, matrix: adjoint(it.matrix), label: it.label.endsWith('_dg') ? it.label.slice(0, -3) : `${it.label}_dg` };
    case 'barrier':
      return it;
    default:
      throw new Error(`cannot invert a ${it.kind} operation`);
  }
}

export function invert(items: Item[]): Item[] {
  return items.slice().reverse().map(invertOne);
}

/** items^k. Integer k repeats; a fractional k is exact for rotation-like gates and 1-qubit unitaries. */
export function power(items: Item[], k: number): Item[] {
  if (Number.isInteger(k)) {
    const base = k < 0 ? invert(items) : items;
    const out: Item[] = [];
    for (let r = 0; r < Math.abs(k); r++) out.push(...base);
    return out;
  }
  const ops = items.filter((it) => it.kind !== 'barrier');
  if (ops.length === 1) {
    const op = ops[0]!;
    if (op.kind === 'gphase') return [{ kind: 'gphase', angle: op.angle * k }];
    if (op.kind === 'gate' && angleScalable.has(op.name)) return [{ ...op, params: op.params.map((x) => x * k) }];
    if (op.kind === 'gate' || op.kind === 'unitary') {
      const m = op.kind === 'gate' ? opMatrix(op) : op.matrix;
      if (dimOf(m) !== 2) throw new Error(`pow(${k}) with a non-integer exponent needs a one-qubit gate or a rotation`);
      const u: UnitaryOp = { kind: 'unitary', label: 'pow', qubits: op.qubits, matrix: power2x2(m, k) };
      if (op.condition) u.condition = op.condition;
      return [u];
    }
  }
  throw new Error(`pow(${k}) with a non-integer exponent is supported only on a single rotation gate or a one-qubit gate`);
}

/**
 * U^k for a 2x2 unitary: U = e^{ia}(cos b I - i sin b n·σ) gives U^k = e^{ika}(cos kb I - i sin kb n·σ),
 * taking the principal branch.
 */
export function power2x2(m: CMatrix, k: number): CMatrix {
  const [ar, ai, br, bi, cr, ci, dr, di] = m as unknown as number[] as [number, number, number, number, number, number, number, number];
  // det = e^{2ia}
  const detr = ar * dr - ai * di - (br * cr - bi * ci);
  const deti = ar * di + ai * dr - (br * ci + bi * cr);
  const alpha = Math.atan2(deti, detr) / 2;
  // V = e^{-ia} U is in SU(2): V = [[w, x], [-x*, w*]], w = cos b - i sin b nz, x = -i sin b (nx - i ny)
  const pr = Math.cos(-alpha);
  const pi = Math.sin(-alpha);
  const wr = ar * pr - ai * pi;
  const wi = ar * pi + ai * pr;
  const xr = br * pr - bi * pi;
  const xi = br * pi + bi * pr;
  const cb = Math.max(-1, Math.min(1, wr));
  const b = Math.acos(cb);
  const sb = Math.sin(b);
  let nx = 0;
  let ny = 0;
  let nz = 1;
  if (Math.abs(sb) > 1e-12) {
    nz = -wi / sb;
    // x = -i sb (nx - i ny) = -sb ny - i sb nx
    nx = -xi / sb;
    ny = -xr / sb;
  }
  const kb = k * b;
  const c = Math.cos(kb);
  const s = Math.sin(kb);
  const ph = k * alpha;
  const er = Math.cos(ph);
  const ei = Math.sin(ph);
  // W = cos kb I - i sin kb (nx X + ny Y + nz Z)
  const w: number[] = [c, -s * nz, -s * ny, -s * nx, s * ny, -s * nx, c, s * nz];
  const out = new Float64Array(8);
  for (let j = 0; j < 8; j += 2) {
    out[j] = w[j]! * er - w[j + 1]! * ei;
    out[j + 1] = w[j]! * ei + w[j + 1]! * er;
  }
  return out;
}
