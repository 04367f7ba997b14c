/** Runs a circuit on the MPS simulator and samples shots site by site. */
import type { Circuit } from '../circuit.ts';
import { opMatrix } from '../qasm/modifiers.ts';
import { Rng, bitKey } from '../sampling.ts';
import { splitTerminal } from '../statevector/simulate.ts';
import { Mps } from './mps.ts';

/** Apply the circuit's unitary part to a fresh MPS. */
export function buildMps(c: Circuit, maxBond: number): { mps: Mps; measures: Array<{ qubit: number; clbit: number }> } {
  const split = splitTerminal(c);
  if (!split) throw new Error('the mps method supports terminal measurements only (no mid-circuit measurement, reset or conditions)');
  const mps = new Mps(c.numQubits, maxBond);
  for (const op of split.unitary) {
    if (op.kind === 'gate') {
      if (op.name === 'id' || op.name === 'u0') continue;
      mps.apply(op.qubits, opMatrix(op));
    } else if (op.kind === 'unitary') mps.apply(op.qubits, op.matrix);
  }
  return { mps, measures: split.measures };
}

/** Right environments R[s] = contraction of sites s..n-1 with their conjugates. */
function environments(m: Mps): Float64Array[] {
  const R: Float64Array[] = new Array(m.n + 1);
  R[m.n] = Float64Array.of(1, 0);
  for (let s = m.n - 1; s >= 0; s--) {
    const A = m.sites[s]!;
    const dl = m.bond[s]!;
    const dr = m.bond[s + 1]!;
    const next = R[s + 1]!;
    // T[l][b][r'] = Σ_r A[l,b,r] next[r][r']
    const T = new Float64Array(2 * dl * 2 * dr);
    for (let lb = 0; lb < dl * 2; lb++)
      for (let r = 0; r < dr; r++) {
        const ar = A[2 * (lb * dr + r)]!, ai = A[2 * (lb * dr + r) + 1]!;
        if (ar === 0 && ai === 0) continue;
        for (let r2 = 0; r2 < dr; r2++) {
          const nr = next[2 * (r * dr + r2)]!, ni = next[2 * (r * dr + r2) + 1]!;
          T[2 * (lb * dr + r2)] += ar * nr - ai * ni;
          T[2 * (lb * dr + r2) + 1] += ar * ni + ai * nr;
        }
      }
    const out = new Float64Array(2 * dl * dl);
    for (let l = 0; l < dl; l++)
      for (let l2 = 0; l2 < dl; l2++) {
        let re = 0;
        let im = 0;
        for (let b = 0; b < 2; b++)
          for (let r2 = 0; r2 < dr; r2++) {
            const tr = T[2 * ((l * 2 + b) * dr + r2)]!, ti = T[2 * ((l * 2 + b) * dr + r2) + 1]!;
            const cr = A[2 * ((l2 * 2 + b) * dr + r2)]!, ci = -A[2 * ((l2 * 2 + b) * dr + r2) + 1]!;
            re += tr * cr - ti * ci;
            im += tr * ci + ti * cr;
          }
        out[2 * (l * dl + l2)] = re;
        out[2 * (l * dl + l2) + 1] = im;
      }
    R[s] = out;
  }
  return R;
}

/** Sample one bit per site for `shots` shots; returns the basis bits per qubit. */
export function sampleMps(m: Mps, shots: number, rng: Rng): Uint8Array[] {
  const R = environments(m);
  const out: Uint8Array[] = [];
  for (let shot = 0; shot < shots; shot++) {
    const bits = new Uint8Array(m.n);
    let v = Float64Array.of(1, 0);
    for (let s = 0; s < m.n; s++) {
      const A = m.sites[s]!;
      const dl = m.bond[s]!;
      const dr = m.bond[s + 1]!;
      const Rn = R[s + 1]!;
      const w: Float64Array[] = [];
      const p: number[] = [];
      for (let b = 0; b < 2; b++) {
        const wb = new Float64Array(2 * dr);
        for (let l = 0; l < dl; l++) {
          const vr = v[2 * l]!, vi = v[2 * l + 1]!;
          if (vr === 0 && vi === 0) continue;
          for (let r = 0; r < dr; r++) {
            const ar = A[2 * ((l * 2 + b) * dr + r)]!, ai = A[2 * ((l * 2 + b) * dr + r) + 1]!;
            wb[2 * r] += vr * ar - vi * ai;
            wb[2 * r + 1] += vr * ai + vi * ar;
          }
        }
        // p_b = w R w†
        let pb = 0;
        for (let r = 0; r < dr; r++)
          for (let r2 = 0; r2 < dr; r2++) {
            const xr = wb[2 * r]!, xi = wb[2 * r + 1]!;
            const er = Rn[2 * (r * dr + r2)]!, ei = Rn[2 * (r * dr + r2) + 1]!;
            const yr = wb[2 * r2]!, yi = -wb[2 * r2 + 1]!;
            const tr = xr * er - xi * ei, ti = xr * ei + xi * er;
            pb += tr * yr - ti * yi;
          }
        w.push(wb);
        p.push(Math.max(0, pb));
      }
      const b = rng.next() * (p[0]! + p[1]!) < p[0]! ? 0 : 1;
      const norm = 1 / Math.sqrt(p[b]!);
      v = w[b]!.map((x) => x * norm);
      bits[m.qubitAt[s]!] = b;
    }
    out.push(bits);
  }
  return out;
}

export function runMps(c: Circuit, shots: number, rng: Rng, maxBond: number): { keys: string[]; truncationError: number; maxBond: number } {
  const { mps, measures } = buildMps(c, maxBond);
  const samples = sampleMps(mps, shots, rng);
  const bits = new Uint8Array(c.numClbits);
  const keys = samples.map((q) => {
    bits.fill(0);
    for (const m of measures) bits[m.clbit] = q[m.qubit]!;
    return bitKey(bits);
  });
  return { keys, truncationError: mps.truncationError, maxBond: mps.maxBondReached };
}
