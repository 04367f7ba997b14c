/**
 * The four kinds of evidence bundle and where each keeps its signature, hashes and times.
 * A profile is small on purpose: the service that issues a kind owns its content and may
 * refine its profile; the signing rule is the same for all (sign.ts).
 *
 * - core (interface 3): `{bundle_id, version: "3.0", created_at, circuit_hash,
 *   execution_proof {backend, shots, timestamp}, signatures {algorithm, signature: "base64:..."}, key_id}`.
 * - nav (interface 7): `{bundle_id, version, created_at, position, timing, integrity,
 *   position_hash, timing_hash, signature {algorithm, key_id, value}}`.
 * - platform (interface 5): `{bundle, hash, checks, signature, algo, key_version}` with
 *   `hash` = sha3 of the canonical JSON of `bundle` and `key_version` = the key id.
 * - runtime (interface 6, `execution_evidence.json`): `{type: "execution_evidence",
 *   evidence_version, job_id, backend_id, shots, qasm_hash, result_hash, created_at,
 *   completed_at, signature {algorithm, key_id, value}}`.
 */
import { isSha3Hash, sha3Hash, sha3HashJson } from './hash.ts';
import type { EvidenceSignature } from './sign.ts';

export const EVIDENCE_KINDS = ['core', 'nav', 'platform', 'runtime'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export type Bundle = Record<string, unknown>;

/** One check's outcome. `reason` says why an `invalid` failed, or what a `valid` could not cover. */
export interface CheckResult {
  verdict: 'valid' | 'invalid';
  reason?: string;
}

/** The data behind hashes that a bundle only pins (a circuit's text, a result file), by hash field name. */
export type HashInputs = Record<string, string | Uint8Array | undefined>;

export interface ReadSignature {
  algorithm?: unknown;
  key_id?: unknown;
  /** Standard base64 of the signature, its prefix (if any) removed. */
  signature?: unknown;
  /** Set when the signature fields are not in the profile's shape. */
  problem?: string;
}

export interface EvidenceProfile {
  kind: EvidenceKind;
  /** The service whose keys sign this kind. */
  service: string;
  /** Where that service publishes its public keys (unauthenticated GET). */
  keysPath: string;
  title: string;
  /** Top-level fields written by the signing step: they are left out of the signed bytes. */
  signatureFields: readonly string[];
  detect(bundle: Bundle): boolean;
  /** Fills the derived fields (hashes of embedded objects) before signing. */
  prepare(unsigned: Bundle): Bundle;
  attach(unsigned: Bundle, signature: EvidenceSignature): Bundle;
  readSignature(bundle: Bundle): ReadSignature;
  /** Named hash checks; a hash whose data is embedded is recomputed, one pinning outside data is compared when `inputs` has it. */
  hashChecks(bundle: Bundle, inputs: HashInputs): Record<string, CheckResult>;
  /** Timestamp fields (dotted paths) and pairs that must be in order (first not after second). */
  timestamps: { fields: readonly { path: string; required: boolean }[]; order: readonly (readonly [string, string])[] };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The check of a hash that pins data outside the bundle. */
export function pinnedHashCheck(value: unknown, input: string | Uint8Array | undefined): CheckResult {
  if (!isSha3Hash(value)) return { verdict: 'invalid', reason: 'not a sha3-256:<64 lower-case hex> hash' };
  if (input === undefined) return { verdict: 'valid', reason: 'well-formed; the hashed data was not supplied, so its content was not compared' };
  return sha3Hash(input) === value ? { verdict: 'valid' } : { verdict: 'invalid', reason: 'does not match the SHA3-256 of the data supplied' };
}

/** The check of a hash of an object the bundle carries itself (recomputed over its canonical JSON). */
export function embeddedHashCheck(value: unknown, embedded: unknown, what: string): CheckResult {
  if (embedded === undefined || embedded === null) {
    return value === null || value === undefined
      ? { verdict: 'valid', reason: `no ${what} in the bundle` }
      : { verdict: 'invalid', reason: `a hash is given but the bundle has no ${what}` };
  }
  if (!isSha3Hash(value)) return { verdict: 'invalid', reason: 'not a sha3-256:<64 lower-case hex> hash' };
  return sha3HashJson(embedded) === value
    ? { verdict: 'valid' }
    : { verdict: 'invalid', reason: `does not match the SHA3-256 of the canonical JSON of ${what}` };
}

/** Reads a `{algorithm, key_id, value}` signature object that allows no other keys. */
function readObjectSignature(sig: unknown): ReadSignature {
  if (!isObject(sig)) return { problem: 'the bundle has no signature object' };
  const extra = Object.keys(sig).filter((k) => !['algorithm', 'key_id', 'value'].includes(k));
  if (extra.length) return { problem: `unexpected signature field(s): ${extra.join(', ')}` };
  return { algorithm: sig.algorithm, key_id: sig.key_id, signature: sig.value };
}

const core: EvidenceProfile = {
  kind: 'core',
  service: 'core',
  keysPath: '/api/v2/evidence/keys',
  title: 'Core API evidence bundle (interface 3)',
  signatureFields: ['signatures', 'key_id'],
  detect: (b) => 'circuit_hash' in b && ('signatures' in b || 'execution_proof' in b),
  prepare: (u) => u,
  attach: (u, s) => ({ ...u, signatures: { algorithm: s.algorithm, signature: `base64:${s.signature}` }, key_id: s.key_id }),
  readSignature(b) {
    const sigs = b.signatures;
    if (!isObject(sigs)) return { problem: 'the bundle has no signatures object' };
    const extra = Object.keys(sigs).filter((k) => k !== 'algorithm' && k !== 'signature');
    if (extra.length) return { problem: `unexpected signatures field(s): ${extra.join(', ')}` };
    if (typeof sigs.signature !== 'string' || !sigs.signature.startsWith('base64:')) {
      return { problem: 'signatures.signature is not of the form base64:<...>' };
    }
    return { algorithm: sigs.algorithm, key_id: b.key_id, signature: sigs.signature.slice('base64:'.length) };
  },
  // The spec's verify names this check `hash`: it covers `circuit_hash`.
  hashChecks: (b, inputs) => ({ hash: pinnedHashCheck(b.circuit_hash, inputs.circuit_hash) }),
  timestamps: {
    fields: [
      { path: 'created_at', required: true },
      { path: 'execution_proof.timestamp', required: true },
    ],
    order: [['execution_proof.timestamp', 'created_at']],
  },
};

const nav: EvidenceProfile = {
  kind: 'nav',
  service: 'nav',
  keysPath: '/evidence/keys',
  title: 'Positioning evidence bundle (interface 7)',
  signatureFields: ['signature'],
  detect: (b) => 'position' in b && 'bundle_id' in b,
  prepare: (u) => ({
    ...u,
    position_hash: u.position == null ? null : sha3HashJson(u.position),
    timing_hash: u.timing == null ? null : sha3HashJson(u.timing),
  }),
  attach: (u, s) => ({ ...u, signature: { algorithm: s.algorithm, key_id: s.key_id, value: s.signature } }),
  readSignature: (b) => readObjectSignature(b.signature),
  hashChecks: (b) => ({
    position_hash: embeddedHashCheck(b.position_hash, b.position, 'position'),
    timing_hash: embeddedHashCheck(b.timing_hash, b.timing, 'timing'),
  }),
  timestamps: {
    fields: [
      { path: 'created_at', required: true },
      { path: 'position.timestamp', required: false },
    ],
    order: [['position.timestamp', 'created_at']],
  },
};

const platform: EvidenceProfile = {
  kind: 'platform',
  service: 'platform',
  keysPath: '/api/v1/platform/evidence/keys',
  title: 'Platform execution evidence (interface 5)',
  // `checks` (what the platform checked when it sealed the job) is signed with the bundle.
  signatureFields: ['signature', 'algo', 'key_version'],
  detect: (b) => isObject(b.bundle) && 'hash' in b,
  prepare: (u) => ({ ...u, hash: sha3HashJson(u.bundle) }),
  attach: (u, s) => ({ ...u, signature: s.signature, algo: s.algorithm, key_version: s.key_id }),
  readSignature: (b) => ({ algorithm: b.algo, key_id: b.key_version, signature: b.signature }),
  hashChecks: (b) => ({ hash: embeddedHashCheck(b.hash, b.bundle, 'bundle') }),
  timestamps: {
    fields: [
      { path: 'bundle.created_at', required: true },
      { path: 'bundle.settled_at', required: false },
    ],
    order: [['bundle.settled_at', 'bundle.created_at']],
  },
};

const runtime: EvidenceProfile = {
  kind: 'runtime',
  service: 'runtime',
  keysPath: '/api/v1/runtime/evidence/keys',
  title: 'Runtime execution evidence (interface 6, execution_evidence.json)',
  signatureFields: ['signature'],
  detect: (b) => b.type === 'execution_evidence',
  prepare: (u) => ({ type: 'execution_evidence', ...u }),
  attach: (u, s) => ({ ...u, signature: { algorithm: s.algorithm, key_id: s.key_id, value: s.signature } }),
  readSignature: (b) => readObjectSignature(b.signature),
  hashChecks: (b, inputs) => ({
    qasm_hash: pinnedHashCheck(b.qasm_hash, inputs.qasm_hash),
    result_hash: pinnedHashCheck(b.result_hash, inputs.result_hash),
  }),
  timestamps: {
    fields: [
      { path: 'created_at', required: true },
      { path: 'completed_at', required: false },
    ],
    order: [['completed_at', 'created_at']],
  },
};

export const PROFILES: Readonly<Record<EvidenceKind, EvidenceProfile>> = { core, nav, platform, runtime };

export function isEvidenceKind(value: unknown): value is EvidenceKind {
  return typeof value === 'string' && (EVIDENCE_KINDS as readonly string[]).includes(value);
}

/** The profile whose shape `bundle` has (platform, core, nav, runtime are told apart by their fields), or null. */
export function detectProfile(bundle: unknown): EvidenceProfile | null {
  if (!isObject(bundle)) return null;
  for (const kind of ['platform', 'runtime', 'core', 'nav'] as const) {
    if (PROFILES[kind].detect(bundle)) return PROFILES[kind];
  }
  return null;
}

/** The bundle without the profile's signature fields: the object whose canonical JSON is signed. */
export function unsignedView(profile: EvidenceProfile, bundle: Bundle): Bundle {
  const out: Bundle = {};
  for (const [k, v] of Object.entries(bundle)) if (!profile.signatureFields.includes(k)) out[k] = v;
  return out;
}

/** The value at a dotted path, or undefined. */
export function valueAt(bundle: Bundle, path: string): unknown {
  let v: unknown = bundle;
  for (const part of path.split('.')) {
    if (!isObject(v)) return undefined;
    v = v[part];
  }
  return v;
}

/** The id a bundle is known by: `bundle_id`, else a job id (platform and runtime bundles), else null. */
export function bundleIdOf(bundle: Bundle): string | null {
  const inner = isObject(bundle.bundle) ? bundle.bundle : {};
  const id = bundle.bundle_id ?? inner.bundle_id ?? bundle.job_id ?? inner.job_id;
  return typeof id === 'string' && id.length > 0 ? id : null;
}
