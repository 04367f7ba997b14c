/**
 * Language API (variant Q) benchmark. Prints, from one run:
 * - embeddings per second through HTTP (`POST /v1/embeddings`, float and base64) beside the
 *   engine called in-process on the same texts (baseline), with the HTTP overhead;
 * - rerank latency through HTTP (`POST /v1/rerank`, 100 documents, classic and quantum_cpu)
 *   beside the engine in-process (baseline);
 * - chat with rerank on the built-in model: 4 candidates of up to 32 tokens, through HTTP,
 *   beside one plain candidate in-process (baseline); the aim is under 2 s;
 * - Cranfield nDCG@10 and recall@100 of every `lattice search query` mode beside the published
 *   figures (Lucene-default BM25 0.374, BGE-base dense 0.342, their hybrid 0.353), on the
 *   held-out half of the queries and on all 225; the classic weights ship learned on the
 *   training half only. The default settings are run once more through the real commands.
 *
 * Beside each wall-clock figure of the first two parts: CPU time per call of the engine and of
 * the server (this process; the HTTP client is a child), the steadier comparison on a loaded
 * machine.
 *
 * LLM_API_BENCH=http runs only the embeddings and rerank part (seconds instead of the long
 * chat and Cranfield parts), for iterating on the request path:
 * `LLM_API_BENCH=http npm run bench -- llm-api`.
 */
import { CRANFIELD_DIR } from '../../engines/language/builtin/corpus.ts';
import { BUILTIN_MODEL_ID, BUILTIN_MODEL_PATH, loadConfig } from '../../engines/language/config.ts';
import { loadCranfield } from '../../engines/language/eval/cranfield.ts';
import type { Qrels, Query } from '../../engines/language/eval/cranfield.ts';
import { mean, ndcgAt, recallAt } from '../../engines/language/eval/metrics.ts';
import { generateCandidates } from '../../engines/language/local/candidates.ts';
import { ModelRegistry } from '../../engines/language/registry.ts';
import { rerankDocuments } from '../../engines/language/rerank/adhoc.ts';
import { rerankerFor } from '../../engines/language/rerank/tiers.ts';
import { splitQueries } from '../../engines/language/rerank/train.ts';
import { SearchIndex } from '../../engines/language/retrieval/search-index.ts';
import type { InputDoc, QueryOptions } from '../../engines/language/retrieval/search-index.ts';
import { issueFeatureKey } from '../../platform/licenses/feature-keys.ts';
import { openPglite } from '../../platform/storage/database.ts';
import { call, startTestService } from '../../platform/testing/harness.ts';
import { llmService } from '../../services/llm/service.ts';
import { measure } from './lib/http-load.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** LLM_API_BENCH=http: only the embeddings and rerank request paths. */
const httpOnly = process.env.LLM_API_BENCH === 'http';

const fmt = (x: number, d = 1): string => x.toFixed(d);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** This process's CPU time (user and system) in ms since `since` (a process.cpuUsage()). */
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};

/**
 * Runs `fn` at least `n` times and for at least `ms`; returns the per-call times in ms and the
 * process's mean CPU time per call. On a loaded machine wall times swing with the other
 * processes; the CPU times per call of the engine and of the server, taken in the same
 * process, are the steadier comparison (timers of the service's job queue run in them both).
 */
async function timed(fn: () => Promise<unknown>, n: number, ms: number): Promise<{ ms: number[]; cpu: number }> {
  await fn();
  const out: number[] = [];
  const end = performance.now() + ms;
  const c = process.cpuUsage();
  while (out.length < n || performance.now() < end) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return { ms: out, cpu: cpuMs(c) / out.length };
}

async function times(fn: () => Promise<unknown>, n: number, ms: number): Promise<number[]> {
  return (await timed(fn, n, ms)).ms;
}

/** An HTTP load run with the server's CPU time per request (the server is this process; the client is a child). */
async function measured(spec: Parameters<typeof measure>[0]): Promise<Awaited<ReturnType<typeof measure>> & { cpu: number }> {
  const c = process.cpuUsage();
  const r = await measure(spec);
  return { ...r, cpu: cpuMs(c) / Math.max(1, r.total) };
}

function cpuRatio(engineCpu: number, cpu: number): string {
  return `CPU ${fmt(cpu, 2)} ms per call, x${fmt(engineCpu / cpu, 2)} of the engine's`;
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
    // What the idle service costs by itself (its job queue's polling and maintenance, every
    // 0.5 s and 1 s under the test harness): it is in every CPU figure below, per second.
    const idle = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    console.log(`idle service: CPU ${fmt(cpuMs(idle) / 2, 1)} ms per second (job queue polling), in every CPU figure below`);
    const engineRun = await timed(() => models.embed(texts), 10, 3000);
    const engineEmb = median(engineRun.ms);
    const engineEmbMean = mean(engineRun.ms);
    console.log(`embeddings (classic-embed, ${batch} abstracts per call):`);
    console.log(`  engine in-process (baseline) ${fmt((batch * 1000) / engineEmb, 0)} texts/s (${fmt(engineEmb, 2)} ms per call at the median, ${fmt(engineEmbMean, 2)} mean)   CPU ${fmt(engineRun.cpu, 2)} ms per call`);
    for (const encoding of ['float', 'base64'] as const) {
      const payload = JSON.stringify({ input: texts, encoding_format: encoding });
      const injectRun = await timed(() => svc.app.inject({ method: 'POST', url: '/v1/embeddings', headers: { ...headers, 'content-type': 'application/json' }, payload }), 10, 3000);
      const injected = median(injectRun.ms);
      console.log(`  server stack ${encoding.padEnd(6)} (inject, no socket) ${fmt((batch * 1000) / injected, 0)} texts/s (${fmt(injected, 2)} ms per call)   x${fmt(engineEmb / injected, 2)}   ${overhead(injected, engineEmb)}   ${cpuRatio(engineRun.cpu, injectRun.cpu)}`);
      const r = await measured({ url: `${svc.url}/v1/embeddings`, method: 'POST', headers, bodies: [payload], connections: 1, durationSeconds: 4 });
      // The load generator gives a mean (its rate) and whole-millisecond percentiles: set beside the engine's mean.
      const httpMs = 1000 / r.rps;
      console.log(`  HTTP ${encoding.padEnd(6)} (socket, client in a child process) ${fmt(r.rps * batch, 0)} texts/s (${fmt(httpMs, 2)} ms per call, mean; p99 ${r.p99} ms${r.non2xx ? `, ${r.non2xx} non-2xx` : ''})   x${fmt(engineEmbMean / httpMs, 2)} of the engine's mean   ${overhead(httpMs, engineEmbMean)}   server ${cpuRatio(engineRun.cpu, r.cpu)}`);
    }

    const query = 'what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft';
    const hundred = docs.slice(0, 100).map((d) => d.text);
    console.log('rerank (100 abstracts, median latency):');
    for (const tier of ['classic', 'quantum_cpu'] as const) {
      const reranker = await rerankerFor(tier);
      const engineRun = await timed(() => rerankDocuments(reranker, query, hundred), 10, 3000);
      const engine = median(engineRun.ms);
      const engineMean = mean(engineRun.ms);
      const payload = JSON.stringify({ query, documents: hundred, tier });
      const injectRun = await timed(() => svc.app.inject({ method: 'POST', url: '/v1/rerank', headers: { ...headers, 'content-type': 'application/json' }, payload }), 10, 3000);
      const injected = median(injectRun.ms);
      const r = await measured({ url: `${svc.url}/v1/rerank`, method: 'POST', headers, bodies: [payload], connections: 1, durationSeconds: 4 });
      console.log(`  ${tier.padEnd(12)} engine (baseline) ${fmt(engine)} ms median, ${fmt(engineMean)} mean (CPU ${fmt(engineRun.cpu, 2)} ms)   server stack (inject) ${fmt(injected)} ms median, ${overhead(injected, engine)}   ${cpuRatio(engineRun.cpu, injectRun.cpu)}`);
      console.log(`  ${''.padEnd(12)} HTTP socket mean ${fmt(1000 / r.rps)} ms (p50 ${r.p50} ms, p99 ${r.p99} ms)   x${fmt(engineMean / (1000 / r.rps), 2)} of the engine's mean   ${overhead(1000 / r.rps, engineMean)}   server ${cpuRatio(engineRun.cpu, r.cpu)}`);
    }

    if (httpOnly) {
      await models.close();
      return;
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

/** Published nDCG@10 on Cranfield for comparison (issue 19): Lucene-default BM25, a BGE-base dense retriever, and their hybrid. */
const PUBLISHED = { bm25: 0.374, dense: 0.342, hybrid: 0.353 };

interface Row {
  name: string;
  runs: Map<string, string[]>;
  published?: number;
}

/**
 * Every mode of `lattice search query` on Cranfield, through `SearchIndex.query` with the
 * options the command passes, then the default settings once more through the real
 * `lattice search build` / `search query` commands. nDCG@10 on the held-out half of the
 * queries (those the rerank weights and every chosen parameter never saw) and on all 225.
 */
async function cranfield(): Promise<void> {
  const { docs, queries, qrels } = loadCranfield(CRANFIELD_DIR);
  const { train, heldOut } = splitQueries(queries);
  const db = await openPglite(null);
  const index = await SearchIndex.open(db, { ns: 'bench' });
  try {
    await index.add(docs);
    const ndcg = (runs: Map<string, string[]>, qs: readonly Query[]): number => mean(qs.map((q) => ndcgAt(runs.get(q.query_id) ?? [], qrels.get(q.query_id), 10)));
    const recall = (runs: Map<string, string[]>): number => mean(queries.map((q) => recallAt(runs.get(q.query_id) ?? [], qrels.get(q.query_id), 100)));
    const runs = async (opts: QueryOptions, setup: () => void = () => {}): Promise<Map<string, string[]>> => {
      setup();
      const out = new Map<string, string[]>();
      try {
        for (const q of queries) out.set(q.query_id, (await index.query(q.text, { ...opts, topK: 100 })).map((h) => h.doc_id));
      } finally {
        index.titleWeight = 1;
      }
      return out;
    };
    const t = performance.now();
    await index.latentModel();
    const fitMs = performance.now() - t;
    const classic = await rerankerFor('classic');
    const quantum = await rerankerFor('quantum_cpu');
    const rows: Row[] = [
      { name: 'BM25, Lucene-style (no title field, no RM3)', runs: await runs({ mode: 'bm25', rerank: null, rm3: false }, () => (index.titleWeight = 0)), published: PUBLISHED.bm25 },
      { name: 'BM25 + title field', runs: await runs({ mode: 'bm25', rerank: null, rm3: false }) },
      { name: 'BM25 + title + RM3 (--mode bm25 --rerank none)', runs: await runs({ mode: 'bm25', rerank: null }) },
      { name: 'dense, hashing embedding (--mode dense --rerank none)', runs: await runs({ mode: 'dense', rerank: null }), published: PUBLISHED.dense },
      { name: 'latent space alone (LSI, 200 dimensions)', runs: new Map(await Promise.all(queries.map(async (q) => [q.query_id, (await index.latentSearch(q.text, 100)).map((h) => h.doc_id)] as const))) },
      { name: 'hybrid, first stage only (--rerank none)', runs: await runs({ mode: 'hybrid', rerank: null }), published: PUBLISHED.hybrid },
      { name: 'BM25 + title + RM3, classic rerank (--mode bm25)', runs: await runs({ mode: 'bm25', rerank: classic }) },
      { name: 'hybrid + classic rerank (the default)', runs: await runs({}) },
      { name: 'hybrid + quantum_cpu (classic + kernel)', runs: await runs({ mode: 'hybrid', rerank: quantum }) },
    ];
    console.log(`Cranfield (${docs.length} abstracts, ${queries.length} queries; training half ${train.length}, held-out half ${heldOut.length}); latent space fitted in ${fmt(fitMs / 1000)} s`);
    console.log(`  ${'run'.padEnd(56)} ${'held-out'.padStart(9)} ${'all 225'.padStart(8)} ${'published'.padStart(9)} ${'recall@100'.padStart(10)}`);
    const bm25 = ndcg(rows[0].runs, queries);
    for (const r of rows) {
      const all = ndcg(r.runs, queries);
      const vs = r.published === undefined ? '' : `   ${all >= r.published ? '+' : ''}${fmt(all - r.published, 3)} vs published`;
      console.log(`  ${r.name.padEnd(56)} ${fmt(ndcg(r.runs, heldOut), 4).padStart(9)} ${fmt(all, 4).padStart(8)} ${(r.published === undefined ? '-' : fmt(r.published, 3)).padStart(9)} ${fmt(recall(r.runs), 4).padStart(10)}${vs}`);
    }
    console.log(`  (training half, for reference: default ${fmt(ndcg(rows[7].runs, train), 4)}; Lucene-style BM25 ${fmt(ndcg(rows[0].runs, train), 4)}; all-225 Lucene-style BM25 ${fmt(bm25, 4)})`);
    await throughCli(docs, queries, heldOut, qrels, ndcg(rows[7].runs, queries));
  } finally {
    await db.close();
  }
}

/** The default settings end to end: `lattice search build`, then `lattice search query` with no options. */
async function throughCli(docs: readonly InputDoc[], queries: readonly Query[], heldOut: readonly Query[], qrels: Qrels, inProcess: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lattice-bench-search-'));
  try {
    writeFileSync(join(dir, 'docs.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n'));
    writeFileSync(join(dir, 'queries.jsonl'), queries.map((q) => JSON.stringify({ query_id: q.query_id, text: q.text })).join('\n'));
    const bin = fileURLToPath(new URL('../../bin/lattice.mjs', import.meta.url));
    const lattice = (args: string[]): string => execFileSync(process.execPath, [bin, ...args], { env: { ...process.env, DATABASE_URL: '' }, maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    const t = performance.now();
    lattice(['search', 'build', '--docs', join(dir, 'docs.jsonl'), '--index', join(dir, 'idx')]);
    const built = performance.now();
    const out = JSON.parse(lattice(['search', 'query', '--index', join(dir, 'idx'), '--queries', join(dir, 'queries.jsonl'), '--top-k', '100'])) as { results: { query_id: string; hits: { doc_id: string }[] }[] };
    const runs = new Map(out.results.map((r) => [r.query_id, r.hits.map((h) => h.doc_id)]));
    const nd = (qs: readonly Query[]): number => mean(qs.map((q) => ndcgAt(runs.get(q.query_id) ?? [], qrels.get(q.query_id), 10)));
    console.log(`  through \`lattice search build\` (${fmt((built - t) / 1000)} s) and \`lattice search query\` with its defaults (${fmt((performance.now() - built) / 1000)} s): held-out ${fmt(nd(heldOut), 4)}, all ${fmt(nd(queries), 4)} (in-process ${fmt(inProcess, 4)})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  await api();
  if (!httpOnly) await cranfield();
}
