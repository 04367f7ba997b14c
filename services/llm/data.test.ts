import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { startLlm, type LlmTest } from './testing.ts';

let s: LlmTest;
let a: { id: string; slug: string; key: string };
let b: { id: string; slug: string; key: string };
let receiver: Server;
let receiverUrl = '';
const received: { body: string; signature: string | undefined }[] = [];

before(async () => {
  s = await startLlm();
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ body, signature: req.headers['x-signature'] as string | undefined });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const addr = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/hook`;
  a = await s.tenant();
  b = await s.tenant();
});
after(async () => {
  receiver.close();
  await s.close();
});

const docs = [
  { doc_id: 'd1', title: 'Supersonic inlets', text: 'Shock waves in supersonic inlets reduce the total pressure recovery of the engine.', metadata: { source: 'report 7' } },
  { doc_id: 'd2', title: 'Laminar boundary layers', text: 'Heat transfer through a laminar boundary layer on a flat plate at low speed.' },
  { doc_id: 'd3', title: 'Rotor blades', text: 'Vibration of helicopter rotor blades under gust loads.' },
];

test('datasets: register, upload documents and a table, then hybrid search finds records by text and by column', async () => {
  const reg = await s.req(`/v1/tenants/${a.id}/datasets/register`, a.key, { body: { name: 'reports', type: 'documents', description: 'wind tunnel', data_use: { allow_rag: true, allow_private_training: false } } });
  assert.equal(reg.status, 201);
  assert.deepEqual(reg.body.data_use, { allow_rag: true, allow_private_training: false });
  const id = reg.body.id;
  const up = await s.req(`/v1/tenants/${a.id}/datasets/${id}/upload/docs`, a.key, { body: { docs } });
  assert.equal(up.status, 200);
  assert.equal(up.body.dataset.documents, 3);
  const table = await s.req(`/v1/tenants/${a.id}/datasets/${id}/upload/table`, a.key, { body: { table_name: 'engines', columns: ['name', 'thrust_kn'], rows: [['J79', 52.8], ['Olympus', 169.2]] } });
  assert.equal(table.status, 200);
  assert.equal(table.body.dataset.documents, 5);
  assert.deepEqual(table.body.dataset.tables, [{ table_name: 'engines', columns: ['name', 'thrust_kn'], rows: 2 }]);
  // Incremental: a second table upload appends rows.
  const more = await s.req(`/v1/tenants/${a.id}/datasets/${id}/upload/table`, a.key, { body: { table_name: 'engines', columns: ['name', 'thrust_kn'], rows: [['Avon', 56]] } });
  assert.equal(more.body.dataset.tables[0].rows, 3);
  const hit = await s.req(`/v1/tenants/${a.id}/datasets/${id}/search?q=${encodeURIComponent('shock waves inlet pressure')}&top_k=2`, a.key);
  assert.equal(hit.status, 200);
  assert.equal(hit.body.mode, 'hybrid');
  assert.equal(hit.body.results[0].doc_id, 'd1');
  assert.deepEqual(hit.body.results[0].metadata, { source: 'report 7' });
  const row = await s.req(`/v1/tenants/${a.id}/datasets/${id}/search?q=Olympus%20thrust`, a.key);
  assert.equal(row.body.results[0].doc_id, 'engines:row:1');
  assert.match(row.body.results[0].text, /thrust_kn: 169.2/);
  const plain = await s.req(`/v1/tenants/${a.id}/datasets/register`, a.key, { body: { name: 'private' } });
  const list = await s.req(`/v1/tenants/${a.id}/datasets`, a.key);
  assert.equal(list.body.total, 2);
  const rag = await s.req(`/v1/tenants/${a.id}/datasets/rag-enabled`, a.key);
  assert.deepEqual(rag.body.data.map((d: { id: string }) => d.id), [id]);
  assert.notEqual(plain.body.id, id);
});

test('with a RAG dataset the tenant’s chats cite retrieved passages', async () => {
  const r = await s.req('/v1/chat/completions', a.key, { body: { model: 'lattice-tiny', messages: [{ role: 'user', content: 'shock waves in supersonic inlets' }], max_tokens: 4 } });
  assert.equal(r.status, 200);
  assert.equal(r.body.meta.citations[0].doc_id, 'd1');
  assert.match(r.body.meta.citations[0].passage, /Shock waves/);
  // Another tenant's chats see none of it.
  const other = await s.req('/v1/chat/completions', b.key, { body: { model: 'lattice-tiny', messages: [{ role: 'user', content: 'shock waves in supersonic inlets' }], max_tokens: 4 } });
  assert.deepEqual(other.body.meta.citations, []);
});

test('an upload with one bad record, or over the size limit, is refused whole', async () => {
  const reg = await s.req(`/v1/tenants/${a.id}/datasets/register`, a.key, { body: { name: 'strict' } });
  const id = reg.body.id;
  const bad = await s.req(`/v1/tenants/${a.id}/datasets/${id}/upload/docs`, a.key, { body: { docs: [docs[0], { doc_id: 'x', text: 5 }] } });
  assert.equal(bad.status, 400);
  const dup = await s.req(`/v1/tenants/${a.id}/datasets/${id}/upload/docs`, a.key, { body: { docs: [docs[0], docs[0]] } });
  assert.equal(dup.status, 400);
  const huge = await s.req(`/v1/tenants/${a.id}/datasets/${id}/upload/docs`, a.key, { body: { docs: [{ doc_id: 'big', text: 'x'.repeat(9 * 1024 * 1024) }] } });
  assert.equal(huge.status, 400);
  assert.equal(huge.body.error.code, 'INVALID_REQUEST');
  const table = await s.req(`/v1/tenants/${a.id}/datasets/${id}/upload/table`, a.key, { body: { table_name: 't', columns: ['a', 'b'], rows: [[1, 2], [3]] } });
  assert.equal(table.status, 400);
  const after = await s.req(`/v1/tenants/${a.id}/datasets`, a.key);
  assert.equal(after.body.data.find((d: { id: string }) => d.id === id).documents, 0);
});

test('feedback of the five types, listed newest first, with stats and readiness for training', async () => {
  const t = await s.tenant({ settings: { min_feedback_count: 2 } });
  const chat = await s.req('/v1/chat/completions', t.key, { body: { model: 'lattice-tiny', messages: [{ role: 'user', content: 'wing flutter' }], max_tokens: 4 } });
  const mid = chat.body.id;
  const send = (body: Record<string, unknown>) => s.req(`/v1/tenants/${t.id}/feedback`, t.key, { body: { conversation_id: 'c1', message_id: mid, ...body } });
  assert.equal((await send({ type: 'thumbs_up' })).status, 201);
  assert.equal((await send({ type: 'thumbs_down', message_id: 'elsewhere' })).status, 201);
  assert.equal((await send({ type: 'correction', message_id: 'm2', correction: 'Flutter is a self-excited oscillation.', metadata: { prompt: 'what is flutter' } })).status, 201);
  assert.equal((await send({ type: 'rating', rating: 4 })).status, 201);
  assert.equal((await send({ type: 'report', message_id: 'm3', metadata: { reason: 'off topic' } })).status, 201);
  assert.equal((await send({ type: 'rating' })).body.error.code, 'INVALID_REQUEST');
  assert.equal((await send({ type: 'rating', rating: 6 })).body.error.code, 'INVALID_REQUEST');
  assert.equal((await send({ type: 'correction' })).body.error.code, 'INVALID_REQUEST');
  assert.equal((await send({ type: 'love' })).body.error.code, 'INVALID_REQUEST');
  const list = await s.req(`/v1/tenants/${t.id}/feedback?limit=2`, t.key);
  assert.equal(list.body.total, 5);
  assert.equal(list.body.data.length, 2);
  assert.equal(list.body.data[0].type, 'report');
  const stats = await s.req(`/v1/tenants/${t.id}/feedback/stats`, t.key);
  assert.deepEqual(
    { ...stats.body },
    { total: 5, thumbs_up: 1, thumbs_down: 1, corrections: 1, ratings: 1, reports: 1, average_rating: 4, training_samples: 2, min_feedback_count: 2, ready_for_training: true },
  );
});

test('webhooks receive signed tenant.created and feedback.received events, scoped to their owner', async () => {
  const secret = 'whsec_test_secret';
  const reg = await s.req('/v1/webhooks', s.admin, { body: { url: receiverUrl, events: ['tenant.created', 'feedback.received'], secret } });
  assert.equal(reg.status, 201);
  const tenantHook = await s.req('/v1/webhooks', b.key, { body: { url: `${receiverUrl}?tenant=b`, events: ['feedback.received'], secret } });
  assert.equal(tenantHook.status, 201);
  assert.equal(tenantHook.body.tenant_id, b.id);
  assert.equal((await s.req('/v1/webhooks', s.admin, { body: { url: 'ftp://x', events: ['tenant.created'] } })).body.error.code, 'INVALID_REQUEST');
  assert.equal((await s.req('/v1/webhooks', s.admin, { body: { url: receiverUrl, events: ['nope'] } })).body.error.code, 'INVALID_REQUEST');
  const t = await s.tenant();
  await s.req(`/v1/tenants/${t.id}/feedback`, t.key, { body: { type: 'thumbs_up' } });
  const deadline = Date.now() + 15_000;
  while (received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const events = received.map((r) => ({ ...JSON.parse(r.body), signature: r.signature, raw: r.body }));
  const created = events.find((e) => e.event === 'tenant.created');
  const fb = events.find((e) => e.event === 'feedback.received');
  assert.ok(created && fb, JSON.stringify(events));
  assert.equal(created.data.tenant_id, t.id);
  for (const e of [created, fb]) {
    assert.equal(e.signature, `sha256=${createHmac('sha256', secret).update(e.raw).digest('hex')}`);
    assert.deepEqual(Object.keys(e).filter((k) => !['signature', 'raw'].includes(k)).sort(), ['created_at', 'data', 'event', 'id']);
  }
  // Tenant b's own webhook saw none of tenant t's events.
  assert.equal(events.filter((e) => e.data.tenant_id === t.id).length, 2);
  const log = await s.req(`/v1/webhooks/${reg.body.id}/deliveries`, s.admin);
  assert.ok(log.body.data.some((d: { success: boolean }) => d.success));
  assert.equal((await s.req(`/v1/webhooks/${reg.body.id}/deliveries`, b.key)).status, 404);
  assert.equal((await s.req(`/v1/webhooks/${reg.body.id}`, b.key, { method: 'DELETE' })).status, 404);
});

test('one tenant never reads or changes another’s data, on any route', async () => {
  const ds = (await s.req(`/v1/tenants/${a.id}/datasets/register`, a.key, { body: { name: 'a-only', data_use: { allow_rag: true } } })).body.id;
  await s.t.db.query(
    `INSERT INTO llm_training_jobs (id, tenant_id, status, model, params, pairs, feedback_samples, total_epochs) VALUES ('ftjob_a', $1, 'queued', 'lattice-tiny', '{}', '[]', 0, 1)`,
    [a.id],
  );
  const routes: [string, string, unknown?][] = [
    ['GET', `/v1/tenants/${a.id}`],
    ['GET', `/v1/tenants/${a.id}/settings`],
    ['PATCH', `/v1/tenants/${a.id}/settings`, { enable_rerank: true }],
    ['POST', `/v1/tenants/${a.id}/feedback`, { type: 'thumbs_up' }],
    ['GET', `/v1/tenants/${a.id}/feedback`],
    ['GET', `/v1/tenants/${a.id}/feedback/stats`],
    ['POST', `/v1/tenants/${a.id}/datasets/register`, { name: 'x' }],
    ['POST', `/v1/tenants/${a.id}/datasets/${ds}/upload/docs`, { docs }],
    ['POST', `/v1/tenants/${a.id}/datasets/${ds}/upload/table`, { table_name: 't', columns: ['a'], rows: [[1]] }],
    ['GET', `/v1/tenants/${a.id}/datasets/${ds}/search?q=shock`],
    ['GET', `/v1/tenants/${a.id}/datasets`],
    ['GET', `/v1/tenants/${a.id}/datasets/rag-enabled`],
    ['POST', `/v1/tenants/${a.id}/train/lora`, {}],
    ['GET', `/v1/tenants/${a.id}/train/ftjob_a`],
    ['GET', `/v1/tenants/${a.id}/train`],
  ];
  const { key: stranger } = await s.t.newKey({ role: 'admin' });
  for (const [method, path, body] of routes) {
    for (const key of [b.key, stranger]) {
      const r = await s.req(path, key, { method, ...(body ? { body } : {}) });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.error.code, 'TENANT_NOT_FOUND', `${method} ${path}`);
    }
  }
  // Tenant b's own paths with a's dataset and job ids: not found either.
  assert.equal((await s.req(`/v1/tenants/${b.id}/datasets/${ds}/search?q=shock`, b.key)).body.error.code, 'NOT_FOUND');
  assert.equal((await s.req(`/v1/tenants/${b.id}/datasets/${ds}/upload/docs`, b.key, { body: { docs } })).body.error.code, 'NOT_FOUND');
  assert.equal((await s.req(`/v1/tenants/${b.id}/train/ftjob_a`, b.key)).body.error.code, 'NOT_FOUND');
  // Inference routes act for the key's own tenant; naming another is refused.
  for (const [path, body] of [
    ['/v1/chat/completions', { model: 'lattice-tiny', messages: [{ role: 'user', content: 'x' }], max_tokens: 1 }],
    ['/v1/embeddings', { input: 'x' }],
    ['/v1/rerank', { query: 'x', documents: ['x'] }],
  ] as const) {
    assert.equal((await s.req(path, b.key, { body, headers: { 'x-tenant-id': a.slug } })).status, 403, path);
    assert.equal((await s.req(path, stranger, { body, headers: { 'x-tenant-id': a.slug } })).status, 404, path);
  }
  // Feedback naming a's completion from b does not train b on a's prompt.
  const chat = await s.req('/v1/chat/completions', a.key, { body: { model: 'lattice-tiny', messages: [{ role: 'user', content: 'secret of a' }], max_tokens: 2 } });
  await s.req(`/v1/tenants/${b.id}/feedback`, b.key, { body: { type: 'thumbs_up', message_id: chat.body.id } });
  assert.equal((await s.req(`/v1/tenants/${b.id}/feedback/stats`, b.key)).body.training_samples, 0);
  // And nothing of a changed.
  assert.equal((await s.req(`/v1/tenants/${a.id}/settings`, a.key)).body.enable_rerank, false);
  assert.equal((await s.req(`/v1/tenants/${a.id}/datasets/${ds}/search?q=shock`, a.key)).body.results.length, 0);
});
