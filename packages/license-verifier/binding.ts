/**
 * Device binding: a license can be bound to a device fingerprint (an object of device
 * properties such as cpu_id, disk_serial, mac_address, motherboard_serial).
 *
 * Each property is stored only as SHA-256(salt || name || 0x00 || normalised value), so the
 * artifact does not reveal the device. A fingerprint matches when at most `max_mismatches`
 * of the bound properties differ or are missing (the default tolerates one replaced part
 * when three or more properties are bound; with one or two bound, all must match), and at
 * least one property matches. Normalisation: trimmed, lower-cased, and for MAC addresses the
 * separators `:` `-` `.` removed.
 */
import { createHash } from 'node:crypto';
import type { DeviceBinding } from './format.ts';

export type Fingerprint = Record<string, string>;

export function normalise(name: string, value: string): string {
  const v = value.trim().toLowerCase();
  return name === 'mac_address' ? v.replace(/[:.-]/g, '') : v;
}

export function propertyHash(salt: Uint8Array, name: string, value: string): string {
  return createHash('sha256')
    .update(salt)
    .update(name, 'utf8')
    .update(Buffer.from([0]))
    .update(normalise(name, value), 'utf8')
    .digest('hex');
}

export function defaultMaxMismatches(propertyCount: number): number {
  return propertyCount >= 3 ? 1 : 0;
}

export function createBinding(fingerprint: Fingerprint, salt: Uint8Array, maxMismatches?: number): DeviceBinding {
  const properties: Record<string, string> = {};
  for (const [name, value] of Object.entries(fingerprint)) properties[name] = propertyHash(salt, name, value);
  const count = Object.keys(properties).length;
  return {
    scheme: 'sha256-salted-per-property',
    salt: Buffer.from(salt).toString('base64url'),
    properties,
    max_mismatches: Math.min(maxMismatches ?? defaultMaxMismatches(count), Math.max(count - 1, 0)),
  };
}

export interface BindingCheck {
  matched: number;
  mismatched: number;
  ok: boolean;
}

export function checkBinding(binding: DeviceBinding, fingerprint: Fingerprint | null | undefined): BindingCheck {
  const names = Object.keys(binding.properties);
  if (!fingerprint || binding.scheme !== 'sha256-salted-per-property') {
    return { matched: 0, mismatched: names.length, ok: false };
  }
  const salt = new Uint8Array(Buffer.from(binding.salt, 'base64url'));
  let matched = 0;
  for (const name of names) {
    const value = fingerprint[name];
    if (typeof value === 'string' && propertyHash(salt, name, value) === binding.properties[name]) matched++;
  }
  const mismatched = names.length - matched;
  return { matched, mismatched, ok: matched > 0 && mismatched <= binding.max_mismatches };
}
