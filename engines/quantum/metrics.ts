/**
 * Quality figures of a circuit on a noisy backend, for licensing signatures and reranking:
 * the state fidelity against the ideal state and the entropies of the noisy result.
 */
import type { Backend } from './backends.ts';
import type { Circuit } from './circuit.ts';
import { densityMatrix } from './density/simulate.ts';
import type { NoiseModel } from './noise.ts';
import { densityDistribution, run, toNoiseModel } from './run.ts';
import { simulateStatevector, splitTerminal } from './statevector/simulate.ts';

export interface NoisyMetrics {
  numQubits: number;
  /** ⟨ψ|ρ|ψ⟩: ψ the ideal final state, ρ the noisy one (before measurement). */
  fidelity: number;
  /** -Tr ρ log2 ρ of the noisy final state, in bits. */
  vonNeumannEntropy: number;
  /** Shannon entropy (bits) of the noisy outcome distribution, readout error included. */
  shannonEntropy: number;
  /** Shannon entropy (bits) of the ideal outcome distribution. */
  idealShannonEntropy: number;
  /** Sampled counts of the noisy run (when shots > 0). */
  counts: Record<string, number>;
}

/** Largest circuit the metrics are computed for (exact density matrix and its eigenvalues). */
export const MAX_METRICS_QUBITS = 7;

/**
 * Run `circuit` on a noisy backend (density matrix) and report fidelity and entropies.
 * Measurements must be terminal; a circuit without measurements is measured on every qubit.
 *
 * @example
 * const m = noisyRunMetrics(parseQasm(ghz3), getBackend('lattice_line_5')!, { shots: 1000, seed: 1 });
 * m.fidelity // about 0.97; m.shannonEntropy // a little above 1 bit
 */
export function noisyRunMetrics(circuit: Circuit, noise: Backend | NoiseModel, opts: { shots?: number; seed?: number } = {}): NoisyMetrics {
  const n = circuit.numQubits;
  if (n > MAX_METRICS_QUBITS) throw new Error(`noisy metrics support at most ${MAX_METRICS_QUBITS} qubits, got ${n}`);
  const split = splitTerminal(circuit);
  if (!split) throw new Error('noisy metrics need a circuit whose measurements are all terminal');
  const model = toNoiseModel(noise)!;
  let measured = circuit;
  if (split.measures.length === 0) {
    measured = {
      ...circuit,
      numClbits: n,
      cregs: [{ name: 'c', size: n, offset: 0 }],
      ops: [...circuit.ops, ...Array.from({ length: n }, (_, q) => ({ kind: 'measure' as const, qubit: q, clbit: q }))],
    };
  }
  const unitary = { ...circuit, ops: split.unitary };
  const psi = simulateStatevector(unitary);
  const rho = densityMatrix(unitary, model);
  const dim = 2 ** n;
  // ⟨ψ|ρ|ψ⟩ with ρ[r][c] at index c + r·dim
  let fr = 0;
  for (let r = 0; r < dim; r++) {
    let tr = 0;
    let ti = 0;
    for (let c = 0; c < dim; c++) {
      const pr = rho[2 * (c + r * dim)]!, pi = rho[2 * (c + r * dim) + 1]!;
      tr += pr * psi[2 * c]! - pi * psi[2 * c + 1]!;
      ti += pr * psi[2 * c + 1]! + pi * psi[2 * c]!;
    }
    fr += psi[2 * r]! * tr + psi[2 * r + 1]! * ti;
  }
  const eig = hermitianEigenvalues(rho, dim);
  const counts = (opts.shots ?? 0) > 0 ? run(measured, { method: 'density_matrix', shots: opts.shots, seed: opts.seed, noise: model }).counts : {};
  return {
    numQubits: n,
    fidelity: fr,
    vonNeumannEntropy: entropy(eig),
    shannonEntropy: entropy(densityDistribution(measured, model)),
    idealShannonEntropy: entropy(densityDistribution(measured)),
    counts,
  };
}

/** Shannon entropy in bits of a distribution (normalised here). */
export function entropy(p: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < p.length; i++) total += Math.max(0, p[i]!);
  let h = 0;
  for (let i = 0; i < p.length; i++) {
    const x = Math.max(0, p[i]!) / total;
    if (x > 1e-15) h -= x * Math.log2(x);
  }
  return h;
}

/**
 * Eigenvalues of a Hermitian d x d matrix through the real symmetric 2d x 2d form
 * [[A, -B], [B, A]] (each eigenvalue appears twice; one of each pair is kept).
 */
export function hermitianEigenvalues(h: Float64Array, d: number): Float64Array {
  const N = 2 * d;
  const a = new Float64Array(N * N);
  for (let r = 0; r < d; r++)
    for (let c = 0; c < d; c++) {
      const re = h[2 * (c + r * d)]!;
      const im = h[2 * (c + r * d) + 1]!;
      a[r * N + c] = re;
      a[(r + d) * N + c + d] = re;
      a[r * N + c + d] = -im;
      a[(r + d) * N + c] = im;
    }
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < N; p++) for (let q = p + 1; q < N; q++) off += a[p * N + q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < N; p++)
      for (let q = p + 1; q < N; q++) {
        const apq = a[p * N + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * N + q]! - a[p * N + p]!) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < N; k++) {
          const akp = a[k * N + p]!, akq = a[k * N + q]!;
          a[k * N + p] = c * akp - s * akq;
          a[k * N + q] = s * akp + c * akq;
        }
        for (let k = 0; k < N; k++) {
          const apk = a[p * N + k]!, aqk = a[q * N + k]!;
          a[p * N + k] = c * apk - s * aqk;
          a[q * N + k] = s * apk + c * aqk;
        }
      }
  }
  const all = Array.from({ length: N }, (_, i) => a[i * N + i]!).sort((x, y) => x - y);
  return Float64Array.from(all.filter((_, i) => i % 2 === 0));
}
