/**
 * The store a search index keeps its tables in, as far as the index needs one: parameterised
 * statements, transactions, a script of several statements, and close for the store of an
 * index directory. The engine opens no store itself: a service passes its database (the
 * platform's `Database` is one), and whoever opens an index directory passes the function that
 * opens the embedded store kept there (the CLI passes the platform's `openPglite`).
 *
 * @example
 *   const index = await SearchIndex.openDir('data/idx', { open: openPglite });
 */
export interface Sql {
  /** Runs one parameterised statement (`$1`, `$2`, ...) and returns its rows. */
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface IndexStore extends Sql {
  /** Runs `fn` in one transaction: commit when it resolves, roll back when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** Runs several statements separated by semicolons, without parameters. */
  exec(script: string): Promise<unknown>;
  close(): Promise<void>;
}

/** Opens (creating when needed) the embedded store kept in the directory `dir`. */
export type OpenIndexDir = (dir: string) => Promise<IndexStore>;
