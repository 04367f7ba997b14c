/**
 * Statements sent to a PostgreSQL server as named prepared statements. node-postgres sends a
 * statement without a name as an unnamed one, which the server parses, analyses and plans
 * afresh at every execution; named, it is parsed once per connection and the server's plan
 * cache keeps a generic plan where that costs no more than custom ones, as the embedded store
 * does through pglite-prepared.ts. A Bell job's submit and result on PostgreSQL: p50 3.40-3.56
 * ms unnamed against 2.33-2.44 ms named (3,000 jobs each, alternated, 2 cores).
 *
 * A text keeps its name on every connection of the pool (node-postgres remembers per
 * connection which names it has prepared there, and prepares a name on first use). At most
 * `capacity` texts get a name; any further text runs unnamed, as before, so that statements
 * built with varying text cannot grow without end what each server connection keeps.
 * Not for the embedded store's socket: its connections share one session, where two
 * processes preparing one name would collide.
 */
import type pgTypes from 'pg';
import { needsReplan } from './pglite-prepared.ts';

export class StatementNames {
  private readonly names = new Map<string, string>();
  private next = 0;

  constructor(private readonly capacity = 512) {}

  /** What node-postgres is given to run `text` with `params`. */
  query(text: string, params?: readonly unknown[]): pgTypes.QueryConfig {
    const values = params as unknown[] | undefined;
    if (!values?.length) return { text, values };
    let name = this.names.get(text);
    if (name === undefined) {
      if (this.names.size >= this.capacity) return { text, values };
      name = `lattice_${++this.next}`;
      this.names.set(text, name);
    }
    return { name, text, values };
  }

  /**
   * Whether `err`, raised by running `text`, was the server refusing the statement's name (a
   * cached plan whose result no longer fits its table, a name a pooler or `DISCARD ALL` reset);
   * the text then gets a new name, which the next run prepares afresh.
   */
  replanned(text: string, err: unknown): boolean {
    if (!needsReplan(err) || !this.names.has(text)) return false;
    this.names.set(text, `lattice_${++this.next}`);
    return true;
  }
}
