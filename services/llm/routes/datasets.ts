/** Datasets of a tenant: register, list, the RAG-enabled list, and hybrid search in one. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { newId } from '../../../platform/identity/ids.ts';
import { pathTenant } from '../caller.ts';
import { datasetNamespace, datasetView, type DatasetRow } from '../datasets.ts';
import { commonErrors, qError } from '../errors.ts';
import { begin, beginForTenant, bearerSecurity, TAG, type QDeps } from './context.ts';
import { TenantIdParams, extend } from './schemas.ts';

export { datasetNamespace };

export const Dataset = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  data_use: Type.Object({ allow_rag: Type.Boolean(), allow_private_training: Type.Boolean() }),
  documents: Type.Integer({ description: 'Searchable records: documents plus table rows' }),
  tables: Type.Array(Type.Object({ table_name: Type.String(), columns: Type.Array(Type.String()), rows: Type.Integer() })),
  created_at: Type.String({ format: 'date-time' }),
});

export const DatasetParams = extend(TenantIdParams, Type.Object({ dataset_id: Type.String({ minLength: 1, maxLength: 100 }) }));

/** The dataset `id` of the tenant, or 404. */
export async function datasetOf(deps: QDeps, tenantId: string, id: string): Promise<DatasetRow> {
  const [row] = await deps.ctx.db.query<DatasetRow>('SELECT * FROM llm_datasets WHERE id = $1 AND tenant_id = $2', [id, tenantId]);
  if (!row) throw qError('NOT_FOUND', `Dataset not found: ${id}`);
  return row;
}

export function registerDatasets(app: ServiceApp, deps: QDeps): void {
  const db = deps.ctx.db;
  const list = Type.Object({ data: Type.Array(Dataset), total: Type.Integer() });

  app.post(
    '/v1/tenants/:tenant_id/datasets/register',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.datasets],
        summary: 'Register a dataset (documents, tables or both)',
        security: bearerSecurity,
        params: TenantIdParams,
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200 }),
          type: Type.Optional(Type.Union([Type.Literal('documents'), Type.Literal('tables'), Type.Literal('mixed')], { description: 'Default documents; every type accepts both uploads' })),
          description: Type.Optional(Type.String({ maxLength: 2000 })),
          data_use: Type.Optional(Type.Object({ allow_rag: Type.Optional(Type.Boolean({ default: false })), allow_private_training: Type.Optional(Type.Boolean({ default: false })) })),
        }),
        response: { 201: Dataset, ...commonErrors },
      },
    },
    async (req, reply) => {
      const { tenant: t } = await beginForTenant(deps, req, req.params.tenant_id);
      const b = req.body;
      const [row] = await db.query<DatasetRow>(
        `INSERT INTO llm_datasets (id, tenant_id, name, type, description, allow_rag, allow_private_training) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
        [newId('ds'), t.id, b.name, b.type ?? 'documents', b.description ?? null, b.data_use?.allow_rag ?? false, b.data_use?.allow_private_training ?? false],
      );
      reply.code(201);
      return datasetView(row!);
    },
  );

  app.get(
    '/v1/tenants/:tenant_id/datasets',
    { preValidation: deps.bearerAuth, schema: { tags: [TAG.datasets], summary: 'List a tenant’s datasets', security: bearerSecurity, params: TenantIdParams, response: { 200: list, ...commonErrors } } },
    async (req) => {
      const caller = await begin(deps, req);
      const t = await pathTenant(db, caller, req.params.tenant_id);
      const rows = await db.query<DatasetRow>('SELECT * FROM llm_datasets WHERE tenant_id = $1 ORDER BY created_at, id', [t.id]);
      return { data: rows.map(datasetView), total: rows.length };
    },
  );

  app.get(
    '/v1/tenants/:tenant_id/datasets/rag-enabled',
    {
      preValidation: deps.bearerAuth,
      schema: { tags: [TAG.datasets], summary: 'The datasets whose data_use.allow_rag is true (searched by the tenant’s chats)', security: bearerSecurity, params: TenantIdParams, response: { 200: list, ...commonErrors } },
    },
    async (req) => {
      const caller = await begin(deps, req);
      const t = await pathTenant(db, caller, req.params.tenant_id);
      const rows = await db.query<DatasetRow>('SELECT * FROM llm_datasets WHERE tenant_id = $1 AND allow_rag ORDER BY created_at, id', [t.id]);
      return { data: rows.map(datasetView), total: rows.length };
    },
  );

  app.get(
    '/v1/tenants/:tenant_id/datasets/:dataset_id/search',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.datasets],
        summary: 'Search a dataset (hybrid BM25 + dense by default)',
        security: bearerSecurity,
        params: DatasetParams,
        querystring: Type.Object({
          q: Type.String({ minLength: 1, maxLength: 2000 }),
          top_k: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
          mode: Type.Union([Type.Literal('hybrid'), Type.Literal('bm25'), Type.Literal('dense')], { default: 'hybrid' }),
        }),
        response: {
          200: Type.Object({
            dataset_id: Type.String(),
            query: Type.String(),
            mode: Type.String(),
            results: Type.Array(Type.Object({ doc_id: Type.String(), title: Type.String(), text: Type.String(), score: Type.Number(), metadata: Type.Record(Type.String(), Type.Unknown()) })),
          }),
          ...commonErrors,
        },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      const t = await pathTenant(db, caller, req.params.tenant_id);
      const d = await datasetOf(deps, t.id, req.params.dataset_id);
      const results = await deps.datasets.search(d, req.query.q, req.query.top_k, req.query.mode);
      return { dataset_id: d.id, query: req.query.q, mode: req.query.mode, results };
    },
  );
}
