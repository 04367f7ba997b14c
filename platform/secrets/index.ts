/**
 * Secrets at rest: every private signing key, signature secret and webhook secret is kept in
 * the database sealed under the master key (envelope.ts says how). The master key comes from
 * configuration: `LATTICE_MASTER_KEY` (32 bytes, base64), else `<data dir>/master.key` (the
 * same text, mode 0600), which the first start creates when the store holds no sealed secret
 * yet. The store keeps the key's fingerprint (`secrets_master`), so a start with a wrong key,
 * or with none once secrets are sealed, stops with a message that says so instead of making
 * new keys.
 *
 * `prepareSecrets` runs at every start (serve and every CLI command that opens the store): it
 * checks the key, seals any secret still kept in clear (a store from before encryption) and
 * installs the key in this process's keyring, which `sealSecret` / `openSecret` use. The
 * keyring re-reads the key file when it meets a value sealed under a key it does not have, or
 * when the file changes, so that `lattice keys rotate-master` works while `serve` runs.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Sql } from '../storage/database.ts';
import { fingerprint, isSealed, open, rewrap, seal, sealText, SecretError, sealedUnder } from './envelope.ts';

export { SecretError } from './envelope.ts';

/** Every column that holds a secret, sealed: the migration, rotation and the dump test walk this list. */
export const SEALED_COLUMNS = [
  { table: 'licensing_signing_keys', column: 'secret_key', id: 'key_id', type: 'bytea' },
  { table: 'evidence_signing_keys', column: 'secret_key', id: 'key_id', type: 'bytea' },
  { table: 'licensing_b_secrets', column: 'secret', id: 'name', type: 'bytea' },
  { table: 'licensing_c_secrets', column: 'secret', id: 'name', type: 'bytea' },
  { table: 'webhooks', column: 'secret', id: 'id', type: 'text' },
] as const;

export type SealedColumn = (typeof SEALED_COLUMNS)[number];
export type SecretPurpose = `${SealedColumn['table']}.${SealedColumn['column']}`;

export class MasterKeyError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'MasterKeyError';
  }
}

export interface MasterKeySource {
  key: Buffer;
  /** Where it came from, for messages: `LATTICE_MASTER_KEY` or the file's path. */
  from: string;
  /** The key file, when the key came from one (re-read on rotation). */
  file: string | null;
}

/** Reads a key as the key file and LATTICE_MASTER_KEY hold it: base64 of exactly 32 bytes. */
export function parseMasterKey(text: string, from: string): Buffer {
  const trimmed = text.trim();
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) {
    throw new MasterKeyError('master_key_invalid', `${from} must hold a master key: 32 random bytes in base64 (e.g. the output of: openssl rand -base64 32)`);
  }
  return key;
}

export function masterKeyFile(dataDir: string): string {
  return join(dataDir, 'master.key');
}

function readKeyFile(file: string): Buffer {
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) {
    throw new MasterKeyError('master_key_exposed', `${file} can be read by other users (mode ${mode.toString(8)}): chmod 600 ${file}`);
  }
  return parseMasterKey(readFileSync(file, 'utf8'), file);
}

/** The configured master key, or null when none is configured (no variable, no file). */
export function configuredMasterKey(dataDir: string | null, env: NodeJS.ProcessEnv = process.env): MasterKeySource | null {
  if (env.LATTICE_MASTER_KEY) return { key: parseMasterKey(env.LATTICE_MASTER_KEY, 'LATTICE_MASTER_KEY'), from: 'LATTICE_MASTER_KEY', file: null };
  if (dataDir && existsSync(masterKeyFile(dataDir))) {
    const file = masterKeyFile(dataDir);
    return { key: readKeyFile(file), from: file, file };
  }
  return null;
}

/** Writes a key file the way the first start does: base64, mode 0600, never over an existing one. */
export function writeKeyFile(file: string, key: Buffer, options: { replace?: boolean } = {}): void {
  if (options.replace) {
    const tmp = `${file}.new-${process.pid}`;
    writeFileSync(tmp, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
    return;
  }
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
}

// The process's keyring: the current master key and any other it has met (during a rotation).
const keyring = new Map<string, Buffer>();
let current: { key: Buffer; fp: string; file: string | null; fileStamp: number } | null = null;

function stampOf(file: string | null): number {
  try {
    return file ? statSync(file).mtimeMs : 0;
  } catch {
    return 0;
  }
}

function install(key: Buffer, file: string | null): void {
  const fp = fingerprint(key);
  keyring.set(fp.slice(0, 16), key);
  current = { key, fp, file, fileStamp: stampOf(file) };
}

/** Re-reads the key file when it changed (a rotation replaced it). */
function refresh(): void {
  if (!current?.file) return;
  const stamp = stampOf(current.file);
  if (stamp === current.fileStamp) return;
  try {
    install(readKeyFile(current.file), current.file);
  } catch {
    // A file being replaced or unreadable: keep the key in use.
  }
}

function currentKey(): Buffer {
  if (!current) {
    throw new MasterKeyError('master_key_not_loaded', 'no master key is loaded in this process: the store must be opened through prepareSecrets first');
  }
  refresh();
  return current.key;
}

/** The fingerprint of the master key this process seals with, or null before one is loaded. */
export function currentFingerprint(): string | null {
  return current?.fp ?? null;
}

export function sealSecret(purpose: SecretPurpose, plaintext: Uint8Array): Buffer {
  return seal(currentKey(), purpose, plaintext);
}

export function sealTextSecret(purpose: SecretPurpose, plaintext: string): string {
  return sealText(currentKey(), purpose, plaintext);
}

function keyFor(fp: string): Buffer | null {
  const known = keyring.get(fp);
  if (known) return known;
  refresh();
  return keyring.get(fp) ?? null;
}

export function openSecret(purpose: SecretPurpose, value: Uint8Array | string): Buffer {
  currentKey();
  return open(keyFor, purpose, value);
}

export function openTextSecret(purpose: SecretPurpose, value: string): string {
  return openSecret(purpose, value).toString('utf8');
}

async function tableExists(db: Sql, table: string): Promise<boolean> {
  const [row] = await db.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [table]);
  return Boolean(row?.t);
}

async function storedFingerprint(db: Sql): Promise<string | null> {
  const [row] = await db.query<{ fingerprint: string }>('SELECT fingerprint FROM secrets_master WHERE id = 1');
  return row?.fingerprint ?? null;
}

export interface PrepareResult {
  /** Secrets found in clear and sealed by this start. */
  sealed: number;
  /** Whether this start made the master key file. */
  createdKeyFile: string | null;
  fingerprint: string;
}

/**
 * Loads and checks the master key for the store and seals what is still in clear. `dataDir`
 * null (tests) needs LATTICE_MASTER_KEY in `env`.
 */
export async function prepareSecrets(db: Sql, dataDir: string | null, env: NodeJS.ProcessEnv = process.env): Promise<PrepareResult> {
  let source = configuredMasterKey(dataDir, env);
  if (!(await tableExists(db, 'secrets_master'))) {
    // A schema without the platform's tables (a bare test database) has no secrets to keep:
    // a configured key is loaded, none is made.
    if (source) install(source.key, source.file);
    return { sealed: 0, createdKeyFile: null, fingerprint: source ? fingerprint(source.key) : '' };
  }
  const stored = await storedFingerprint(db);
  let createdKeyFile: string | null = null;
  if (stored) {
    if (!source) {
      throw new MasterKeyError(
        'master_key_missing',
        `the store's secrets are encrypted under master key ${stored.slice(0, 16)}, and no master key is configured: set LATTICE_MASTER_KEY or put that key back in ${dataDir ? masterKeyFile(dataDir) : '<data dir>/master.key'}. A new key would not open them, so none is made.`,
      );
    }
    if (fingerprint(source.key) !== stored) {
      throw new MasterKeyError(
        'master_key_wrong',
        `the master key from ${source.from} (${fingerprint(source.key).slice(0, 16)}) is not the one the store's secrets are encrypted under (${stored.slice(0, 16)}): configure that key (LATTICE_MASTER_KEY or ${dataDir ? masterKeyFile(dataDir) : 'master.key'}).`,
      );
    }
  } else {
    if (!source) {
      if (!dataDir) throw new MasterKeyError('master_key_missing', 'no master key is configured: set LATTICE_MASTER_KEY');
      const file = masterKeyFile(dataDir);
      // With DATABASE_URL nothing else makes the data dir.
      mkdirSync(dataDir, { recursive: true });
      try {
        writeKeyFile(file, randomBytes(32));
        createdKeyFile = file;
      } catch (err) {
        // Another process of this data dir made it first: use that one.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      source = { key: readKeyFile(file), from: file, file };
    }
    await db.query('INSERT INTO secrets_master (id, fingerprint) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [fingerprint(source.key)]);
    const now = await storedFingerprint(db);
    if (now !== fingerprint(source.key)) {
      throw new MasterKeyError('master_key_wrong', `another process set up this store with a different master key (${now?.slice(0, 16)}): configure the same key on every process`);
    }
  }
  install(source.key, source.file);
  let sealed = 0;
  for (const c of SEALED_COLUMNS) {
    if (!(await tableExists(db, c.table))) continue;
    const rows = await db.query<Record<string, unknown>>(`SELECT ${c.id} AS id, ${c.column} AS value FROM ${c.table}`);
    for (const row of rows) {
      if (row.value === null || isSealed(row.value)) continue;
      const purpose = `${c.table}.${c.column}` as SecretPurpose;
      const next = c.type === 'text' ? sealTextSecret(purpose, String(row.value)) : sealSecret(purpose, row.value as Uint8Array);
      // Only if still the clear value: a concurrent start may have sealed it already.
      const done = await db.query(`UPDATE ${c.table} SET ${c.column} = $1 WHERE ${c.id} = $2 AND ${c.column} = $3 RETURNING 1`, [next, row.id, row.value]);
      sealed += done.length;
    }
  }
  return { sealed, createdKeyFile, fingerprint: fingerprint(source.key) };
}

/**
 * Re-wraps every sealed secret's data key under `newKey` and records it as the store's key.
 * Each value is rewritten on its own (under a row lock), so that a rotation cut off half way is
 * finished by running it again; values already under the new key are left as they are.
 */
export async function rotateMasterKey(db: Sql, newKey: Buffer, onSwitched: () => void = () => {}): Promise<{ rewrapped: number }> {
  if (fingerprint(currentKey()) === fingerprint(newKey)) {
    throw new MasterKeyError('same_master_key', 'the new master key is the key in use: make a new one (openssl rand -base64 32 > new.key)');
  }
  const newFp = fingerprint(newKey).slice(0, 16);
  keyring.set(newFp, newKey);
  let rewrapped = 0;
  const pass = async (): Promise<number> => {
    let count = 0;
    for (const c of SEALED_COLUMNS) {
      if (!(await tableExists(db, c.table))) continue;
      const rows = await db.query<Record<string, unknown>>(`SELECT ${c.id} AS id, ${c.column} AS value FROM ${c.table}`);
      for (const row of rows) {
        const value = row.value as Uint8Array | string | null;
        if (value === null || !isSealed(value) || sealedUnder(value) === newFp) continue;
        const from = keyFor(sealedUnder(value));
        if (!from) throw new SecretError('unknown_master_key', `${c.table}.${c.column} of ${String(row.id)} is sealed under a key this process does not have (${sealedUnder(value)})`);
        const next = rewrap(from, newKey, `${c.table}.${c.column}`, value);
        const done = await db.query(`UPDATE ${c.table} SET ${c.column} = $1 WHERE ${c.id} = $2 AND ${c.column} = $3 RETURNING 1`, [next, row.id, value]);
        count += done.length;
      }
    }
    return count;
  };
  rewrapped += await pass();
  await db.query('UPDATE secrets_master SET fingerprint = $1, rotated_at = now() WHERE id = 1', [fingerprint(newKey)]);
  // From here on the store answers to the new key: the caller installs it where processes read it.
  onSwitched();
  // A secret a running process sealed under the old key while the first pass ran.
  rewrapped += await pass();
  install(newKey, current?.file ?? null);
  return { rewrapped };
}
