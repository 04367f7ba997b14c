/**
 * One LoRA training run in a worker thread (tfjs keeps its core busy for the whole run, so
 * it never runs on the server's event loop). Posts `{type: 'progress', ...}` per step and
 * one `{type: 'done', ...}` or `{type: 'error', ...}` at the end.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { trainLora, type LoraOptions } from '../../../engines/language/builtin/lora.ts';

const input = workerData as Omit<LoraOptions, 'onProgress'>;
try {
  const r = await trainLora({ ...input, onProgress: (p) => parentPort?.postMessage({ type: 'progress', ...p }) });
  parentPort?.postMessage({ type: 'done', ...r });
} catch (err) {
  parentPort?.postMessage({ type: 'error', code: (err as { code?: string }).code ?? 'training_failed', message: (err as Error).message });
}
