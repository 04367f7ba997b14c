/**
 * License rows of variants B and C (platform/licenses, as the two services share it) kept in
 * memory by license key, so that validating a license costs no database round trip.
 *
 * What it keeps: up to `capacity` rows (10,000 by default) that were found, each for at most
 * `ttlMs` (5 s); a key that is not found is asked for again on every request.
 * What drops an entry:
 *  - a change notice (platform/storage/changes.ts) on the table's topic, raised by a trigger on
 *    every UPDATE and DELETE of the row (`rowChangeTrigger`), whoever makes it: a route, a
 *    command through the embedded store's socket, SQL by hand, an account's deletion cascading.
 *    On PostgreSQL it reaches every server of the cluster; the embedded store delivers it before
 *    the changing statement returns. A notice names the row by the SHA-256 of its key
 *    (`rowChangeNotices`), not by the key: every session connected to the database may LISTEN,
 *    and a license key is a secret; a notice that names a key itself (older triggers, keys that
 *    are hashes already) drops that key too;
 *  - `drop(key)`, which the process making a change calls as soon as it is committed, so that
 *    its own next request does not wait for the notice to come back from PostgreSQL;
 *  - its age, for a notice lost while a listening connection was being replaced.
 * A generation counter, raised on every drop, keeps a look-up that raced with a change from
 * storing the row as it was before.
 */
import { sha256Hex } from '../../engines/crypto/encoding.ts';
import { channelSql } from '../storage/channels.ts';
import { CHANGES_CHANNEL, onChange } from '../storage/changes.ts';
import type { Database } from '../storage/database.ts';

export interface LicenseRowsOptions {
  ttlMs?: number;
  capacity?: number;
}

export class LicenseRows<Row> {
  private readonly rows = new Map<string, { row: Row; at: number; digest: string }>();
  /** The key of each kept row by the digest its change notices carry. */
  private readonly keysByDigest = new Map<string, string>();
  private generation = 0;
  private stopListening: (() => void) | null = null;
  private readonly ttlMs: number;
  private readonly capacity: number;

  /**
   * @param topic the change-notice topic of the table (the trigger's `topic`)
   * @param load reads the row of a license key, or null when there is none
   */
  constructor(
    private readonly topic: string,
    private readonly load: (key: string) => Promise<Row | null>,
    options: LicenseRowsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5_000;
    this.capacity = options.capacity ?? 10_000;
  }

  /** Starts hearing the table's change notices on `db`. */
  async start(db: Database): Promise<void> {
    this.stopListening ??= await onChange(db, this.topic, (named) => {
      const key = this.keysByDigest.get(named);
      if (key !== undefined) this.drop(key);
      this.drop(named);
    });
  }

  stop(): void {
    this.stopListening?.();
    this.stopListening = null;
    this.rows.clear();
    this.keysByDigest.clear();
  }

  /** Forgets the row of `key` (after a change to it). */
  drop(key: string): void {
    this.generation++;
    const kept = this.rows.get(key);
    if (!kept) return;
    this.rows.delete(key);
    this.keysByDigest.delete(kept.digest);
  }

  /** The row of `key`, from memory when it is there and young enough, else from the database. */
  async get(key: string): Promise<Row | null> {
    const hit = this.rows.get(key);
    if (hit && performance.now() - hit.at < this.ttlMs) return hit.row;
    const generation = this.generation;
    const row = await this.load(key);
    // Not listening (stopped) means no notice would drop it: keep nothing then.
    if (row && generation === this.generation && this.stopListening) {
      if (this.rows.size >= this.capacity && !this.rows.has(key)) {
        const oldest = this.rows.keys().next().value!;
        this.keysByDigest.delete(this.rows.get(oldest)!.digest);
        this.rows.delete(oldest);
      }
      const digest = this.rows.get(key)?.digest ?? noticeDigest(key);
      this.rows.set(key, { row, at: performance.now(), digest });
      this.keysByDigest.set(digest, key);
    } else if (!row) {
      const kept = this.rows.get(key);
      if (kept) this.keysByDigest.delete(kept.digest);
      this.rows.delete(key);
    }
    return row;
  }
}

/** How a change notice of `rowChangeNotices` with `digest` names the row whose key is `key`: the key's SHA-256, in hex. */
export function noticeDigest(key: string): string {
  return sha256Hex(key);
}

/**
 * SQL of a trigger that announces every UPDATE and DELETE of a row of `table` as the change
 * `topic:<key>`, the key being the row's `column` (the notice LicenseRows listens to), for a
 * migration. Its notices go to the bare channel and carry the key: a later migration replaces
 * its function with `rowChangeNotices` (the channel of the schema, a digest for secret keys).
 */
export function rowChangeTrigger(table: string, topic: string, column = 'license_key'): string {
  return `
CREATE FUNCTION ${table}_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${CHANGES_CHANNEL}', '${topic}:' || OLD.${column});
  RETURN NULL;
END
$$;
--;
CREATE TRIGGER ${table}_changed AFTER UPDATE OR DELETE ON ${table}
  FOR EACH ROW EXECUTE FUNCTION ${table}_changed();
`;
}

/**
 * SQL of a migration that replaces the function of `rowChangeTrigger` on `table`: its notices
 * go to the channel of the session's schema (platform/storage/channels.ts), and with `digest`
 * name the row by the SHA-256 of its `column` (hex, as `noticeDigest` computes it) instead of
 * the value itself, for keys that are secrets: a notice reaches every session that listens on
 * the database.
 */
export function rowChangeNotices(table: string, topic: string, o: { column?: string; digest: boolean }): string {
  const column = `OLD.${o.column ?? 'license_key'}`;
  const named = o.digest ? `encode(sha256(convert_to(${column}, 'UTF8')), 'hex')` : column;
  return `
CREATE OR REPLACE FUNCTION ${table}_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(${channelSql(`'${CHANGES_CHANNEL}'`)}, '${topic}:' || ${named});
  RETURN NULL;
END
$$;
`;
}
