/**
 * Uploads into a dataset: documents, and tables whose rows become records "column: value; ..."
 * titled by the table's name (so both header words and cells are searchable). Everything is
 * checked before anything is stored: a bad record, or a body over the size limit, refuses the
 * whole upload. Each upload adds to the persisted index (re-sending a doc_id replaces it).
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { tableRowsAsDocs } from '../../../engines/language/retrieval/tables.ts';
import { LanguageError } from '../../../engines/language/errors.ts';
import type { InputDoc } from '../../../engines/language/retrieval/search-index.ts';
import { datasetView, type DatasetRow } from '../datasets.ts';
import { commonErrors, qError } from '../errors.ts';
import { beginForTenant, bearerSecurity, TAG, type QDeps } from './context.ts';
import { Dataset, DatasetParams, datasetOf } from './datasets.ts';

const MAX_DOCS = 5_000;
const MAX_ROWS = 20_000;

async function store(deps: QDeps, d: DatasetRow, docs: InputDoc[], metadata: Map<string, unknown>, table?: { table_name: string; columns: string[]; rows: number }) {
  const db = deps.ctx.db;
  const index = await deps.datasets.index(d);
  try {
    await index.add(docs);
  } catch (err) {
    if (err instanceof LanguageError) throw qError('INVALID_REQUEST', err.message);
    throw err;
  }
  for (const doc of docs) {
    await db.query(
      `INSERT INTO llm_dataset_docs (dataset_id, doc_id, metadata) VALUES ($1, $2, $3) ON CONFLICT (dataset_id, doc_id) DO UPDATE SET metadata = EXCLUDED.metadata`,
      [d.id, doc.doc_id, JSON.stringify(metadata.get(doc.doc_id) ?? {})],
    );
  }
  const tables = table ? [...d.tables.filter((x) => x.table_name !== table.table_name), table] : d.tables;
  const [row] = await db.query<DatasetRow>(
    `UPDATE llm_datasets SET documents = (SELECT count(*)::int FROM llm_dataset_docs WHERE dataset_id = $1), tables = $2, revision = revision + 1
      WHERE id = $1 RETURNING *`,
    [d.id, JSON.stringify(tables)],
  );
  deps.datasets.forget(d.id);
  return row!;
}

const UploadResult = Type.Object({ dataset_id: Type.String(), added: Type.Integer(), dataset: Dataset });

export function registerDatasetUploads(app: ServiceApp, deps: QDeps): void {
  const db = deps.ctx.db;

  app.post(
    '/v1/tenants/:tenant_id/datasets/:dataset_id/upload/docs',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.datasets],
        summary: `Add documents (at most ${MAX_DOCS} per upload; re-sending a doc_id replaces it)`,
        security: bearerSecurity,
        params: DatasetParams,
        body: Type.Object({
          docs: Type.Array(
            Type.Object({
              doc_id: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\r\\n]+$' }),
              title: Type.Optional(Type.String({ maxLength: 1000 })),
              text: Type.String({ maxLength: 1_000_000 }),
              metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
            }),
            { minItems: 1, maxItems: MAX_DOCS },
          ),
        }),
        response: { 200: UploadResult, ...commonErrors },
      },
    },
    async (req) => {
      const { tenant: t } = await beginForTenant(deps, req, req.params.tenant_id);
      const d = await datasetOf(deps, t.id, req.params.dataset_id);
      const ids = new Set<string>();
      for (const doc of req.body.docs) {
        if (ids.has(doc.doc_id)) throw qError('INVALID_REQUEST', `doc_id ${doc.doc_id} appears twice in this upload`);
        ids.add(doc.doc_id);
        if (doc.doc_id.includes(':row:')) throw qError('INVALID_REQUEST', 'doc_id may not contain ":row:" (kept for table rows)');
      }
      const docs = req.body.docs.map((x) => ({ doc_id: x.doc_id, ...(x.title !== undefined ? { title: x.title } : {}), text: x.text }));
      const meta = new Map(req.body.docs.map((x) => [x.doc_id, x.metadata ?? {}]));
      const row = await store(deps, d, docs, meta);
      return { dataset_id: d.id, added: docs.length, dataset: datasetView(row) };
    },
  );

  app.post(
    '/v1/tenants/:tenant_id/datasets/:dataset_id/upload/table',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.datasets],
        summary: `Add a table’s rows as searchable records (at most ${MAX_ROWS} rows per upload; uploading the same table again appends its rows)`,
        security: bearerSecurity,
        params: DatasetParams,
        body: Type.Object({
          table_name: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\r\\n]+$' }),
          columns: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 200 }),
          rows: Type.Array(Type.Array(Type.Union([Type.String({ maxLength: 100_000 }), Type.Number(), Type.Boolean(), Type.Null()])), { minItems: 1, maxItems: MAX_ROWS }),
        }),
        response: { 200: UploadResult, ...commonErrors },
      },
    },
    async (req) => {
      const { tenant: t } = await beginForTenant(deps, req, req.params.tenant_id);
      const d = await datasetOf(deps, t.id, req.params.dataset_id);
      const { table_name, columns, rows } = req.body;
      const before = d.tables.find((x) => x.table_name === table_name);
      if (before && JSON.stringify(before.columns) !== JSON.stringify(columns)) {
        throw qError('INVALID_REQUEST', `table ${table_name} already has columns ${before.columns.join(', ')}`);
      }
      let docs: InputDoc[];
      try {
        docs = tableRowsAsDocs(table_name, columns, rows);
      } catch (err) {
        if (err instanceof LanguageError) throw qError('INVALID_REQUEST', err.message);
        throw err;
      }
      // Rows are appended: their ids continue after the rows already stored.
      const offset = before?.rows ?? 0;
      docs = docs.map((x, i) => ({ ...x, doc_id: `${table_name}:row:${offset + i}` }));
      const meta = new Map(docs.map((x, i) => [x.doc_id, { table_name, row: offset + i }]));
      const row = await store(deps, d, docs, meta, { table_name, columns, rows: offset + rows.length });
      return { dataset_id: d.id, added: docs.length, dataset: datasetView(row) };
    },
  );
}
