import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { loadConfig } from '../../engines/language/config.ts';
import { ModelRegistry } from '../../engines/language/registry.ts';
import { DAY } from '../../platform/limits/windows.ts';
import { embeddingsBody } from './embeddings-json.ts';
import { tokensSubject } from './limits.ts';
import { startLlm, type LlmTest } from './testing.ts';

let s: LlmTest;
let a: { id: string; slug: string; key: string };
let sdk: OpenAI;
before(async () => {
  s = await startLlm();
  a = await s.tenant();
  sdk = new OpenAI({ apiKey: a.key, baseURL: `${s.t.url}/v1`, maxRetries: 0 });
});
after(() => s.close());

const user = (content: string) => [{ role: 'user' as const, content }];

test('a chat through the OpenAI SDK returns a completion with usage and meta', async () => {
  const r = await sdk.chat.completions.create({ model: 'lattice-tiny', messages: user('what is a boundary layer'), max_tokens: 12, temperature: 0 });
  assert.equal(r.object, 'chat.completion');
  assert.match(r.id, /^chatcmpl-/);
  assert.equal(r.choices[0]!.message.role, 'assistant');
  assert.ok(r.choices[0]!.message.content!.length > 0);
  assert.ok(r.usage!.completion_tokens > 0 && r.usage!.completion_tokens <= 12);
  const meta = (r as unknown as { meta: Record<string, unknown> }).meta;
  assert.equal(meta.candidates, 1);
  assert.equal(meta.rerank_tier, null);
  assert.ok((meta.entropy as number) > 0);
  assert.ok((meta.quality_score as number) > 0 && (meta.quality_score as number) <= 1);
});

test('a streamed chat through the SDK yields chunks that add up to the whole reply', async () => {
  const whole = await sdk.chat.completions.create({ model: 'lattice-tiny', messages: user('supersonic flow'), max_tokens: 16, temperature: 0 });
  const stream = await sdk.chat.completions.create({ model: 'lattice-tiny', messages: user('supersonic flow'), max_tokens: 16, temperature: 0, stream: true });
  let text = '';
  let finish: string | null = null;
  for await (const chunk of stream) {
    assert.equal(chunk.object, 'chat.completion.chunk');
    text += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.equal(text, whole.choices[0]!.message.content);
  assert.equal(finish, whole.choices[0]!.finish_reason);
});

test('a raw streamed response is text/event-stream ending with [DONE]', async () => {
  const res = await fetch(`${s.t.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'lattice-tiny', messages: user('wing'), max_tokens: 4, stream: true, use_rerank: 'classic', rerank_k: 2 }),
  });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  const body = await res.text();
  assert.ok(body.trimEnd().endsWith('data: [DONE]'));
  const last = JSON.parse(body.trim().split('\n\n').at(-2)!.slice(6));
  assert.equal(last.meta.candidates, 2);
});

test('use_rerank generates rerank_k candidates and returns the one the tier scores best', async () => {
  const r = await s.req('/v1/chat/completions', a.key, { body: { model: 'lattice-tiny', messages: user('heat transfer in laminar flow'), max_tokens: 16, use_rerank: 'classic', rerank_k: 4, seed: 11 } });
  assert.equal(r.status, 200);
  const m = r.body.meta;
  assert.equal(m.rerank_tier, 'classic');
  assert.equal(m.candidates, 4);
  assert.equal(m.turbo_on, true);
  assert.equal(m.candidate_scores.length, 4);
  assert.equal(m.chosen_candidate, m.candidate_scores.indexOf(Math.max(...m.candidate_scores)));
});

test('the tenant’s custom system prompt reaches the model', async () => {
  const b = await s.tenant();
  const ask = () => s.req('/v1/chat/completions', b.key, { body: { model: 'lattice-tiny', messages: user('nozzle'), max_tokens: 2, temperature: 0 } });
  const plain = (await ask()).body.usage.prompt_tokens;
  await s.req(`/v1/tenants/${b.id}/settings`, b.key, { method: 'PATCH', body: { custom_system_prompt: 'You are an aeronautics librarian.' } });
  const withPrompt = (await ask()).body.usage.prompt_tokens;
  // The system turn adds its words and the template's markers.
  assert.ok(withPrompt >= plain + 8, `${plain} -> ${withPrompt}`);
});

test('quantum rerank tiers need a license key with quantum_rerank, and say where they ran', async () => {
  const body = { query: 'boundary layer heat transfer', documents: ['a cat sat', 'heat transfer in the boundary layer', 'boundary of a park'], tier: 'quantum_gpu' };
  const denied = await s.req('/v1/rerank', a.key, { body });
  assert.equal(denied.status, 403);
  assert.match(denied.body.error.message, /quantum_rerank/);
  const wrong = await s.license(['lora_training']);
  assert.equal((await s.req('/v1/rerank', a.key, { body, headers: { 'x-license-key': wrong } })).status, 403);
  const key = await s.license(['quantum_rerank']);
  const r = await s.req('/v1/rerank', a.key, { body, headers: { 'x-license-key': key } });
  assert.equal(r.status, 200);
  assert.equal(r.body.results[0].index, 1);
  assert.equal(r.body.meta.device, 'cpu');
  assert.equal(r.body.meta.requested_device, 'gpu');
  assert.ok(r.body.meta.circuits > 0);
  const chat = await s.req('/v1/chat/completions', a.key, { body: { model: 'lattice-tiny', messages: user('wing'), max_tokens: 4, use_rerank: 'quantum_cpu', rerank_k: 2 }, headers: { 'x-license-key': key } });
  assert.equal(chat.status, 200);
  assert.equal(chat.body.meta.quantum_device, 'cpu');
  await import('../../platform/licenses/feature-keys.ts').then((m) => m.revokeFeatureKey(s.t.db, key));
  assert.equal((await s.req('/v1/rerank', a.key, { body, headers: { 'x-license-key': key } })).status, 403);
});

test('rerank is Cohere-style with top_k; classic needs no license', async () => {
  const r = await s.req('/v1/rerank', a.key, { body: { query: 'shock wave', documents: [{ text: 'a shock wave in a nozzle' }, 'cooking', 'shock'], top_k: 2 } });
  assert.equal(r.status, 200);
  assert.equal(r.body.results.length, 2);
  assert.deepEqual(Object.keys(r.body.results[0]).sort(), ['document', 'index', 'relevance_score', 'score']);
  assert.equal(r.body.meta.tier, 'classic');
  assert.equal(typeof r.body.meta.latency_ms, 'number');
});

test('embeddings through the SDK (base64 on the wire) equal the float response', async () => {
  const viaSdk = await sdk.embeddings.create({ input: ['laminar boundary layer', 'shock'], model: 'classic-embed' });
  assert.equal(viaSdk.data.length, 2);
  const floats = await s.req('/v1/embeddings', a.key, { body: { input: ['laminar boundary layer', 'shock'], encoding_format: 'float' } });
  assert.equal(floats.body.model, 'classic-embed');
  assert.equal(floats.body.data[0].embedding.length, 512);
  for (let i = 0; i < 512; i++) assert.ok(Math.abs(viaSdk.data[0]!.embedding[i]! - floats.body.data[0].embedding[i]) < 1e-6);
  const b64 = await s.req('/v1/embeddings', a.key, { body: { input: 'shock', encoding_format: 'base64' } });
  assert.equal(typeof b64.body.data[0].embedding, 'string');
  assert.equal(Buffer.from(b64.body.data[0].embedding, 'base64').length, 512 * 4);
  assert.ok(floats.body.usage.prompt_tokens > 0);
});

test('an embeddings reply is, byte for byte and in its content type, JSON.stringify of the engine’s result', async () => {
  const input = ['laminar boundary layer on a flat plate', 'shock wave', 'heat heat transfer'];
  const models = new ModelRegistry(loadConfig());
  const engine = await models.embed(input);
  await models.close();
  for (const encoding of ['float', 'base64'] as const) {
    const r = await s.t.app.inject({ method: 'POST', url: '/v1/embeddings', headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' }, payload: JSON.stringify({ input, encoding_format: encoding }) });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(r.body, JSON.stringify(embeddingsBody(engine, encoding)), encoding);
  }
});

test('models list the chat and embedding models and the rerank tiers', async () => {
  const list = await sdk.models.list();
  const ids = list.data.map((m) => m.id);
  for (const id of ['lattice-tiny', 'classic-embed', 'classic', 'quantum_cpu', 'quantum_gpu']) assert.ok(ids.includes(id), id);
  const tiny = list.data.find((m) => m.id === 'lattice-tiny') as unknown as { context_length: number; capabilities: string[] };
  assert.equal(tiny.context_length, 256);
  assert.deepEqual(tiny.capabilities, ['chat', 'embed']);
});

test('chat input outside the spec’s ranges, and unknown models, are refused with the spec’s codes', async () => {
  const bad = async (body: Record<string, unknown>) => (await s.req('/v1/chat/completions', a.key, { body: { model: 'lattice-tiny', messages: user('x'), ...body } })).body.error.code;
  assert.equal(await bad({ temperature: 2.5 }), 'INVALID_REQUEST');
  assert.equal(await bad({ top_p: 1.5 }), 'INVALID_REQUEST');
  assert.equal(await bad({ use_rerank: 'best' }), 'INVALID_REQUEST');
  assert.equal(await bad({ messages: [] }), 'INVALID_REQUEST');
  assert.equal(await bad({ model: 'gpt-9' }), 'MODEL_NOT_FOUND');
  assert.equal((await s.req('/v1/embeddings', a.key, { body: { input: 'x', model: 'lattice-nope' } })).body.error.code, 'MODEL_NOT_FOUND');
  await assert.rejects(sdk.chat.completions.create({ model: 'gpt-9', messages: user('x') }), (e: { status?: number }) => e.status === 400);
});

test('a stop sequence ends the reply before it', async () => {
  const free = await s.req('/v1/chat/completions', a.key, { body: { model: 'lattice-tiny', messages: user('what is a boundary layer'), max_tokens: 16, temperature: 0 } });
  const text: string = free.body.choices[0].message.content;
  const word = text.split(' ').find((w, i) => i > 0 && w.length > 2);
  assert.ok(word, text);
  const cut = await s.req('/v1/chat/completions', a.key, { body: { model: 'lattice-tiny', messages: user('what is a boundary layer'), max_tokens: 16, temperature: 0, stop: [word] } });
  assert.equal(cut.body.choices[0].message.content, text.slice(0, text.indexOf(word)));
  assert.equal(cut.body.choices[0].finish_reason, 'stop');
});

test('the day’s token budget, once spent, answers 429 until midnight UTC', async () => {
  const f = await s.tenant({ tier: 'free' });
  // The day's tokens, spent (through another process of the cluster, say): platform/limits' table.
  const day = Math.floor(s.t.clock.now().getTime() / DAY) * DAY;
  await s.t.db.query('INSERT INTO limit_windows (subject, window_ms, window_start, taken, granted) VALUES ($1, $2, $3, 10000, 0)', [tokensSubject(f.id), DAY, day]);
  const r = await s.req('/v1/embeddings', f.key, { body: { input: 'x' } });
  assert.equal(r.status, 429);
  assert.equal(r.body.error.code, 'RATE_LIMITED');
  assert.ok(r.body.error.retry_after > 0 && r.body.error.retry_after <= 86400);
});

test('every /v1/models entry has a positive context_length that is the input it really takes, and says what it is for', async () => {
  const r = await s.req('/v1/models', a.key);
  assert.equal(r.status, 200);
  const byId = new Map<string, { context_length: number; capabilities: string[]; description: string }>(r.body.data.map((m: { id: string }) => [m.id, m]));
  for (const [id, m] of byId) {
    assert.ok(Number.isInteger(m.context_length) && m.context_length > 0, `${id}: ${m.context_length}`);
    assert.ok(m.capabilities.length > 0, id);
    assert.match(m.description, /\bfor\b/, id);
  }
  assert.deepEqual(byId.get('lattice-tiny')!.capabilities, ['chat', 'embed']);
  assert.equal(byId.get('lattice-tiny')!.context_length, 256);
  assert.match(byId.get('lattice-tiny')!.description, /smoke-test/);
  assert.deepEqual(byId.get('classic-embed')!.capabilities, ['embed']);
  for (const id of ['classic', 'quantum_cpu', 'quantum_gpu']) assert.deepEqual(byId.get(id)!.capabilities, ['rerank'], id);
  // The classic embedding takes a text of exactly its context_length, and refuses a longer one.
  const n = byId.get('classic-embed')!.context_length;
  const longest = 'flow '.repeat(n / 5 + 1).slice(0, n);
  const ok = await s.req('/v1/embeddings', a.key, { body: { model: 'classic-embed', input: longest } });
  assert.equal(ok.status, 200);
  const over = await s.req('/v1/embeddings', a.key, { body: { model: 'classic-embed', input: `${longest}x` } });
  assert.equal(over.status, 400);
  // So does the classic rerank tier with a document.
  const k = byId.get('classic')!.context_length;
  assert.equal((await s.req('/v1/rerank', a.key, { body: { query: 'flow', documents: [longest.slice(0, k)] } })).status, 200);
  assert.equal((await s.req('/v1/rerank', a.key, { body: { query: 'flow', documents: [`${longest.slice(0, k)}x`] } })).status, 400);
});
