/**
 * The "quantum signature" of licensing variants B and C: a keyed hash over a license's
 * fields and over values measured by really running a circuit on the project's
 * density-matrix simulator with a noisy device model.
 *
 *  1. The canonical fields (RFC 8785 JSON of license key, customer, features, expiry) are
 *     hashed with HMAC-SHA3-512 under the service secret; its bytes choose the 24 rotation
 *     angles of a 4-qubit circuit in the native gates (rz, sx, cx on a line) of the emulated
 *     `lattice_line_5` device.
 *  2. That circuit runs twice: ideally (statevector ψ) and on the density-matrix simulator
 *     with the device's noise (depolarizing, T1/T2 damping), giving ρ. The fidelity is
 *     ⟨ψ|ρ|ψ⟩; the entropy is the Shannon entropy in bits of the outcome distribution of
 *     measuring every qubit, readout error included.
 *  3. The signature is HMAC-SHA3-256 under the same secret over the canonical fields and
 *     the two measured values (fixed to 9 decimals), in lower-case hex.
 *
 * The figures are the ones `noisyRunMetrics` of the quantum engine reports (fidelity and
 * Shannon entropy; the tests check that they agree), computed here from one density-matrix
 * run instead of its four, because validation repeats them on every request.
 *
 * Validation re-derives everything, including a fresh simulator run, and compares in
 * constant time. Without the secret nobody can forge a signature; with it, the measured
 * values tie the signature to the simulator's physics: a change to the fields changes the
 * circuit, hence fidelity and entropy, hence the signature.
 *
 * @example
 *   const s = await createQuantumSignature(secret, { licenseKey, customer: 'c-1', features: [], expires: '2027-01-01T00:00:00' });
 *   (await verifyQuantumSignature(secret, fields, s.signature)).valid; // true
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  densityMatrix,
  emptyCircuit,
  getBackend,
  noiseFromBackend,
  parseQasm,
  simulateStatevector,
  type Circuit,
  type NoiseModel,
} from '../quantum/index.ts';
import { canonicalBytes } from './encoding.ts';

/** The device model whose noise the signatures are measured under. */
export const QUANTUM_SIGNATURE_BACKEND = 'lattice_line_5';
// Four qubits of the five-qubit line: a 16x16 density matrix keeps a validation near a millisecond.
const QUBITS = 4;
const LAYERS = 3;
const VERSION = 'lattice/quantum-signature/v1';

/** What the keyed hash gives: HMAC-SHA3-256 with a 256-bit secret (128-bit security against Grover search). */
export const QUANTUM_SIGNATURE_SECURITY = 'HMAC-SHA3-256, 256-bit key (128-bit post-quantum)';

export interface SignedFields {
  licenseKey: string;
  customer: string;
  features: readonly string[];
  /** The expiry exactly as the service shows it (the text is what gets signed). */
  expires: string;
}

export interface QuantumMeasurement {
  /** ⟨ψ|ρ|ψ⟩ of the noisy run against the ideal state, rounded to 9 decimals. */
  fidelity: number;
  /** Shannon entropy (bits) of the measured outcome distribution, rounded to 9 decimals. */
  entropy: number;
}

export interface QuantumSignature extends QuantumMeasurement {
  /** 64 lower-case hex characters. */
  signature: string;
  backend: string;
}

let noiseModel: NoiseModel | null = null;
function noise(): NoiseModel {
  if (!noiseModel) {
    const backend = getBackend(QUANTUM_SIGNATURE_BACKEND);
    if (!backend) throw new Error(`quantum backend ${QUANTUM_SIGNATURE_BACKEND} is missing from the catalog`);
    noiseModel = noiseFromBackend(backend);
  }
  return noiseModel;
}

function canonical(fields: SignedFields): Buffer {
  return Buffer.from(
    canonicalBytes({ customer: fields.customer, expires: fields.expires, features: [...fields.features], license_key: fields.licenseKey }),
  );
}

/**
 * The circuit chosen by `seed` (at least 48 bytes): on each of three layers, rz·sx·rz on every
 * qubit with 16-bit angles from the seed, then cx on alternating neighbour pairs of the line.
 */
export function signatureCircuit(seed: Uint8Array): Circuit {
  if (seed.length < 2 * 2 * QUBITS * LAYERS) throw new RangeError('the circuit seed is too short');
  const circuit = emptyCircuit(QUBITS);
  let at = 0;
  const angle = () => {
    const v = (seed[at]! << 8) | seed[at + 1]!;
    at += 2;
    return ((v + 0.5) / 65536) * 2 * Math.PI;
  };
  const gate = (name: string, qubits: number[], params: number[] = []) => circuit.ops.push({ kind: 'gate', name, qubits, params });
  for (let layer = 0; layer < LAYERS; layer++) {
    for (let q = 0; q < QUBITS; q++) {
      gate('rz', [q], [angle()]);
      gate('sx', [q]);
      gate('rz', [q], [angle()]);
    }
    // Alternate the entangling pairs along the line so every neighbour pair is used.
    for (let q = layer % 2; q + 1 < QUBITS; q += 2) gate('cx', [q, q + 1]);
  }
  return circuit;
}

/** Fidelity ⟨ψ|ρ|ψ⟩ of a density matrix (row-major, element r,c at r·dim+c) against a pure state, both interleaved re/im. */
function fidelity(psi: Float64Array, rho: Float64Array, dim: number): number {
  let sum = 0;
  for (let r = 0; r < dim; r++) {
    const ar = psi[2 * r]!;
    const ai = -psi[2 * r + 1]!;
    for (let c = 0; c < dim; c++) {
      const k = 2 * (r * dim + c);
      const pr = rho[k]!;
      const pi = rho[k + 1]!;
      const br = psi[2 * c]!;
      const bi = psi[2 * c + 1]!;
      // Re(conj(ψ_r) ρ_rc ψ_c); the imaginary parts cancel over the Hermitian sum.
      sum += ar * (pr * br - pi * bi) - ai * (pr * bi + pi * br);
    }
  }
  return sum;
}

/** Outcome probabilities of measuring every qubit of ρ, with each bit flipped with probability `readout`. */
function outcomeDistribution(rho: Float64Array, n: number, readout: number): Float64Array {
  const dim = 2 ** n;
  let p = new Float64Array(dim);
  for (let i = 0; i < dim; i++) p[i] = Math.max(0, rho[2 * (i + i * dim)]!);
  for (let q = 0; q < n; q++) {
    const next = new Float64Array(dim);
    for (let i = 0; i < dim; i++) next[i] = (1 - readout) * p[i]! + readout * p[i ^ (1 << q)]!;
    p = next;
  }
  return p;
}

function shannonBits(p: Float64Array): number {
  let h = 0;
  for (const x of p) if (x > 0) h -= x * Math.log2(x);
  return h;
}

const round9 = (x: number) => Math.round(x * 1e9) / 1e9;

/** Runs `circuit` ideally and on the noisy device model; returns the measured fidelity and entropy. */
export function measureOnNoisyBackend(circuit: Circuit): QuantumMeasurement {
  const model = noise();
  const psi = simulateStatevector(circuit);
  const rho = densityMatrix(circuit, model);
  const dim = 2 ** circuit.numQubits;
  return {
    fidelity: round9(fidelity(psi, rho, dim)),
    entropy: round9(shannonBits(outcomeDistribution(rho, circuit.numQubits, model.readout_error))),
  };
}

function measure(secret: Uint8Array, body: Buffer): QuantumMeasurement {
  const seed = createHmac('sha3-512', secret).update(`${VERSION}/circuit\0`).update(body).digest();
  return measureOnNoisyBackend(signatureCircuit(seed));
}

function mac(secret: Uint8Array, body: Buffer, m: QuantumMeasurement): Buffer {
  return createHmac('sha3-256', secret)
    .update(`${VERSION}/signature\0`)
    .update(body)
    .update(`\0${m.fidelity.toFixed(9)}\0${m.entropy.toFixed(9)}`)
    .digest();
}

function checkSecret(secret: Uint8Array): void {
  if (secret.length < 32) throw new RangeError('the quantum signature secret must have at least 32 bytes');
}

export async function createQuantumSignature(secret: Uint8Array, fields: SignedFields): Promise<QuantumSignature> {
  checkSecret(secret);
  const body = canonical(fields);
  const m = measure(secret, body);
  return { signature: mac(secret, body, m).toString('hex'), ...m, backend: QUANTUM_SIGNATURE_BACKEND };
}

export interface QuantumVerification extends QuantumMeasurement {
  valid: boolean;
}

/** Re-derives the signature (a fresh simulator run) and compares it with `signature` in constant time. */
export async function verifyQuantumSignature(secret: Uint8Array, fields: SignedFields, signature: string): Promise<QuantumVerification> {
  checkSecret(secret);
  const body = canonical(fields);
  const m = measure(secret, body);
  const expected = mac(secret, body, m);
  const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(expected.length);
  // Compare even for malformed input so the time spent does not depend on the input.
  const equal = timingSafeEqual(expected, given);
  return { valid: equal && /^[0-9a-f]{64}$/.test(signature), ...m };
}

/** True when the simulator runs and gives physical results: a noisy Bell pair with 0.5 < F < 1 and unit trace. */
export async function probeQuantumEngine(): Promise<boolean> {
  const bell = parseQasm('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\nh q[0];\ncx q[0],q[1];');
  const model = noise();
  const rho = densityMatrix(bell, model);
  const trace = rho[0]! + rho[2 * 5]! + rho[2 * 10]! + rho[2 * 15]!;
  const f = fidelity(simulateStatevector(bell), rho, 4);
  return Math.abs(trace - 1) < 1e-9 && f > 0.5 && f < 1;
}
