/**
 * The node-llama-cpp runtime, loaded once: its prebuilt CPU binary only (`build: 'never'`, no
 * GPU probing, nothing downloaded or compiled at run time), and GGUF models cached by path.
 * A missing or corrupt model file becomes a `model_file_invalid` error naming the file.
 */
import { existsSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import type { Llama, LlamaModel } from 'node-llama-cpp';
import { LanguageError } from '../errors.ts';

let llamaPromise: Promise<Llama> | undefined;
const models = new Map<string, Promise<LlamaModel>>();
/** The loads of `models` that have ended, loaded or failed. */
const settled = new WeakSet<Promise<LlamaModel>>();

export function getRuntime(): Promise<Llama> {
  llamaPromise ??= import('node-llama-cpp').then(({ getLlama, LlamaLogLevel }) =>
    getLlama({ build: 'never', gpu: false, logLevel: LlamaLogLevel.error, progressLogs: false }),
  );
  return llamaPromise;
}

/** Checks the file before llama.cpp sees it, so a bad path or non-GGUF file fails with a clear message. */
export function checkGgufFile(path: string): void {
  if (!existsSync(path)) throw new LanguageError('model_file_invalid', `model file ${path} does not exist`);
  if (!statSync(path).isFile()) throw new LanguageError('model_file_invalid', `model file ${path} is not a file`);
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(4);
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== 'GGUF') throw new LanguageError('model_file_invalid', `model file ${path} is not a GGUF file`);
}

export function loadModel(path: string): Promise<LlamaModel> {
  const cached = models.get(path);
  if (cached) return cached;
  const load = (async () => {
    checkGgufFile(path);
    const llama = await getRuntime();
    try {
      return await llama.loadModel({ modelPath: path, gpuLayers: 0 });
    } catch (err) {
      throw new LanguageError('model_file_invalid', `cannot load model ${path}: ${(err as Error).message}`, { cause: err });
    }
  })();
  models.set(path, load);
  load.then(
    () => settled.add(load),
    () => {
      settled.add(load);
      // A failed load is not cached: the file may be fixed and retried.
      if (models.get(path) === load) models.delete(path);
    },
  );
  return load;
}

/** Whether a load of the model at `path` has begun and not yet ended: a caller of loadModel would wait for it. */
export function isModelLoading(path: string): boolean {
  const load = models.get(path);
  return load !== undefined && !settled.has(load);
}

export async function unloadAll(): Promise<void> {
  const all = [...models.values()];
  models.clear();
  for (const p of all) {
    const m = await p.catch(() => undefined);
    await m?.dispose();
  }
}
