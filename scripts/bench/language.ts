/**
 * Language engine benchmark. Prints, from one run:
 * - the local provider (node-llama-cpp, CPU) on the built-in model: prompt and generation
 *   tokens per second, against the same weights run by our tfjs training code (baseline);
 * - embedding throughput: the built-in model through llama.cpp against the classic hashing
 *   embedding (baseline);
 * - Cranfield nDCG@10 and recall@100 for BM25 (baseline), dense, hybrid, and each rerank
 *   tier over the BM25 top 100 (and over the hybrid top 100). The classic tier's weights are
 *   learned with 2-fold cross-validation here, so no query is scored by weights that saw it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CRANFIELD_DIR } from '../../engines/language/builtin/corpus.ts';
import { BUILTIN_MODEL_ID, BUILTIN_MODEL_PATH } from '../../engines/language/config.ts';
import { hashEmbed } from '../../engines/language/embed/hashing.ts';
import { loadCranfield } from '../../engines/language/eval/cranfield.ts';
import { mean, ndcgAt, recallAt } from '../../engines/language/eval/metrics.ts';
import { LocalProvider } from '../../engines/language/local/provider.ts';
import { unloadAll } from '../../engines/language/local/runtime.ts';
import { kernelScores, KERNEL_WEIGHT } from '../../engines/language/rerank/quantum.ts';
import { collectTrainingData, crossValidate } from '../../engines/language/rerank/train.ts';
import type { JudgedCandidates } from '../../engines/language/rerank/train.ts';
import { SearchIndex } from '../../engines/language/retrieval/search-index.ts';
import { openPglite } from '../../platform/storage/database.ts';
import { loadBuiltin } from '../../engines/language/builtin/load.ts';
import { loadTf } from '../../engines/language/builtin/tf.ts';
import { forward } from '../../engines/language/builtin/transformer.ts';

const fmt = (x: number, d = 1): string => x.toFixed(d);

// Baseline: the same weights through our tfjs training code.
/** Prompt tokens/s for one pass over `promptTokens`, generation tokens/s re-running the whole prefix per token. */
async function tfjsTokensPerSecond(path: string, promptTokens: number, generate: number): Promise<{ prompt: number; generation: number }> {
  const tf = await loadTf();
  const { config, weights } = loadBuiltin(tf, path);
  const ids = Array.from({ length: Math.min(promptTokens, config.context - generate) }, (_, i) => 300 + (i % 200));
  const pass = (list: number[]): void => tf.tidy(() => void forward(tf, config, weights, tf.tensor2d([list], [1, list.length], 'int32')).dataSync());
  pass(ids.slice(0, 8));
  let t = performance.now();
  pass(ids);
  const prompt = ids.length / ((performance.now() - t) / 1000);
  t = performance.now();
  const seq = ids.slice(0, 16);
  for (let i = 0; i < generate; i++) {
    pass(seq);
    seq.push(400);
  }
  const generation = generate / ((performance.now() - t) / 1000);
  return { prompt, generation };
}


async function localThroughput(threads: number): Promise<void> {
  const local = new LocalProvider({ [BUILTIN_MODEL_ID]: { path: BUILTIN_MODEL_PATH, threads } });
  const prompt = 'summarise the paper "an experimental study of the boundary layer on a flat plate in supersonic flow with heat transfer and pressure gradient"';
  await local.chat({ model: BUILTIN_MODEL_ID, messages: [{ role: 'user', content: 'warm up' }], max_tokens: 2, temperature: 0 });
  // Prompt speed: a long prompt, one generated token.
  const long = Array.from({ length: 6 }, () => prompt).join(' ');
  let t = performance.now();
  const p = await local.chat({ model: BUILTIN_MODEL_ID, messages: [{ role: 'user', content: long }], max_tokens: 1, temperature: 0 });
  const promptSecs = (performance.now() - t) / 1000;
  // Generation speed: a short prompt, 64 tokens (the model may stop earlier at <|im_end|>).
  t = performance.now();
  const g = await local.chat({ model: BUILTIN_MODEL_ID, messages: [{ role: 'user', content: prompt }], max_tokens: 64, temperature: 0.8, seed: 3 });
  const genSecs = (performance.now() - t) / 1000;
  const genTps = g.usage.completion_tokens / Math.max(1e-6, genSecs - (g.usage.prompt_tokens / p.usage.prompt_tokens) * promptSecs);
  const base = await tfjsTokensPerSecond(BUILTIN_MODEL_PATH, p.usage.prompt_tokens, 8);
  console.log(`local provider (llama.cpp CPU, ${threads} thread${threads > 1 ? 's' : ''}), built-in model:`);
  console.log(`  prompt:     ${fmt(p.usage.prompt_tokens / promptSecs)} tokens/s (${p.usage.prompt_tokens} tokens)   tfjs baseline ${fmt(base.prompt)} tokens/s   x${fmt(p.usage.prompt_tokens / promptSecs / base.prompt)}`);
  console.log(`  generation: ${fmt(genTps)} tokens/s (${g.usage.completion_tokens} tokens)   tfjs baseline (no KV cache) ${fmt(base.generation)} tokens/s   x${fmt(genTps / base.generation)}`);
  console.log(`  sample: ${JSON.stringify(g.content.slice(0, 120))}`);

  const texts = loadCranfield(CRANFIELD_DIR).docs.slice(0, 64).map((d) => d.text.slice(0, 400));
  t = performance.now();
  const e = await local.embed(BUILTIN_MODEL_ID, texts);
  const localSecs = (performance.now() - t) / 1000;
  t = performance.now();
  for (let i = 0; i < 5; i++) hashEmbed(texts);
  const hashSecs = (performance.now() - t) / 5000;
  console.log(`embeddings: built-in model ${fmt(texts.length / localSecs)} texts/s (${fmt(e.usage.prompt_tokens / localSecs)} tokens/s, ${e.dimensions} dims)   classic hashing baseline ${fmt(texts.length / hashSecs)} texts/s (512 dims)   x${fmt(texts.length / localSecs / (texts.length / hashSecs), 3)}`);
  await unloadAll();
}

function evaluate(name: string, runs: Map<string, string[]>, qrels: Map<string, Map<string, number>>, baseline?: number): number {
  const ids = [...runs.keys()];
  const n = mean(ids.map((q) => ndcgAt(runs.get(q) ?? [], qrels.get(q), 10)));
  const r = mean(ids.map((q) => recallAt(runs.get(q) ?? [], qrels.get(q), 100)));
  const vs = baseline ? `   ${n >= baseline ? '+' : ''}${fmt(n - baseline, 4)} vs BM25` : '';
  console.log(`  ${name.padEnd(34)} nDCG@10 ${fmt(n, 4)}   recall@100 ${fmt(r, 4)}${vs}`);
  return n;
}

async function rerankRuns(
  index: SearchIndex,
  data: JudgedCandidates[],
  qrels: Map<string, Map<string, number>>,
): Promise<{ classic: Map<string, string[]>; quantum: Map<string, string[]>; kernel: Map<string, string[]>; circuits: number; ms: number }> {
  const cv = crossValidate(data, qrels, 2);
  const stats = await index.corpus();
  const ctx = index.rerankContext(stats.n, stats.avgdl);
  const quantum = new Map<string, string[]>();
  const kernel = new Map<string, string[]>();
  let circuits = 0;
  const t = performance.now();
  for (const q of data) {
    const base = cv.scores.get(q.query_id) ?? [];
    const { scores, qubits } = await kernelScores(queryText.get(q.query_id) ?? '', q.candidates, ctx);
    if (qubits) circuits += q.candidates.length;
    const order = (s: (i: number) => number): string[] => q.doc_ids.map((id, i) => ({ id, s: s(i), i })).sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.id);
    quantum.set(q.query_id, order((i) => base[i] + KERNEL_WEIGHT * scores[i]));
    kernel.set(q.query_id, order((i) => scores[i]));
  }
  return { classic: cv.rankings, quantum, kernel, circuits, ms: performance.now() - t };
}

const queryText = new Map<string, string>();

async function cranfield(): Promise<void> {
  const { docs, queries, qrels } = loadCranfield(CRANFIELD_DIR);
  for (const q of queries) queryText.set(q.query_id, q.text);
  const dir = mkdtempSync(join(tmpdir(), 'lattice-bench-'));
  const index = await SearchIndex.openDir(dir, { open: openPglite });
  try {
    let t = performance.now();
    await index.add(docs);
    console.log(`Cranfield (${docs.length} docs, ${queries.length} queries): indexed into PGlite in ${fmt((performance.now() - t) / 1000)} s`);
    const runs = async (mode: 'bm25' | 'dense' | 'hybrid'): Promise<Map<string, string[]>> => {
      const out = new Map<string, string[]>();
      for (const q of queries) out.set(q.query_id, (await index.query(q.text, { mode, topK: 100, rerank: null })).map((h) => h.doc_id));
      return out;
    };
    t = performance.now();
    const bm25 = evaluate('BM25 (k1 1.2, b 0.75)', await runs('bm25'), qrels);
    const bm25Ms = (performance.now() - t) / queries.length;
    evaluate('dense (classic hashing embedding)', await runs('dense'), qrels, bm25);
    const hybridRuns = await runs('hybrid');
    evaluate(`hybrid (${index.hybridWeight} BM25 + ${index.latentWeight} latent + rest dense)`, hybridRuns, qrels, bm25);
    t = performance.now();
    const bm25Data = await collectTrainingData(index, queries, qrels, { mode: 'bm25' });
    const featMs = (performance.now() - t) / queries.length;
    const onBm25 = await rerankRuns(index, bm25Data, qrels);
    evaluate('BM25 top 100 + classic rerank', onBm25.classic, qrels, bm25);
    evaluate('BM25 top 100 + quantum kernel alone', onBm25.kernel, qrels, bm25);
    evaluate('BM25 top 100 + quantum_cpu rerank', onBm25.quantum, qrels, bm25);
    const hybridData = await collectTrainingData(index, queries, qrels, { mode: 'hybrid' });
    const onHybrid = await rerankRuns(index, hybridData, qrels);
    evaluate('hybrid top 100 + classic rerank', onHybrid.classic, qrels, bm25);
    evaluate('hybrid top 100 + quantum_cpu rerank', onHybrid.quantum, qrels, bm25);
    console.log(`  latency: BM25 ${fmt(bm25Ms)} ms/query; classic features ${fmt(featMs)} ms/query; quantum kernel ${onBm25.circuits} circuits of up to 6 qubits in ${fmt(onBm25.ms / 1000)} s on the CPU (no GPU simulator: quantum_gpu runs the same kernel on the CPU)`);
  } finally {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  // One thread and two: on a busy two-core machine llama.cpp's spinning worker threads can
  // cost more than they give on a model this small.
  await localThroughput(1);
  await localThroughput(2);
  await cranfield();
}
