/** The variant C quantum-signature secret: 32 random bytes made on first start and kept in the database. */
import { randomBytes } from 'node:crypto';
import type { Sql } from '../../platform/storage/database.ts';

const NAME = 'quantum_signature';

export async function loadSignatureSecret(db: Sql): Promise<Uint8Array> {
  await db.query('INSERT INTO licensing_c_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    NAME,
    randomBytes(32),
  ]);
  const [row] = await db.query<{ secret: Uint8Array }>('SELECT secret FROM licensing_c_secrets WHERE name = $1', [NAME]);
  return new Uint8Array(row!.secret);
}
