/**
 * A NUL character, which PostgreSQL refuses in text and jsonb, sent to every route of every
 * service (path parameters, query parameters, JSON body strings) is a 400 or 404 in the
 * service's own shape, never a 500.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServiceDefinition } from '../service.ts';
import { call, openTestDatabase, startTestService, type TestService } from '../testing/harness.ts';
import { services } from '../../services/index.ts';
import { createServiceApp } from './app.ts';

type Schema = Record<string, any>;
interface Operation {
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: Record<string, string[]>[];
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, { type: string; scheme?: string; in?: string; name?: string }> };
}

const NUL = '\u0000';

/** A value shaped like `schema`, with a NUL in every free-text string. */
function sample(schema: Schema | undefined, doc: OpenApi, depth = 0): unknown {
  if (!schema || depth > 6) return `a${NUL}b`;
  if (schema.$ref) return sample(doc.components?.schemas?.[String(schema.$ref).split('/').pop()!], doc, depth + 1);
  const choice = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(choice)) return sample(choice.find((s: Schema) => s.type !== 'null') ?? choice[0], doc, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) out[key] = sample(sub, doc, depth + 1);
      if (!schema.properties) out[`key${NUL}`] = `a${NUL}b`;
      return out;
    }
    case 'array':
      return [sample(schema.items, doc, depth + 1)];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    default:
      return `a${NUL}b`;
  }
}

/** Headers of a real key for each way the operation accepts one, where the harness can make it. */
async function authFor(svc: TestService, def: ServiceDefinition, op: Operation, doc: OpenApi, keys: Map<string, string>) {
  const headers: Record<string, string> = {};
  for (const name of (op.security ?? []).flatMap((s) => Object.keys(s))) {
    const scheme = doc.components?.securitySchemes?.[name];
    if (!scheme || (scheme.type === 'apiKey' && scheme.in !== 'header')) continue;
    const kind = def.serviceTokenPrefix && /token/i.test(name) ? 'service_token' : 'api_key';
    if (!keys.has(kind)) {
      // The highest role, so that admin-only routes are reached too.
      const role = def.roles?.at(-1) ?? 'admin';
      keys.set(kind, await svc.newKey({ kind, role }).then((k) => k.key, () => ''));
    }
    const key = keys.get(kind);
    if (!key) continue;
    if (scheme.type === 'http') headers.authorization ??= `Bearer ${key}`;
    else headers[scheme.name!.toLowerCase()] ??= key;
  }
  return headers;
}

function urlOf(base: string, path: string, op: Operation, value: string): string {
  const filled = path.replace(/\{[^}]+\}/g, value);
  const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => `${encodeURIComponent(p.name)}=${value}`);
  return `${base}${filled}${query.length ? `?${query.join('&')}` : ''}`;
}

const keysOf = (body: unknown) => (body && typeof body === 'object' ? Object.keys(body).sort() : []);

for (const def of services) {
  test(`${def.id}: a NUL in any path, query or body value is never a 500`, async () => {
    const svc = await startTestService(def);
    try {
      const doc = (await call(`${svc.url}/openapi.json`)).body as OpenApi;
      const notFound = await call(`${svc.url}/no-such-route-for-nul-test`);
      const shape = keysOf(notFound.body);
      const keys = new Map<string, string>();
      let sent = 0;
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(methods)) {
          if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
          const headers = await authFor(svc, def, op, doc, keys);
          const withBody = ['post', 'put', 'patch'].includes(method);
          const body = withBody ? sample(op.requestBody?.content?.['application/json']?.schema, doc) ?? { value: `a${NUL}b` } : undefined;
          const hasParams = /\{/.test(path) || (op.parameters ?? []).some((p) => p.in === 'query');
          // A NUL in the URL; and, for a body, a NUL in the body behind a plain URL, as the URL would be refused first.
          const tries = [urlOf(svc.url, path, op, '%00')];
          if (withBody && hasParams) tries.push(urlOf(svc.url, path, op, 'x1'));
          for (const url of tries) {
            const r = await call(url, { method: method.toUpperCase(), headers, body });
            sent++;
            const where = `${method.toUpperCase()} ${url.slice(svc.url.length)}`;
            assert.ok(r.status < 500, `${where} answered ${r.status}: ${JSON.stringify(r.body)}`);
            if (r.status === 400 || r.status === 404) assert.deepEqual(keysOf(r.body), shape, `${where}: the service's error shape`);
          }
        }
      }
      assert.ok(sent > 0, 'the OpenAPI document lists routes');
    } finally {
      await svc.close();
    }
  });
}

test('text the database refuses is a 400 in the service shape, even past the request checks', async () => {
  const { db, close } = await openTestDatabase([]);
  const app = await createServiceApp({ docs: { title: 'nul', description: 'NUL guard', version: '1' }, formatError: (e) => ({ detail: e.message, code: e.code }) });
  // Text that reaches the database with a NUL the request checks cannot see (built by the route).
  app.get('/text', async () => db.query('SELECT $1::text AS v', [`a${NUL}b`]));
  app.get('/jsonb', async () => db.query('SELECT $1::jsonb AS v', [JSON.stringify({ a: NUL })]));
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    for (const path of ['/text', '/jsonb']) {
      const r = await call(`${base}${path}`);
      assert.equal(r.status, 400, path);
      assert.equal(r.body.code, 'validation_error', path);
      assert.match(r.body.detail, /NUL/, path);
    }
  } finally {
    await app.close();
    await close();
  }
});
