/** A worker thread of the quantum job pool: runs one task at a time off the main event loop. */
import { parentPort } from 'node:worker_threads';
import { executeTask, prepareTask, TaskError, type CircuitTask } from './task.ts';

export interface WorkerRequest {
  id: number;
  op: 'execute' | 'prepare';
  task: CircuitTask;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'stage'; id: number; stage: string; detail?: unknown }
  | { type: 'done'; id: number; value: unknown }
  | { type: 'error'; id: number; error: { code: string; message: string; details: Record<string, unknown> } };

const port = parentPort!;
port.on('message', (req: WorkerRequest) => {
  try {
    const value =
      req.op === 'prepare'
        ? prepareTask(req.task)
        : executeTask(req.task, (stage, detail) => port.postMessage({ type: 'stage', id: req.id, stage, detail } satisfies WorkerMessage));
    port.postMessage({ type: 'done', id: req.id, value } satisfies WorkerMessage);
  } catch (err) {
    const error =
      err instanceof TaskError
        ? { code: err.code, message: err.message, details: err.details }
        : { code: 'EXECUTION_ERROR', message: (err as Error)?.message ?? String(err), details: {} };
    port.postMessage({ type: 'error', id: req.id, error } satisfies WorkerMessage);
  }
});
port.postMessage({ type: 'ready' } satisfies WorkerMessage);
