/**
 * Every route of every service refuses a body field it does not take with a 400 (422 on the
 * suppliers service, as its spec says) in the service's own error shape, naming the field,
 * instead of dropping it; a route that takes no body refuses one that has fields. The few
 * bodies that are documents rather than parameters (an evidence bundle) are listed here.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Type } from 'typebox';
import type { ServiceDefinition } from '../service.ts';
import { call, startTestService, type TestService } from '../testing/harness.ts';
import { services } from '../../services/index.ts';
import { createServiceApp } from './app.ts';
import { closeObjects, UNKNOWN_FIELD_MESSAGE } from './validation.ts';

type Schema = Record<string, any>;
interface Operation {
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: Record<string, string[]>[];
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, { type: string; in?: string; name?: string }> };
}

const FIELD = 'zz_not_a_field';

/** Plans whose request limits let every route of the service be called once in a row. */
const PLAN: Record<string, string> = { suppliers: 'enterprise', qcos: 'pro', core: 'pro' };

/** Bodies that are a document, not parameters: their top level takes any field. */
const OPEN_BODIES = new Set(['core POST /api/v2/evidence/verify']);

/** A value shaped like `schema` (enough to get past the types to the unknown field). */
function sample(schema: Schema | undefined, doc: OpenApi, depth = 0): unknown {
  if (!schema || depth > 6) return 'x';
  if (schema.$ref) return sample(doc.components?.schemas?.[String(schema.$ref).split('/').pop()!], doc, depth + 1);
  const choice = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(choice)) return sample(choice.find((s: Schema) => s.type !== 'null') ?? choice[0], doc, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) out[key] = sample(sub, doc, depth + 1);
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
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  }
}

async function authFor(svc: TestService, def: ServiceDefinition, op: Operation, doc: OpenApi, keys: Map<string, string>) {
  const headers: Record<string, string> = {};
  for (const name of (op.security ?? []).flatMap((s) => Object.keys(s))) {
    const scheme = doc.components?.securitySchemes?.[name];
    if (!scheme || (scheme.type === 'apiKey' && scheme.in !== 'header')) continue;
    const kind = def.serviceTokenPrefix && /token/i.test(name) ? 'service_token' : 'api_key';
    if (!keys.has(kind)) keys.set(kind, await svc.newKey({ kind, role: def.roles?.at(-1) ?? 'admin', ...(PLAN[def.id] ? { plan: PLAN[def.id] } : {}) }).then((k) => k.key, () => ''));
    const key = keys.get(kind);
    if (!key) continue;
    if (scheme.type === 'http') headers.authorization ??= `Bearer ${key}`;
    else headers[scheme.name!.toLowerCase()] ??= key;
  }
  return headers;
}

const keysOf = (body: unknown) => (body && typeof body === 'object' ? Object.keys(body).sort() : []);

describe('unknown body fields on every route', () => {
  for (const def of services) {
    test(`${def.id}: an unknown body field is refused naming it, in the service's shape`, async () => {
      const svc = await startTestService(def);
      try {
        const doc = (await call(`${svc.url}/openapi.json`)).body as OpenApi;
        const shape = keysOf((await call(`${svc.url}/no-such-route`)).body);
        const status = def.id === 'suppliers' ? 422 : 400;
        const keys = new Map<string, string>();
        let refused = 0;
        for (const [path, methods] of Object.entries(doc.paths)) {
          for (const [method, op] of Object.entries(methods)) {
            if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
            const where = `${def.id} ${method.toUpperCase()} ${path}`;
            if (OPEN_BODIES.has(where)) continue;
            const schema = op.requestBody?.content?.['application/json']?.schema;
            const base = schema ? sample(schema, doc) : {};
            const body = { ...(base && typeof base === 'object' && !Array.isArray(base) ? base : {}), [FIELD]: 1 };
            const headers = await authFor(svc, def, op, doc, keys);
            const query = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=x1`);
            const url = `${svc.url}${path.replace(/\{[^}]+\}/g, 'x1')}${query.length ? `?${query.join('&')}` : ''}`;
            const r = await call(url, { method: method.toUpperCase(), headers, body });
            // Routes behind a session cookie or a role the harness cannot give answer 401/403 first.
            if (r.status === 401 || r.status === 403) continue;
            assert.equal(r.status, status, `${where} answered ${r.status}: ${JSON.stringify(r.body)}`);
            // The service's error shape (a route may add fields to it, as the platform's `fields`).
            for (const key of shape) assert.ok(keysOf(r.body).includes(key), `${where}: the service's error shape lacks ${key}: ${JSON.stringify(r.body)}`);
            assert.match(JSON.stringify(r.body), new RegExp(FIELD), `${where} names the field`);
            refused++;
          }
        }
        assert.ok(refused > 0, `${def.id}: some route was reached`);
      } finally {
        await svc.close();
      }
    });
  }
});

describe('closing schemas', () => {
  test('objects that name properties are closed, explicit openness and free-form objects are kept, allOf members are left alone', () => {
    const closed = closeObjects({
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: { type: 'string' } } },
        open: { type: 'object', properties: { c: { type: 'string' } }, additionalProperties: true },
        free: { type: 'object' },
        record: { type: 'object', patternProperties: { '^.*$': { type: 'string' } } },
        list: { type: 'array', items: { type: 'object', properties: { d: { type: 'integer' } } } },
        either: { anyOf: [{ type: 'object', properties: { e: { type: 'string' } } }, { type: 'string' }] },
        both: { allOf: [{ type: 'object', properties: { f: { type: 'string' } } }, { type: 'object', properties: { g: { type: 'string' } } }] },
      },
    }) as Schema;
    assert.equal(closed.additionalProperties, false);
    assert.equal(closed.properties.a.additionalProperties, false);
    assert.equal(closed.properties.open.additionalProperties, true);
    assert.equal(closed.properties.free.additionalProperties, undefined);
    assert.equal(closed.properties.record.additionalProperties, undefined);
    assert.equal(closed.properties.list.items.additionalProperties, false);
    assert.equal(closed.properties.either.anyOf[0].additionalProperties, false);
    assert.equal(closed.properties.both.allOf[0].additionalProperties, undefined);
  });

  test('a field with a default is not required of the client', () => {
    const closed = closeObjects({ type: 'object', required: ['a', 'b'], properties: { a: { type: 'string' }, b: { type: 'integer', default: 1000 } } }) as Schema;
    assert.deepEqual(closed.required, ['a']);
  });

  test('the original schema is not changed, and a sub-schema shared by two fields maps to one copy', () => {
    const shared = { type: 'object', properties: { x: { type: 'string' } } };
    const original = { type: 'object', properties: { one: shared, two: shared } };
    const closed = closeObjects(original) as Schema;
    assert.equal((shared as Schema).additionalProperties, undefined);
    assert.equal(closed.properties.one, closed.properties.two);
  });
});

describe('messages', () => {
  test('unknown fields, guesses, enumerations, unions of constants and a route-worded refusal', async () => {
    const app = await createServiceApp({ docs: { title: 'fields', description: 'unknown fields', version: '1' }, formatError: (e) => ({ detail: e.message, code: e.code }) });
    const echo = async (req: { body: unknown; query: unknown }) => ({ body: req.body ?? null, query: req.query });
    app.post('/things', { schema: { body: Type.Object({ shots: Type.Optional(Type.Integer()), level: Type.Optional(Type.Union([Type.Literal('low'), Type.Literal('high')])), color: Type.Optional(Type.String({ enum: ['red', 'blue'] })), nested: Type.Optional(Type.Object({ seed_simulator: Type.Optional(Type.Integer()) })) }) } }, echo);
    app.post('/openai', { schema: { body: Type.Object({ model: Type.String() }, { additionalProperties: false, [UNKNOWN_FIELD_MESSAGE]: 'Unrecognized request argument supplied: {field}' }) } }, echo);
    app.post('/nothing', echo);
    app.get('/list', { schema: { querystring: Type.Object({ limit: Type.Optional(Type.Integer()) }) } }, echo);
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const detail = async (path: string, body?: unknown) => {
        const r = await call(`${base}${path}`, body === undefined ? {} : { body });
        assert.equal(r.status, 400, JSON.stringify(r.body));
        assert.equal(r.body.code, 'validation_error');
        return r.body.detail as string;
      };
      assert.equal(await detail('/things', { shot: 5 }), 'body.shot is not a known field (did you mean shots?); known fields: shots, level, color, nested');
      assert.equal(await detail('/things', { nested: { seed: 1 } }), 'body.nested.seed is not a known field; known fields: seed_simulator');
      assert.equal(await detail('/things', { shots: 'many', lvel: 'x' }), 'body.lvel is not a known field (did you mean level?); known fields: shots, level, color, nested', 'the unknown field first: it explains the rest');
      assert.equal(await detail('/things', { level: 'mid' }), 'body.level must be one of low, high');
      assert.equal(await detail('/things', { color: 'green' }), 'body.color must be one of red, blue');
      assert.equal(await detail('/openai', { model: 'm', bogus: 1 }), 'Unrecognized request argument supplied: bogus');
      assert.equal(await detail('/nothing', { stray: 1 }), 'body.stray is not a known field; this route takes no body');
      assert.equal(await detail('/list?limt=2'), 'querystring.limt is not a known field (did you mean limit?); known fields: limit');
      const fine = await call(`${base}/things`, { body: { shots: 3, nested: { seed_simulator: 1 } } });
      assert.deepEqual(fine.body.body, { shots: 3, nested: { seed_simulator: 1 } });
      assert.equal((await call(`${base}/nothing`, { body: {} })).status, 200, 'an empty object carries no field');
      assert.equal((await call(`${base}/nothing`, { method: 'POST' })).status, 200, 'nor does no body');
    } finally {
      await app.close();
    }
  });
});

describe('a request sent without a body', () => {
  test('reads as {} when every field is optional (defaults applied), and names the first missing field otherwise', async () => {
    const app = await createServiceApp({ docs: { title: 'empty', description: 'absent bodies', version: '1' }, formatError: (e) => ({ detail: e.message, code: e.code }) });
    app.post('/defaults', { schema: { body: Type.Object({ authenticate: Type.Boolean({ default: true }), depth: Type.Optional(Type.String()) }) } }, async (req) => ({ body: req.body }));
    app.post('/needs', { schema: { body: Type.Object({ qasm: Type.String(), shots: Type.Optional(Type.Integer()) }) } }, async (req) => ({ body: req.body }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const none = await call(`${base}/defaults`, { method: 'POST' });
      assert.equal(none.status, 200, JSON.stringify(none.body));
      assert.deepEqual(none.body.body, { authenticate: true });
      const missing = await call(`${base}/needs`, { method: 'POST' });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.detail, 'body.qasm is required');
      const wrong = await call(`${base}/defaults`, { body: [1] });
      assert.equal(wrong.status, 400, 'a body that is there but not an object is still refused');
    } finally {
      await app.close();
    }
  });
});

describe('an empty body sent as application/json', () => {
  test('is no body: a bodiless route answers, a body route takes its defaults, malformed JSON is still refused', async () => {
    const app = await createServiceApp({ docs: { title: 'empty json', description: 'empty JSON bodies', version: '1' }, formatError: (e) => ({ detail: e.message, code: e.code }) });
    app.delete('/things/:id', async () => ({ deleted: true }));
    app.post('/defaults', { schema: { body: Type.Object({ include_bounds: Type.Boolean({ default: false }) }) } }, async (req) => ({ body: req.body }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const json = { 'content-type': 'application/json' };
      const del = await call(`${base}/things/1`, { method: 'DELETE', rawBody: '', headers: json });
      assert.equal(del.status, 200, JSON.stringify(del.body));
      const post = await call(`${base}/defaults`, { method: 'POST', rawBody: '', headers: json });
      assert.deepEqual(post.body, { body: { include_bounds: false } });
      const broken = await call(`${base}/defaults`, { method: 'POST', rawBody: '{"include_bounds": ', headers: json });
      assert.equal(broken.status, 400);
      assert.equal(broken.body.code, 'invalid_json');
      const poisoned = await call(`${base}/defaults`, { method: 'POST', rawBody: '{"__proto__": {"x": 1}}', headers: json });
      assert.equal(poisoned.status, 400, 'the prototype-poisoning guard still holds');
    } finally {
      await app.close();
    }
  });
});
