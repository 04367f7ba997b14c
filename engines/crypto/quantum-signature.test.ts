/** The quantum signature: binds every field, needs the secret, and its figures come from the simulator. */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { getBackend, noisyRunMetrics } from '../quantum/index.ts';
import {
  createQuantumSignature,
  measureOnNoisyBackend,
  probeQuantumEngine,
  signatureCircuit,
  verifyQuantumSignature,
  type SignedFields,
} from './quantum-signature.ts';

const secret = new Uint8Array(32).map((_, i) => i + 1);
const fields: SignedFields = {
  licenseKey: 'LTC-0123-4567-89AB-CDEF-0123-4567-89AB-CDEF',
  customer: 'acme',
  features: ['pro', 'export'],
  expires: '2027-01-01T00:00:00',
};

describe('quantum signature', () => {
  test('verifies what it signed, and the same fields always give the same signature', async () => {
    const s = await createQuantumSignature(secret, fields);
    assert.match(s.signature, /^[0-9a-f]{64}$/);
    assert.equal((await verifyQuantumSignature(secret, fields, s.signature)).valid, true);
    assert.equal((await createQuantumSignature(secret, fields)).signature, s.signature);
  });

  test('any change of key, customer, features (even their order) or expiry fails', async () => {
    const { signature } = await createQuantumSignature(secret, fields);
    const changed: SignedFields[] = [
      { ...fields, licenseKey: 'LTC-0123-4567-89AB-CDEF-0123-4567-89AB-CDE0' },
      { ...fields, customer: 'acme2' },
      { ...fields, features: ['pro'] },
      { ...fields, features: ['export', 'pro'] },
      { ...fields, expires: '2027-01-01T00:00:01' },
    ];
    for (const f of changed) assert.equal((await verifyQuantumSignature(secret, f, signature)).valid, false, JSON.stringify(f));
  });

  test('another secret neither verifies nor reproduces the signature', async () => {
    const { signature } = await createQuantumSignature(secret, fields);
    const other = new Uint8Array(32).fill(9);
    assert.equal((await verifyQuantumSignature(other, fields, signature)).valid, false);
    assert.notEqual((await createQuantumSignature(other, fields)).signature, signature);
  });

  test('malformed signatures are rejected without throwing', async () => {
    const { signature } = await createQuantumSignature(secret, fields);
    for (const bad of ['', 'zz', signature.toUpperCase(), `${signature}00`, signature.slice(0, 62), `${signature.slice(0, 63)}g`]) {
      assert.equal((await verifyQuantumSignature(secret, fields, bad)).valid, false, bad);
    }
  });

  test('fidelity and entropy are those the quantum engine measures for the derived circuit', async () => {
    const s = await createQuantumSignature(secret, fields);
    const body = Buffer.from(JSON.stringify({ customer: 'acme', expires: '2027-01-01T00:00:00', features: ['pro', 'export'], license_key: fields.licenseKey }));
    const seed = createHmac('sha3-512', secret).update('lattice/quantum-signature/v1/circuit\0').update(body).digest();
    const metrics = noisyRunMetrics(signatureCircuit(seed), getBackend('lattice_line_5')!);
    assert.ok(Math.abs(metrics.fidelity - s.fidelity) < 1e-8, `${metrics.fidelity} vs ${s.fidelity}`);
    assert.ok(Math.abs(metrics.shannonEntropy - s.entropy) < 1e-8, `${metrics.shannonEntropy} vs ${s.entropy}`);
    // Noise makes the run imperfect but far from random: 0.5 < F < 1, and the entropy is at most 4 bits (4 qubits).
    assert.ok(s.fidelity > 0.5 && s.fidelity < 1);
    assert.ok(s.entropy > 0 && s.entropy <= 4);
  });

  test('the circuit uses only the device basis on neighbouring qubits', () => {
    const c = signatureCircuit(new Uint8Array(64).fill(200));
    assert.equal(c.numQubits, 4);
    for (const op of c.ops) {
      assert.equal(op.kind, 'gate');
      if (op.kind !== 'gate') continue;
      assert.ok(['rz', 'sx', 'cx'].includes(op.name));
      if (op.name === 'cx') assert.equal(op.qubits[1]! - op.qubits[0]!, 1);
    }
    assert.throws(() => signatureCircuit(new Uint8Array(10)), RangeError);
  });

  test('a noiseless run would have fidelity 1: the measured figure comes from the noise model', () => {
    const c = signatureCircuit(new Uint8Array(64).map((_, i) => i * 11));
    const noisy = measureOnNoisyBackend(c);
    const ideal = noisyRunMetrics(c, { depol1: 0, depol2: 0, t1_us: Infinity, t2_us: Infinity, gate_time_1q_ns: 0, gate_time_2q_ns: 0, readout_error: 0 });
    assert.ok(Math.abs(ideal.fidelity - 1) < 1e-9);
    assert.ok(noisy.fidelity < 0.999);
  });

  test('rejects a short secret and reports the engine as running', async () => {
    await assert.rejects(createQuantumSignature(new Uint8Array(16), fields), RangeError);
    assert.equal(await probeQuantumEngine(), true);
  });
});
