/** A worker thread of the quantum job pool: runs one task at a time off the main event loop. */
import { parentPort } from 'node:worker_threads';
import { parseQasm } from '../../engines/quantum/index.ts';
import { postedResult } from './posted-result.ts';
import { executeTask, prepareTask, TaskError, type CircuitTask, type ParsedCircuit } from './task.ts';

export interface WorkerRequest {
  id: number;
  op: 'execute' | 'prepare';
  task: CircuitTask;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'stage'; id: number; stage: string; detail?: unknown }
  /**
   * `value`: prepareTask's answer, or for a run a PostedResult (posted-result.ts). `parsingAhead`:
   * after a preparation, this worker goes on to parse the optimized text in `value` (below).
   */
  | { type: 'done'; id: number; value: unknown; parsingAhead?: boolean }
  | { type: 'error'; id: number; error: { code: string; message: string; details: Record<string, unknown> } };

/**
 * The optimized text of the last task this worker prepared, and its circuit, parsed after the
 * preparation's answer went out: a submission's insert takes the main thread a few
 * milliseconds, the job's run then comes to this worker (the pool sends it to the seat that
 * prepared it when that seat is free), and the run finds its circuit parsed (a 20-qubit
 * circuit of depth 20: about 1.5 ms of parsing off the job's path). Taken by the next request,
 * whichever it is, so a circuit is never held past the job it was parsed for.
 */
let parsedAhead: ParsedCircuit | null = null;

const port = parentPort!;
port.on('message', (req: WorkerRequest) => {
  const ahead = parsedAhead;
  parsedAhead = null;
  try {
    if (req.op === 'prepare') {
      const value = prepareTask(req.task);
      // Only a task that will run needs its optimized text parsed.
      const text = req.task.execute === false ? undefined : value.optimization?.optimized_circuit;
      port.postMessage({ type: 'done', id: req.id, value, parsingAhead: text !== undefined } satisfies WorkerMessage);
      if (text === undefined) return;
      try {
        parsedAhead = { text, circuit: parseQasm(text) };
      } catch {
        // The run parses it again and reports what it finds.
      }
      return;
    }
    const result = executeTask(req.task, (stage, detail) => port.postMessage({ type: 'stage', id: req.id, stage, detail } satisfies WorkerMessage), ahead);
    port.postMessage({ type: 'done', id: req.id, value: postedResult(result) } satisfies WorkerMessage);
  } catch (err) {
    const error =
      err instanceof TaskError
        ? { code: err.code, message: err.message, details: err.details }
        : { code: 'EXECUTION_ERROR', message: (err as Error)?.message ?? String(err), details: {} };
    port.postMessage({ type: 'error', id: req.id, error } satisfies WorkerMessage);
  }
});
port.postMessage({ type: 'ready' } satisfies WorkerMessage);
