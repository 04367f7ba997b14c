/**
 * Retrieval datasets of a tenant: each is a persisted search index (BM25 + dense vectors in
 * the same database, namespace `llm_<dataset id>`), grown incrementally by uploads. Each app
 * keeps its indexes open (DatasetIndexes, in the app's dependencies) and reopens one when
 * another process has uploaded to it (the dataset's `revision`). Search is hybrid; the chat's
 * RAG searches every dataset of the tenant whose `data_use.allow_rag` is true.
 */
import { SearchIndex, type SearchMode } from '../../engines/language/retrieval/search-index.ts';
import type { Database } from '../../platform/storage/database.ts';

export interface DatasetRow {
  id: string;
  tenant_id: string;
  name: string;
  type: string;
  description: string | null;
  allow_rag: boolean;
  allow_private_training: boolean;
  documents: number;
  tables: { table_name: string; columns: string[]; rows: number }[];
  revision: number;
  created_at: Date;
}

export interface Citation {
  dataset_id: string;
  doc_id: string;
  title: string;
  passage: string;
  score: number;
}

export function datasetNamespace(id: string): string {
  return `llm_${id}`;
}

export function datasetView(d: DatasetRow): Record<string, unknown> {
  return {
    id: d.id,
    name: d.name,
    type: d.type,
    description: d.description,
    data_use: { allow_rag: d.allow_rag, allow_private_training: d.allow_private_training },
    documents: d.documents,
    tables: d.tables,
    created_at: new Date(d.created_at).toISOString(),
  };
}

/**
 * The open search indexes of one app's datasets, by dataset id with the revision each was
 * opened at. Held by the app (its routes' dependencies) for as long as it runs, so two apps in
 * one process, each on its own store, never answer from each other's index. An index is
 * dropped when its dataset is written to (`forget`), when a newer revision is asked for, and
 * when its open fails.
 */
export class DatasetIndexes {
  private readonly open = new Map<string, { revision: number; index: Promise<SearchIndex> }>();

  constructor(private readonly db: Database) {}

  /** The dataset's index as of `revision`. */
  index(d: Pick<DatasetRow, 'id' | 'revision'>): Promise<SearchIndex> {
    const hit = this.open.get(d.id);
    if (hit && hit.revision === d.revision) return hit.index;
    const index = SearchIndex.open(this.db, { ns: datasetNamespace(d.id) });
    this.open.set(d.id, { revision: d.revision, index });
    index.catch(() => this.open.delete(d.id));
    return index;
  }

  forget(id: string): void {
    this.open.delete(id);
  }

  async search(d: DatasetRow, q: string, topK: number, mode: SearchMode = 'hybrid') {
    const index = await this.index(d);
    if ((await index.size()) === 0) return [];
    const hits = await index.query(q, { mode, topK });
    const docs = await index.candidates(q, hits);
    const meta = new Map(
      (await this.db.query<{ doc_id: string; metadata: Record<string, unknown> }>('SELECT doc_id, metadata FROM llm_dataset_docs WHERE dataset_id = $1 AND doc_id = ANY($2)', [d.id, hits.map((h) => h.doc_id)])).map((r) => [r.doc_id, r.metadata]),
    );
    return docs.map((c) => ({ doc_id: c.doc_id, title: c.title, text: c.text, score: c.score, metadata: meta.get(c.doc_id) ?? {} }));
  }

  /** The best `k` passages for `query` over the tenant's RAG-enabled datasets. */
  async passages(tenantId: string, query: string, k: number): Promise<Citation[]> {
    const sets = await this.db.query<DatasetRow>('SELECT * FROM llm_datasets WHERE tenant_id = $1 AND allow_rag AND documents > 0', [tenantId]);
    const all: Citation[] = [];
    for (const d of sets) {
      for (const h of await this.search(d, query, k)) {
        if (h.score <= 0) continue;
        all.push({ dataset_id: d.id, doc_id: h.doc_id, title: h.title, passage: h.text.slice(0, 600), score: h.score });
      }
    }
    return all.sort((a, b) => b.score - a.score).slice(0, k);
  }
}
