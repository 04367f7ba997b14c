/**
 * The quantum-signature secret of licensing variants B and C (two services, so it lives in the
 * platform): 32 random bytes made on first start and kept in the variant's own table, sealed
 * under the master key (platform/secrets).
 */
import { randomBytes } from 'node:crypto';
import { openSecret, sealSecret } from '../secrets/index.ts';
import type { Sql } from '../storage/database.ts';

const NAME = 'quantum_signature';

export type SecretTable = 'licensing_b_secrets' | 'licensing_c_secrets';

export async function loadSignatureSecret(db: Sql, table: SecretTable): Promise<Uint8Array> {
  // ON CONFLICT: when two processes start together, the first insert wins and both read it.
  await db.query(`INSERT INTO ${table} (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [NAME, sealSecret(`${table}.secret`, randomBytes(32))]);
  const [row] = await db.query<{ secret: Uint8Array }>(`SELECT secret FROM ${table} WHERE name = $1`, [NAME]);
  return new Uint8Array(openSecret(`${table}.secret`, row!.secret));
}
