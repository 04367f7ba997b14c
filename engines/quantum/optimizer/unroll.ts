/** Lowers a circuit's gates to the optimizer's working form ({1q matrix, CX}), exactly, phase tracked. */
import type { Circuit, GateOp, Operation } from '../circuit.ts';
import { scalePhase, type Mat } from './complex.ts';
import { controlled1q, controlledPhase, type Builder } from './controlled.ts';
import { matrix1q, phase, rx, rz, u3 } from './gates1q.ts';
import type { Ir, IrOp } from './ir.ts';

const PI = Math.PI;
const fixed = (n: string): Mat => matrix1q(n, []) as Mat;

/** Gates that are a named 1q gate with leading controls: name -> [controls, matrix of params]. */
const CONTROLLED: Record<string, [number, (p: number[]) => Mat]> = {
  cx: [1, () => fixed('x')],
  CX: [1, () => fixed('x')],
  cnot: [1, () => fixed('x')],
  cy: [1, () => fixed('y')],
  cz: [1, () => fixed('z')],
  ch: [1, () => fixed('h')],
  cs: [1, () => fixed('s')],
  csdg: [1, () => fixed('sdg')],
  csx: [1, () => fixed('sx')],
  crx: [1, (p) => matrix1q('rx', p) as Mat],
  cry: [1, (p) => matrix1q('ry', p) as Mat],
  crz: [1, (p) => matrix1q('rz', p) as Mat],
  cp: [1, (p) => phase(p[0])],
  cu1: [1, (p) => phase(p[0])],
  cphase: [1, (p) => phase(p[0])],
  cu3: [1, (p) => u3(p[0], p[1], p[2])],
  cu: [1, (p) => scalePhase(u3(p[0], p[1], p[2]), p[3] ?? 0)],
  ccx: [2, () => fixed('x')],
  toffoli: [2, () => fixed('x')],
  ccz: [2, () => fixed('z')],
  c3x: [3, () => fixed('x')],
  c3sqrtx: [3, () => fixed('sx')],
  c4x: [4, () => fixed('x')],
};

type Emit = (b: Builder, q: number[], p: number[]) => void;
const uu = (b: Builder, q: number, m: Mat): void => void b.ops.push({ k: 'u', q, m });
const cx = (b: Builder, c: number, t: number): void => void b.ops.push({ k: 'cx', c, t });

/** Other multi-qubit gates, as their standard definitions. */
const DEFINED: Record<string, Emit> = {
  swap: (b, [x, y]) => (cx(b, x, y), cx(b, y, x), cx(b, x, y)),
  dcx: (b, [x, y]) => (cx(b, x, y), cx(b, y, x)),
  iswap: (b, [x, y]) => {
    uu(b, x, fixed('s')); uu(b, y, fixed('s')); uu(b, x, fixed('h'));
    cx(b, x, y); cx(b, y, x); uu(b, y, fixed('h'));
  },
  rzz: (b, [x, y], [t]) => (cx(b, x, y), uu(b, y, rz(t)), cx(b, x, y)),
  rxx: (b, [x, y], [t]) => {
    const h = fixed('h');
    uu(b, x, h); uu(b, y, h); cx(b, x, y); uu(b, y, rz(t)); cx(b, x, y); uu(b, x, h); uu(b, y, h);
  },
  ryy: (b, [x, y], [t]) => {
    uu(b, x, rx(PI / 2)); uu(b, y, rx(PI / 2)); cx(b, x, y); uu(b, y, rz(t)); cx(b, x, y);
    uu(b, x, rx(-PI / 2)); uu(b, y, rx(-PI / 2));
  },
  rzx: (b, [x, y], [t]) => {
    const h = fixed('h');
    uu(b, y, h); cx(b, x, y); uu(b, y, rz(t)); cx(b, x, y); uu(b, y, h);
  },
  ecr: (b, q) => {
    DEFINED.rzx(b, q, [PI / 4]);
    uu(b, q[0], fixed('x'));
    DEFINED.rzx(b, q, [-PI / 4]);
  },
  cswap: (b, [c, x, y]) => {
    cx(b, y, x);
    controlled1q(b, [c, x], y, fixed('x'));
    cx(b, y, x);
  },
  rccx: (b, [a, bb, c]) => {
    const h = fixed('h');
    uu(b, c, h); uu(b, c, phase(PI / 4)); cx(b, bb, c); uu(b, c, phase(-PI / 4)); cx(b, a, c);
    uu(b, c, phase(PI / 4)); cx(b, bb, c); uu(b, c, phase(-PI / 4)); uu(b, c, h);
  },
  rc3x: (b, [a, bb, c, d]) => {
    const h = fixed('h');
    const t = phase(PI / 4);
    const td = phase(-PI / 4);
    uu(b, d, h); uu(b, d, t); cx(b, c, d); uu(b, d, td); uu(b, d, h);
    cx(b, a, d); uu(b, d, t); cx(b, bb, d); uu(b, d, td); cx(b, a, d); uu(b, d, t); cx(b, bb, d); uu(b, d, td);
    uu(b, d, h); uu(b, d, t); cx(b, c, d); uu(b, d, td); uu(b, d, h);
  },
};

/** Supplies matrices for gates this table lacks (the engine's gate table, when present). */
export type MatrixFallback = (name: string, params: number[]) => Mat | null;

function emitGate(b: Builder, g: GateOp, fallback?: MatrixFallback): void {
  const extra = g.controls ?? 0;
  const ctrls = g.qubits.slice(0, extra);
  const own = g.qubits.slice(extra);
  if (g.name === 'gphase') return controlledPhase(b, ctrls, g.params[0]);
  const m1 = own.length === 1 ? matrix1q(g.name, g.params) : null;
  if (m1) return controlled1q(b, ctrls, own[0], m1);
  const cdef = CONTROLLED[g.name];
  if (g.name === 'mcx' || (cdef && cdef[0] === own.length - 1)) {
    const m = g.name === 'mcx' ? fixed('x') : cdef[1](g.params);
    return controlled1q(b, [...ctrls, ...own.slice(0, -1)], own[own.length - 1], m);
  }
  const def = DEFINED[g.name];
  let sub: Builder;
  if (def) {
    sub = { ops: [], phase: 0 };
    def(sub, own, g.params);
  } else {
    const m = fallback?.(g.name, g.params) ?? null;
    if (!m || m.length !== 2 * 4 ** own.length || own.length > 2) {
      throw new Error(`the optimizer cannot decompose gate '${g.name}' on ${own.length} qubits`);
    }
    sub = { ops: [own.length === 1 ? { k: 'u', q: own[0], m } : { k: 'u2', q: [own[0], own[1]], m }], phase: 0 };
  }
  if (extra === 0) {
    b.ops.push(...sub.ops);
    b.phase += sub.phase;
    return;
  }
  for (const op of sub.ops) {
    if (op.k === 'u') controlled1q(b, ctrls, op.q, op.m);
    else if (op.k === 'cx') controlled1q(b, [...ctrls, op.c], op.t, fixed('x'));
    else throw new Error(`the optimizer cannot add controls to gate '${g.name}'`);
  }
  controlledPhase(b, ctrls, sub.phase);
}

function qubitsOfOp(op: Operation): number[] {
  switch (op.kind) {
    case 'measure':
    case 'reset':
      return [op.qubit];
    default:
      return op.qubits;
  }
}

/** The circuit in working form. Conditioned gates keep their condition on every piece. */
export function unroll(c: Circuit, fallback?: MatrixFallback): Ir {
  const out: IrOp[] = [];
  let ph = c.globalPhase;
  for (const op of c.ops) {
    if (op.kind === 'gate' || op.kind === 'unitary') {
      const b: Builder = { ops: [], phase: 0 };
      if (op.kind === 'gate') emitGate(b, op, fallback);
      else if (op.qubits.length === 1) b.ops.push({ k: 'u', q: op.qubits[0], m: op.matrix });
      else if (op.qubits.length === 2) b.ops.push({ k: 'u2', q: [op.qubits[0], op.qubits[1]], m: op.matrix });
      else throw new Error(`the optimizer cannot synthesize a ${op.qubits.length}-qubit unitary ('${op.label}')`);
      // A phase under a classical condition is unobservable (the branches never interfere).
      if (op.condition) {
        for (const o of b.ops) if (o.k !== 'op') o.cond = op.condition;
      } else ph += b.phase;
      out.push(...b.ops);
    } else {
      out.push({ k: 'op', qs: qubitsOfOp(op), op });
    }
  }
  return { n: c.numQubits, ops: out, phase: ph };
}
