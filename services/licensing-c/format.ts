/**
 * Variant C license keys: `LCK-` then four groups of four upper-case characters from a
 * 32-letter alphabet without look-alikes (no 0, O, 1, I): 80 random bits, e.g.
 * `LCK-7QXM-K2PA-ZR9D-W3HT`. Input is accepted in any letter case and trimmed.
 */
import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const KEY_PATTERN = /^LCK(?:-[A-HJ-NP-Z2-9]{4}){4}$/;

export function newLicenseKey(): string {
  // 32 divides 256, so `byte % 32` keeps every letter equally likely.
  const chars = [...randomBytes(16)].map((b) => ALPHABET[b % 32]).join('');
  return `LCK-${chars.match(/.{4}/g)!.join('-')}`;
}

export function normalizeLicenseKey(text: string): string | null {
  const key = text.trim().toUpperCase();
  return KEY_PATTERN.test(key) ? key : null;
}

/** ISO 8601 in UTC to whole seconds, e.g. `2027-01-01T00:00:00Z`: the form shown and signed. */
export function isoSeconds(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}
