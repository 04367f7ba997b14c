/**
 * TensorFlow.js on its WebAssembly backend (SIMD; the threaded build needs cross-origin
 * isolation, which Node does not provide, so one core is used per process). Initialised once.
 */
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

let ready: Promise<typeof tf> | undefined;

export function loadTf(): Promise<typeof tf> {
  ready ??= (async () => {
    const require = createRequire(import.meta.url);
    const dir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json'));
    setWasmPaths(`${join(dir, 'dist')}/`);
    await tf.setBackend('wasm');
    await tf.ready();
    return tf;
  })();
  return ready;
}
