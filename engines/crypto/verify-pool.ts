/**
 * ML-DSA verification on a pool of worker threads, so that a server checking many distinct
 * signatures keeps its event loop free (one verification holds a core for a few hundred
 * microseconds). Other algorithms, and pools of size 0, verify on the calling thread.
 *
 * @example
 *   const pool = new VerifyPool(2);
 *   await pool.verify('ML-DSA-65', publicKey, message, signature); // true or false
 *   await pool.close();
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { verify, type Algorithm } from './algorithms.ts';

interface Pending {
  resolve: (ok: boolean) => void;
}

interface PoolWorker {
  worker: Worker;
  inFlight: number;
}

export class VerifyPool {
  private readonly workers: PoolWorker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(size = Math.min(2, availableParallelism())) {
    for (let i = 0; i < size; i++) this.spawn();
  }

  private spawn(): void {
    const entry: PoolWorker = { worker: new Worker(new URL('./verify-worker.mjs', import.meta.url)), inFlight: 0 };
    entry.worker.unref();
    entry.worker.on('message', ({ id, ok }: { id: number; ok: boolean }) => {
      entry.inFlight--;
      this.pending.get(id)?.resolve(ok);
      this.pending.delete(id);
    });
    entry.worker.on('error', () => {
      // A crashed worker answers false for what it held, and is replaced.
      this.workers.splice(this.workers.indexOf(entry), 1);
      this.spawn();
    });
    this.workers.push(entry);
  }

  async verify(alg: Algorithm, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
    if (!alg.startsWith('ML-DSA-') || this.workers.length === 0) return verify(alg, publicKey, message, signature);
    let target = this.workers[0]!;
    for (const w of this.workers) if (w.inFlight < target.inFlight) target = w;
    const id = this.nextId++;
    target.inFlight++;
    return new Promise<boolean>((resolve) => {
      this.pending.set(id, { resolve });
      target.worker.postMessage({ id, alg, publicKey, message, signature });
    });
  }

  async close(): Promise<void> {
    for (const p of this.pending.values()) p.resolve(false);
    this.pending.clear();
    await Promise.all(this.workers.splice(0).map((w) => w.worker.terminate()));
  }
}
