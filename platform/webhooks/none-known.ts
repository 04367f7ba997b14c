/**
 * Which accounts have no webhook for a service, kept in memory on the embedded store, so that
 * an event with nobody to receive it (the end of every quantum job of an account without
 * webhooks) costs no statement.
 *
 * What it keeps: per store, the (account, service) pairs whose look-up found no active webhook
 * at all (of any scope or event), at most 10,000 (then it starts afresh). A pair is only ever
 * "none"; a pair with webhooks keeps nothing, so its every event is looked up as before.
 * What drops a pair: the trigger's change notice (migrations.ts) on every INSERT, UPDATE or
 * DELETE of a webhook of that account, whoever makes it (a route, a command through the store's
 * socket, SQL by hand), which the embedded store delivers before the changing statement returns.
 * A generation counter, raised on every notice, keeps a look-up that raced with a change from
 * storing "none". On PostgreSQL a notice reaches other processes only after the commit, a moment
 * in which one of them could miss a new webhook's first event, so nothing is kept there.
 */
import { onChange } from '../storage/changes.ts';
import type { Database, Sql } from '../storage/database.ts';

/** The change-notice topic of the webhooks table (its trigger names the account). */
export const WEBHOOKS_TOPIC = 'webhooks';

const CAPACITY = 10_000;

interface Known {
  /** account id -> services with no webhook */
  none: Map<string, Set<string>>;
  size: number;
  generation: number;
}

const byStore = new WeakMap<Sql, Promise<Known | null>>();

function knownFor(db: Sql): Promise<Known | null> {
  let known = byStore.get(db);
  if (!known) {
    const store = db as Partial<Database>;
    known =
      store.kind === 'pglite' && typeof store.listen === 'function'
        ? (async () => {
            const k: Known = { none: new Map(), size: 0, generation: 0 };
            await onChange(db as Database, WEBHOOKS_TOPIC, (accountId) => {
              k.generation++;
              k.size -= k.none.get(accountId)?.size ?? 0;
              k.none.delete(accountId);
            });
            return k;
          })().catch(() => null)
        : Promise.resolve(null);
    byStore.set(db, known);
  }
  return known;
}

/**
 * The ids of the webhooks that take an event of `service` to `accountId`, as `find` reads them
 * (`matching`, and whether the pair has any active webhook at all), without asking when the
 * store is known to hold none for that pair.
 */
export async function webhooksUnlessNone(
  db: Sql,
  accountId: string,
  service: string,
  find: () => Promise<{ matching: string[]; any: boolean }>,
): Promise<string[]> {
  const known = await knownFor(db);
  if (!known) return (await find()).matching;
  if (known.none.get(accountId)?.has(service)) return [];
  const generation = known.generation;
  const found = await find();
  if (!found.any && generation === known.generation) {
    if (known.size >= CAPACITY) {
      known.none.clear();
      known.size = 0;
    }
    const services = known.none.get(accountId) ?? new Set<string>();
    if (!services.has(service)) known.size++;
    services.add(service);
    known.none.set(accountId, services);
  }
  return found.matching;
}
