/**
 * Key lookups with a short-lived cache, so that authenticating a request costs no database
 * round trip in the common case. Correctness rules:
 *  - only successful lookups are cached, keyed by the key's hash; expiry is re-checked on
 *    every hit;
 *  - revoking a key or changing a plan raises NOTIFY `lattice_api_keys`; every process that
 *    listens (the embedded store's owner, and all servers on PostgreSQL) drops its cache at once,
 *    also for a change a CLI command makes through the embedded store's socket
 *    (storage/socket-notices.ts);
 *  - an entry also expires after `ttlMs` (5 s), for changes made outside Lattice (SQL by hand).
 */
import type { Database } from '../storage/database.ts';
import { authenticateKey, hashKey, type Identity, type KeyKind } from './keys.ts';

export const KEY_CHANGES_CHANNEL = 'lattice_api_keys';

export class KeyAuthenticator {
  private readonly entries = new Map<string, { identity: Identity; at: number }>();
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Database,
    private readonly ttlMs = 5_000,
  ) {}

  async start(): Promise<void> {
    if (!this.unlisten) this.unlisten = await this.db.listen(KEY_CHANGES_CHANNEL, () => this.entries.clear());
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
    this.unlisten = null;
  }

  clear(): void {
    this.entries.clear();
  }

  async authenticate(rawKey: string, service: string, kind: KeyKind, now: Date = new Date()): Promise<Identity | null> {
    if (rawKey.length < 8 || rawKey.length > 256) return null;
    const cacheKey = `${kind}:${service}:${hashKey(rawKey)}`;
    const hit = this.entries.get(cacheKey);
    if (hit && performance.now() - hit.at < this.ttlMs) {
      const expires = hit.identity.expiresAt;
      if (!expires || new Date(expires).getTime() > now.getTime()) return hit.identity;
      this.entries.delete(cacheKey);
      return null;
    }
    const identity = await authenticateKey(this.db, rawKey, service, kind, now);
    if (identity) {
      if (this.entries.size >= 50_000) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(cacheKey, { identity, at: performance.now() });
    } else {
      this.entries.delete(cacheKey);
    }
    return identity;
  }
}

const byDatabase = new WeakMap<Database, KeyAuthenticator>();

/** The process-wide authenticator of a database (one cache and one listener per store). */
export async function keyAuthenticatorFor(db: Database): Promise<KeyAuthenticator> {
  let auth = byDatabase.get(db);
  if (!auth) {
    auth = new KeyAuthenticator(db);
    byDatabase.set(db, auth);
    await auth.start();
  }
  return auth;
}
