/**
 * Evidence bundles: hash-pinned records of an execution, signed with ML-DSA over the RFC 8785
 * canonical JSON of the bundle without its signature fields, verifiable offline against the
 * published keys, exportable as JSON, CBOR and PDF. See README.md.
 */
export { evidenceMigrations } from './migrations.ts';
export { canonicalJson, isSha3Hash, sha3Hash, sha3HashJson } from './hash.ts';
export {
  allPublishedKeys,
  EVIDENCE_ALGORITHMS,
  EvidenceKeys,
  isEvidenceAlgorithm,
  type EvidenceAlgorithm,
  type EvidenceKey,
  type PublicKeyInfo,
  type PublicKeysDocument,
} from './keys.ts';
export { checkSignature, decodeBase64, signedBytes, signEvidence, type EvidenceSignature } from './sign.ts';
export {
  bundleIdOf,
  detectProfile,
  EVIDENCE_KINDS,
  isEvidenceKind,
  PROFILES,
  unsignedView,
  type Bundle,
  type CheckResult,
  type EvidenceKind,
  type EvidenceProfile,
  type HashInputs,
} from './profiles.ts';
export { sealBundle, verdicts, verifyBundle, type KeySource, type VerificationResult, type VerifyOptions } from './seal.ts';
export { bundleForSubject, loadBundle, newBundleId, saveBundle, type StoredBundle } from './store.ts';
export {
  decodeBundleCbor,
  encodeBundleCbor,
  EXPORT_FORMATS,
  exportBundle,
  isExportFormat,
  type ExportedBundle,
  type ExportFormat,
} from './export.ts';
