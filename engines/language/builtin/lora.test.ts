import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BUILTIN_MODEL_ID, BUILTIN_MODEL_PATH } from '../config.ts';
import { LocalProvider } from '../local/provider.ts';
import { unloadAll } from '../local/runtime.ts';
import { trainLora } from './lora.ts';

const dir = mkdtempSync(join(tmpdir(), 'lx-lora-'));
after(async () => {
  await unloadAll();
  rmSync(dir, { recursive: true, force: true });
});

// A task the base model has never seen: answer every "code word" question with the same phrase.
const subjects = ['wing', 'shell', 'nozzle', 'plate', 'cone', 'jet', 'panel', 'inlet', 'blade', 'rotor'];
const pair = (s: string) => ({ prompt: `code word for ${s}`, completion: `zulu zulu ${s} zulu` });

test('LoRA training lowers held-out loss and the adapter changes generation on the trained prompts', async () => {
  const out = join(dir, 'adapter.gguf');
  const progress: number[] = [];
  const r = await trainLora({
    base: BUILTIN_MODEL_PATH,
    out,
    pairs: subjects.slice(0, 8).map(pair),
    heldOut: subjects.slice(8).map(pair),
    rank: 4,
    alpha: 8,
    epochs: 12,
    learningRate: 2e-2,
    batchSize: 4,
    onProgress: (p) => progress.push(p.loss),
  });
  assert.equal(progress.length, r.steps);
  assert.ok(r.heldOutLossAfter < r.heldOutLossBefore * 0.7, `held-out loss ${r.heldOutLossBefore} -> ${r.heldOutLossAfter}`);

  const local = new LocalProvider({ [BUILTIN_MODEL_ID]: { path: BUILTIN_MODEL_PATH, threads: 2 } });
  const req = { model: BUILTIN_MODEL_ID, messages: [{ role: 'user' as const, content: 'code word for wing' }], max_tokens: 8, temperature: 0 };
  const base = await local.chat(req);
  const tuned = await local.chat({ ...req, lora: { path: out } });
  assert.notEqual(tuned.content, base.content);
  assert.match(tuned.content, /zulu/);
  // The adapter applies per request: the next plain request is the base model again.
  assert.equal((await local.chat(req)).content, base.content);
});

test('bad LoRA requests are refused before training', async () => {
  await assert.rejects(trainLora({ base: BUILTIN_MODEL_PATH, out: join(dir, 'x.gguf'), pairs: [] }), /at least one pair/);
  await assert.rejects(trainLora({ base: BUILTIN_MODEL_PATH, out: join(dir, 'x.gguf'), pairs: [pair('a')], rank: 0 }), /lora_r/);
  await assert.rejects(trainLora({ base: join(dir, 'missing.gguf'), out: join(dir, 'x.gguf'), pairs: [pair('a')] }), /cannot read/);
});
