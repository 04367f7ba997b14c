/** Issues variant A license artifacts: records the license, then signs it with ML-DSA-65 (and RSA-PSS when hybrid). */
import { randomBytes, randomUUID } from 'node:crypto';
import { sign } from '../../../engines/crypto/index.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import type { Sql } from '../../../platform/storage/database.ts';
import {
  ARTIFACT_TYPE,
  ARTIFACT_VERSION,
  createBinding,
  encodeCompact,
  encodeJson,
  signingInput,
  type Artifact,
  type ArtifactHeader,
  type ArtifactPayload,
  type Fingerprint,
} from '../../../packages/license-verifier/index.ts';
import type { SigningKeys } from '../signing-keys.ts';
import { currentEpoch } from './revocations.ts';

export interface IssueRequest {
  accountId: string;
  entitlements: string[];
  expiresAt?: Date | null;
  notBefore?: Date | null;
  graceDays?: number;
  fingerprint?: Fingerprint | null;
  maxMismatches?: number;
  hybrid?: boolean;
}

export interface IssuedLicense {
  license_id: string;
  artifact_compact: string;
  artifact_json: string;
  payload: ArtifactPayload;
}

const DAY_MS = 86_400_000;
export const ENTITLEMENT = /^[A-Za-z0-9_.-]+:[A-Za-z0-9_.*-]+$/;

export async function issueLicense(db: Sql, keys: SigningKeys, request: IssueRequest, now: Date): Promise<IssuedLicense> {
  for (const e of request.entitlements) {
    if (!ENTITLEMENT.test(e)) throw new ApiError(400, 'invalid_entitlement', `Entitlement '${e}' must be shaped <category>:<name>`);
  }
  const notBefore = request.notBefore ?? now;
  const expiresAt = request.expiresAt ?? new Date(now.getTime() + 365 * DAY_MS);
  if (expiresAt.getTime() <= notBefore.getTime()) {
    throw new ApiError(400, 'invalid_dates', 'expires_at must be later than not_before');
  }
  const fingerprint = request.fingerprint && Object.keys(request.fingerprint).length ? request.fingerprint : null;

  const mldsa = await keys.active('artifact', 'ML-DSA-65');
  const rsa = request.hybrid ? await keys.active('artifact', 'RSA-PSS-SHA256') : null;
  const header: ArtifactHeader = {
    typ: ARTIFACT_TYPE,
    ver: ARTIFACT_VERSION,
    sigs: [{ alg: 'ML-DSA-65', kid: mldsa.key_id }, ...(rsa ? [{ alg: 'RSA-PSS-SHA256', kid: rsa.key_id }] : [])],
  };
  const payload: ArtifactPayload = {
    license_id: randomUUID(),
    account_id: request.accountId,
    entitlements: [...new Set(request.entitlements)],
    issued_at: now.toISOString(),
    not_before: notBefore.toISOString(),
    expires_at: expiresAt.toISOString(),
    grace_period_days: request.graceDays ?? 0,
    revocation_epoch: await currentEpoch(db),
    binding: fingerprint ? createBinding(fingerprint, randomBytes(16), request.maxMismatches) : null,
  };
  const message = signingInput(header, payload);
  const signatures = [await sign('ML-DSA-65', mldsa.secret_key, message)];
  if (rsa) signatures.push(await sign('RSA-PSS-SHA256', rsa.secret_key, message));
  const artifact: Artifact = { header, payload, signatures };

  await db.query(
    `INSERT INTO licensing_artifact_licenses
       (license_id, account_id, entitlements, issued_at, not_before, expires_at, grace_period_days, bound, key_ids, issued_epoch)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      payload.license_id,
      payload.account_id,
      payload.entitlements,
      payload.issued_at,
      payload.not_before,
      payload.expires_at,
      payload.grace_period_days,
      payload.binding !== null,
      header.sigs.map((s) => s.kid),
      payload.revocation_epoch,
    ],
  );
  return { license_id: payload.license_id, artifact_compact: encodeCompact(artifact), artifact_json: encodeJson(artifact), payload };
}
