/** For tests of the license-row caches: waits for a change notice the way a listening server hears it. */
import { onChange } from '../storage/changes.ts';
import type { Database } from '../storage/database.ts';

/**
 * Listens for the next change notice of `id` on `topic`; `heard` resolves once it came, after
 * every listener registered before this one (a server's cache) has run. Wrapped in an object
 * because an async function would adopt the promise and wait for the notice itself.
 */
export async function nextNotice(db: Database, topic: string, id: string, withinMs = 10_000): Promise<{ heard: Promise<void> }> {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const heard = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  // Bounded, so that a notice that never comes (or names the row otherwise) fails the test instead of hanging it.
  const timer = setTimeout(() => {
    stop();
    reject(new Error(`no change notice of '${id}' on '${topic}' within ${withinMs} ms`));
  }, withinMs);
  const stop = await onChange(db, topic, (changed) => {
    if (changed !== id) return;
    clearTimeout(timer);
    stop();
    resolve();
  });
  return { heard };
}
