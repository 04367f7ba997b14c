/**
 * The persisted form of a search index: documents, their vectors and the inverted index
 * (term, doc, tf) in PostgreSQL tables, so an index survives restarts and can be extended
 * document by document. Works on the embedded PGlite of an index directory or on any
 * `Database` (several named indexes can share one database: every row carries `ns`).
 */
import type { IndexStore, Sql } from './index-store.ts';

export interface StoredDoc {
  doc_id: string;
  title: string;
  text: string;
}

export interface Posting {
  term: string;
  doc_id: string;
  tf: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS lx_search_meta (ns text NOT NULL, key text NOT NULL, value text NOT NULL, PRIMARY KEY (ns, key));
CREATE TABLE IF NOT EXISTS lx_search_docs (
  ns text NOT NULL, doc_id text NOT NULL, title text NOT NULL, body text NOT NULL,
  length integer NOT NULL, vector bytea, PRIMARY KEY (ns, doc_id));
CREATE TABLE IF NOT EXISTS lx_search_postings (
  ns text NOT NULL, term text NOT NULL, doc_id text NOT NULL, tf integer NOT NULL, PRIMARY KEY (ns, term, doc_id));
CREATE INDEX IF NOT EXISTS lx_search_postings_doc ON lx_search_postings (ns, doc_id);
CREATE TABLE IF NOT EXISTS lx_search_title_postings (
  ns text NOT NULL, term text NOT NULL, doc_id text NOT NULL, tf integer NOT NULL, PRIMARY KEY (ns, term, doc_id));
CREATE INDEX IF NOT EXISTS lx_search_title_postings_doc ON lx_search_title_postings (ns, doc_id);
ALTER TABLE lx_search_docs ADD COLUMN IF NOT EXISTS title_length integer NOT NULL DEFAULT 0;
`;

/** The inverted index of a field: the whole indexed text (title and body), or the title alone. */
export type Field = 'body' | 'title';
const POSTINGS: Record<Field, string> = { body: 'lx_search_postings', title: 'lx_search_title_postings' };

/** What writing needs of the store: a script (the schema) and transactions. */
export type SqlWithExec = Pick<IndexStore, 'query' | 'exec' | 'transaction'>;

/**
 * Creates the index tables if they are missing. On PostgreSQL two sessions running `CREATE ...
 * IF NOT EXISTS` at the same moment can both miss the other's table and one fails with a
 * duplicate type (23505) or relation (42P07); the script is idempotent, so it is run again,
 * when it finds the tables in place.
 */
export async function ensureSchema(db: SqlWithExec): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.exec(SCHEMA);
      return;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= 3 || (code !== '23505' && code !== '42P07')) throw err;
    }
  }
}

export async function getMeta(db: Sql, ns: string, key: string): Promise<string | undefined> {
  const rows = await db.query<{ value: string }>('SELECT value FROM lx_search_meta WHERE ns = $1 AND key = $2', [ns, key]);
  return rows[0]?.value;
}

export async function setMeta(db: Sql, ns: string, key: string, value: string): Promise<void> {
  await db.query(
    'INSERT INTO lx_search_meta (ns, key, value) VALUES ($1, $2, $3) ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value',
    [ns, key, value],
  );
}

export interface DocRow {
  doc_id: string;
  title: string;
  text: string;
  length: number;
  vector: Float32Array;
  terms: Map<string, number>;
  titleLength: number;
  titleTerms: Map<string, number>;
}

/** The analysed form of one stored document: what `replacePostings` writes. */
export type PostingRow = Pick<DocRow, 'doc_id' | 'length' | 'terms' | 'titleLength' | 'titleTerms'>;

async function insertPostings(tx: Sql, ns: string, field: Field, rows: readonly PostingRow[]): Promise<void> {
  const terms: string[] = [];
  const docs: string[] = [];
  const tfs: number[] = [];
  for (const r of rows) {
    for (const [t, tf] of field === 'body' ? r.terms : r.titleTerms) {
      terms.push(t);
      docs.push(r.doc_id);
      tfs.push(tf);
    }
  }
  // Batched through unnest: one statement per few thousand postings instead of one each.
  // ON CONFLICT: two processes rebuilding the same index after an analyzer change write the
  // same rows, and the second must not fail on the first's.
  const BATCH = 5000;
  for (let i = 0; i < terms.length; i += BATCH) {
    await tx.query(
      `INSERT INTO ${POSTINGS[field]} (ns, term, doc_id, tf) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[])
        ON CONFLICT (ns, term, doc_id) DO UPDATE SET tf = EXCLUDED.tf`,
      [ns, terms.slice(i, i + BATCH), docs.slice(i, i + BATCH), tfs.slice(i, i + BATCH)],
    );
  }
}

/** Replaces (or adds) documents and their postings in one transaction. */
export async function upsertDocs(db: SqlWithExec, ns: string, rows: readonly DocRow[]): Promise<void> {
  await db.transaction(async (tx) => {
    const ids = rows.map((r) => r.doc_id);
    await tx.query('DELETE FROM lx_search_postings WHERE ns = $1 AND doc_id = ANY($2::text[])', [ns, ids]);
    await tx.query('DELETE FROM lx_search_title_postings WHERE ns = $1 AND doc_id = ANY($2::text[])', [ns, ids]);
    await tx.query('DELETE FROM lx_search_docs WHERE ns = $1 AND doc_id = ANY($2::text[])', [ns, ids]);
    await tx.query(
      'INSERT INTO lx_search_docs (ns, doc_id, title, body, length, title_length, vector) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::bytea[])',
      [
        ns,
        ids,
        rows.map((r) => r.title),
        rows.map((r) => r.text),
        rows.map((r) => r.length),
        rows.map((r) => r.titleLength),
        rows.map((r) => Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength)),
      ],
    );
    await insertPostings(tx, ns, 'body', rows);
    await insertPostings(tx, ns, 'title', rows);
  });
}

/**
 * Rewrites the postings and lengths of stored documents (vectors and texts untouched): how an
 * index written by an earlier analyzer is brought up to date.
 */
export async function replacePostings(db: SqlWithExec, ns: string, rows: readonly PostingRow[]): Promise<void> {
  await db.transaction(async (tx) => {
    const ids = rows.map((r) => r.doc_id);
    await tx.query('DELETE FROM lx_search_postings WHERE ns = $1 AND doc_id = ANY($2::text[])', [ns, ids]);
    await tx.query('DELETE FROM lx_search_title_postings WHERE ns = $1 AND doc_id = ANY($2::text[])', [ns, ids]);
    await tx.query(
      `UPDATE lx_search_docs d SET length = u.length, title_length = u.title_length
         FROM unnest($2::text[], $3::int[], $4::int[]) AS u(doc_id, length, title_length)
        WHERE d.ns = $1 AND d.doc_id = u.doc_id`,
      [ns, ids, rows.map((r) => r.length), rows.map((r) => r.titleLength)],
    );
    await insertPostings(tx, ns, 'body', rows);
    await insertPostings(tx, ns, 'title', rows);
  });
}

/** Stored documents in doc_id order, `limit` from the one after `after` (for paging through an index). */
export async function docsPage(db: Sql, ns: string, after: string | null, limit: number): Promise<StoredDoc[]> {
  const rows = await db.query<{ doc_id: string; title: string; body: string }>(
    'SELECT doc_id, title, body FROM lx_search_docs WHERE ns = $1 AND ($2::text IS NULL OR doc_id > $2) ORDER BY doc_id LIMIT $3',
    [ns, after, limit],
  );
  return rows.map((r) => ({ doc_id: r.doc_id, title: r.title, text: r.body }));
}

/**
 * Postings of `terms`, without document lengths (callers keep those cached). Rows are packed
 * per term with string_agg: moving one row per posting out of PGlite costs far more than the
 * index scan itself.
 */
export async function postingsFor(db: Sql, ns: string, terms: readonly string[], field: Field = 'body'): Promise<Posting[]> {
  if (terms.length === 0) return [];
  const rows = await db.query<{ term: string; p: string }>(
    `SELECT term, string_agg(doc_id || ' ' || tf, E'\\n') AS p FROM ${POSTINGS[field]}
      WHERE ns = $1 AND term = ANY($2::text[]) GROUP BY term`,
    [ns, [...terms]],
  );
  const out: Posting[] = [];
  for (const r of rows) {
    for (const item of r.p.split('\n')) {
      const cut = item.lastIndexOf(' ');
      out.push({ term: r.term, doc_id: item.slice(0, cut), tf: Number(item.slice(cut + 1)) });
    }
  }
  return out;
}

export async function docLengths(db: Sql, ns: string, field: Field = 'body'): Promise<Map<string, number>> {
  const rows = await db.query<{ p: string | null }>(
    `SELECT string_agg(doc_id || ' ' || ${field === 'body' ? 'length' : 'title_length'}, E'\\n') AS p FROM lx_search_docs WHERE ns = $1`,
    [ns],
  );
  const out = new Map<string, number>();
  for (const item of (rows[0]?.p ?? '').split('\n')) {
    if (!item) continue;
    const cut = item.lastIndexOf(' ');
    out.set(item.slice(0, cut), Number(item.slice(cut + 1)));
  }
  return out;
}

/** Every document's term frequencies (whole text), in doc_id order: what the latent space is fitted on. */
export async function termsByDoc(db: Sql, ns: string): Promise<{ doc_id: string; terms: Map<string, number> }[]> {
  const rows = await db.query<{ doc_id: string; p: string }>(
    `SELECT doc_id, string_agg(term || ' ' || tf, E'\\n') AS p FROM lx_search_postings WHERE ns = $1 GROUP BY doc_id ORDER BY doc_id`,
    [ns],
  );
  return rows.map((r) => {
    const terms = new Map<string, number>();
    for (const item of r.p.split('\n')) {
      const cut = item.lastIndexOf(' ');
      terms.set(item.slice(0, cut), Number(item.slice(cut + 1)));
    }
    return { doc_id: r.doc_id, terms };
  });
}

export async function documentFrequencies(db: Sql, ns: string, terms: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (terms.length === 0) return out;
  const rows = await db.query<{ term: string; df: number | string }>(
    'SELECT term, count(*)::int AS df FROM lx_search_postings WHERE ns = $1 AND term = ANY($2::text[]) GROUP BY term',
    [ns, [...terms]],
  );
  for (const r of rows) out.set(r.term, Number(r.df));
  return out;
}

export async function loadDocs(db: Sql, ns: string, ids: readonly string[]): Promise<Map<string, StoredDoc>> {
  const rows = await db.query<{ doc_id: string; title: string; body: string }>(
    'SELECT doc_id, title, body FROM lx_search_docs WHERE ns = $1 AND doc_id = ANY($2::text[])',
    [ns, [...ids]],
  );
  return new Map(rows.map((r) => [r.doc_id, { doc_id: r.doc_id, title: r.title, text: r.body }]));
}

function toFloat32(v: unknown): Float32Array {
  const bytes = v instanceof Uint8Array ? v : new Uint8Array(0);
  // Copy: the driver's buffer may be a view into a larger pool with arbitrary alignment.
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

export async function loadVectors(db: Sql, ns: string): Promise<{ ids: string[]; vectors: Float32Array[] }> {
  const rows = await db.query<{ doc_id: string; vector: unknown }>(
    'SELECT doc_id, vector FROM lx_search_docs WHERE ns = $1 ORDER BY doc_id',
    [ns],
  );
  return { ids: rows.map((r) => r.doc_id), vectors: rows.map((r) => toFloat32(r.vector)) };
}

/** Removes every document, posting and setting of the index `ns`. */
export async function dropNamespace(db: SqlWithExec, ns: string): Promise<void> {
  await ensureSchema(db);
  await db.transaction(async (tx) => {
    await tx.query('DELETE FROM lx_search_postings WHERE ns = $1', [ns]);
    await tx.query('DELETE FROM lx_search_title_postings WHERE ns = $1', [ns]);
    await tx.query('DELETE FROM lx_search_docs WHERE ns = $1', [ns]);
    await tx.query('DELETE FROM lx_search_meta WHERE ns = $1', [ns]);
  });
}
