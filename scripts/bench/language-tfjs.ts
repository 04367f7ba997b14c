// Baseline for the language bench: the built-in model's forward pass in tfjs (the training code).
import { loadBuiltin } from '../../engines/language/builtin/load.ts';
import { loadTf } from '../../engines/language/builtin/tf.ts';
import { forward } from '../../engines/language/builtin/transformer.ts';

/** Prompt tokens/s for one pass over `promptTokens`, generation tokens/s re-running the whole prefix per token. */
export async function tfjsTokensPerSecond(path: string, promptTokens: number, generate: number): Promise<{ prompt: number; generation: number }> {
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
