/** Stored bundles: kept as issued (JSON text), looked up by id within a service and, where given, an account. */
import { randomUUID } from 'node:crypto';
import type { Sql } from '../storage/database.ts';
import { detectProfile, type Bundle, type EvidenceKind } from './profiles.ts';

export interface StoredBundle {
  bundle_id: string;
  service: string;
  kind: EvidenceKind;
  account_id: string | null;
  subject_id: string | null;
  key_id: string | null;
  bundle: Bundle;
  created_at: Date;
}

/** A fresh bundle id: `<prefix>_<32 hex>`. */
export function newBundleId(prefix = 'evb'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

export async function saveBundle(
  db: Sql,
  input: { bundleId: string; service: string; kind?: EvidenceKind; accountId?: string | null; subjectId?: string | null; bundle: Bundle },
): Promise<void> {
  const profile = input.kind ?? detectProfile(input.bundle)?.kind;
  if (!profile) throw new TypeError('saveBundle: the bundle is not of a known kind; pass kind');
  const keyId = keyIdOf(input.bundle);
  await db.query(
    `INSERT INTO evidence_bundles (bundle_id, service, kind, account_id, subject_id, key_id, bundle)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [input.bundleId, input.service, profile, input.accountId ?? null, input.subjectId ?? null, keyId, JSON.stringify(input.bundle)],
  );
}

function keyIdOf(b: Bundle): string | null {
  const sig = b.signature as Record<string, unknown> | undefined;
  const id = b.key_id ?? b.key_version ?? (typeof sig === 'object' && sig ? sig.key_id : undefined);
  return typeof id === 'string' ? id : null;
}

function toStored(row: Record<string, unknown>): StoredBundle {
  return {
    bundle_id: row.bundle_id as string,
    service: row.service as string,
    kind: row.kind as EvidenceKind,
    account_id: (row.account_id as string | null) ?? null,
    subject_id: (row.subject_id as string | null) ?? null,
    key_id: (row.key_id as string | null) ?? null,
    bundle: JSON.parse(row.bundle as string) as Bundle,
    created_at: new Date(row.created_at as string | Date),
  };
}

/** The bundle with this id in this service; with `accountId`, only when that account owns it (else null, never a leak). */
export async function loadBundle(db: Sql, q: { service: string; bundleId: string; accountId?: string }): Promise<StoredBundle | null> {
  const params: unknown[] = [q.service, q.bundleId];
  let sql = 'SELECT * FROM evidence_bundles WHERE service = $1 AND bundle_id = $2';
  if (q.accountId !== undefined) {
    params.push(q.accountId);
    sql += ' AND account_id = $3';
  }
  const [row] = await db.query(sql, params);
  return row ? toStored(row) : null;
}

/** The newest bundle about a subject (a job, a position) in this service, or null. */
export async function bundleForSubject(db: Sql, q: { service: string; subjectId: string; accountId?: string }): Promise<StoredBundle | null> {
  const params: unknown[] = [q.service, q.subjectId];
  let sql = 'SELECT * FROM evidence_bundles WHERE service = $1 AND subject_id = $2';
  if (q.accountId !== undefined) {
    params.push(q.accountId);
    sql += ' AND account_id = $3';
  }
  const [row] = await db.query(`${sql} ORDER BY created_at DESC LIMIT 1`, params);
  return row ? toStored(row) : null;
}
