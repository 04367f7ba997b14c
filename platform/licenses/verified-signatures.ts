/**
 * Quantum signatures of license keys (variants B and C), verified once and remembered.
 *
 * Verifying re-derives the signature with a fresh simulator run, which is most of a
 * validation's time. The answer depends only on the secret, the signed fields and the stored
 * signature, all read from the server's own rows (the request names the license, it supplies
 * none of them), so a remembered answer is never wrong: a revoked, expired or edited license is
 * decided from the row, read on every request, and an edited row has other fields, hence
 * another entry.
 *
 * What it keeps: up to `capacity` answers (10,000 by default) keyed by a SHA-256 of the fields
 * and the signature, for one secret, oldest dropped first; and the answer of each cached row
 * object, weakly (it goes with the object); nothing to drop when a license changes.
 */
import { createHash } from 'node:crypto';
import { verifyQuantumSignature, type SignedFields } from '../../engines/crypto/quantum-signature.ts';

export class VerifiedSignatures {
  private readonly answers = new Map<string, boolean>();
  private readonly byRow = new WeakMap<object, boolean>();
  /** Simulator runs made so far (the misses). */
  derivations = 0;

  constructor(
    private readonly secret: Uint8Array,
    private readonly capacity = 10_000,
  ) {}

  /**
   * The answer for a license row as platform/licenses/license-rows.ts keeps it: the same
   * object until the row changes or is read again (then another object), so a row answered
   * once skips building its signed fields and hashing them. Rows are never modified in place.
   */
  async verifyRow<R extends object & { quantum_signature: string }>(row: R, fieldsOf: (row: R) => SignedFields): Promise<boolean> {
    const known = this.byRow.get(row);
    if (known !== undefined) return known;
    const valid = await this.verify(fieldsOf(row), row.quantum_signature);
    this.byRow.set(row, valid);
    return valid;
  }

  async verify(fields: SignedFields, signature: string): Promise<boolean> {
    const key = createHash('sha256').update(JSON.stringify(fields)).update('\0').update(signature).digest('base64');
    const known = this.answers.get(key);
    if (known !== undefined) {
      // Most recently used last, so that the oldest is dropped first.
      this.answers.delete(key);
      this.answers.set(key, known);
      return known;
    }
    this.derivations++;
    const { valid } = await verifyQuantumSignature(this.secret, fields, signature);
    if (this.answers.size >= this.capacity) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, valid);
    return valid;
  }
}
