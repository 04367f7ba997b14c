/**
 * A job's provenance as a hash chain in `supplier_provenance`: each record's hash is
 * SHA3-256 over the previous hash and the RFC 8785 canonical JSON of `{seq, event, payload,
 * created_at}`, so changing, removing or reordering any record breaks every later link.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../engines/crypto/encoding.ts';
import type { Sql } from '../../platform/storage/database.ts';

export const GENESIS = 'sha3-256:' + '0'.repeat(64);

export interface ProvenanceRecord {
  seq: number;
  event: string;
  payload: Record<string, unknown>;
  prev_hash: string;
  hash: string;
  created_at: string;
}

export function linkHash(prev: string, r: { seq: number; event: string; payload: unknown; created_at: string }): string {
  const body = canonicalJson({ seq: r.seq, event: r.event, payload: r.payload, created_at: r.created_at });
  return `sha3-256:${createHash('sha3-256').update(prev, 'utf8').update(body, 'utf8').digest('hex')}`;
}

/**
 * Appends a record after the job's last one. The primary key (job, seq) makes two racing
 * appends of the same job fail one of them instead of forking the chain; the loser retries.
 */
export async function appendProvenance(db: Sql, jobRowId: string, event: string, payload: Record<string, unknown>, at: Date): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const [last] = await db.query<{ seq: number; hash: string }>(
      'SELECT seq, hash FROM supplier_provenance WHERE job_row_id = $1 ORDER BY seq DESC LIMIT 1',
      [jobRowId],
    );
    const seq = (last?.seq ?? 0) + 1;
    const prev = last?.hash ?? GENESIS;
    const created_at = at.toISOString();
    const hash = linkHash(prev, { seq, event, payload, created_at });
    const rows = await db.query(
      `INSERT INTO supplier_provenance (job_row_id, seq, event, payload, prev_hash, hash, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING seq`,
      [jobRowId, seq, event, JSON.stringify(payload), prev, hash, created_at],
    );
    if (rows.length) return;
  }
  throw new Error(`could not append provenance of ${jobRowId}`);
}

export async function readProvenance(db: Sql, jobRowId: string): Promise<ProvenanceRecord[]> {
  const rows = await db.query<{ seq: number; event: string; payload: unknown; prev_hash: string; hash: string; created_at: Date | string }>(
    'SELECT seq, event, payload, prev_hash, hash, created_at FROM supplier_provenance WHERE job_row_id = $1 ORDER BY seq',
    [jobRowId],
  );
  return rows.map((r) => ({
    seq: r.seq,
    event: r.event,
    payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown>,
    prev_hash: r.prev_hash,
    hash: r.hash,
    created_at: new Date(r.created_at).toISOString(),
  }));
}

/** Recomputes every link: valid when each record's prev_hash is the hash before it and its hash matches its content. */
export function verifyChain(records: readonly ProvenanceRecord[]): { valid: boolean; length: number; head_hash: string; broken_at: number | null } {
  let prev = GENESIS;
  for (const [i, r] of records.entries()) {
    if (r.seq !== i + 1 || r.prev_hash !== prev || linkHash(prev, r) !== r.hash) {
      return { valid: false, length: records.length, head_hash: records.at(-1)?.hash ?? GENESIS, broken_at: r.seq };
    }
    prev = r.hash;
  }
  return { valid: true, length: records.length, head_hash: prev, broken_at: null };
}
