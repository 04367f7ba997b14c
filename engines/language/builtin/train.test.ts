import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LocalProvider } from '../local/provider.ts';
import { unloadAll } from '../local/runtime.ts';
import { chatTurn } from './corpus.ts';
import { readGguf } from './gguf-read.ts';
import { createTokenizer, trainVocabulary } from './tokenizer.ts';
import { trainBuiltinModel } from './train.ts';

const dir = mkdtempSync(join(tmpdir(), 'lx-train-'));
after(async () => {
  await unloadAll();
  rmSync(dir, { recursive: true, force: true });
});

const corpus = Array.from({ length: 40 }, (_, i) =>
  i % 2 ? chatTurn(`what is flow number ${i}`, `flow ${i} is a boundary layer flow`) : `the boundary layer over plate ${i} thickens downstream of the leading edge .\n`,
);

test('the tokenizer round-trips text, special tokens included, and merges frequent words', () => {
  const vocab = trainVocabulary(corpus.join('\n'), 400);
  const tok = createTokenizer(vocab);
  const text = chatTurn('what is a boundary layer', 'a thin layer of flow, naïve ünïcode ✓');
  assert.equal(tok.decode(tok.encode(text)), text);
  const ids = tok.encode(' boundary');
  assert.equal(ids.length, 1, vocab.tokens[ids[0]]);
});

test('a few training steps write a GGUF that llama.cpp loads and generates from', async () => {
  const out = join(dir, 'tiny.gguf');
  const losses: number[] = [];
  const r = await trainBuiltinModel({
    out,
    corpus,
    steps: 3,
    batchSize: 2,
    sequence: 16,
    config: { vocab: 400, dim: 16, layers: 1, heads: 2, ff: 32, context: 64 },
    onProgress: (p) => losses.push(p.loss),
  });
  assert.equal(losses.length, 3);
  assert.ok(Number.isFinite(r.heldOutLoss));
  const file = readGguf(out);
  assert.equal(file.metadata.get('general.architecture'), 'llama');
  assert.equal(file.metadata.get('llama.embedding_length'), 16);
  assert.deepEqual(file.tensors.get('blk.0.ffn_gate.weight')?.shape, [16, 32]);
  const local = new LocalProvider({ tiny: { path: out, threads: 1 } });
  const reply = await local.chat({ model: 'tiny', messages: [{ role: 'user', content: 'what is flow number 3' }], max_tokens: 5, seed: 1 });
  assert.ok(reply.usage.completion_tokens >= 1);
});
