/** Remembered signature checks: the same answer as a fresh check, one simulator run per license, and edits never served from memory. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createQuantumSignature, type SignedFields } from '../../engines/crypto/quantum-signature.ts';
import { VerifiedSignatures } from './verified-signatures.ts';

const fields: SignedFields = { licenseKey: 'LTC-AAAA-BBBB-CCCC-DDDD-EEEE-FFFF-GGGG-0001', customer: 'customer-1', features: ['pro'], expires: '2027-01-01T00:00:00.000Z' };

test('a valid signature is derived once and then answered from memory; a changed field or signature is checked afresh', async () => {
  const secret = randomBytes(32);
  const { signature } = await createQuantumSignature(secret, fields);
  const verified = new VerifiedSignatures(secret);
  assert.equal(await verified.verify(fields, signature), true);
  assert.equal(await verified.verify(fields, signature), true);
  assert.equal(verified.derivations, 1);
  // An edited row (another customer, other features) is another entry: checked, and refused.
  assert.equal(await verified.verify({ ...fields, customer: 'customer-2' }, signature), false);
  assert.equal(await verified.verify({ ...fields, features: ['pro', 'enterprise'] }, signature), false);
  const forged = signature.replace(/^./, (c) => (c === '0' ? '1' : '0'));
  assert.equal(await verified.verify(fields, forged), false);
  assert.equal(verified.derivations, 4);
  // Another secret's checker remembers nothing of this one's.
  assert.equal(await new VerifiedSignatures(randomBytes(32)).verify(fields, signature), false);
});

test('past its capacity the oldest answer is dropped', async () => {
  const secret = randomBytes(32);
  const verified = new VerifiedSignatures(secret, 2);
  const sign = async (customer: string) => (await createQuantumSignature(secret, { ...fields, customer })).signature;
  const a = await sign('a');
  const b = await sign('b');
  const c = await sign('c');
  await verified.verify({ ...fields, customer: 'a' }, a);
  await verified.verify({ ...fields, customer: 'b' }, b);
  await verified.verify({ ...fields, customer: 'c' }, c);
  assert.equal(verified.derivations, 3);
  await verified.verify({ ...fields, customer: 'c' }, c);
  assert.equal(verified.derivations, 3);
  await verified.verify({ ...fields, customer: 'a' }, a);
  assert.equal(verified.derivations, 4, 'the oldest (a) was dropped and derived again');
});

test('a row object answered once is answered again without its fields; another object of the same license is checked on its own fields', async () => {
  const secret = randomBytes(32);
  const { signature } = await createQuantumSignature(secret, fields);
  const verified = new VerifiedSignatures(secret);
  let built = 0;
  const fieldsOf = (row: { fields: SignedFields }) => (built++, row.fields);
  const row = { fields, quantum_signature: signature };
  assert.equal(await verified.verifyRow(row, fieldsOf), true);
  assert.equal(await verified.verifyRow(row, fieldsOf), true);
  assert.equal(built, 1, 'the second answer came from the row object');
  // The row read again after an edit is a new object: its own fields decide, not the old answer.
  const edited = { fields: { ...fields, customer: 'customer-2' }, quantum_signature: signature };
  assert.equal(await verified.verifyRow(edited, fieldsOf), false);
  const forged = { fields, quantum_signature: signature.replace(/^./, (c) => (c === '0' ? '1' : '0')) };
  assert.equal(await verified.verifyRow(forged, fieldsOf), false);
  assert.equal(built, 3);
  // The same fields in a fresh object share the hashed answer: no second simulator run.
  assert.equal(await verified.verifyRow({ fields, quantum_signature: signature }, fieldsOf), true);
  assert.equal(verified.derivations, 3);
});
