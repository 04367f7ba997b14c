/** Standard benchmark and test circuits built directly in the circuit model (GHZ, QFT, layered random). */
import type { Circuit } from './circuit.ts';
import { emptyCircuit } from './circuit.ts';
import { Rng } from './sampling.ts';

export function ghzCircuit(n: number): Circuit {
  const c = emptyCircuit(n);
  c.ops.push({ kind: 'gate', name: 'h', qubits: [0], params: [] });
  for (let i = 0; i + 1 < n; i++) c.ops.push({ kind: 'gate', name: 'cx', qubits: [i, i + 1], params: [] });
  return c;
}

/** QFT with the swaps at the end; QFT|x> has amplitudes e^{2πi xk/N}/sqrt(N). */
export function qftCircuit(n: number): Circuit {
  const c = emptyCircuit(n);
  for (let j = n - 1; j >= 0; j--) {
    c.ops.push({ kind: 'gate', name: 'h', qubits: [j], params: [] });
    for (let k = j - 1; k >= 0; k--) c.ops.push({ kind: 'gate', name: 'cp', qubits: [k, j], params: [Math.PI / 2 ** (j - k)] });
  }
  for (let q = 0; q < Math.floor(n / 2); q++) c.ops.push({ kind: 'gate', name: 'swap', qubits: [q, n - 1 - q], params: [] });
  return c;
}

/**
 * `depth` layers, each a random u3 on every qubit then CX on a random pairing of the qubits
 * (the layered random circuit of the benchmark).
 */
export function randomLayeredCircuit(n: number, depth: number, seed: number): Circuit {
  const rng = new Rng(seed);
  const c = emptyCircuit(n);
  for (let l = 0; l < depth; l++) {
    for (let q = 0; q < n; q++) {
      c.ops.push({ kind: 'gate', name: 'u3', qubits: [q], params: [rng.next() * Math.PI, rng.next() * 2 * Math.PI, rng.next() * 2 * Math.PI] });
    }
    const perm = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rng.next() * (i + 1));
      [perm[i], perm[j]] = [perm[j]!, perm[i]!];
    }
    for (let i = 0; i + 1 < n; i += 2) c.ops.push({ kind: 'gate', name: 'cx', qubits: [perm[i]!, perm[i + 1]!], params: [] });
  }
  return c;
}
