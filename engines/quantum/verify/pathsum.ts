/**
 * Sum-over-paths form of a circuit of CX, X, diagonal and H-type gates, after Amy ("Towards
 * large-scale functional verification of universal quantum circuits", QPL 2018): the operator
 * maps |x> to 2^{-h/2} sum over path bits y of e^{i phi(x, y)} |f(x, y)>, where every wire's
 * value f is an affine parity of the input and path variables and phi is a sum of angles times
 * parities ("Fourier" form, theta [v_1 + ... + v_k]). CX and X change the parities, a diagonal
 * gate adds a term, and an H-type gate starts a new path variable. A path variable that no wire
 * holds any more is summed out when every term that contains it has an angle in (pi/2)Z (the
 * HH rule): the sum is then twice a Kronecker delta on an affine function, which a second
 * path variable is solved for. For the Clifford+T arithmetic circuits this keeps V^dagger U
 * small when U and V agree, however many qubits they have.
 */
import { isConstantPhaseForm } from './phase-form.ts';

/** A parity: the sorted ids of the variables it sums. */
type Parity = number[];

interface Term {
  vars: Parity;
  /** Angle in radians, in (-pi, pi]. */
  coef: number;
}

interface Wire {
  vars: Parity;
  /** The affine constant: the wire holds vars + c. */
  c: number;
}

const TAU = 2 * Math.PI;
/** Angles closer than this to a multiple of the unit asked for count as that multiple. */
const TOL = 1e-9;

const wrap = (a: number): number => {
  const r = a - TAU * Math.round(a / TAU);
  return r <= -Math.PI + TOL ? r + TAU : r;
};

/** Whether `a` is an integer multiple of `unit` (up to TOL); that multiple, or null. */
function multipleOf(a: number, unit: number): number | null {
  const k = Math.round(a / unit);
  return Math.abs(a - k * unit) < TOL ? k : null;
}

/** Symmetric difference of two sorted parities. */
export function xorParity(a: Parity, b: Parity): Parity {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! < b[j]!)) out.push(a[i++]!);
    else if (i >= a.length || b[j]! < a[i]!) out.push(b[j++]!);
    else {
      i++;
      j++;
    }
  }
  return out;
}

const keyOf = (p: Parity): string => p.join(',');

export class PathSum {
  readonly wires: Wire[];
  /** Constant phase (radians). */
  global = 0;
  /** log2 of the amplitude's scale: -1/2 per H-type gate, +1 per variable summed out. */
  log2scale = 0;
  private readonly terms = new Map<string, Term>();
  /** For each variable, the keys of the terms that contain it. */
  private readonly byVar = new Map<number, Set<string>>();
  private readonly path = new Set<number>();
  /** Path variables no wire holds that could not be summed out yet. */
  private readonly pending = new Set<number>();
  private nextVar: number;

  /**
   * `inputs[q]` is true where wire q starts as its own input variable (id q), false where it
   * starts in |0> (an ancilla).
   */
  constructor(inputs: boolean[]) {
    this.wires = inputs.map((free, q) => ({ vars: free ? [q] : [], c: 0 }));
    this.nextVar = inputs.length;
  }

  get pathVariables(): number {
    return this.path.size;
  }

  get termCount(): number {
    return this.terms.size;
  }

  cx(c: number, t: number): void {
    const before = this.wires[t]!.vars;
    this.wires[t] = { vars: xorParity(before, this.wires[c]!.vars), c: this.wires[t]!.c ^ this.wires[c]!.c };
    this.settle(before);
  }

  x(q: number): void {
    this.wires[q]!.c ^= 1;
  }

  /** diag(e^{ia}, e^{ib}) on wire q. */
  diagonal(q: number, a: number, b: number): void {
    const w = this.wires[q]!;
    this.global += a;
    this.add(w.vars, w.c, b - a);
  }

  /** H on wire q: a new path variable z, the phase pi f z with f the wire's value. */
  hadamard(q: number): void {
    const w = this.wires[q]!;
    const z = this.nextVar++;
    this.path.add(z);
    this.log2scale -= 0.5;
    // pi f z = pi/2 [f] + pi/2 [z] - pi/2 [f + z] for bits.
    this.add(w.vars, w.c, Math.PI / 2);
    this.add([z], 0, Math.PI / 2);
    this.add(xorParity(w.vars, [z]), w.c, -Math.PI / 2);
    this.wires[q] = { vars: [z], c: 0 };
    this.settle(w.vars);
  }

  /** Tries again every path variable left over, until none can be summed out. */
  finish(): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const y of [...this.pending]) if (this.pending.has(y) && this.eliminate(y)) changed = true;
    }
  }

  /** The phase terms, angles normalised (terms of angle pi split into single variables). */
  phaseTerms(): Term[] {
    const out = new Map<string, Term>();
    const put = (vars: Parity, coef: number): void => {
      const key = keyOf(vars);
      const c = wrap((out.get(key)?.coef ?? 0) + coef);
      if (Math.abs(c) < TOL) out.delete(key);
      else out.set(key, { vars, coef: c });
    };
    for (const t of this.terms.values()) {
      // pi [v1 + ... + vk] = pi v1 + ... + pi vk (mod 2 pi).
      if (t.vars.length > 1 && Math.abs(Math.abs(t.coef) - Math.PI) < TOL) for (const v of t.vars) put([v], Math.PI);
      else put(t.vars, t.coef);
    }
    return [...out.values()];
  }

  /** Adds coef [vars + cst] to the phase. */
  private add(vars: Parity, cst: number, coef: number): void {
    if (cst) {
      this.global += coef;
      coef = -coef;
    }
    if (!vars.length) return;
    const key = keyOf(vars);
    const old = this.terms.get(key);
    const c = wrap((old?.coef ?? 0) + coef);
    if (Math.abs(c) < TOL) {
      if (old) {
        this.terms.delete(key);
        for (const v of vars) this.byVar.get(v)?.delete(key);
      }
      return;
    }
    if (old) old.coef = c;
    else {
      this.terms.set(key, { vars, coef: c });
      for (const v of vars) {
        let s = this.byVar.get(v);
        if (!s) this.byVar.set(v, (s = new Set()));
        s.add(key);
      }
    }
  }

  private remove(key: string): Term {
    const t = this.terms.get(key)!;
    this.terms.delete(key);
    for (const v of t.vars) this.byVar.get(v)?.delete(key);
    return t;
  }

  private onWire(v: number): boolean {
    return this.wires.some((w) => w.vars.includes(v));
  }

  /** Sums out the path variables among `left` that no wire holds any more. */
  private settle(left: Parity): void {
    for (const y of left) if (this.path.has(y) && !this.onWire(y) && !this.eliminate(y)) this.pending.add(y);
  }

  /**
   * The HH rule on path variable y (held by no wire): with every term containing y of angle
   * c_g in (pi/2)Z on y + g, and their sum C in pi Z, the sum over y is 2 e^{i sum c_g [g]}
   * when F = C/pi + (the g of odd c_g / (pi/2)) is 0 mod 2, and 0 otherwise. F is solved for
   * one of its path variables, substituted everywhere. False (nothing changed) when the rule
   * does not apply.
   */
  private eliminate(y: number): boolean {
    if (this.onWire(y)) {
      // A substitution put it back on a wire: it is tried again when it leaves.
      this.pending.delete(y);
      return false;
    }
    const keys = [...(this.byVar.get(y) ?? [])];
    let C = 0;
    let F: Parity = [];
    for (const key of keys) {
      const t = this.terms.get(key)!;
      const k = multipleOf(t.coef, Math.PI / 2);
      if (k === null) return false;
      C += t.coef;
      if (k % 2 !== 0) F = xorParity(F, t.vars);
    }
    const halfTurns = multipleOf(C, Math.PI);
    if (halfTurns === null) return false;
    if (F.includes(y)) F = xorParity(F, [y]);
    const Fc = ((halfTurns % 2) + 2) % 2;
    let z = -1;
    for (const v of F) if (this.path.has(v) && v !== y) z = Math.max(z, v);
    if (z < 0 && (F.length || Fc)) return false;
    // e^{i sum c_g [y + g]} at y = 0 is e^{i sum c_g [g]}: the same under F = 0.
    for (const key of keys) {
      const t = this.remove(key);
      this.add(xorParity(t.vars, [y]), 0, t.coef);
    }
    this.path.delete(y);
    this.pending.delete(y);
    this.byVar.delete(y);
    this.log2scale += 1;
    if (z < 0) return true;
    // z = (F without z) + Fc: every term and wire holding z gets F added (z cancels).
    const touched = new Set<number>();
    for (const key of [...(this.byVar.get(z) ?? [])]) {
      const t = this.remove(key);
      const vars = xorParity(t.vars, F);
      for (const v of vars) touched.add(v);
      this.add(vars, Fc, t.coef);
    }
    const left: number[] = [];
    for (const w of this.wires) {
      if (w.vars.includes(z)) {
        const vars = xorParity(w.vars, F);
        for (const v of w.vars) if (v !== z && !vars.includes(v)) left.push(v);
        w.vars = vars;
        w.c ^= Fc;
      }
    }
    this.path.delete(z);
    this.pending.delete(z);
    this.byVar.delete(z);
    // Terms changed: variables waiting for their terms to allow the rule may now pass, and
    // variables that left a wire may be summed out.
    for (const v of touched) if (this.pending.has(v)) this.eliminate(v);
    this.settle(left.filter((v) => this.path.has(v)));
    return true;
  }
}

/**
 * Whether a phase sum_S c_S [x_S] with every c_S a multiple of pi/4 is constant, on its unique
 * multilinear form over Z_8 (phase-form.ts); null when an angle is not a multiple of pi/4.
 */
export function isConstantPhase(terms: Array<{ vars: Parity; coef: number }>): boolean | null {
  const index = new Map<number, number>();
  for (const t of terms) for (const v of t.vars) if (!index.has(v)) index.set(v, index.size);
  const words = Math.max(1, Math.ceil(index.size / 32));
  const form: Array<{ p: Uint32Array; k: number }> = [];
  for (const t of terms) {
    const k = multipleOf(t.coef, Math.PI / 4);
    if (k === null) return null;
    const p = new Uint32Array(words);
    for (const v of t.vars) {
      const i = index.get(v)!;
      p[i >>> 5] |= 1 << (i & 31);
    }
    form.push({ p, k: ((k % 8) + 8) % 8 });
  }
  return isConstantPhaseForm(form, index.size);
}
