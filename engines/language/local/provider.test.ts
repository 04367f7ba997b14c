import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BUILTIN_MODEL_ID, BUILTIN_MODEL_PATH, parseConfig } from '../config.ts';
import type { LanguageError } from '../errors.ts';
import { ModelRegistry } from '../registry.ts';
import { LocalProvider } from './provider.ts';
import { unloadAll } from './runtime.ts';

const local = new LocalProvider({ [BUILTIN_MODEL_ID]: { path: BUILTIN_MODEL_PATH, threads: 2 } });
const ask = (content: string, extra = {}) => ({ model: BUILTIN_MODEL_ID, messages: [{ role: 'user' as const, content }], ...extra });
const dir = mkdtempSync(join(tmpdir(), 'lx-local-'));

after(async () => {
  await unloadAll();
  rmSync(dir, { recursive: true, force: true });
});

test('the shipped model loads and generates text with token usage', async () => {
  const r = await local.chat(ask('what is a boundary layer', { max_tokens: 12, temperature: 0 }));
  assert.ok(r.content.trim().length > 0);
  assert.ok(r.usage.prompt_tokens > 3);
  assert.ok(r.usage.completion_tokens > 0 && r.usage.completion_tokens <= 12);
  assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens);
  if (r.usage.completion_tokens === 12) assert.equal(r.finish_reason, 'length');
});

test('streaming yields the same text as a whole greedy reply, then usage', async () => {
  const whole = await local.chat(ask('summarise the paper "heat transfer in hypersonic flow"', { max_tokens: 10, temperature: 0 }));
  let text = '';
  let done;
  for await (const c of local.chatStream(ask('summarise the paper "heat transfer in hypersonic flow"', { max_tokens: 10, temperature: 0 }))) {
    if (c.type === 'delta') text += c.content;
    else done = c;
  }
  assert.equal(text, whole.content);
  assert.deepEqual(done?.usage, whole.usage);
});

test('a prompt longer than the context is refused with context_length_exceeded', async () => {
  await assert.rejects(local.chat(ask('flow '.repeat(2000), { max_tokens: 4 })), (e: LanguageError) => e.code === 'context_length_exceeded' && /context of 256 tokens/.test(e.message));
});

test('empty messages and unknown models give clear errors', async () => {
  await assert.rejects(local.chat({ model: BUILTIN_MODEL_ID, messages: [] }), /non-empty list/);
  const models = new ModelRegistry(parseConfig({}));
  await assert.rejects(models.chat(ask('hi', { model: 'no-such-model' })), (e: LanguageError) => e.code === 'model_not_found' && /lattice-tiny/.test(e.message));
});

test('a missing, non-GGUF or truncated model file gives model_file_invalid, not a crash', async () => {
  const missing = new LocalProvider({ m: { path: join(dir, 'nope.gguf') } });
  await assert.rejects(missing.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }), (e: LanguageError) => e.code === 'model_file_invalid' && /does not exist/.test(e.message));
  writeFileSync(join(dir, 'junk.gguf'), 'this is not a model');
  const junk = new LocalProvider({ m: { path: join(dir, 'junk.gguf') } });
  await assert.rejects(junk.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }), (e: LanguageError) => e.code === 'model_file_invalid' && /not a GGUF/.test(e.message));
  const bytes = readFileSync(BUILTIN_MODEL_PATH);
  writeFileSync(join(dir, 'cut.gguf'), bytes.subarray(0, Math.floor(bytes.length / 2)));
  const cut = new LocalProvider({ m: { path: join(dir, 'cut.gguf') } });
  await assert.rejects(cut.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }), (e: LanguageError) => e.code === 'model_file_invalid');
  copyFileSync(BUILTIN_MODEL_PATH, join(dir, 'ok.gguf'));
});

test('local embeddings are unit vectors of the model width, one per input', async () => {
  const r = await local.embed(BUILTIN_MODEL_ID, ['boundary layer', 'shell buckling', 'boundary layer']);
  assert.equal(r.data.length, 3);
  assert.equal(r.dimensions, r.data[0].length);
  for (const v of r.data) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-4);
  assert.deepEqual(r.data[0], r.data[2]);
  assert.notDeepEqual(r.data[0], r.data[1]);
});
