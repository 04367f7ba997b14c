/**
 * Language API (variant Q) benchmark. Prints, from one run:
 * - embeddings per second through HTTP (`POST /v1/embeddings`, float and base64) beside the
 *   engine called in-process on the same texts (baseline), with the HTTP overhead;
 * - rerank latency through HTTP (`POST /v1/rerank`, 100 documents, classic and quantum_cpu)
 *   beside the engine in-process (baseline);
 * - chat with rerank on the built-in model: 4 candidates of up to 32 tokens, through HTTP,
 *   beside one plain candidate in-process (baseline); the aim is under 2 s;
 * - Cranfield nDCG@10 for BM25 (baseline), dense, hybrid, and each rerank tier over the BM25
 *   top 100 (classic weights learned with 2-fold cross-validation, as in the language bench).
 */
import { CRANFIELD_DIR } from '../../engines/language/builtin/corpus.ts';
import { BUILTIN_MODEL_ID, BUILTIN_MODEL_PATH, loadConfig } from '../../engines/language/config.ts';
import { loadCranfield } from '../../engines/language/eval/cranfield.ts';
import { mean, ndcgAt } from '../../engines/language/eval/metrics.ts';
import { generateCandidates } from '../../engines/language/local/candidates.ts';
import { ModelRegistry } from '../../engines/language/registry.ts';
import { rerankDocuments } from '../../engines/language/rerank/adhoc.ts';
import { kernelScores, KERNEL_WEIGHT } from '../../engines/language/rerank/quantum.ts';
import { rerankerFor } from '../../engines/language/rerank/tiers.ts';
import { collectTrainingData, crossValidate } from '../../engines/language/rerank/train.ts';
import { SearchIndex } from '../../engines/language/retrieval/search-index.ts';
import { issueFeatureKey } from '../../platform/licenses/feature-keys.ts';
import { openPglite } from '../../platform/storage/database.ts';
import { call, startTestService } from '../../platform/testing/harness.ts';
import { llmService } from '../../services/llm/service.ts';
import { measure } from './lib/http-load.ts';

const fmt = (x: number, d = 1): string => x.toFixed(d);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs `fn` at least `n` times and for at least `ms`; returns the per-call times in ms. */
async function times(fn: () => Promise<unknown>, n: number, ms: number): Promise<number[]> {
  await fn();
  const out: number[] = [];
  const end = performance.now() + ms;
  while (out.length < n || performance.now() < end) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

function overhead(httpMs: number, engineMs: number): string {
  return `HTTP overhead ${fmt((100 * (httpMs - engineMs)) / engineMs)} % of the engine's time`;
}

async function api(): Promise<void> {
  const svc = await startTestService(llmService);
  try {
    const { key: admin } = await svc.newKey({ role: 'admin', plan: 'enterprise' });
    const created = await call(`${svc.url}/v1/tenants`, { headers: { authorization: `Bearer ${admin}` }, body: { name: 'bench', tier: 'enterprise' } });
    const key: string = created.body.api_key;
    const license = (await issueFeatureKey(svc.db, { service: 'llm', features: ['quantum_rerank'] })).license_key;
    const headers = { authorization: `Bearer ${key}`, 'x-license-key': license };
    const { docs } = loadCranfield(CRANFIELD_DIR);
    const models = new ModelRegistry(loadConfig());

    // HTTP load comes from a child process (one connection, requests back to back), so the
    // client's JSON work does not run on the server's core; the engine runs the same calls here.
    const batch = 256;
    const texts = docs.slice(0, batch).map((d) => d.text);
    const engineEmb = median(await times(() => models.embed(texts), 10, 3000));
    console.log(`embeddings (classic-embed, ${batch} abstracts per call):`);
    console.log(`  engine in-process (baseline) ${fmt((batch * 1000) / engineEmb, 0)} texts/s (${fmt(engineEmb, 2)} ms per call)`);
    for (const encoding of ['float', 'base64'] as const) {
      const payload = JSON.stringify({ input: texts, encoding_format: encoding });
      const injected = median(await times(() => svc.app.inject({ method: 'POST', url: '/v1/embeddings', headers: { ...headers, 'content-type': 'application/json' }, payload }), 10, 3000));
      console.log(`  server stack ${encoding.padEnd(6)} (inject, no socket) ${fmt((batch * 1000) / injected, 0)} texts/s (${fmt(injected, 2)} ms per call)   x${fmt(engineEmb / injected, 2)}   ${overhead(injected, engineEmb)}`);
      const r = await measure({ url: `${svc.url}/v1/embeddings`, method: 'POST', headers, bodies: [payload], connections: 1, durationSeconds: 4 });
      const httpMs = 1000 / r.rps;
      console.log(`  HTTP ${encoding.padEnd(6)} (socket, client in a child process) ${fmt(r.rps * batch, 0)} texts/s (${fmt(httpMs, 2)} ms per call, p99 ${r.p99} ms${r.non2xx ? `, ${r.non2xx} non-2xx` : ''})   x${fmt(engineEmb / httpMs, 2)}   ${overhead(httpMs, engineEmb)}`);
    }

    const query = 'what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft';
    const hundred = docs.slice(0, 100).map((d) => d.text);
    console.log('rerank (100 abstracts, median latency):');
    for (const tier of ['classic', 'quantum_cpu'] as const) {
      const reranker = await rerankerFor(tier);
      const engine = median(await times(() => rerankDocuments(reranker, query, hundred), 10, 3000));
      const payload = JSON.stringify({ query, documents: hundred, tier });
      const injected = median(await times(() => svc.app.inject({ method: 'POST', url: '/v1/rerank', headers: { ...headers, 'content-type': 'application/json' }, payload }), 10, 3000));
      const r = await measure({ url: `${svc.url}/v1/rerank`, method: 'POST', headers, bodies: [payload], connections: 1, durationSeconds: 4 });
      console.log(`  ${tier.padEnd(12)} engine (baseline) ${fmt(engine)} ms   server stack (inject) ${fmt(injected)} ms, ${overhead(injected, engine)}`);
      console.log(`  ${''.padEnd(12)} HTTP socket p50 ${r.p50} ms (mean ${fmt(1000 / r.rps)} ms, p99 ${r.p99} ms)   x${fmt(engine / (1000 / r.rps), 2)}   ${overhead(1000 / r.rps, engine)}`);
    }

    const messages = [{ role: 'user' as const, content: 'what is the boundary layer on a flat plate in supersonic flow' }];
    const plain = await times(() => generateCandidates({ path: BUILTIN_MODEL_PATH, threads: 1 }, { model: BUILTIN_MODEL_ID, messages, max_tokens: 32, temperature: 1, seed: 1 }, 1), 3, 0);
    let generated = 0;
    const four = await times(async () => {
      const r = await generateCandidates({ path: BUILTIN_MODEL_PATH, threads: 1 }, { model: BUILTIN_MODEL_ID, messages, max_tokens: 32, temperature: 1, seed: 1 }, 4);
      generated = r.candidates.reduce((s, c) => s + c.completion_tokens, 0) / 4;
    }, 3, 0);
    const chat = await times(() => call(`${svc.url}/v1/chat/completions`, { headers, body: { model: BUILTIN_MODEL_ID, messages, max_tokens: 32, temperature: 1, seed: 1, use_rerank: 'classic', rerank_k: 4 } }), 5, 0);
    console.log('chat with rerank on the built-in model (4 candidates, max 32 tokens, temperature 1):');
    console.log(`  one candidate in-process (baseline) ${fmt(median(plain))} ms; four candidates in-process ${fmt(median(four))} ms (${fmt(generated)} tokens each on average), x${fmt(median(four) / median(plain), 2)}`);
    console.log(`  through HTTP with classic rerank: median ${fmt(median(chat))} ms, worst ${fmt(Math.max(...chat))} ms   (aim: under 2000 ms)`);
    await models.close();
  } finally {
    await svc.close();
  }
}

async function cranfield(): Promise<void> {
  const { docs, queries, qrels } = loadCranfield(CRANFIELD_DIR);
  const db = await openPglite(null);
  const index = await SearchIndex.open(db, { ns: 'bench' });
  try {
    await index.add(docs);
    const ndcg = (runs: Map<string, string[]>): number => mean(queries.map((q) => ndcgAt(runs.get(q.query_id) ?? [], qrels.get(q.query_id), 10)));
    const runs = async (mode: 'bm25' | 'dense' | 'hybrid'): Promise<Map<string, string[]>> => {
      const out = new Map<string, string[]>();
      for (const q of queries) out.set(q.query_id, (await index.query(q.text, { mode, topK: 10 })).map((h) => h.doc_id));
      return out;
    };
    console.log(`Cranfield (${docs.length} abstracts, ${queries.length} queries) nDCG@10:`);
    const bm25 = ndcg(await runs('bm25'));
    const line = (name: string, n: number): void => console.log(`  ${name.padEnd(58)} ${fmt(n, 4)}   ${n >= bm25 ? '+' : ''}${fmt(n - bm25, 4)} vs BM25`);
    line('BM25 (baseline)', bm25);
    line('dense (classic hashing embedding)', ndcg(await runs('dense')));
    line(`hybrid (${index.hybridWeight} BM25 + ${fmt(1 - index.hybridWeight, 1)} dense with feedback)`, ndcg(await runs('hybrid')));
    const data = await collectTrainingData(index, queries, qrels, { mode: 'bm25' });
    const cv = crossValidate(data, qrels, 2);
    line('BM25 top 100 + classic (2-fold CV weights)', cv.ndcg10);
    const stats = await index.corpus();
    const ctx = index.rerankContext(stats.n, stats.avgdl);
    const quantum = new Map<string, string[]>();
    for (const q of data) {
      const { scores } = await kernelScores(queries.find((x) => x.query_id === q.query_id)!.text, q.candidates, ctx);
      const base = cv.scores.get(q.query_id) ?? [];
      quantum.set(q.query_id, q.doc_ids.map((id, i) => ({ id, s: base[i]! + KERNEL_WEIGHT * scores[i]!, i })).sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.id));
    }
    const qn = ndcg(quantum);
    line(`BM25 top 100 + quantum_cpu (classic + ${KERNEL_WEIGHT} kernel)`, qn);
    line('BM25 top 100 + quantum_gpu (the same kernel, on the CPU)', qn);
  } finally {
    await db.close();
  }
}

export async function run(): Promise<void> {
  await api();
  await cranfield();
}
