/** Variant C license rows: insert, look-up by key, and the per-account figures of /stats. */
import type { Sql } from '../../platform/storage/database.ts';
import { isoSeconds } from './format.ts';

export interface CLicenseRow {
  license_key: string;
  account_id: string;
  end_customer_id: string;
  features: string[];
  metadata: Record<string, unknown> | null;
  issued_at: Date;
  expires_at: Date;
  quantum_signature: string;
  quantum_fidelity: number;
  quantum_entropy: number;
  generation_time_ms: number;
}

function toRow(raw: Record<string, unknown>): CLicenseRow {
  const row = raw as unknown as CLicenseRow;
  return {
    ...row,
    issued_at: new Date(row.issued_at),
    expires_at: new Date(row.expires_at),
    quantum_fidelity: Number(raw.quantum_fidelity),
    quantum_entropy: Number(raw.quantum_entropy),
    generation_time_ms: Number(raw.generation_time_ms),
  };
}

export async function insertLicense(tx: Sql, row: CLicenseRow): Promise<void> {
  await tx.query(
    `INSERT INTO licensing_c_licenses (license_key, account_id, end_customer_id, features, metadata, issued_at, expires_at,
       quantum_signature, quantum_fidelity, quantum_entropy, generation_time_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      row.license_key,
      row.account_id,
      row.end_customer_id,
      row.features,
      row.metadata === null ? null : JSON.stringify(row.metadata),
      row.issued_at,
      row.expires_at,
      row.quantum_signature,
      row.quantum_fidelity,
      row.quantum_entropy,
      row.generation_time_ms,
    ],
  );
}

/** The change-notice topic of license rows (raised by a trigger on every UPDATE and DELETE). */
export const LICENSE_ROWS_TOPIC = 'licensing-c-license';

export async function findLicense(db: Sql, licenseKey: string): Promise<CLicenseRow | null> {
  const [row] = await db.query('SELECT * FROM licensing_c_licenses WHERE license_key = $1', [licenseKey]);
  return row ? toRow(row) : null;
}

export interface AccountFigures {
  total: number;
  active: number;
  expired: number;
  fidelityAvg: number | null;
  generationTimeAvgMs: number | null;
}

export async function accountFigures(db: Sql, accountId: string, now: Date): Promise<AccountFigures> {
  const [row] = await db.query<Record<string, number | string | null>>(
    `SELECT count(*)::int AS total,
            (count(*) FILTER (WHERE expires_at > $2))::int AS active,
            avg(quantum_fidelity)::float8 AS fidelity_avg,
            avg(generation_time_ms)::float8 AS time_avg
       FROM licensing_c_licenses WHERE account_id = $1`,
    [accountId, now],
  );
  const total = Number(row?.total ?? 0);
  const active = Number(row?.active ?? 0);
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return { total, active, expired: total - active, fidelityAvg: num(row?.fidelity_avg), generationTimeAvgMs: num(row?.time_avg) };
}

export function signedFields(row: Pick<CLicenseRow, 'license_key' | 'end_customer_id' | 'features' | 'expires_at'>) {
  return { licenseKey: row.license_key, customer: row.end_customer_id, features: row.features, expires: isoSeconds(row.expires_at) };
}
