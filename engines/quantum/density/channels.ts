/**
 * Density-matrix operations. ρ over n qubits is stored like a 2n-qubit statevector with
 * index c + r·2^n (column bits low, row bits high), so U ρ U† is U on the row qubits (q + n)
 * and conj(U) on the column qubits (q), and a channel is its superoperator on both.
 */
import { kron } from '../matrix.ts';
import { applyMatrix } from '../statevector/direct.ts';

export function conj(m: Float64Array): Float64Array {
  const o = Float64Array.from(m);
  for (let i = 1; i < o.length; i += 2) o[i] = -o[i]!;
  return o;
}

function applyOn(rho: Float64Array, qubits: number[], m: Float64Array): void {
  applyMatrix(rho, qubits, m);
}

/** ρ → U ρ U† for a k-qubit matrix U on `qubits`. */
export function applyUnitaryDM(rho: Float64Array, n: number, qubits: number[], u: Float64Array): void {
  applyOn(rho, qubits.map((q) => q + n), u);
  applyOn(rho, qubits, conj(u));
}

/**
 * The superoperator Σ K ⊗ conj(K) of Kraus operators on k qubits, as a 2k-qubit matrix whose
 * low k index bits are the column qubits and high k bits the row qubits.
 */
export function superop(kraus: Float64Array[], k: number): Float64Array {
  const d = 1 << k;
  const D = d * d;
  const s = new Float64Array(2 * D * D);
  for (const K of kraus) {
    for (let r = 0; r < d; r++)
      for (let c = 0; c < d; c++)
        for (let r2 = 0; r2 < d; r2++)
          for (let c2 = 0; c2 < d; c2++) {
            const ar = K[2 * (r * d + r2)]!, ai = K[2 * (r * d + r2) + 1]!;
            const br = K[2 * (c * d + c2)]!, bi = -K[2 * (c * d + c2) + 1]!;
            const i = c + d * r;
            const j = c2 + d * r2;
            s[2 * (i * D + j)] += ar * br - ai * bi;
            s[2 * (i * D + j) + 1] += ar * bi + ai * br;
          }
  }
  return s;
}

/** ρ → Σ K ρ K† for Kraus operators on `qubits` (or their superoperator, when given). */
export function applyChannelDM(rho: Float64Array, n: number, qubits: number[], kraus: Float64Array[] | { superop: Float64Array }): void {
  const s = 'superop' in kraus ? kraus.superop : superop(kraus, qubits.length);
  applyOn(rho, [...qubits, ...qubits.map((q) => q + n)], s);
}

const superops = new Map<string, Float64Array>();

/**
 * The superoperator of a channel named by `key`, built once: a noise model applies the same few
 * channels after every gate, and building one costs more than applying it to a small ρ.
 */
export function cachedSuperop(key: string, kraus: () => Float64Array[], k: number): { superop: Float64Array } {
  let s = superops.get(key);
  if (!s) {
    if (superops.size >= 256) superops.clear();
    s = superop(kraus(), k);
    superops.set(key, s);
  }
  return { superop: s };
}

const PAULI: Float64Array[] = [
  Float64Array.of(1, 0, 0, 0, 0, 0, 1, 0),
  Float64Array.of(0, 0, 1, 0, 1, 0, 0, 0),
  Float64Array.of(0, 0, 0, -1, 0, 1, 0, 0),
  Float64Array.of(1, 0, 0, 0, 0, 0, -1, 0),
];

/** Kraus operators of ρ → (1-p)ρ + p I/d on `k` (1 or 2) qubits, as a Pauli mixture. */
export function depolarizingKraus(p: number, k: 1 | 2): Float64Array[] {
  const n = k === 1 ? 4 : 16;
  const out: Float64Array[] = [];
  for (let a = 0; a < n; a++) {
    const w = a === 0 ? 1 - p + p / n : p / n;
    if (w <= 0) continue;
    const m = k === 1 ? PAULI[a]! : kron(PAULI[a >> 2]!, PAULI[a & 3]!);
    out.push(m.map((x) => x * Math.sqrt(w)));
  }
  return out;
}


/** Diagonal of ρ (the basis-state probabilities). */
export function diagonalOf(rho: Float64Array, n: number): Float64Array {
  const dim = 2 ** n;
  const p = new Float64Array(dim);
  for (let i = 0; i < dim; i++) p[i] = rho[2 * (i + i * dim)]!;
  return p;
}

export function traceOf(rho: Float64Array, n: number): number {
  return diagonalOf(rho, n).reduce((a, b) => a + b, 0);
}

/** Zero the entries of ρ whose row or column has qubit q ≠ v (projective measurement, unnormalised). */
export function projectDM(rho: Float64Array, n: number, q: number, v: 0 | 1): void {
  const dim = 2 ** n;
  const bit = 1 << q;
  for (let r = 0; r < dim; r++) {
    for (let c = 0; c < dim; c++) {
      if (((r & bit) !== 0) !== (v === 1) || ((c & bit) !== 0) !== (v === 1)) {
        const i = 2 * (c + r * dim);
        rho[i] = 0;
        rho[i + 1] = 0;
      }
    }
  }
}
