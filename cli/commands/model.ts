// `lattice model`: train the built-in model, LoRA adapters, and the classic reranker's weights.
import type { Command } from 'commander';

export function register(program: Command): void {
  const model = program.command('model').description('train the built-in language model, LoRA adapters and rerank weights');

  model
    .command('train')
    .description('train the built-in model from the shipped corpus and write it as GGUF (about 15 minutes on two busy cores)')
    .option('--out <file>', 'where to write the model', 'engines/language/models/lattice-tiny.gguf')
    .option('--steps <n>', 'training steps', '500')
    .option('--seed <n>', 'random seed', '1234')
    .option('--json', 'print a JSON summary')
    .action(async (opts: { out: string; steps: string; seed: string }) => {
      const steps = Number(opts.steps);
      const seed = Number(opts.seed);
      if (!Number.isInteger(steps) || steps <= 0) throw new Error(`--steps must be a positive integer, got "${opts.steps}"`);
      if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got "${opts.seed}"`);
      const { trainBuiltinModel } = await import('../../engines/language/builtin/train.ts');
      const { progressBar } = await import('../../engines/language/progress.ts');
      const bar = progressBar('training', steps);
      const r = await trainBuiltinModel({
        out: opts.out,
        steps,
        seed,
        onProgress: (p) => bar.update(p.step, `loss ${p.loss.toFixed(3)} lr ${p.learningRate.toExponential(1)}${p.heldOutLoss !== undefined ? ` held-out ${p.heldOutLoss.toFixed(3)}` : ''}`),
      });
      bar.finish();
      process.stdout.write(`${JSON.stringify({ out: opts.out, bytes: r.bytes, final_loss: r.finalLoss, held_out_loss: r.heldOutLoss })}\n`);
    });

  model
    .command('lora')
    .description('train a LoRA adapter of the built-in model from lines {prompt, completion, system?}')
    .requiredOption('--pairs <file>', 'JSON Lines file of supervised pairs')
    .requiredOption('--out <file>', 'where to write the GGUF adapter')
    .option('--base <file>', 'base model (default: the built-in model)')
    .option('--held-out <file>', 'JSON Lines pairs to report held-out loss on')
    .option('--lora-r <n>', 'rank', '8')
    .option('--lora-alpha <n>', 'alpha (scale = alpha / rank)', '16')
    .option('--epochs <n>', 'epochs', '3')
    .option('--learning-rate <x>', 'Adam learning rate', '0.01')
    .option('--batch-size <n>', 'pairs per step', '4')
    .option('--json', 'print a JSON summary')
    .action(async (opts: { pairs: string; out: string; base?: string; heldOut?: string; loraR: string; loraAlpha: string; epochs: string; learningRate: string; batchSize: string }) => {
      const { readJsonl } = await import('../../engines/language/retrieval/jsonl.ts');
      const { trainLora } = await import('../../engines/language/builtin/lora.ts');
      const { BUILTIN_MODEL_PATH } = await import('../../engines/language/config.ts');
      const { progressBar } = await import('../../engines/language/progress.ts');
      const pair = (v: unknown, line: number) => {
        const o = v as { prompt?: unknown; completion?: unknown; system?: unknown };
        if (typeof o?.prompt !== 'string' || typeof o.completion !== 'string') throw new Error(`line ${line}: needs string prompt and completion`);
        return { prompt: o.prompt, completion: o.completion, ...(typeof o.system === 'string' ? { system: o.system } : {}) };
      };
      const pairs = readJsonl(opts.pairs, pair);
      const heldOut = opts.heldOut ? readJsonl(opts.heldOut, pair) : undefined;
      let bar: ReturnType<typeof progressBar> | undefined;
      const r = await trainLora({
        base: opts.base ?? BUILTIN_MODEL_PATH,
        out: opts.out,
        pairs,
        ...(heldOut ? { heldOut } : {}),
        rank: Number(opts.loraR),
        alpha: Number(opts.loraAlpha),
        epochs: Number(opts.epochs),
        learningRate: Number(opts.learningRate),
        batchSize: Number(opts.batchSize),
        onProgress: (p) => {
          bar ??= progressBar('lora', p.steps);
          bar.update(p.step, `epoch ${p.epoch}/${p.epochs} loss ${p.loss.toFixed(3)} lr ${p.learningRate}`);
        },
      });
      bar?.finish();
      process.stdout.write(`${JSON.stringify({ out: opts.out, steps: r.steps, bytes: r.bytes, held_out_loss_before: r.heldOutLossBefore, held_out_loss_after: r.heldOutLossAfter })}\n`);
    });

  model
    .command('train-rerank')
    .description('learn the classic rerank weights on the training half of Cranfield\'s queries (hybrid top 100) and write them')
    .option('--out <file>', 'weights file', 'engines/language/rerank/classic-weights.json')
    .option('--json', 'print a JSON summary')
    .action(async (opts: { out: string }) => {
      const { writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const { loadCranfield } = await import('../../engines/language/eval/cranfield.ts');
      const { CRANFIELD_DIR } = await import('../../engines/language/builtin/corpus.ts');
      const { SearchIndex } = await import('../../engines/language/retrieval/search-index.ts');
      const { openPglite } = await import('../../platform/storage/database.ts');
      const { TRAINING_MODE, collectTrainingData, trainOnSplit } = await import('../../engines/language/rerank/train.ts');
      const { FEATURE_NAMES } = await import('../../engines/language/rerank/features.ts');
      const { progressBar } = await import('../../engines/language/progress.ts');
      const { docs, queries, qrels } = loadCranfield(CRANFIELD_DIR);
      const dir = mkdtempSync(join(tmpdir(), 'lattice-rerank-'));
      const index = await SearchIndex.openDir(dir, { open: openPglite });
      try {
        const ib = progressBar('indexing', docs.length);
        await index.add(docs, { onProgress: (n) => ib.update(n) });
        ib.finish();
        const fb = progressBar('features', queries.length);
        const data = await collectTrainingData(index, queries, qrels, { mode: TRAINING_MODE, onProgress: (n) => fb.update(n) });
        fb.finish();
        // Learned on one half of the queries only: the other half's figure is a held-out one.
        const fit = trainOnSplit(data, qrels);
        const nd = fit.ndcg10;
        const about = `Linear weights of the classic rerank tier, learned pairwise by \`lattice model train-rerank\` on the ${fit.train.length} Cranfield queries at odd ids (1, 3, ..., 225) over the ${TRAINING_MODE} top 100; the ${fit.heldOut.length} queries at even ids were never seen. nDCG@10: training half ${nd.train.toFixed(3)}, held-out half ${nd.heldOut.toFixed(3)}, all ${queries.length} ${nd.all.toFixed(3)}.`;
        writeFileSync(opts.out, `${JSON.stringify({ about, features: FEATURE_NAMES, train_queries: fit.train, weights: fit.model.weights.map((w) => Number(w.toFixed(4))) }, null, 2)}\n`);
        process.stdout.write(`${JSON.stringify({ out: opts.out, ndcg10: nd, weights: fit.model.weights })}\n`);
      } finally {
        await index.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
}
