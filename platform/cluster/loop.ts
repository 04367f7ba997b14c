/**
 * Periodic background work that must run in one process of the cluster (repairs, clean-ups):
 * `fn` runs every `intervalMs` in the process that leads `name`, and nowhere else.
 * What a process keeps: its Leadership and one timer.
 */
import type { Database } from '../storage/database.ts';
import { Leadership } from './leader.ts';

export interface LeaderLoop {
  readonly leadership: Leadership;
  stop(): Promise<void>;
}

export async function startLeaderLoop(
  db: Database,
  name: string,
  intervalMs: number,
  fn: () => Promise<unknown>,
  /** Where leadership changes (info) and the work's failures (warn) are told; a Fastify or pino logger fits. */
  log: { info(line: string): void; warn(line: string): void } = { info: () => {}, warn: () => {} },
): Promise<LeaderLoop> {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = running.then(fn).catch((err: unknown) => log.warn(`${name}: ${err instanceof Error ? err.message : String(err)}`));
  };
  const leadership = new Leadership(db, name, {
    log: (line) => log.info(line),
    onGain: () => {
      run();
      timer = setInterval(run, intervalMs);
      timer.unref();
    },
    onLose: async () => {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  });
  await leadership.start();
  return {
    leadership,
    async stop() {
      await leadership.stop();
    },
  };
}
