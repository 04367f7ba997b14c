/**
 * The signed revocation set: `signature` is ML-DSA-65 (empty context) over the RFC 8785
 * canonical JSON of the set without its `signature` field; `key_id` names the key.
 */
import { canonicalJson } from './format.ts';

export interface RevocationEntry {
  license_id: string;
  reason: string;
  revoked_at: string;
  /** End of a suspension; null for a permanent revocation. */
  effective_until: string | null;
}

export interface RevocationSet {
  epoch: number;
  /** Present when the set holds only the changes after this epoch. */
  since_epoch: number | null;
  account_id: string;
  revoked_ids: string[];
  /** Licenses restored (or whose suspension was lifted) after `since_epoch`. */
  restored_ids: string[];
  entries: RevocationEntry[];
  issued_at: string;
  valid_until: string;
  key_id: string;
  signature: string;
}

export function revocationSetSigningInput(set: Omit<RevocationSet, 'signature'> & { signature?: string }): Uint8Array {
  const { signature: _omit, ...unsigned } = set;
  return new TextEncoder().encode(canonicalJson(unsigned));
}
