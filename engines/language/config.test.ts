import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig, parseConfig } from './config.ts';
import { hashEmbedOne } from './embed/hashing.ts';
import { ModelRegistry } from './registry.ts';
import { terms } from './text/tokenize.ts';

test('without configuration the built-in chat, embedding and rerank models are available', () => {
  const c = parseConfig({});
  assert.equal(c.default_chat_model, 'lattice-tiny');
  assert.equal(c.default_embedding_model, 'classic-embed');
  assert.deepEqual(c.models.map((m) => m.id).sort(), ['classic', 'classic-embed', 'lattice-tiny']);
});

test('a bad entry stops loading with a message that names it', () => {
  assert.throws(() => parseConfig({ models: [{ id: 'x', provider: 'openai' }] }), /models\[0\] \(openai\) needs "base_url"/);
  assert.throws(() => parseConfig({ models: [{ id: 'x', provider: 'magic' }] }), /models\[0\]\.provider must be one of/);
  assert.throws(() => parseConfig({ models: [{ id: 'x', provider: 'local' }] }), /needs "path"/);
  assert.throws(() => parseConfig({ default_chat_model: 'ghost' }), /default model "ghost" is not configured/);
  assert.throws(() => loadConfig({ LATTICE_MODELS: '/nonexistent/models.json' }), /does not exist/);
});

test('the classic embedding is unit length, batched in input order, and deterministic', async () => {
  const models = new ModelRegistry(parseConfig({}));
  const r = await models.embed(['boundary layer flow', 'the', 'boundary layer flow'], undefined, 2);
  assert.equal(r.dimensions, 512);
  assert.ok(Math.abs(Math.hypot(...r.data[0]) - 1) < 1e-6);
  assert.ok(r.data[1].every((x) => x === 0));
  assert.deepEqual(r.data[0], r.data[2]);
  await assert.rejects(models.embed([]), /non-empty list/);
});

test('rerank by tier name orders documents best first; unknown models are refused', async () => {
  const models = new ModelRegistry(parseConfig({}));
  const r = await models.rerank('cylindrical shell buckling', ['jet noise', 'buckling of cylindrical shells', 'shell'], { topK: 2 });
  assert.equal(r.results.length, 2);
  assert.equal(r.results[0].index, 1);
  await assert.rejects(models.rerank('q', ['d'], { model: 'nope' }), /not available for rerank/);
  await assert.rejects(models.chat({ model: 'classic-embed', messages: [{ role: 'user', content: 'hi' }] }), /not available for chat/);
});

test('a classic embedding reply holds the vector of each text and counts its stems as tokens', async () => {
  const models = new ModelRegistry(loadConfig({}));
  const texts = ['Boundary layers in supersonic flow', 'the', 'heated aircraft models, heated twice'];
  const r = await models.embed(texts);
  assert.deepEqual(r.data, texts.map((t) => Array.from(hashEmbedOne(t))));
  const stems = texts.reduce((n, t) => n + terms(t).length, 0);
  assert.ok(stems > 0);
  assert.deepEqual(r.usage, { prompt_tokens: stems, total_tokens: stems });
});
