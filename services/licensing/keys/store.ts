/** Variant B license rows: insert, look-ups scoped to the owning account, paging, revocation. */
import type { Sql } from '../../../platform/storage/database.ts';
import { formatValidUntil } from './format.ts';

export type LicenseStatus = 'active' | 'expired' | 'revoked';
export const LICENSE_STATUSES = ['active', 'expired', 'revoked'] as const;

export interface LicenseRow {
  id: number;
  account_id: string;
  license_key: string;
  end_customer_id: string;
  features: string[];
  metadata: Record<string, unknown> | null;
  valid_until: Date;
  created_at: Date;
  quantum_signature: string;
  qcos_fidelity: number;
  qcos_entropy: number;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

export interface NewLicense {
  accountId: string;
  licenseKey: string;
  endCustomerId: string;
  features: string[];
  metadata: Record<string, unknown> | null;
  validUntil: Date;
  createdAt: Date;
  quantumSignature: string;
  fidelity: number;
  entropy: number;
}

const COLUMNS = `id, account_id, license_key, end_customer_id, features, metadata, valid_until, created_at,
  quantum_signature, qcos_fidelity, qcos_entropy, revoked_at, revoked_reason`;

function toRow(raw: Record<string, unknown>): LicenseRow {
  const row = raw as unknown as LicenseRow;
  return {
    ...row,
    // bigserial arrives as a string, a bigint or a number depending on the driver.
    id: Number(raw.id),
    valid_until: new Date(row.valid_until),
    created_at: new Date(row.created_at),
    revoked_at: row.revoked_at ? new Date(row.revoked_at) : null,
    qcos_fidelity: Number(raw.qcos_fidelity),
    qcos_entropy: Number(raw.qcos_entropy),
  };
}

/** Status is computed, never stored: revoked wins, then expiry against the (injectable) clock. */
export function statusOf(row: Pick<LicenseRow, 'revoked_at' | 'valid_until'>, now: Date): LicenseStatus {
  if (row.revoked_at) return 'revoked';
  return row.valid_until.getTime() <= now.getTime() ? 'expired' : 'active';
}

export async function insertLicense(tx: Sql, l: NewLicense): Promise<LicenseRow> {
  const [row] = await tx.query(
    `INSERT INTO licensing_b_licenses (account_id, license_key, end_customer_id, features, metadata, valid_until, created_at,
       quantum_signature, qcos_fidelity, qcos_entropy)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [
      l.accountId,
      l.licenseKey,
      l.endCustomerId,
      l.features,
      l.metadata === null ? null : JSON.stringify(l.metadata),
      l.validUntil,
      l.createdAt,
      l.quantumSignature,
      l.fidelity,
      l.entropy,
    ],
  );
  return toRow(row!);
}

/** The change-notice topic of license rows (raised by a trigger on every UPDATE and DELETE). */
export const LICENSE_ROWS_TOPIC = 'licensing-b-license';

/** The license with this key, of any account (license keys are unique). */
export async function licenseByKey(db: Sql, licenseKey: string): Promise<LicenseRow | null> {
  const [row] = await db.query(`SELECT ${COLUMNS} FROM licensing_b_licenses WHERE license_key = $1`, [licenseKey]);
  return row ? toRow(row) : null;
}

/** The account's license with this key; another account's key is not found, like an unknown one. */
export async function findLicense(db: Sql, accountId: string, licenseKey: string): Promise<LicenseRow | null> {
  const [row] = await db.query(`SELECT ${COLUMNS} FROM licensing_b_licenses WHERE license_key = $1 AND account_id = $2`, [
    licenseKey,
    accountId,
  ]);
  return row ? toRow(row) : null;
}

export interface Page {
  rows: LicenseRow[];
  total: number;
}

/** Newest first; `status` filters on the status computed at `now`. */
export async function listLicenses(
  db: Sql,
  accountId: string,
  options: { page: number; perPage: number; status: LicenseStatus | null; now: Date },
): Promise<Page> {
  const params: unknown[] = [accountId];
  let where = 'account_id = $1';
  if (options.status === 'revoked') where += ' AND revoked_at IS NOT NULL';
  else if (options.status) {
    params.push(options.now);
    where += ` AND revoked_at IS NULL AND valid_until ${options.status === 'expired' ? '<=' : '>'} $2`;
  }
  const [count] = await db.query<{ n: number | string }>(`SELECT count(*)::int AS n FROM licensing_b_licenses WHERE ${where}`, params);
  const n = params.length;
  const rows = await db.query(
    `SELECT ${COLUMNS} FROM licensing_b_licenses WHERE ${where} ORDER BY id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...params, options.perPage, (options.page - 1) * options.perPage],
  );
  return { rows: rows.map(toRow), total: Number(count?.n ?? 0) };
}

/**
 * Revokes the account's license once. Returns the row after the change, 'missing' when the
 * account has no such license, or 'already' when it was revoked before (revocation is final).
 */
export async function revokeLicense(
  tx: Sql,
  accountId: string,
  licenseKey: string,
  reason: string | null,
  now: Date,
): Promise<LicenseRow | 'missing' | 'already'> {
  const [row] = await tx.query(
    `UPDATE licensing_b_licenses SET revoked_at = $3, revoked_reason = $4
      WHERE license_key = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
    [licenseKey, accountId, now, reason],
  );
  if (row) return toRow(row);
  return (await findLicense(tx, accountId, licenseKey)) ? 'already' : 'missing';
}

/** License keys of the account revoked at or after `since` (inclusive, so a poll never misses one). */
export async function revokedKeys(db: Sql, accountId: string, since: Date | null): Promise<string[]> {
  const rows = await db.query<{ license_key: string }>(
    `SELECT license_key FROM licensing_b_licenses
      WHERE account_id = $1 AND revoked_at IS NOT NULL AND ($2::timestamptz IS NULL OR revoked_at >= $2)
      ORDER BY revoked_at, id`,
    [accountId, since],
  );
  return rows.map((r) => r.license_key);
}

/** The fields the quantum signature binds, in the text forms the signature was made over. */
export function signedFields(row: Pick<LicenseRow, 'license_key' | 'end_customer_id' | 'features' | 'valid_until'>) {
  return {
    licenseKey: row.license_key,
    customer: row.end_customer_id,
    features: row.features,
    expires: formatValidUntil(row.valid_until),
  };
}
