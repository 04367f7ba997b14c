/** Console users who sign in with email and password (the gateway console); passwords hashed with scrypt. */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ApiError } from '../http/errors.ts';
import type { Sql } from '../storage/database.ts';
import { newId } from './ids.ts';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );

// N=2^15, r=8: about 32 MiB and tens of milliseconds per hash, per OWASP's scrypt guidance.
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 32, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

export async function createConsoleUser(
  db: Sql,
  input: { accountId: string; email: string; password: string },
): Promise<{ user_id: string; account_id: string }> {
  if (input.password.length < 8) throw new ApiError(400, 'weak_password', 'Password must have at least 8 characters');
  const id = newId('usr');
  try {
    await db.query('INSERT INTO console_users (id, account_id, email, password_hash) VALUES ($1, $2, $3, $4)', [
      id,
      input.accountId,
      input.email,
      await hashPassword(input.password),
    ]);
  } catch (err) {
    if ((err as { code?: string }).code === '23505') {
      throw new ApiError(409, 'email_taken', `A console user with email ${input.email} already exists`);
    }
    throw err;
  }
  return { user_id: id, account_id: input.accountId };
}
