/**
 * Change notices between processes: a process that changes shared state that others cache
 * (a key's limits, a tenant's settings) announces it, and every process of the cluster drops
 * what it cached of it before its next request. On PostgreSQL this is one NOTIFY channel,
 * `lattice_changes`, with the payload `topic:id`; the embedded store has one process, whose
 * listeners hear its own notices (and those of commands that reach it through its socket).
 * What a process keeps: one listener per store and the handlers registered on it.
 */
import type { Database, Sql } from './database.ts';
import { notify } from './channels.ts';

export const CHANGES_CHANNEL = 'lattice_changes';

/** Tells every process that `id` of `topic` changed (in the caller's transaction, it is sent at commit). */
export async function announceChange(db: Sql, topic: string, id: string): Promise<void> {
  await notify(db, CHANGES_CHANNEL, `${topic}:${id}`);
}

type Handler = (id: string) => void;

interface Listener {
  handlers: Map<string, Set<Handler>>;
  ready: Promise<unknown>;
}

const byDatabase = new WeakMap<Database, Listener>();

/** Calls `handler` with the id of each change announced on `topic`; returns a function that stops it. */
export async function onChange(db: Database, topic: string, handler: Handler): Promise<() => void> {
  let listener = byDatabase.get(db);
  if (!listener) {
    const handlers = new Map<string, Set<Handler>>();
    const ready = db.listen(CHANGES_CHANNEL, (payload) => {
      const at = payload.indexOf(':');
      if (at < 0) return;
      for (const h of handlers.get(payload.slice(0, at)) ?? []) h(payload.slice(at + 1));
    });
    listener = { handlers, ready };
    byDatabase.set(db, listener);
  }
  await listener.ready;
  const set = listener.handlers.get(topic) ?? new Set<Handler>();
  set.add(handler);
  listener.handlers.set(topic, set);
  return () => set.delete(handler);
}
