/**
 * The validation rules of a license artifact, shared by the server and the offline verifier,
 * so both always reach the same status. Order: signature, revocation, not-before, expiry and
 * grace, device binding; the first failing rule decides.
 *
 * Time boundaries (all instants compared in milliseconds):
 *   now <  not_before                          -> not_yet_valid
 *   not_before <= now < expires_at             -> valid
 *   expires_at <= now < expires_at + grace     -> grace_period (is_valid true)
 *   now >= expires_at + grace                  -> expired
 */
import { checkBinding, type Fingerprint } from './binding.ts';
import type { ArtifactPayload } from './format.ts';

export type LicenseStatus =
  | 'valid'
  | 'grace_period'
  | 'expired'
  | 'revoked'
  | 'not_yet_valid'
  | 'binding_mismatch'
  | 'signature_invalid';

export type ValidationErrorCode =
  | 'EXPIRED'
  | 'REVOKED'
  | 'NOT_YET_VALID'
  | 'BINDING_MISMATCH'
  | 'SIGNATURE_INVALID'
  | 'EPOCH_ROLLBACK';

export interface ValidationResult {
  is_valid: boolean;
  status: LicenseStatus;
  error: ValidationErrorCode | null;
  error_message: string | null;
  license_id: string;
  entitlements: string[];
  expires_at: string;
  in_grace_period: boolean;
  binding_verified: boolean;
  revocation_epoch: number;
}

const DAY_MS = 86_400_000;

export interface EvaluationInput {
  payload: ArtifactPayload | null;
  signatureValid: boolean;
  revoked: { reason: string; until: string | null } | null;
  fingerprint?: Fingerprint | null;
  now: Date;
  epoch: number;
}

export function invalid(
  base: Pick<ValidationResult, 'license_id' | 'expires_at' | 'revocation_epoch'>,
  status: LicenseStatus,
  error: ValidationErrorCode,
  message: string,
): ValidationResult {
  return {
    ...base,
    is_valid: false,
    status,
    error,
    error_message: message,
    entitlements: [],
    in_grace_period: false,
    binding_verified: false,
  };
}

export function evaluate(input: EvaluationInput): ValidationResult {
  const p = input.payload;
  const base = {
    license_id: p?.license_id ?? '',
    expires_at: p?.expires_at ?? '',
    revocation_epoch: input.epoch,
  };
  if (!p || !input.signatureValid) {
    return invalid(base, 'signature_invalid', 'SIGNATURE_INVALID', 'License signature verification failed');
  }
  if (input.revoked) {
    const until = input.revoked.until ? ` until ${input.revoked.until}` : '';
    return invalid(base, 'revoked', 'REVOKED', `License revoked (${input.revoked.reason})${until}`);
  }
  const now = input.now.getTime();
  if (now < Date.parse(p.not_before)) {
    return invalid(base, 'not_yet_valid', 'NOT_YET_VALID', `License is not valid before ${p.not_before}`);
  }
  const expires = Date.parse(p.expires_at);
  const graceEnd = expires + p.grace_period_days * DAY_MS;
  if (now >= graceEnd) {
    return invalid(base, 'expired', 'EXPIRED', `License expired at ${p.expires_at}`);
  }
  let bindingVerified = false;
  if (p.binding) {
    const check = checkBinding(p.binding, input.fingerprint);
    if (!check.ok) {
      const detail = input.fingerprint
        ? `${check.mismatched} of ${check.matched + check.mismatched} bound device properties differ`
        : 'no device fingerprint was given';
      return invalid(base, 'binding_mismatch', 'BINDING_MISMATCH', `Device binding mismatch: ${detail}`);
    }
    bindingVerified = true;
  }
  const inGrace = now >= expires;
  return {
    ...base,
    is_valid: true,
    status: inGrace ? 'grace_period' : 'valid',
    error: null,
    error_message: null,
    entitlements: [...p.entitlements],
    in_grace_period: inGrace,
    binding_verified: bindingVerified,
  };
}
