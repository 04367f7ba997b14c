/**
 * Queue workers started after the services answer. Starting pg-boss (its schema check, its
 * first maintenance) costs seconds of a loaded machine, and nothing a service answers before
 * its first job needs it; so a service hands its worker start (`queue.define`, `queue.work`) to
 * `startWorkersLater` instead of awaiting it in its own start. The start runs on the next turn
 * of the event loop, or, while the server holds the starts (`holdWorkerStarts`, from before the
 * first service is built), once it releases them (`releaseWorkerStarts`, after every service
 * listens): the server keeps `/ready` at 503 `starting` until they are done, and a start that
 * fails fails the server's start as an awaited one did. A job sent before its worker runs waits
 * in the queue's table, as it would for a busy worker. The language API's load of its default
 * chat model under `lattice serve` (`ctx.warmUp`) is handed over the same way.
 *
 * What a process keeps: per queue getter (`ctx.queue`; one per process, one per test service),
 * the promise of each start handed over and, while held, the starts not yet run; dropped with
 * the getter (a WeakMap), and a queue's stop waits for its started ones (see `lazyQueue`).
 */
import type { JobQueue } from './queue.ts';

type QueueGetter = () => Promise<JobQueue>;

interface Starts {
  held: boolean;
  /** Starts waiting for the release, while held. */
  waiting: (() => void)[];
  /** Every start released so far (running or done). */
  released: Promise<void>[];
}

const byQueue = new WeakMap<QueueGetter, Starts>();

function startsOf(queue: QueueGetter): Starts {
  let starts = byQueue.get(queue);
  if (!starts) byQueue.set(queue, (starts = { held: false, waiting: [], released: [] }));
  return starts;
}

/**
 * Runs `start` (which registers workers on `ctx.queue()`) after the current turn, or after the
 * release while held. Returns its promise; a failure is told as a process warning naming
 * `what`, and is the rejection of `releaseWorkerStarts`.
 */
export function startWorkersLater(ctx: { queue: QueueGetter }, what: string, start: () => Promise<void>): Promise<void> {
  const starts = startsOf(ctx.queue);
  let go!: () => void;
  const started = new Promise<void>((resolve) => (go = resolve)).then(start);
  started.catch((err: unknown) => process.emitWarning(`${what} could not start: ${err instanceof Error ? err.message : String(err)}`));
  if (starts.held) {
    starts.waiting.push(() => {
      starts.released.push(started);
      go();
    });
  } else {
    starts.released.push(started);
    setImmediate(go);
  }
  return started;
}

/** Keeps the starts handed over for `queue` from now on waiting until `releaseWorkerStarts`. */
export function holdWorkerStarts(queue: QueueGetter): void {
  startsOf(queue).held = true;
}

/** Runs the held starts of `queue`; resolves when every start of it is done, rejects with the first failure. */
export async function releaseWorkerStarts(queue: QueueGetter): Promise<void> {
  const starts = startsOf(queue);
  starts.held = false;
  for (const run of starts.waiting.splice(0)) run();
  await untilNoNewStart(starts, (batch) => Promise.all(batch));
}

/** Waits until every released start of `queue` has ended, failed or not (before the queue stops). */
export async function workerStartsSettled(queue: QueueGetter): Promise<void> {
  const starts = byQueue.get(queue);
  if (starts) await untilNoNewStart(starts, (batch) => Promise.allSettled(batch));
}

/** Waits on the released starts with `wait`, again for any a start handed over meanwhile, until no new one appears. */
async function untilNoNewStart(starts: Starts, wait: (batch: Promise<void>[]) => Promise<unknown>): Promise<void> {
  for (let seen = 0; seen < starts.released.length; ) {
    const batch = starts.released.slice(seen);
    seen = starts.released.length;
    await wait(batch);
  }
}
