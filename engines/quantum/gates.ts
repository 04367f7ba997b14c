/**
 * The standard gate table: every gate of qelib1.inc and stdgates.inc (plus common extras
 * such as ccz, iswap, ecr, rzx) with its arity, parameter count, matrix and inverse.
 * Matrices are row-major interleaved complex; qubits[0] is the least significant index bit.
 */
import { adjoint, controlled, diagonal, embed, fromRows, identity, matmul } from './matrix.ts';
import type { CMatrix } from './matrix.ts';

export interface GateInfo {
  name: string;
  numQubits: number;
  numParams: number;
  /** Number of leading control qubits in the gate's own definition (cx: 1, ccx: 2). */
  numControls: number;
  /** The gate applied to its targets when all controls are 1 (absent for composite gates). */
  base?: string;
  /** True when the matrix is diagonal for every parameter value. */
  diagonal: boolean;
}

interface GateDef extends GateInfo {
  matrix(p: number[]): CMatrix;
  /** The inverse as another table gate, when one exists. */
  inverse?(p: number[]): { name: string; params: number[] };
}

const { cos, sin, PI, SQRT1_2 } = Math;
const c = (re: number, im = 0): [number, number] => [re, im];
const e = (phi: number): [number, number] => [cos(phi), sin(phi)];

function u3m(t: number, p: number, l: number): CMatrix {
  return fromRows([
    [c(cos(t / 2)), [-cos(l) * sin(t / 2), -sin(l) * sin(t / 2)]],
    [[cos(p) * sin(t / 2), sin(p) * sin(t / 2)], [cos(p + l) * cos(t / 2), sin(p + l) * cos(t / 2)]],
  ]);
}

const X = fromRows([[c(0), c(1)], [c(1), c(0)]]);
const Y = fromRows([[c(0), c(0, -1)], [c(0, 1), c(0)]]);
const Z = diagonal([c(1), c(-1)]);
const H = fromRows([[c(SQRT1_2), c(SQRT1_2)], [c(SQRT1_2), c(-SQRT1_2)]]);
const SX = fromRows([[c(0.5, 0.5), c(0.5, -0.5)], [c(0.5, -0.5), c(0.5, 0.5)]]);
const rx = (t: number): CMatrix => fromRows([[c(cos(t / 2)), c(0, -sin(t / 2))], [c(0, -sin(t / 2)), c(cos(t / 2))]]);
const ry = (t: number): CMatrix => fromRows([[c(cos(t / 2)), c(-sin(t / 2))], [c(sin(t / 2)), c(cos(t / 2))]]);
const rz = (t: number): CMatrix => diagonal([e(-t / 2), e(t / 2)]);
const phase = (l: number): CMatrix => diagonal([c(1), e(l)]);

/** exp(-i t/2 P⊗Q) for Pauli matrices with P on qubit 0 and Q on qubit 1. */
function pauliRotation(p: CMatrix, q: CMatrix, t: number): CMatrix {
  const pq = kron(q, p);
  const out = identity(4);
  for (let i = 0; i < out.length; i += 2) {
    out[i] = out[i]! * cos(t / 2) + pq[i + 1]! * sin(t / 2);
    out[i + 1] = -pq[i]! * sin(t / 2);
  }
  return out;
}

/** a ⊗ b with b on the low qubits. */
function kron(a: CMatrix, b: CMatrix): CMatrix {
  const na = Math.round(Math.sqrt(a.length / 2));
  const nb = Math.round(Math.sqrt(b.length / 2));
  const n = na * nb;
  const out = new Float64Array(2 * n * n);
  for (let ar = 0; ar < na; ar++)
    for (let ac = 0; ac < na; ac++)
      for (let br = 0; br < nb; br++)
        for (let bc = 0; bc < nb; bc++) {
          const xr = a[2 * (ar * na + ac)]!;
          const xi = a[2 * (ar * na + ac) + 1]!;
          const yr = b[2 * (br * nb + bc)]!;
          const yi = b[2 * (br * nb + bc) + 1]!;
          const idx = 2 * ((ar * nb + br) * n + ac * nb + bc);
          out[idx] = xr * yr - xi * yi;
          out[idx + 1] = xr * yi + xi * yr;
        }
  return out;
}

/** Compose a k-qubit matrix from a sequence of table gates (applied in order). */
function compose(k: number, seq: Array<[string, number[], number[]]>): CMatrix {
  let m = identity(1 << k);
  for (const [name, params, qubits] of seq) m = matmul(embed(gateMatrix(name, params), qubits, k), m);
  return m;
}

const table = new Map<string, GateDef>();

function def(
  name: string,
  numQubits: number,
  numParams: number,
  matrix: (p: number[]) => CMatrix,
  opts: Partial<Pick<GateDef, 'numControls' | 'base' | 'diagonal' | 'inverse'>> = {},
): void {
  table.set(name, {
    name,
    numQubits,
    numParams,
    numControls: opts.numControls ?? 0,
    base: opts.base,
    diagonal: opts.diagonal ?? false,
    matrix,
    inverse: opts.inverse,
  });
}

const self = (name: string) => (p: number[]) => ({ name, params: p });
const neg = (name: string) => (p: number[]) => ({ name, params: p.map((x) => -x) });
const invU3 = (name: string) => (p: number[]) => ({ name, params: [-p[0]!, -p[2]!, -p[1]!] });
const ctl = (base: string, n: number) => ({ numControls: n, base });

// One-qubit gates.
def('id', 1, 0, () => identity(2), { diagonal: true, inverse: self('id') });
def('u0', 1, 1, () => identity(2), { diagonal: true, inverse: self('u0') });
def('x', 1, 0, () => X, { inverse: self('x') });
def('y', 1, 0, () => Y, { inverse: self('y') });
def('z', 1, 0, () => Z, { diagonal: true, inverse: self('z') });
def('h', 1, 0, () => H, { inverse: self('h') });
def('s', 1, 0, () => phase(PI / 2), { diagonal: true, inverse: () => ({ name: 'sdg', params: [] }) });
def('sdg', 1, 0, () => phase(-PI / 2), { diagonal: true, inverse: () => ({ name: 's', params: [] }) });
def('t', 1, 0, () => phase(PI / 4), { diagonal: true, inverse: () => ({ name: 'tdg', params: [] }) });
def('tdg', 1, 0, () => phase(-PI / 4), { diagonal: true, inverse: () => ({ name: 't', params: [] }) });
def('sx', 1, 0, () => SX, { inverse: () => ({ name: 'sxdg', params: [] }) });
def('sxdg', 1, 0, () => adjoint(SX), { inverse: () => ({ name: 'sx', params: [] }) });
def('rx', 1, 1, (p) => rx(p[0]!), { inverse: neg('rx') });
def('ry', 1, 1, (p) => ry(p[0]!), { inverse: neg('ry') });
def('rz', 1, 1, (p) => rz(p[0]!), { diagonal: true, inverse: neg('rz') });
def('p', 1, 1, (p) => phase(p[0]!), { diagonal: true, inverse: neg('p') });
def('u1', 1, 1, (p) => phase(p[0]!), { diagonal: true, inverse: neg('u1') });
def('u2', 1, 2, (p) => u3m(PI / 2, p[0]!, p[1]!), {
  inverse: (p) => ({ name: 'u3', params: [-PI / 2, -p[1]!, -p[0]!] }),
});
def('u3', 1, 3, (p) => u3m(p[0]!, p[1]!, p[2]!), { inverse: invU3('u3') });
def('u', 1, 3, (p) => u3m(p[0]!, p[1]!, p[2]!), { inverse: invU3('u') });
def('r', 1, 2, (p) => u3m(p[0]!, p[1]! - PI / 2, PI / 2 - p[1]!), {
  inverse: (p) => ({ name: 'r', params: [-p[0]!, p[1]!] }),
});

// Two-qubit gates (qubits[0] is the control where there is one).
def('cx', 2, 0, () => controlled(X, 1), { ...ctl('x', 1), inverse: self('cx') });
def('cy', 2, 0, () => controlled(Y, 1), { ...ctl('y', 1), inverse: self('cy') });
def('cz', 2, 0, () => controlled(Z, 1), { ...ctl('z', 1), diagonal: true, inverse: self('cz') });
def('ch', 2, 0, () => controlled(H, 1), { ...ctl('h', 1), inverse: self('ch') });
def('csx', 2, 0, () => controlled(SX, 1), { ...ctl('sx', 1) });
def('cp', 2, 1, (p) => controlled(phase(p[0]!), 1), { ...ctl('p', 1), diagonal: true, inverse: neg('cp') });
def('cu1', 2, 1, (p) => controlled(phase(p[0]!), 1), { ...ctl('u1', 1), diagonal: true, inverse: neg('cu1') });
def('crx', 2, 1, (p) => controlled(rx(p[0]!), 1), { ...ctl('rx', 1), inverse: neg('crx') });
def('cry', 2, 1, (p) => controlled(ry(p[0]!), 1), { ...ctl('ry', 1), inverse: neg('cry') });
def('crz', 2, 1, (p) => controlled(rz(p[0]!), 1), { ...ctl('rz', 1), diagonal: true, inverse: neg('crz') });
def('cu3', 2, 3, (p) => controlled(u3m(p[0]!, p[1]!, p[2]!), 1), { ...ctl('u3', 1), inverse: invU3('cu3') });
def('cu', 2, 4, (p) => controlled(matScale(u3m(p[0]!, p[1]!, p[2]!), p[3]!), 1), {
  numControls: 1,
  inverse: (p) => ({ name: 'cu', params: [-p[0]!, -p[2]!, -p[1]!, -p[3]!] }),
});
def('swap', 2, 0, () => fromRows([
  [c(1), c(0), c(0), c(0)],
  [c(0), c(0), c(1), c(0)],
  [c(0), c(1), c(0), c(0)],
  [c(0), c(0), c(0), c(1)],
]), { inverse: self('swap') });
def('iswap', 2, 0, () => fromRows([
  [c(1), c(0), c(0), c(0)],
  [c(0), c(0), c(0, 1), c(0)],
  [c(0), c(0, 1), c(0), c(0)],
  [c(0), c(0), c(0), c(1)],
]));
def('dcx', 2, 0, () => compose(2, [['cx', [], [0, 1]], ['cx', [], [1, 0]]]));
def('ecr', 2, 0, () => compose(2, [['rzx', [PI / 4], [0, 1]], ['x', [], [0]], ['rzx', [-PI / 4], [0, 1]]]), {
  inverse: self('ecr'),
});
def('rxx', 2, 1, (p) => pauliRotation(X, X, p[0]!), { inverse: neg('rxx') });
def('ryy', 2, 1, (p) => pauliRotation(Y, Y, p[0]!), { inverse: neg('ryy') });
def('rzz', 2, 1, (p) => pauliRotation(Z, Z, p[0]!), { diagonal: true, inverse: neg('rzz') });
def('rzx', 2, 1, (p) => pauliRotation(Z, X, p[0]!), { inverse: neg('rzx') });

// Three- to five-qubit gates.
def('ccx', 3, 0, () => controlled(X, 2), { ...ctl('x', 2), inverse: self('ccx') });
def('ccz', 3, 0, () => controlled(Z, 2), { ...ctl('z', 2), diagonal: true, inverse: self('ccz') });
def('cswap', 3, 0, () => controlled(gateMatrix('swap', []), 1), { ...ctl('swap', 1), inverse: self('cswap') });
def('c3x', 4, 0, () => controlled(X, 3), { ...ctl('x', 3), inverse: self('c3x') });
def('c4x', 5, 0, () => controlled(X, 4), { ...ctl('x', 4), inverse: self('c4x') });
def('c3sqrtx', 4, 0, () => controlled(SX, 3), { ...ctl('sx', 3) });
def('rccx', 3, 0, () =>
  compose(3, [
    ['u2', [0, PI], [2]], ['u1', [PI / 4], [2]], ['cx', [], [1, 2]], ['u1', [-PI / 4], [2]],
    ['cx', [], [0, 2]], ['u1', [PI / 4], [2]], ['cx', [], [1, 2]], ['u1', [-PI / 4], [2]],
    ['u2', [0, PI], [2]],
  ]));
def('rc3x', 4, 0, () =>
  compose(4, [
    ['u2', [0, PI], [3]], ['u1', [PI / 4], [3]], ['cx', [], [2, 3]], ['u1', [-PI / 4], [3]],
    ['u2', [0, PI], [3]], ['cx', [], [0, 3]], ['u1', [PI / 4], [3]], ['cx', [], [1, 3]],
    ['u1', [-PI / 4], [3]], ['cx', [], [0, 3]], ['u1', [PI / 4], [3]], ['cx', [], [1, 3]],
    ['u1', [-PI / 4], [3]], ['u2', [0, PI], [3]], ['u1', [PI / 4], [3]], ['cx', [], [2, 3]],
    ['u1', [-PI / 4], [3]], ['u2', [0, PI], [3]],
  ]));

function matScale(m: CMatrix, gamma: number): CMatrix {
  const out = new Float64Array(m.length);
  for (let i = 0; i < m.length; i += 2) {
    out[i] = m[i]! * cos(gamma) - m[i + 1]! * sin(gamma);
    out[i + 1] = m[i]! * sin(gamma) + m[i + 1]! * cos(gamma);
  }
  return out;
}

/** Names that OpenQASM accepts for a table gate (`CX` in OpenQASM 2, `phase`/`cphase` in stdgates.inc). */
const aliases: Record<string, string> = { CX: 'cx', phase: 'p', cphase: 'cp', U: 'u', cnot: 'cx', toffoli: 'ccx', fredkin: 'cswap' };

/** The table name for `name` (resolving aliases), or undefined when it is not a standard gate. */
export function canonicalGateName(name: string): string | undefined {
  if (table.has(name)) return name;
  const a = aliases[name];
  return a !== undefined && table.has(a) ? a : undefined;
}

/** Arity and parameter count of a standard gate, or undefined for an unknown name. */
export function gateInfo(name: string): GateInfo | undefined {
  const g = table.get(canonicalGateName(name) ?? '');
  if (!g) return undefined;
  const { matrix: _m, inverse: _i, ...info } = g;
  return info;
}

/** Every gate name of the table. */
export function standardGateNames(): string[] {
  return [...table.keys()];
}

/**
 * The matrix of a standard gate (row-major, interleaved re/im, qubits[0] least significant).
 *
 * @example gateMatrix('cx', []) // 4x4: flips qubit 1 when qubit 0 is 1
 */
export function gateMatrix(name: string, params: number[]): Float64Array {
  const g = table.get(canonicalGateName(name) ?? '');
  if (!g) throw new Error(`unknown gate '${name}'`);
  if (params.length !== g.numParams) {
    throw new Error(`gate '${name}' takes ${g.numParams} parameter(s), got ${params.length}`);
  }
  return g.matrix(params);
}

/** The inverse of a standard gate as another table gate, or undefined when the table has none. */
export function gateInverse(name: string, params: number[]): { name: string; params: number[] } | undefined {
  const g = table.get(canonicalGateName(name) ?? '');
  return g?.inverse?.(params);
}

/** The matrix of `name` with `controls` extra positive controls on its lowest qubits. */
export function controlledGateMatrix(name: string, params: number[], controls: number): Float64Array {
  return controlled(gateMatrix(name, params), controls);
}

/**
 * Gates whose k-th power is the same gate with its angle(s) scaled by k (exact, phase included).
 * Used for `pow(k) @` with a non-integer k.
 */
export const angleScalable = new Set(['rx', 'ry', 'rz', 'p', 'u1', 'cp', 'cu1', 'crx', 'cry', 'crz', 'rxx', 'ryy', 'rzz', 'rzx']);
