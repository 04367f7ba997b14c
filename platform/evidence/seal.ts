/** Sealing (sign and attach) and verifying bundles of any profile, with a verdict per check. */
import type { EvidenceAlgorithm, EvidenceKeys, PublicKeyInfo, PublicKeysDocument } from './keys.ts';
import {
  detectProfile,
  PROFILES,
  unsignedView,
  valueAt,
  type Bundle,
  type CheckResult,
  type EvidenceKind,
  type EvidenceProfile,
  type HashInputs,
} from './profiles.ts';
import { checkSignature, signEvidence } from './sign.ts';

/**
 * Fills the profile's derived hashes, signs the result and returns the bundle with its
 * signature fields.
 *
 * @example
 *   const keys = new EvidenceKeys(ctx.db, 'core');
 *   const bundle = await sealBundle(keys, 'core', {
 *     bundle_id, version: '3.0', created_at, circuit_hash: sha3Hash(qasm),
 *     execution_proof: { backend, shots, timestamp },
 *   });
 */
export async function sealBundle(
  keys: EvidenceKeys,
  kind: EvidenceKind,
  unsigned: Bundle,
  options: { algorithm?: EvidenceAlgorithm } = {},
): Promise<Bundle> {
  const profile = PROFILES[kind];
  const stray = profile.signatureFields.filter((f) => f in unsigned);
  if (stray.length) throw new TypeError(`an unsigned ${kind} bundle must not have ${stray.join(', ')}`);
  const prepared = profile.prepare(unsigned);
  const signature = await signEvidence(keys, prepared, options.algorithm ?? 'ML-DSA-65');
  return profile.attach(prepared, signature);
}

/** Where verification finds public keys: a key-list document, a list, or a lookup (e.g. the store). */
export type KeySource = PublicKeysDocument | readonly PublicKeyInfo[] | ((keyId: string) => Promise<PublicKeyInfo | undefined>);

export interface VerifyOptions {
  keys: KeySource;
  /** The profile; detected from the bundle's fields when omitted. */
  kind?: EvidenceKind;
  /** Data behind pinned hashes (e.g. `{circuit_hash: qasmText}`); without it only their form is checked. */
  hashInputs?: HashInputs;
  /** "Now" for the timestamp check (a service passes ctx.now()). */
  now?: Date;
  /** How far in the future a timestamp may be (clock skew); default 5 minutes. */
  maxFutureSkewMs?: number;
}

export interface VerificationResult {
  /** True only when every check is valid. */
  valid: boolean;
  kind: EvidenceKind | null;
  key_id: string | null;
  /** `signature`, the profile's named hash checks, `timestamp`; `format` only when the bundle is not a known kind. */
  checks: Record<string, CheckResult>;
}

async function findKey(source: KeySource, keyId: string): Promise<PublicKeyInfo | undefined> {
  if (typeof source === 'function') return source(keyId);
  const list = Array.isArray(source) ? (source as readonly PublicKeyInfo[]) : (source as PublicKeysDocument).keys;
  return (list ?? []).find((k) => k.key_id === keyId);
}

// RFC 3339 date-time (what toISOString writes, with any offset or precision).
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const EARLIEST = Date.parse('2000-01-01T00:00:00Z');

function timestampCheck(profile: EvidenceProfile, bundle: Bundle, now: Date, skewMs: number): CheckResult {
  const times = new Map<string, number>();
  for (const { path, required } of profile.timestamps.fields) {
    const value = valueAt(bundle, path);
    if (value === undefined || value === null) {
      if (required) return { verdict: 'invalid', reason: `${path} is missing` };
      continue;
    }
    const ms = typeof value === 'string' && RFC3339.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(ms)) return { verdict: 'invalid', reason: `${path} is not an RFC 3339 date-time` };
    if (ms < EARLIEST) return { verdict: 'invalid', reason: `${path} is before 2000` };
    if (ms > now.getTime() + skewMs) return { verdict: 'invalid', reason: `${path} is in the future (${value}, now ${now.toISOString()})` };
    times.set(path, ms);
  }
  for (const [earlier, later] of profile.timestamps.order) {
    const a = times.get(earlier);
    const b = times.get(later);
    if (a !== undefined && b !== undefined && a > b) return { verdict: 'invalid', reason: `${earlier} is after ${later}` };
  }
  return { verdict: 'valid' };
}

/**
 * Verifies a bundle offline: the signature against the published keys, each hash the
 * profile names, and the timestamps' sanity. Never throws on a malformed bundle; says which
 * check failed and why.
 */
export async function verifyBundle(bundle: unknown, options: VerifyOptions): Promise<VerificationResult> {
  const isObject = typeof bundle === 'object' && bundle !== null && !Array.isArray(bundle);
  const profile = options.kind ? PROFILES[options.kind] : detectProfile(bundle);
  if (!isObject || !profile) {
    return {
      valid: false,
      kind: null,
      key_id: null,
      checks: { format: { verdict: 'invalid', reason: 'not an evidence bundle of a known kind (core, nav, platform, runtime)' } },
    };
  }
  const b = bundle as Bundle;
  const checks: Record<string, CheckResult> = {};
  const read = profile.readSignature(b);
  let keyId: string | null = null;
  if (read.problem) checks.signature = { verdict: 'invalid', reason: read.problem };
  else if (typeof read.key_id !== 'string' || !read.key_id) checks.signature = { verdict: 'invalid', reason: 'the bundle names no key id' };
  else {
    keyId = read.key_id;
    const key = await findKey(options.keys, keyId);
    const problem = await checkSignature(key, read.algorithm, unsignedView(profile, b), read.signature);
    checks.signature = problem ? { verdict: 'invalid', reason: problem } : { verdict: 'valid' };
  }
  Object.assign(checks, profile.hashChecks(b, options.hashInputs ?? {}));
  checks.timestamp = timestampCheck(profile, b, options.now ?? new Date(), options.maxFutureSkewMs ?? 5 * 60_000);
  return { valid: Object.values(checks).every((c) => c.verdict === 'valid'), kind: profile.kind, key_id: keyId, checks };
}

/** `{name: verdict}`: the flat form of `checks` for responses that show verdicts only. */
export function verdicts(result: VerificationResult): Record<string, 'valid' | 'invalid'> {
  return Object.fromEntries(Object.entries(result.checks).map(([k, v]) => [k, v.verdict]));
}
