/**
 * The jobs page's live updates as server-sent events, authenticated by the page's session cookie:
 * GET /console/jobs/events (`rows`: the list's rows with the page's filters, as GET /console/jobs
 * answers them) and GET /console/jobs/{id}/events (`status`: the job's status; the page renders
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
  /** The job's status, or null when the account has no such job. */
  status: (accountId: string, id: string) => Promise<string | null>;
}

type Wake = () => Promise<void>;

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

  const wakeAll = async (accountId: string) => {
    for (const wake of watched.get(accountId)?.wakes ?? []) {
      await wake().catch((err: unknown) => app.log.warn({ err }, 'jobs page: live update failed'));
    }
  };
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      for (const [accountId, w] of watched) {
        const s = await o.state(accountId);
        if (s.key === w.last && s.active === 0) continue;
        w.last = s.key;
        await wakeAll(accountId);
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
    const wake = async () => {
      const r = await o.rows(accountId, req.query);
      if (r.rows === last) return;
      last = r.rows;
      stream.send('rows', r);
    };
    stream.onClose(watch(accountId, wake));
    await wake();
  });

  app.get(`${o.prefix}/console/jobs/:id/events`, { schema: { hide: true }, preHandler: o.guard }, async (req, reply) => {
    const accountId = o.accountOf(req);
    const id = (req.params as { id: string }).id;
    const stream = streams.open(req, reply);
    let last: string | null = null;
    const wake = async () => {
      const status = await o.status(accountId, id);
      if (status === null || status === last) return;
      last = status;
      stream.send('status', { job_id: id, status });
    };
    stream.onClose(watch(accountId, wake));
    await wake();
  });

  return {
    streams,
    poke(accountId) {
      void wakeAll(accountId);
    },
  };
}
