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
    // The emscripten module installs process-wide handlers that rethrow every unhandled
    // rejection and print its whole source; take them back off so errors stay ours.
    type Listener = (...args: unknown[]) => void;
    const emitter = process as unknown as { listeners(e: string): Listener[]; removeListener(e: string, l: Listener): void };
    const events = ['uncaughtException', 'unhandledRejection'];
    const before = new Set(events.flatMap((e) => emitter.listeners(e)));
    await tf.setBackend('wasm');
    await tf.ready();
    for (const e of events) for (const l of emitter.listeners(e)) if (!before.has(l)) emitter.removeListener(e, l);
    return tf;
  })();
  return ready;
}
