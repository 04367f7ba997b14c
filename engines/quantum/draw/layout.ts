/**
 * Where each operation of a circuit goes in a drawing: operations are packed left to right into
 * columns, each in the first column after every wire it crosses is free (as a person draws one).
 * An operation blocks every wire between its lowest and highest qubit, since its vertical line
 * crosses them; a measurement blocks every wire below its qubit, since its line runs down to the
 * classical register. The SVG and the text diagram share this layout, so they agree.
 */
import type { Circuit, Condition, Operation, Register } from '../circuit.ts';
import { gateInfo } from '../gates.ts';

export type Part =
  /** A filled dot: a control (or the target of a cz, which is symmetric). */
  | { kind: 'control'; qubit: number }
  /** The ⊕ of an X target. */
  | { kind: 'plus'; qubit: number }
  /** The × of a swap. */
  | { kind: 'swap'; qubit: number }
  /** A labelled box over the wires first..last. */
  | { kind: 'box'; first: number; last: number; label: string; qubits: number[] }
  | { kind: 'measure'; qubit: number; creg: number; bit: number }
  | { kind: 'barrier'; first: number; last: number };

export interface Placed {
  op: Operation;
  /** Index of the operation in circuit.ops. */
  index: number;
  column: number;
  kind: 'gate' | 'measure' | 'reset' | 'barrier';
  /** Gate name as written in the circuit (`cx`, `unitary` for explicit matrices). */
  name: string;
  parts: Part[];
  /** Lowest and highest qubit the vertical line spans (a measurement runs to the bottom). */
  top: number;
  bottom: number;
  /** Text of a classical condition (`if c==1`), if any. */
  condition?: string;
  /** One line describing the operation (SVG hover text). */
  title: string;
}

export interface Layout {
  numQubits: number;
  qregs: Register[];
  cregs: Register[];
  columns: number;
  placed: Placed[];
  /** Qubit labels, `q[0]` style. */
  qubitLabels: string[];
}

const PI = Math.PI;

/** An angle as a readable multiple of π when it is one (π/2, -3π/4, 2π), else 3 significant digits. */
export function formatParam(x: number): string {
  if (x === 0) return '0';
  for (const den of [1, 2, 3, 4, 6, 8, 16]) {
    const num = (x * den) / PI;
    const r = Math.round(num);
    if (r !== 0 && Math.abs(num - r) < 1e-9 && Math.abs(r) <= 64) {
      const sign = r < 0 ? '-' : '';
      const n = Math.abs(r);
      const top = n === 1 ? 'π' : `${n}π`;
      return den === 1 ? `${sign}${top}` : `${sign}${top}/${den}`;
    }
  }
  const s = Math.abs(x) >= 100 || Math.abs(x) < 0.01 ? x.toPrecision(3) : String(Number(x.toPrecision(3)));
  return s;
}

/** The displayed name of a gate: one-letter names in capitals (H, X), others as written (rz, sdg). */
export function displayName(name: string): string {
  return name.length === 1 ? name.toUpperCase() : name;
}

function label(name: string, params: number[]): string {
  return params.length ? `${displayName(name)}(${params.map(formatParam).join(',')})` : displayName(name);
}

function regOf(regs: Register[], index: number): { reg: number; bit: number } {
  for (let r = 0; r < regs.length; r++) {
    const g = regs[r]!;
    if (index >= g.offset && index < g.offset + g.size) return { reg: r, bit: index - g.offset };
  }
  return { reg: Math.max(0, regs.length - 1), bit: index };
}

function conditionText(cond: Condition, cregs: Register[]): string {
  const sorted = [...cond.clbits];
  const whole = cregs.find((r) => r.size === sorted.length && sorted.every((b, i) => b === r.offset + i));
  if (whole) return `if ${whole.name}==${cond.value}`;
  const names = cond.clbits.map((b) => {
    const { reg, bit } = regOf(cregs, b);
    return `${cregs[reg]?.name ?? 'c'}[${bit}]`;
  });
  return `if ${names.length === 1 ? names[0] : `(${names.join(',')})`}==${cond.value}`;
}

function qubitLabel(regs: Register[], q: number): string {
  const { reg, bit } = regOf(regs, q);
  return `${regs[reg]?.name ?? 'q'}[${bit}]`;
}

/** What an operation looks like: its parts on the wires, before it is given a column. */
function describe(op: Operation, index: number, c: Circuit): Omit<Placed, 'column'> {
  const qLabel = (q: number) => qubitLabel(c.qregs, q);
  const condition = 'condition' in op && op.condition ? conditionText(op.condition, c.cregs) : undefined;
  const withCond = (t: string) => (condition ? `${t} ${condition}` : t);
  if (op.kind === 'measure') {
    const { reg, bit } = regOf(c.cregs, op.clbit);
    return {
      op, index, kind: 'measure', name: 'measure', top: op.qubit, bottom: c.numQubits - 1, condition,
      parts: [{ kind: 'measure', qubit: op.qubit, creg: reg, bit }],
      title: withCond(`measure ${qLabel(op.qubit)} -> ${c.cregs[reg]?.name ?? 'c'}[${bit}]`),
    };
  }
  if (op.kind === 'reset') {
    return {
      op, index, kind: 'reset', name: 'reset', top: op.qubit, bottom: op.qubit, condition,
      parts: [{ kind: 'box', first: op.qubit, last: op.qubit, label: '|0⟩', qubits: [op.qubit] }],
      title: withCond(`reset ${qLabel(op.qubit)}`),
    };
  }
  if (op.kind === 'barrier') {
    const qs = op.qubits.length ? op.qubits : Array.from({ length: c.numQubits }, (_, i) => i);
    const first = Math.min(...qs);
    const last = Math.max(...qs);
    return { op, index, kind: 'barrier', name: 'barrier', top: first, bottom: last, parts: [{ kind: 'barrier', first, last }], title: `barrier ${qs.map(qLabel).join(', ')}` };
  }
  const name = op.kind === 'gate' ? op.name : 'unitary';
  const params = op.kind === 'gate' ? op.params : [];
  const qubits = op.qubits;
  const title = withCond(`${op.kind === 'gate' ? label(name, params) : `unitary ${op.label}`} ${qubits.map(qLabel).join(', ')}`);
  const top = Math.min(...qubits);
  const bottom = Math.max(...qubits);
  const parts: Part[] = [];
  if (op.kind === 'unitary') {
    parts.push({ kind: 'box', first: top, last: bottom, label: op.label || 'U', qubits });
  } else {
    const info = gateInfo(name);
    // Controls from the gate itself (cx: 1) and from `ctrl @` modifiers, the base gate on the rest.
    const own = info?.numControls ?? 0;
    const extra = op.controls ?? 0;
    const nControls = extra + (info?.base ? own : 0);
    const baseName = info?.base && own > 0 ? info.base : name;
    const baseParams = params;
    for (const q of qubits.slice(0, nControls)) parts.push({ kind: 'control', qubit: q });
    const targets = qubits.slice(nControls);
    if (nControls > 0 && baseName === 'x' && targets.length === 1) parts.push({ kind: 'plus', qubit: targets[0]! });
    else if (nControls > 0 && baseName === 'z' && targets.length === 1) parts.push({ kind: 'control', qubit: targets[0]! });
    else if (baseName === 'swap' && targets.length === 2) for (const q of targets) parts.push({ kind: 'swap', qubit: q });
    else if (targets.length) {
      parts.push({ kind: 'box', first: Math.min(...targets), last: Math.max(...targets), label: label(baseName, baseParams), qubits: targets });
    }
  }
  return { op, index, kind: 'gate', name, top, bottom, parts, condition, title };
}

/** Packs the circuit's operations into columns. */
export function layoutCircuit(c: Circuit): Layout {
  const free = new Array<number>(Math.max(1, c.numQubits)).fill(0);
  // A condition reads classical bits, so it waits for the measurements before it.
  let lastMeasureColumn = -1;
  const placed: Placed[] = [];
  c.ops.forEach((op, index) => {
    const d = describe(op, index, c);
    let column = 0;
    for (let q = d.top; q <= d.bottom; q++) column = Math.max(column, free[q] ?? 0);
    if (d.condition) column = Math.max(column, lastMeasureColumn + 1);
    for (let q = d.top; q <= d.bottom; q++) free[q] = column + 1;
    if (d.kind === 'measure') lastMeasureColumn = Math.max(lastMeasureColumn, column);
    placed.push({ ...d, column });
  });
  const columns = placed.reduce((m, p) => Math.max(m, p.column + 1), 0);
  const qubitLabels = Array.from({ length: c.numQubits }, (_, q) => qubitLabel(c.qregs, q));
  return { numQubits: c.numQubits, qregs: c.qregs, cregs: c.cregs, columns, placed, qubitLabels };
}
