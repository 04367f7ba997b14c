// `lattice search build|query`: a persisted BM25 + dense index in a directory, queried in bulk.
// The defaults of `query` (hybrid, RM3, classic rerank) are the engine's own (DEFAULT_MODE),
// the path the language API's dataset search and RAG take too.
import type { Command } from 'commander';

export function register(program: Command): void {
  const search = program.command('search').description('retrieval: build an index, run queries (BM25, dense, hybrid, rerank)');

  search
    .command('build')
    .description('index documents from lines {doc_id, title?, text}; re-running adds or replaces documents')
    .requiredOption('--docs <file>', 'JSON Lines file of documents')
    .requiredOption('--index <dir>', 'index directory (created when missing)')
    .option('--json', 'print a JSON summary')
    .action(async (opts: { docs: string; index: string }) => {
      const { readJsonl, docRecord } = await import('../../engines/language/retrieval/jsonl.ts');
      const { SearchIndex } = await import('../../engines/language/retrieval/search-index.ts');
      const { openPglite } = await import('../../platform/storage/database.ts');
      const { progressBar } = await import('../../engines/language/progress.ts');
      const docs = readJsonl(opts.docs, docRecord(opts.docs));
      const index = await SearchIndex.openDir(opts.index, { open: openPglite });
      try {
        const bar = progressBar('indexing', docs.length);
        await index.add(docs, { onProgress: (n) => bar.update(n) });
        bar.finish();
        process.stdout.write(`${JSON.stringify({ index: opts.index, added: docs.length, documents: await index.size(), embedder: index.embedder.name })}\n`);
      } finally {
        await index.close();
      }
    });

  search
    .command('query')
    .description('run queries from lines {query_id, text}; prints {results: [{query_id, hits: [{doc_id, score}]}]}')
    .requiredOption('--index <dir>', 'index directory built by `search build`')
    .requiredOption('--queries <file>', 'JSON Lines file of queries')
    .option('--mode <mode>', 'first stage: bm25 (title-weighted, RM3), dense or hybrid (bm25 + latent + dense)', 'hybrid')
    .option('--rerank <tier>', 'second stage over the first stage top 100: classic, quantum_cpu, quantum_gpu, or none', 'classic')
    .option('--no-rm3', 'no RM3 pseudo-relevance feedback in the lexical first stage')
    .option('--top-k <n>', 'hits per query', '10')
    .option('--json', 'print JSON (the only output format)')
    .action(async (opts: { index: string; queries: string; mode: string; rerank: string; rm3: boolean; topK: string }) => {
      const { existsSync } = await import('node:fs');
      const { readJsonl, queryRecord } = await import('../../engines/language/retrieval/jsonl.ts');
      const { SearchIndex } = await import('../../engines/language/retrieval/search-index.ts');
      const { openPglite } = await import('../../platform/storage/database.ts');
      const { RERANK_TIERS, rerankerFor } = await import('../../engines/language/rerank/tiers.ts');
      const topK = Number(opts.topK);
      if (!Number.isInteger(topK) || topK <= 0) throw new Error(`--top-k must be a positive integer, got "${opts.topK}"`);
      if (!['bm25', 'dense', 'hybrid'].includes(opts.mode)) throw new Error(`--mode must be bm25, dense or hybrid, got "${opts.mode}"`);
      if (opts.rerank !== 'none' && !(RERANK_TIERS as readonly string[]).includes(opts.rerank)) throw new Error(`--rerank must be ${RERANK_TIERS.join(', ')} or none, got "${opts.rerank}"`);
      if (!existsSync(opts.index)) throw new Error(`index directory ${opts.index} does not exist: build it with \`lattice search build\``);
      const queries = readJsonl(opts.queries, queryRecord(opts.queries));
      const reranker = opts.rerank === 'none' ? null : await rerankerFor(opts.rerank);
      const index = await SearchIndex.openDir(opts.index, { open: openPglite });
      try {
        const results = [];
        for (const q of queries) {
          const hits = await index.query(q.text, { mode: opts.mode as 'bm25' | 'dense' | 'hybrid', topK, rerank: reranker, rm3: opts.rm3 });
          results.push({ query_id: q.query_id, hits: hits.map((h) => ({ doc_id: h.doc_id, score: Number(h.score.toFixed(6)) })) });
        }
        const info = reranker && 'lastRun' in reranker ? (reranker as { lastRun?: { device: string } }).lastRun : undefined;
        if (info) process.stderr.write(`rerank ${reranker?.name}: kernel circuits ran on the ${info.device.toUpperCase()}\n`);
        process.stdout.write(`${JSON.stringify({ results })}\n`);
      } finally {
        await index.close();
      }
    });
}
