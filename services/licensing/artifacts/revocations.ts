/**
 * Variant A revocation state and the global epoch. Every change (a revocation, a suspension,
 * a restore) takes the next epoch in the same transaction as the change, so epochs count
 * changes exactly, with no gaps or repeats, across any number of processes.
 */
import { sign } from '../../../engines/crypto/index.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import type { Sql, Database } from '../../../platform/storage/database.ts';
import {
  revocationSetSigningInput,
  type RevocationEntry,
  type RevocationSet,
} from '../../../packages/license-verifier/index.ts';
import type { SigningKeys } from '../signing-keys.ts';
import { notify } from '../../../platform/storage/channels.ts';

export const REVOCATION_REASONS = [
  'unspecified',
  'violation',
  'fraud',
  'chargeback',
  'expired_subscription',
  'key_compromise',
  'administrative',
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/** How long a full revocation set may be relied on before the client fetches a new one. */
const SET_LIFETIME_MS = 24 * 3_600_000;

export async function currentEpoch(db: Sql): Promise<number> {
  const [row] = await db.query<{ epoch: number | string }>('SELECT epoch FROM licensing_epoch WHERE id = 1');
  return Number(row?.epoch ?? 0);
}

/** Takes the next epoch; the NOTIFY (delivered at commit) tells validators to drop their caches. */
async function nextEpoch(tx: Sql): Promise<number> {
  const [row] = await tx.query<{ epoch: number | string }>('UPDATE licensing_epoch SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch');
  await notify(tx, 'licensing_revocations', String(row!.epoch));
  return Number(row!.epoch);
}

interface LicenseRow {
  license_id: string;
  account_id: string;
}

async function lockOwnedLicense(tx: Sql, licenseId: string, accountId: string): Promise<LicenseRow> {
  const [row] = await tx.query<LicenseRow>(
    'SELECT license_id, account_id FROM licensing_artifact_licenses WHERE license_id::text = $1 FOR UPDATE',
    [licenseId],
  );
  // Another account's license answers exactly like an unknown one.
  if (!row || row.account_id !== accountId) throw new ApiError(404, 'not_found', `License not found: ${licenseId}`);
  return row;
}

interface RevocationRow {
  reason: string;
  revoked_at: Date;
  effective_until: Date | null;
}

function isActive(row: RevocationRow | undefined, now: Date): row is RevocationRow {
  return !!row && (row.effective_until === null || new Date(row.effective_until).getTime() > now.getTime());
}

export interface RevokeResult {
  success: true;
  license_id: string;
  epoch: number;
  reason: string;
  revoked_at: string;
  effective_until: string | null;
}

export async function revoke(
  db: Database,
  input: { licenseId: string; accountId: string; reason: RevocationReason; effectiveUntil: Date | null },
  now: Date,
): Promise<RevokeResult> {
  if (input.effectiveUntil && input.effectiveUntil.getTime() <= now.getTime()) {
    throw new ApiError(400, 'invalid_effective_until', 'effective_until must be in the future');
  }
  return db.transaction(async (tx) => {
    const license = await lockOwnedLicense(tx, input.licenseId, input.accountId);
    const [existing] = await tx.query<RevocationRow>(
      'SELECT reason, revoked_at, effective_until FROM licensing_revocations WHERE license_id = $1',
      [license.license_id],
    );
    if (isActive(existing, now)) throw new ApiError(409, 'already_revoked', 'License already revoked');
    const epoch = await nextEpoch(tx);
    await tx.query(
      `INSERT INTO licensing_revocations (license_id, reason, revoked_at, effective_until, epoch) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (license_id) DO UPDATE SET reason = EXCLUDED.reason, revoked_at = EXCLUDED.revoked_at,
         effective_until = EXCLUDED.effective_until, epoch = EXCLUDED.epoch`,
      [license.license_id, input.reason, now, input.effectiveUntil, epoch],
    );
    await tx.query(
      `INSERT INTO licensing_revocation_events (epoch, license_id, account_id, action, reason, effective_until, at)
       VALUES ($1, $2, $3, 'revoke', $4, $5, $6)`,
      [epoch, license.license_id, license.account_id, input.reason, input.effectiveUntil, now],
    );
    return {
      success: true,
      license_id: license.license_id,
      epoch,
      reason: input.reason,
      revoked_at: now.toISOString(),
      effective_until: input.effectiveUntil?.toISOString() ?? null,
    };
  });
}

export async function restore(
  db: Database,
  input: { licenseId: string; accountId: string },
  now: Date,
): Promise<{ success: true; license_id: string; epoch: number; message: string }> {
  return db.transaction(async (tx) => {
    const license = await lockOwnedLicense(tx, input.licenseId, input.accountId);
    const [existing] = await tx.query<RevocationRow>(
      'SELECT reason, revoked_at, effective_until FROM licensing_revocations WHERE license_id = $1',
      [license.license_id],
    );
    if (!isActive(existing, now)) throw new ApiError(409, 'not_revoked', 'License not revoked');
    const epoch = await nextEpoch(tx);
    await tx.query('DELETE FROM licensing_revocations WHERE license_id = $1', [license.license_id]);
    await tx.query(
      `INSERT INTO licensing_revocation_events (epoch, license_id, account_id, action, at) VALUES ($1, $2, $3, 'restore', $4)`,
      [epoch, license.license_id, license.account_id, now],
    );
    return { success: true, license_id: license.license_id, epoch, message: 'License restored' };
  });
}

/** The active revocation of a license at `now`, or null. */
export async function revocationOf(db: Sql, licenseId: string, now: Date): Promise<{ reason: string; until: string | null } | null> {
  const [row] = await db.query<RevocationRow>(
    'SELECT reason, revoked_at, effective_until FROM licensing_revocations WHERE license_id::text = $1',
    [licenseId],
  );
  if (!isActive(row, now)) return null;
  return { reason: row.reason, until: row.effective_until ? new Date(row.effective_until).toISOString() : null };
}

/**
 * The signed revocation set of an account at `now`: every license revoked now (full set), or
 * with `sinceEpoch` only the licenses whose state changed after that epoch.
 */
export async function revocationSet(
  db: Sql,
  keys: SigningKeys,
  accountId: string,
  sinceEpoch: number | null,
  now: Date,
): Promise<RevocationSet> {
  const epoch = await currentEpoch(db);
  const rows = await db.query<{ license_id: string; reason: string; revoked_at: Date; effective_until: Date | null }>(
    `SELECT r.license_id::text AS license_id, r.reason, r.revoked_at, r.effective_until
       FROM licensing_revocations r JOIN licensing_artifact_licenses l ON l.license_id = r.license_id
      WHERE l.account_id = $1 AND (r.effective_until IS NULL OR r.effective_until > $2)
        AND ($3::bigint IS NULL OR r.epoch > $3::bigint)
      ORDER BY r.epoch`,
    [accountId, now, sinceEpoch],
  );
  const entries: RevocationEntry[] = rows.map((r) => ({
    license_id: r.license_id,
    reason: r.reason,
    revoked_at: new Date(r.revoked_at).toISOString(),
    effective_until: r.effective_until ? new Date(r.effective_until).toISOString() : null,
  }));
  let restoredIds: string[] = [];
  if (sinceEpoch !== null) {
    const changed = await db.query<{ license_id: string }>(
      `SELECT DISTINCT license_id::text AS license_id FROM licensing_revocation_events
        WHERE account_id = $1 AND epoch > $2`,
      [accountId, sinceEpoch],
    );
    const stillRevoked = new Set(entries.map((e) => e.license_id));
    restoredIds = changed.map((c) => c.license_id).filter((id) => !stillRevoked.has(id)).sort();
  }
  // A suspension that ends before the usual lifetime shortens the set's validity, so that
  // clients refresh when it lapses.
  let validUntil = now.getTime() + SET_LIFETIME_MS;
  for (const e of entries) {
    if (e.effective_until) validUntil = Math.min(validUntil, Date.parse(e.effective_until));
  }
  const key = await keys.active('artifact', 'ML-DSA-65');
  const unsigned = {
    epoch,
    since_epoch: sinceEpoch,
    account_id: accountId,
    revoked_ids: entries.map((e) => e.license_id),
    restored_ids: restoredIds,
    entries,
    issued_at: now.toISOString(),
    valid_until: new Date(validUntil).toISOString(),
    key_id: key.key_id,
  };
  const signature = await sign('ML-DSA-65', key.secret_key, revocationSetSigningInput(unsigned));
  return { ...unsigned, signature: Buffer.from(signature).toString('base64') };
}
