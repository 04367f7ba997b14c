/**
 * Context-chosen Toffoli decompositions (level 3): a Toffoli that is undone later by the same
 * Toffoli, with everything between using its three qubits only as controls or under diagonal
 * gates, may be replaced (both copies) by a Toffoli times a
 * diagonal gate D: the pair is CCX D M D^dagger CCX = CCX M CCX, because a diagonal D on
 * (a, b, c) commutes with any M that acts on c block-diagonally and not at all on a and b.
 * The relative-phase Toffoli of Margolus (`rccx`: 3 CX and 4 T instead of 6 CX and 7 T) is
 * such a gate. Compute-uncompute pairs like these fill the Toffoli-ladder benchmarks.
 */
import type { Circuit, GateOp, Operation } from '../circuit.ts';

/** Gates whose qubits before the last `k` (their controls) may each be any wire of M. */
const CONTROLS: Record<string, number> = {
  cx: 1, CX: 1, cnot: 1, cy: 1, ch: 1, cs: 1, csdg: 1, csx: 1, crx: 1, cry: 1, cu3: 1, cu: 1,
  ccx: 2, toffoli: 2, c3x: 3, c3sqrtx: 3, c4x: 4,
};
/** Diagonal gates: every qubit is acted on diagonally. */
const DIAGONAL = new Set(['id', 'i', 'z', 's', 'sdg', 't', 'tdg', 'rz', 'p', 'u1', 'phase', 'cz', 'cp', 'cu1', 'cphase', 'crz', 'rzz', 'ccz', 'cs', 'csdg']);

const qubitsOf = (op: Operation): number[] => (op.kind === 'measure' || op.kind === 'reset' ? [op.qubit] : op.qubits);

/** Whether `op` acts on wire c block-diagonally (as a control or a diagonal gate). */
function diagonalOn(op: Operation, c: number): boolean {
  if (op.kind !== 'gate' || op.condition) return false;
  if (DIAGONAL.has(op.name)) return true;
  const pos = op.qubits.indexOf(c);
  const controls = (op.controls ?? 0) + (op.name === 'mcx' ? op.qubits.length - 1 : (CONTROLS[op.name] ?? 0));
  return pos >= 0 && pos < controls;
}

interface Toffoli {
  a: number;
  b: number;
  c: number;
  /** op indices it is made of; main is the one on a and b */
  parts: number[];
  main: number;
}

/** Whether op is the named table gate with no condition and no added controls. */
const plain = (op: Operation | undefined, name: string): boolean =>
  !!op && op.kind === 'gate' && op.name === name && !op.condition && !op.controls;

function gate(name: string, qubits: number[]): GateOp {
  return { kind: 'gate', name, qubits, params: [] };
}

/**
 * The relative-phase Toffoli (qelib1's `rccx`, CCX times a diagonal), as table gates. It is
 * its own inverse: reversing the sequence and exchanging T with T^dagger gives it back.
 */
function margolus(a: number, b: number, c: number): GateOp[] {
  return [
    gate('h', [c]), gate('t', [c]), gate('cx', [b, c]), gate('tdg', [c]), gate('cx', [a, c]),
    gate('t', [c]), gate('cx', [b, c]), gate('tdg', [c]), gate('h', [c]),
  ];
}

/**
 * Returns the circuit with every such Toffoli pair replaced, or null when there is none.
 * Toffolis are `ccx` gates or `ccz` between two `h` on one of its qubits.
 */
export function relativePhaseToffolis(circuit: Circuit): Circuit | null {
  const ops = circuit.ops;
  const wires: number[][] = Array.from({ length: circuit.numQubits }, () => []);
  const pos: Array<Map<number, number>> = Array.from({ length: circuit.numQubits }, () => new Map());
  ops.forEach((op, i) => {
    for (const q of qubitsOf(op)) {
      pos[q].set(i, wires[q].length);
      wires[q].push(i);
    }
  });
  const near = (q: number, i: number, d: number): number | undefined => wires[q][(pos[q].get(i) as number) + d];
  const toffolis: Toffoli[] = [];
  const byMain = new Map<number, Toffoli>();
  const usedH = new Set<number>();
  ops.forEach((op, i) => {
    if (op.kind !== 'gate') return;
    if (plain(op, 'ccx') || plain(op, 'toffoli')) {
      const t: Toffoli = { a: op.qubits[0], b: op.qubits[1], c: op.qubits[2], parts: [i], main: i };
      toffolis.push(t);
      byMain.set(i, t);
    } else if (plain(op, 'ccz')) {
      for (const c of op.qubits) {
        const p = near(c, i, -1);
        const n = near(c, i, 1);
        if (p === undefined || n === undefined || usedH.has(p) || usedH.has(n)) continue;
        if (!plain(ops[p], 'h') || !plain(ops[n], 'h')) continue;
        const [a, b] = op.qubits.filter((q) => q !== c);
        const t: Toffoli = { a, b, c, parts: [p, i, n], main: i };
        usedH.add(p).add(n);
        toffolis.push(t);
        byMain.set(i, t);
        break;
      }
    }
  });
  const replace = new Map<number, GateOp[]>();
  const drop = new Set<number>();
  const paired = new Set<Toffoli>();
  const same = (t: Toffoli, u: Toffoli): boolean => t.c === u.c && new Set([t.a, t.b, u.a, u.b]).size === 2;
  /**
   * The next op on wire q after op i that does not act on q block-diagonally, or is a Toffoli
   * on the same qubits as t (or undefined).
   */
  const nextBlocking = (q: number, i: number, t: Toffoli): number | undefined => {
    for (let k = (pos[q].get(i) as number) + 1; k < wires[q].length; k++) {
      const j = wires[q][k];
      const u = byMain.get(j);
      if (!diagonalOn(ops[j], q) || (u && same(t, u))) return j;
    }
    return undefined;
  };
  for (const t1 of toffolis) {
    if (paired.has(t1)) continue;
    // Everything between the two on a, b and c must act there block-diagonally (as a control
    // or a diagonal gate), so that it commutes with any diagonal gate on (a, b, c).
    const na = nextBlocking(t1.a, t1.main, t1);
    const nb = nextBlocking(t1.b, t1.main, t1);
    if (na === undefined || na !== nb) continue;
    const t2 = byMain.get(na);
    if (!t2 || paired.has(t2) || !same(t1, t2)) continue;
    if (nextBlocking(t1.c, t1.parts[t1.parts.length - 1], t1) !== t2.parts[0]) continue;
    paired.add(t1).add(t2);
    // rccx is not symmetric in its controls: both copies take the first one's order.
    for (const t of [t1, t2]) {
      for (const p of t.parts) drop.add(p);
      replace.set(t.main, margolus(t1.a, t1.b, t1.c));
    }
  }
  if (paired.size === 0) return null;
  const out: Operation[] = [];
  ops.forEach((op, i) => {
    const r = replace.get(i);
    if (r) out.push(...r);
    else if (!drop.has(i)) out.push(op);
  });
  return { ...circuit, ops: out };
}
