/**
 * The jobs page's live updates as server-sent events, authenticated by the page's session cookie:
 * GET /console/jobs/events (`rows`: the list's rows with the page's filters, as GET /console/jobs
 * answers them; `cards`: the usage and balance cards, when a job's change moved them) and GET /console/jobs/{id}/events (`status`: the job's status; the page renders
 * itself anew when it changes).
 *
 * The server pushes a change as it sees one: a cancel through the page wakes the account's
 * streams at once; every other change (a job submitted through any service's API, a state
 * reached on any process of the cluster) is seen by one small read per watched account each
 * second (the count, the latest `updated_at` and the active jobs of the shared job table and of
 * the suppliers' remote jobs), and only then are rows rendered. While a job runs its rows are
 * rendered each second, since their duration moves.
 *
 * What it keeps: the open streams (platform/http/sse.ts, ended when the app closes), per watched
 * account the last figures read and the streams to wake, and one timer that runs only while a
 * stream is open.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { EventStreams } from '../../../platform/http/sse.ts';

/** How often the watched accounts' jobs are read for changes. */
export const WATCH_MS = 1000;

export interface AccountJobsState {
  /** Changes whenever a job of the account is added or changes. */
  key: string;
  active: number;
}

export interface JobEventsOptions {
  prefix: string;
  guard: (req: FastifyRequest) => Promise<void>;
  accountOf: (req: FastifyRequest) => string;
  state: (accountId: string) => Promise<AccountJobsState>;
  /** The list's rows for the request's filters (its query string). */
  rows: (accountId: string, query: unknown) => Promise<{ rows: string; active: number }>;
  /**
   * The job's status and its state (the status, and a supplier job's open or refused cancel
   * request: the page renders anew when it changes), or null when the account has no such job.
   */
  status: (accountId: string, id: string) => Promise<{ status: string; state: string } | null>;
  /** The cards a job's change moves (usage, balance), rendered by element id. */
  cards: (accountId: string) => Promise<Record<string, string>>;
}

/** `changed`: the account's jobs changed (not only the clock of a running one). */
type Wake = (changed: boolean) => Promise<void>;

export interface JobEvents {
  /** Wakes the account's streams now (a change made by this process). */
  poke(accountId: string): void;
  readonly streams: EventStreams;
}

export function registerJobEvents(app: ServiceApp, o: JobEventsOptions): JobEvents {
  const streams = new EventStreams(app);
  const watched = new Map<string, { wakes: Set<Wake>; last: string | null }>();
  let timer: NodeJS.Timeout | null = null;
  let checking = false;

  const wakeAll = async (accountId: string, changed: boolean) => {
    for (const wake of watched.get(accountId)?.wakes ?? []) {
      await wake(changed).catch((err: unknown) => app.log.warn({ err }, 'jobs page: live update failed'));
    }
  };
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      for (const [accountId, w] of watched) {
        const s = await o.state(accountId);
        if (s.key === w.last && s.active === 0) continue;
        const changed = s.key !== w.last;
        w.last = s.key;
        await wakeAll(accountId, changed);
      }
    } catch (err) {
      app.log.warn({ err }, 'jobs page: reading the jobs for live updates failed');
    } finally {
      checking = false;
    }
  };
  const watch = (accountId: string, wake: Wake) => {
    const w = watched.get(accountId) ?? { wakes: new Set<Wake>(), last: null };
    w.wakes.add(wake);
    watched.set(accountId, w);
    timer ??= setInterval(() => void check(), WATCH_MS);
    return () => {
      w.wakes.delete(wake);
      if (!w.wakes.size) watched.delete(accountId);
      if (!watched.size && timer) {
        clearInterval(timer);
        timer = null;
      }
    };
  };
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    timer = null;
  });

  app.get(`${o.prefix}/console/jobs/events`, { schema: { hide: true }, preHandler: o.guard }, async (req, reply) => {
    const accountId = o.accountOf(req);
    const stream = streams.open(req, reply);
    let last = '';
    let lastCards = '';
    const wake = async (changed: boolean) => {
      const r = await o.rows(accountId, req.query);
      if (r.rows !== last) {
        last = r.rows;
        stream.send('rows', r);
      }
      // The cards only when a job changed: a running job's ticking duration moves no figure of theirs.
      if (!changed) return;
      const cards = await o.cards(accountId);
      const text = JSON.stringify(cards);
      if (text === lastCards) return;
      lastCards = text;
      stream.send('cards', cards);
    };
    stream.onClose(watch(accountId, wake));
    await wake(true);
  });

  app.get(`${o.prefix}/console/jobs/:id/events`, { schema: { hide: true }, preHandler: o.guard }, async (req, reply) => {
    const accountId = o.accountOf(req);
    const id = (req.params as { id: string }).id;
    const stream = streams.open(req, reply);
    let last: string | null = null;
    const wake = async () => {
      const now = await o.status(accountId, id);
      if (now === null || now.state === last) return;
      last = now.state;
      stream.send('status', now.state === now.status ? { job_id: id, status: now.status } : { job_id: id, status: now.status, state: now.state });
    };
    stream.onClose(watch(accountId, wake));
    await wake();
  });

  return {
    streams,
    poke(accountId) {
      void wakeAll(accountId, true);
    },
  };
}
