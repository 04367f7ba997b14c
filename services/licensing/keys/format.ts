/**
 * Variant B license keys: `LTC-` then eight groups of four upper-case hexadecimal characters
 * (128 random bits), e.g. `LTC-9F3A-0C1B-77D2-E4A0-5B6C-1D2E-3F40-A1B2`. Input is accepted in
 * any letter case and with surrounding blanks; it is stored and shown in upper case.
 */
import { randomBytes } from 'node:crypto';

export const LICENSE_KEY_PREFIX = 'LTC';
const KEY_PATTERN = /^LTC(?:-[0-9A-F]{4}){8}$/;

export function newLicenseKey(): string {
  const hex = randomBytes(16).toString('hex').toUpperCase();
  return `${LICENSE_KEY_PREFIX}-${hex.match(/.{4}/g)!.join('-')}`;
}

/** The canonical form of `text`, or null when it is not a variant B license key. */
export function normalizeLicenseKey(text: string): string | null {
  const key = text.trim().toUpperCase();
  return KEY_PATTERN.test(key) ? key : null;
}

/** `YYYY-MM-DDTHH:MM:SS` in UTC, the spec's `valid_until` form without a timezone suffix. */
export function formatValidUntil(at: Date): string {
  return at.toISOString().slice(0, 19);
}

/**
 * Reads an ISO 8601 datetime; one without a zone designator is taken as UTC (the form
 * `valid_until` is shown in). Null for anything that is not such a datetime.
 */
export function parseIsoDateTime(text: string): Date | null {
  const match = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(text.trim());
  if (!match) return null;
  let value = text.trim().replace(' ', 'T');
  if (!match[1]) value += value.length === 10 ? 'T00:00:00Z' : 'Z';
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
}
