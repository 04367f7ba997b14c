/** Single-qubit synthesis: Euler angles of a 2x2 unitary and its shortest form in a 1q gate set. */
import { det2, identity, mul, phaseBetween, type Mat } from './complex.ts';
import { FIXED_1Q, matrix1q } from './gates1q.ts';

const EPS = 1e-10;

/** A basis gate instance produced by synthesis. */
export interface Gate1 {
  name: string;
  params: number[];
}

/** U = e^{i alpha} Rz(phi) Ry(theta) Rz(lambda). */
export interface Zyz {
  theta: number;
  phi: number;
  lambda: number;
  alpha: number;
}

export function zyz(u: Mat): Zyz {
  const [dr, di] = det2(u);
  const alpha = Math.atan2(di, dr) / 2;
  // V = e^{-i alpha} U is in SU(2): V = [[a, -conj(b)], [b, conj(a)]].
  const c = Math.cos(-alpha);
  const s = Math.sin(-alpha);
  const ar = u[0] * c - u[1] * s;
  const ai = u[0] * s + u[1] * c;
  const br = u[4] * c - u[5] * s;
  const bi = u[4] * s + u[5] * c;
  const ma = Math.hypot(ar, ai);
  const mb = Math.hypot(br, bi);
  const theta = 2 * Math.atan2(mb, ma);
  const argA = Math.atan2(ai, ar);
  const argB = Math.atan2(bi, br);
  let sum = -2 * argA; // phi + lambda
  let diff = 2 * argB; // phi - lambda
  if (mb < EPS) diff = 0;
  if (ma < EPS) sum = 0;
  return { theta, phi: (sum + diff) / 2, lambda: (sum - diff) / 2, alpha };
}

function isZeroAngle(a: number): boolean {
  // rz(2 pi k) is a global phase; the caller recomputes the phase from the product.
  const r = Math.abs(a % (2 * Math.PI));
  return r < EPS || Math.abs(r - 2 * Math.PI) < EPS;
}

function near(a: number, b: number): boolean {
  const d = (((a - b) % (2 * Math.PI)) + 3 * Math.PI) % (2 * Math.PI) - Math.PI;
  return Math.abs(d) < 1e-9;
}

/** How a gate set spells single-qubit gates. */
export interface OneQubitSet {
  names: Set<string>;
  /** The diagonal rotation name: rz, p, u1 or phase (null when absent). */
  zName: string | null;
}

export function oneQubitSet(basis: Iterable<string>): OneQubitSet {
  const names = new Set(basis);
  const zName = ['rz', 'p', 'u1', 'phase'].find((n) => names.has(n)) ?? null;
  return { names, zName };
}

type Candidate = Gate1[];

function z(set: OneQubitSet, a: number): Gate1[] {
  if (isZeroAngle(a)) return [];
  return [{ name: set.zName as string, params: [a] }];
}

/** Candidate gate sequences (in time order) for U in the given set; more than one may fit. */
function candidates(u: Mat, set: OneQubitSet): Candidate[] {
  const out: Candidate[] = [];
  const { names, zName } = set;
  const { theta, phi, lambda } = zyz(u);
  const diagonal = Math.abs(Math.sin(theta / 2)) < EPS;
  for (const f of FIXED_1Q) if (names.has(f) && phaseBetween(u, matrix1q(f, []) as Mat, 1e-9) !== null) out.push([{ name: f, params: [] }]);
  const uName = ['u3', 'u', 'U'].find((n) => names.has(n));
  if (uName) out.push([{ name: uName, params: [theta, phi, lambda] }]);
  if (names.has('u2') && near(theta, Math.PI / 2)) out.push([{ name: 'u2', params: [phi, lambda] }]);
  if (names.has('r')) out.push([{ name: 'r', params: [theta, Math.PI / 2 - lambda] }, ...(zName ? z(set, phi + lambda) : [])]);
  if (zName && diagonal) out.push(z(set, phi + lambda));
  if (zName) {
    // U ~ Rz(phi + pi/2) Rx(theta) Rz(lambda - pi/2), in time order the reverse.
    const a = lambda - Math.PI / 2;
    const b = phi + Math.PI / 2;
    if (names.has('ry')) out.push([...z(set, lambda), { name: 'ry', params: [theta] }, ...z(set, phi)]);
    if (names.has('rx')) out.push([...z(set, a), { name: 'rx', params: [theta] }, ...z(set, b)]);
    if (names.has('x') && near(theta, Math.PI)) out.push([{ name: 'x', params: [] }, ...z(set, phi - lambda + Math.PI)]);
    if (names.has('sx') || names.has('sxdg')) {
      const sx = names.has('sx') ? 'sx' : 'sxdg';
      const sgn = sx === 'sx' ? 1 : -1;
      if (near(theta, Math.PI / 2)) out.push([...z(set, lambda - sgn * Math.PI / 2), { name: sx, params: [] }, ...z(set, phi + sgn * Math.PI / 2)]);
      if (near(theta, -Math.PI / 2) || near(theta, 3 * Math.PI / 2))
        out.push([...z(set, lambda + sgn * Math.PI / 2), { name: sx, params: [] }, ...z(set, phi - sgn * Math.PI / 2)]);
      // Rx(theta) ~ SX Rz(theta + pi) SX up to Rz(pi) frames: U ~ Rz(phi+pi) SX Rz(theta+pi) SX Rz(lambda).
      out.push([...z(set, lambda), { name: sx, params: [] }, ...z(set, sgn * theta + Math.PI), { name: sx, params: [] }, ...z(set, phi + Math.PI)]);
    }
    if (names.has('h')) {
      if (near(theta, Math.PI / 2)) out.push([...z(set, lambda - Math.PI), { name: 'h', params: [] }, ...z(set, phi)]);
      if (near(theta, -Math.PI / 2) || near(theta, 3 * Math.PI / 2)) out.push([...z(set, lambda), { name: 'h', params: [] }, ...z(set, phi + Math.PI)]);
      out.push([...z(set, a), { name: 'h', params: [] }, ...z(set, theta), { name: 'h', params: [] }, ...z(set, b)]);
    }
  }
  if (names.has('rx') && names.has('ry')) {
    // H U H = Rz(phi') Ry(theta') Rz(lambda') gives U = Rx(phi') Ry(-theta') Rx(lambda').
    const h = matrix1q('h', []) as Mat;
    const e = zyz(mul(h, mul(u, h)));
    const rxs = (t: number): Gate1[] => (isZeroAngle(t) ? [] : [{ name: 'rx', params: [t] }]);
    out.push([...rxs(e.lambda), { name: 'ry', params: [-e.theta] }, ...rxs(e.phi)]);
  }
  return out;
}

export function productOf(gates: Gate1[]): Mat {
  let m = identity(2);
  for (const g of gates) m = mul(matrix1q(g.name, g.params) as Mat, m);
  return m;
}

/**
 * The shortest sequence (time order) of gates from `set` equal to `u` up to the returned
 * global phase: u = e^{i phase} * product. Throws when the set cannot express u.
 */
export function synth1q(u: Mat, set: OneQubitSet): { gates: Gate1[]; phase: number } {
  const id = phaseBetween(u, identity(2), 1e-9);
  if (id !== null) return { gates: [], phase: id };
  let best: { gates: Gate1[]; phase: number } | null = null;
  for (const c of candidates(u, set)) {
    if (best && c.length >= best.gates.length) continue;
    const ph = phaseBetween(u, productOf(c), 1e-7);
    if (ph !== null) best = { gates: c, phase: ph };
  }
  if (!best) throw new Error(`the basis {${[...set.names].join(',')}} cannot express this single-qubit gate`);
  return best;
}

/** Whether a gate set can express every single-qubit unitary. */
export function isUniversal1q(set: OneQubitSet): boolean {
  const n = set.names;
  if (['u3', 'u', 'U'].some((x) => n.has(x))) return true;
  if (n.has('rx') && n.has('ry')) return true;
  if (set.zName && ['ry', 'rx', 'sx', 'sxdg', 'h'].some((x) => n.has(x))) return true;
  return n.has('r') && set.zName !== null;
}
