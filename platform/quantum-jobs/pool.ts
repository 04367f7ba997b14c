/**
 * A fixed pool of worker threads for quantum tasks. Starting a worker costs 0.2 to 0.4 s, so
 * the pool starts its workers once and keeps them; a task is cancelled while it waits by
 * dropping it, and while it runs by terminating its worker (the engine's simulation is one
 * synchronous call), after which a fresh worker takes the empty seat.
 */
import { Worker } from 'node:worker_threads';
import { runsInline } from './inline.ts';
import { receivedResult, type PostedResult } from './posted-result.ts';
import { executeTask, prepareTask, TaskError, type CircuitTask, type TaskResult } from './task.ts';
import type { WorkerMessage, WorkerRequest } from './worker.ts';
import { workerEntry } from '../threads.ts';

export class TaskFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'TaskFailure';
  }
}

/** Thrown to the waiter of a task that was cancelled. */
export class TaskCancelled extends Error {
  constructor() {
    super('task cancelled');
    this.name = 'TaskCancelled';
  }
}

interface Pending {
  id: number;
  op: WorkerRequest['op'];
  task: CircuitTask;
  onStage?: (stage: string, detail?: unknown) => void;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Seat {
  worker: Worker;
  ready: boolean;
  busy: Pending | null;
  /** The optimized text of the task this seat prepared last, which its worker has parsed ahead (worker.ts). */
  parsedAhead: string | null;
}

export class WorkerPool {
  private readonly seats: Seat[] = [];
  private readonly waiting: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Called whenever a worker becomes free (started, or finished a task). */
  readonly freed = new Set<() => void>();

  constructor(readonly size: number) {
    for (let i = 0; i < size; i++) this.seats.push(this.spawn());
  }

  private spawn(): Seat {
    const worker = new Worker(workerEntry('quantum-jobs', new URL('./worker-bootstrap.mjs', import.meta.url)));
    worker.unref();
    const seat: Seat = { worker, ready: false, busy: null, parsedAhead: null };
    worker.on('message', (msg: WorkerMessage) => this.onMessage(seat, msg));
    worker.on('error', (err) => this.onExit(seat, err));
    worker.on('exit', () => this.onExit(seat, null));
    return seat;
  }

  private onMessage(seat: Seat, msg: WorkerMessage): void {
    if (msg.type === 'ready') {
      seat.ready = true;
      this.pump();
      for (const f of this.freed) f();
      return;
    }
    const p = seat.busy;
    if (!p || p.id !== msg.id) return;
    if (msg.type === 'stage') {
      p.onStage?.(msg.stage, msg.detail);
      return;
    }
    seat.busy = null;
    if (msg.type === 'done') {
      if (msg.parsingAhead) seat.parsedAhead = (msg.value as ReturnType<typeof prepareTask>).optimization!.optimized_circuit;
      p.resolve(p.op === 'execute' ? receivedResult(msg.value as PostedResult) : msg.value);
    } else p.reject(new TaskFailure(msg.error.code, msg.error.message, msg.error.details));
    this.pump();
  }

  /** A worker that died (crash, out of memory, or terminated by cancel) is replaced. */
  private onExit(seat: Seat, err: Error | null): void {
    const index = this.seats.indexOf(seat);
    if (index < 0) return;
    const p = seat.busy;
    seat.busy = null;
    if (p) p.reject(new TaskFailure('EXECUTION_ERROR', `the simulation worker stopped: ${err?.message ?? 'exited'}`));
    if (this.closed) {
      this.seats.splice(index, 1);
      return;
    }
    this.seats[index] = this.spawn();
  }

  /**
   * Hands waiting tasks to free seats in order. A run goes to the seat that prepared its
   * circuit when that seat is free (its worker has the circuit parsed already), else to the
   * first free one.
   */
  private pump(): void {
    while (this.waiting.length) {
      const p = this.waiting[0]!;
      const free = this.seats.filter((s) => s.ready && !s.busy);
      if (free.length === 0) return;
      const text = p.op === 'execute' ? p.task.prepared?.optimized_circuit : undefined;
      const seat = (text !== undefined && free.find((s) => s.parsedAhead === text)) || free[0]!;
      this.waiting.shift();
      seat.busy = p;
      seat.parsedAhead = null;
      seat.worker.postMessage({ id: p.id, op: p.op, task: p.task } satisfies WorkerRequest);
    }
  }

  /** Seats free right now (ready and idle) minus tasks already waiting. */
  idle(): number {
    return this.seats.filter((s) => s.ready && !s.busy).length - this.waiting.length;
  }

  /** Tasks running or waiting. */
  load(): number {
    return this.seats.filter((s) => s.busy).length + this.waiting.length;
  }

  /** Resolves once every worker has started (tests and benchmarks wait for a warm pool). */
  async warm(): Promise<void> {
    while (!this.closed && this.seats.some((s) => !s.ready)) await new Promise((r) => setTimeout(r, 20));
  }

  run(op: 'prepare', task: CircuitTask): { id: number; done: Promise<unknown> };
  run(op: 'execute', task: CircuitTask, onStage?: (stage: string, detail?: unknown) => void): { id: number; done: Promise<TaskResult> };
  run(op: WorkerRequest['op'], task: CircuitTask, onStage?: (stage: string, detail?: unknown) => void): { id: number; done: Promise<unknown> } {
    if (this.closed) throw new Error('the quantum worker pool is closed');
    const id = this.nextId++;
    if (runsInline(op, task)) return { id, done: this.runInline(id, op, task, onStage) };
    const done = new Promise<unknown>((resolve, reject) => {
      this.waiting.push({ id, op, task, onStage, resolve, reject });
    });
    this.pump();
    return { id, done };
  }

  /** Tasks run on this thread that have not started yet (they start at the next microtask). */
  private readonly inlineWaiting = new Map<number, () => void>();

  /**
   * Runs a small task on this thread (inline.ts says which), a microtask later so that the
   * caller holds its id first, with the same stages, result and failures as on a worker.
   */
  private runInline(id: number, op: WorkerRequest['op'], task: CircuitTask, onStage?: (stage: string, detail?: unknown) => void): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      this.inlineWaiting.set(id, () => reject(new TaskCancelled()));
      queueMicrotask(() => {
        if (!this.inlineWaiting.delete(id)) return;
        try {
          resolve(op === 'prepare' ? prepareTask(task) : executeTask(task, onStage));
        } catch (err) {
          reject(
            err instanceof TaskError
              ? new TaskFailure(err.code, err.message, err.details)
              : new TaskFailure('EXECUTION_ERROR', (err as Error)?.message ?? String(err)),
          );
        }
      });
    });
  }

  /** Stops task `id`: drops it when waiting, terminates its worker when running. */
  cancel(id: number): boolean {
    const inline = this.inlineWaiting.get(id);
    if (inline) {
      this.inlineWaiting.delete(id);
      inline();
      return true;
    }
    const w = this.waiting.findIndex((p) => p.id === id);
    if (w >= 0) {
      const [p] = this.waiting.splice(w, 1);
      p!.reject(new TaskCancelled());
      return true;
    }
    const seat = this.seats.find((s) => s.busy?.id === id);
    if (!seat) return false;
    const p = seat.busy!;
    seat.busy = null;
    p.reject(new TaskCancelled());
    const index = this.seats.indexOf(seat);
    this.seats[index] = this.spawn();
    void seat.worker.terminate();
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.waiting.splice(0)) p.reject(new TaskCancelled());
    await Promise.all(this.seats.splice(0).map((s) => s.worker.terminate()));
  }
}
