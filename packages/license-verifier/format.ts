/**
 * The license artifact format (version 1), shared by the issuing server and the offline
 * verifier. See README.md beside this file for the byte-level description.
 *
 *   header  {typ: "LATTICE-LICENSE", ver: 1, sigs: [{alg, kid}, ...]}
 *   payload {license_id, account_id, entitlements, issued_at, not_before, expires_at,
 *            grace_period_days, revocation_epoch, binding}
 *   signing input: UTF-8 of the RFC 8785 canonical JSON of {header, payload}
 *   JSON form:    {header, payload, signatures: [{alg, kid, sig (base64)}]}
 *   compact form: b64url(JCS(header)) "." b64url(JCS(payload)) ("." b64url(sig))+
 */
import canonicalizeModule from 'canonicalize';

const canonicalize = ((canonicalizeModule as unknown as { default?: unknown }).default ?? canonicalizeModule) as (
  value: unknown,
) => string | undefined;

export const ARTIFACT_TYPE = 'LATTICE-LICENSE';
export const ARTIFACT_VERSION = 1;
/** Algorithms an artifact may name; anything else (including `none`) fails verification. */
export const ARTIFACT_ALGORITHMS = ['ML-DSA-65', 'ML-DSA-87', 'RSA-PSS-SHA256'] as const;
export type ArtifactAlgorithm = (typeof ARTIFACT_ALGORITHMS)[number];

export interface SignatureSlot {
  alg: string;
  kid: string;
}

export interface ArtifactHeader {
  typ: string;
  ver: number;
  sigs: SignatureSlot[];
}

export interface DeviceBinding {
  scheme: 'sha256-salted-per-property';
  /** base64url of 16 random bytes, different for every license. */
  salt: string;
  /** property name -> lower-case hex SHA-256 of (salt, name, normalised value). */
  properties: Record<string, string>;
  /** How many bound properties may differ (or be missing) and still match. */
  max_mismatches: number;
}

export interface ArtifactPayload {
  license_id: string;
  account_id: string;
  entitlements: string[];
  issued_at: string;
  not_before: string;
  expires_at: string;
  grace_period_days: number;
  revocation_epoch: number;
  binding: DeviceBinding | null;
}

export interface Artifact {
  header: ArtifactHeader;
  payload: ArtifactPayload;
  /** One raw signature per header slot, in the same order. */
  signatures: Uint8Array[];
  /**
   * False when the JSON form's unsigned per-signature copies of alg/kid disagree with the
   * signed header: such an artifact parses, but never verifies.
   */
  consistent?: boolean;
}

export class ArtifactParseError extends Error {}

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

export function signingInput(header: ArtifactHeader, payload: ArtifactPayload): Uint8Array {
  return new TextEncoder().encode(canonicalJson({ header, payload }));
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');

export function encodeCompact(artifact: Artifact): string {
  return [
    b64url(canonicalJson(artifact.header)),
    b64url(canonicalJson(artifact.payload)),
    ...artifact.signatures.map((s) => b64url(s)),
  ].join('.');
}

export function encodeJson(artifact: Artifact): string {
  return JSON.stringify({
    header: artifact.header,
    payload: artifact.payload,
    signatures: artifact.header.sigs.map((slot, i) => ({
      alg: slot.alg,
      kid: slot.kid,
      sig: Buffer.from(artifact.signatures[i]!).toString('base64'),
    })),
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function checkHeader(h: unknown): ArtifactHeader {
  if (!isObject(h)) throw new ArtifactParseError('header must be an object');
  if (typeof h.typ !== 'string') throw new ArtifactParseError('header.typ must be a string');
  if (typeof h.ver !== 'number') throw new ArtifactParseError('header.ver must be a number');
  if (!Array.isArray(h.sigs) || h.sigs.length === 0) throw new ArtifactParseError('header.sigs must be a non-empty array');
  for (const s of h.sigs) {
    if (!isObject(s) || typeof s.alg !== 'string' || typeof s.kid !== 'string') {
      throw new ArtifactParseError('header.sigs entries must be {alg, kid} strings');
    }
  }
  return h as unknown as ArtifactHeader;
}

function checkPayload(p: unknown): ArtifactPayload {
  if (!isObject(p)) throw new ArtifactParseError('payload must be an object');
  for (const f of ['license_id', 'account_id', 'issued_at', 'not_before', 'expires_at'] as const) {
    if (typeof p[f] !== 'string') throw new ArtifactParseError(`payload.${f} must be a string`);
  }
  for (const f of ['issued_at', 'not_before', 'expires_at'] as const) {
    if (!ISO.test(p[f] as string) || Number.isNaN(Date.parse(p[f] as string))) {
      throw new ArtifactParseError(`payload.${f} must be an ISO 8601 datetime`);
    }
  }
  if (!Array.isArray(p.entitlements) || !p.entitlements.every((e) => typeof e === 'string')) {
    throw new ArtifactParseError('payload.entitlements must be an array of strings');
  }
  if (typeof p.grace_period_days !== 'number' || !(p.grace_period_days >= 0)) {
    throw new ArtifactParseError('payload.grace_period_days must be a non-negative number');
  }
  if (!Number.isInteger(p.revocation_epoch)) throw new ArtifactParseError('payload.revocation_epoch must be an integer');
  if (p.binding !== null) {
    const b = p.binding;
    if (!isObject(b) || typeof b.salt !== 'string' || !isObject(b.properties) || typeof b.max_mismatches !== 'number') {
      throw new ArtifactParseError('payload.binding must be null or {scheme, salt, properties, max_mismatches}');
    }
  }
  return p as unknown as ArtifactPayload;
}

function decodeSegment(segment: string, what: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]+$/.test(segment)) throw new ArtifactParseError(`${what} is not base64url`);
  return new Uint8Array(Buffer.from(segment, 'base64url'));
}

function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ArtifactParseError(`${what} is not valid JSON`);
  }
}

export function parseCompact(token: string): Artifact {
  const parts = token.trim().split('.');
  if (parts.length < 3) throw new ArtifactParseError('compact token must have a header, a payload and at least one signature');
  const headerText = Buffer.from(decodeSegment(parts[0]!, 'header')).toString('utf8');
  const payloadText = Buffer.from(decodeSegment(parts[1]!, 'payload')).toString('utf8');
  const header = checkHeader(parseJsonText(headerText, 'header'));
  const payload = checkPayload(parseJsonText(payloadText, 'payload'));
  // Only canonical encodings are accepted, so one license has exactly one compact form.
  if (canonicalJson(header) !== headerText || canonicalJson(payload) !== payloadText) {
    throw new ArtifactParseError('header and payload must be canonical JSON (RFC 8785)');
  }
  const signatures = parts.slice(2).map((s, i) => decodeSegment(s, `signature ${i + 1}`));
  return { header, payload, signatures };
}

export function parseJsonArtifact(text: string): Artifact {
  const value = parseJsonText(text, 'artifact');
  if (!isObject(value)) throw new ArtifactParseError('artifact must be a JSON object');
  const header = checkHeader(value.header);
  const payload = checkPayload(value.payload);
  if (!Array.isArray(value.signatures)) throw new ArtifactParseError('signatures must be an array');
  let consistent = true;
  const signatures = value.signatures.map((s, i) => {
    if (!isObject(s) || typeof s.sig !== 'string') throw new ArtifactParseError(`signatures[${i}].sig must be a string`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s.sig)) throw new ArtifactParseError(`signatures[${i}].sig is not base64`);
    // The per-signature alg/kid are convenience copies of the signed header's slots.
    const slot = header.sigs[i];
    if (!slot || (s.alg !== undefined && s.alg !== slot.alg) || (s.kid !== undefined && s.kid !== slot.kid)) consistent = false;
    return new Uint8Array(Buffer.from(s.sig, 'base64'));
  });
  return { header, payload, signatures, consistent };
}
