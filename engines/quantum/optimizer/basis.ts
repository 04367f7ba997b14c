/** Translation of the working form into a target gate set (basis_gates), with 1q fusion and synthesis. */
import type { Circuit, Condition, GateOp, Operation, Register } from '../circuit.ts';
import { identity, mul, wrapAngle, type Mat } from './complex.ts';
import { isUniversal1q, oneQubitSet, synth1q, type OneQubitSet } from './euler.ts';
import { matrix1q, rz } from './gates1q.ts';
import type { Ir, Opaque, U1 } from './ir.ts';

const TWO_QUBIT = ['cx', 'cz', 'ecr', 'rzz', 'rxx', 'cp', 'cu1'] as const;
type TwoQ = (typeof TWO_QUBIT)[number];

export interface Basis {
  names: string[];
  oneQ: OneQubitSet;
  twoQ: TwoQ;
}

export const DEFAULT_BASIS = ['u3', 'cx'];

/** Validates a basis_gates list: it must express every 1q unitary and hold an entangling gate. */
export function parseBasis(names: string[]): Basis {
  const oneQ = oneQubitSet(names);
  if (!isUniversal1q(oneQ)) {
    throw new Error(`basis {${names.join(',')}} cannot express every single-qubit gate (give e.g. u3, or rz with sx, ry or h)`);
  }
  const twoQ = TWO_QUBIT.find((g) => g !== 'ecr' && names.includes(g));
  if (!twoQ) throw new Error(`basis {${names.join(',')}} has no supported two-qubit gate (one of cx, cz, rzz, rxx, cp, cu1)`);
  return { names, oneQ, twoQ };
}

/** A two-qubit basis gate instance. */
interface G2 {
  k: 'g2';
  name: string;
  q: [number, number];
  params: number[];
  cond?: Condition;
}
type Out = U1 | G2 | Opaque;

const H = matrix1q('h', []) as Mat;

/** Replaces every CX by the target's two-qubit gate with 1q corrections; returns the added phase. */
function lowerCx(ir: Ir, basis: Basis, allowed?: (c: number, t: number) => boolean): { ops: Out[]; phase: number } {
  const out: Out[] = [];
  let phase = 0;
  for (const op of ir.ops) {
    if (op.k === 'u2') throw new Error('two-qubit unitaries must be synthesized before basis translation');
    if (op.k !== 'cx') {
      out.push(op);
      continue;
    }
    const { c, t, cond } = op;
    const u = (q: number, m: Mat): void => void out.push({ k: 'u', q, m, cond });
    const g = (name: string, q: [number, number], params: number[] = []): void => void out.push({ k: 'g2', name, q, params, cond });
    // A phase under a classical condition is unobservable, so only unconditioned ones count.
    const addPhase = (p: number): void => void (cond ? 0 : (phase += p));
    switch (basis.twoQ) {
      case 'cx':
        if (allowed && !allowed(c, t) && allowed(t, c)) {
          u(c, H); u(t, H); g('cx', [t, c]); u(c, H); u(t, H);
        } else g('cx', [c, t]);
        break;
      case 'cz':
      case 'cp':
      case 'cu1':
        u(t, H);
        g(basis.twoQ, [c, t], basis.twoQ === 'cz' ? [] : [Math.PI]);
        u(t, H);
        break;
      case 'rzz':
      case 'rxx': {
        // CZ = e^{i pi/4} (Rz(pi/2) x Rz(pi/2)) RZZ(-pi/2), and RZZ = (H x H) RXX (H x H).
        u(t, H);
        if (basis.twoQ === 'rxx') { u(c, H); u(t, H); }
        g(basis.twoQ, [c, t], [-Math.PI / 2]);
        if (basis.twoQ === 'rxx') { u(c, H); u(t, H); }
        u(c, rz(Math.PI / 2));
        u(t, rz(Math.PI / 2));
        u(t, H);
        addPhase(Math.PI / 4);
        break;
      }
      default:
        throw new Error(`unsupported two-qubit basis gate ${basis.twoQ}`);
    }
  }
  return { ops: out, phase };
}

function gateOp(name: string, qubits: number[], params: number[], cond?: Condition): GateOp {
  const g: GateOp = { kind: 'gate', name, qubits, params };
  if (cond) g.condition = cond;
  return g;
}

/**
 * Emits 1q runs: with `fuse`, consecutive 1q gates on a wire are multiplied and resynthesized
 * when that is shorter (a dynamic program over the run picks the cheapest grouping).
 */
function emitRuns(ops: Out[], basis: Basis, fuse: boolean): { ops: Operation[]; phase: number } {
  const result: Operation[] = [];
  let phase = 0;
  const pending = new Map<number, U1[]>();
  const synth = (m: Mat): { gates: GateOp[]; phase: number; q: number } => {
    const s = synth1q(m, basis.oneQ);
    return { gates: s.gates.map((g) => gateOp(g.name, [0], g.params)), phase: s.phase, q: 0 };
  };
  const flush = (q: number): void => {
    const run = pending.get(q);
    if (!run || run.length === 0) return;
    pending.delete(q);
    if (!fuse || run[0].cond) {
      for (const u of run) {
        const s = synth1q(u.m, basis.oneQ);
        for (const g of s.gates) result.push(gateOp(g.name, [q], g.params, u.cond));
        if (!u.cond) phase += s.phase;
      }
      return;
    }
    // best[i]: cheapest emission of run[0..i)
    const L = run.length;
    const best: Array<{ cost: number; from: number; s: ReturnType<typeof synth> | null }> = [{ cost: 0, from: 0, s: null }];
    for (let i = 1; i <= L; i++) {
      let m = identity(2);
      let pick = { cost: Infinity, from: 0, s: null as ReturnType<typeof synth> | null };
      for (let j = i - 1; j >= 0 && i - j <= 16; j--) {
        m = mul(m, run[j].m);
        const s = synth(m);
        const cost = best[j].cost + s.gates.length;
        if (cost < pick.cost) pick = { cost, from: j, s };
      }
      best.push(pick);
    }
    const segs: Array<ReturnType<typeof synth>> = [];
    for (let i = L; i > 0; i = best[i].from) segs.push(best[i].s as ReturnType<typeof synth>);
    for (const s of segs.reverse()) {
      for (const g of s.gates) result.push({ ...g, qubits: [q] });
      phase += s.phase;
    }
  };
  for (const op of ops) {
    if (op.k === 'u' && !op.cond) {
      const run = pending.get(op.q) ?? [];
      run.push(op);
      pending.set(op.q, run);
      continue;
    }
    if (op.k === 'u') {
      // Conditioned gates are written at once: they must stay between the measurements that
      // set their bits and those that follow.
      flush(op.q);
      pending.set(op.q, [op]);
      flush(op.q);
      continue;
    }
    const qs = op.k === 'g2' ? op.q : op.qs;
    for (const q of qs) flush(q);
    if (op.k === 'g2') result.push(gateOp(op.name, [...op.q], op.params, op.cond));
    else result.push(op.op);
  }
  for (const q of [...pending.keys()]) flush(q);
  return { ops: result, phase };
}

/** The phase in (-pi, pi], with rounding noise around zero removed. */
function cleanPhase(p: number): number {
  const w = wrapAngle(p);
  return Math.abs(w) < 1e-12 || Math.abs(Math.abs(w) - 2 * Math.PI) < 1e-12 ? 0 : w;
}

export interface EmitOptions {
  fuse: boolean;
  /** For directed coupling maps: whether CX may run with control c and target t. */
  allowed?: (c: number, t: number) => boolean;
  qregs?: Register[];
  cregs: Register[];
  numClbits: number;
}

/** The working form as a circuit over the basis. */
export function emit(ir: Ir, basis: Basis, o: EmitOptions): Circuit {
  const lowered = lowerCx(ir, basis, o.allowed);
  const runs = emitRuns(lowered.ops, basis, o.fuse);
  return {
    numQubits: ir.n,
    numClbits: o.numClbits,
    qregs: o.qregs ?? (ir.n ? [{ name: 'q', size: ir.n, offset: 0 }] : []),
    cregs: o.cregs,
    ops: runs.ops,
    globalPhase: cleanPhase(ir.phase + lowered.phase + runs.phase),
  };
}
