/**
 * GET /console/events — the positioning page's live updates as server-sent events: `panels`
 * (the panels rendered from the receiver's solution, as GET /console/panels answers them) at
 * each new epoch, and once a second while no epoch comes. Authenticated by the page's session
 * cookie like every console route.
 *
 * What it keeps: the open streams (platform/http/sse.ts, ended when the app closes) and the
 * update being rendered. One rendering per epoch serves every open page; an epoch that arrives
 * while one is rendered is folded into the next, so a slow store delays updates, never queues them.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { EventStreams } from '../../../platform/http/sse.ts';

/** `Update`: what one `panels` event carries (the page's rendered panels). */
export interface PageEventsOptions<Update> {
  path: string;
  guard: (req: FastifyRequest) => Promise<void>;
  /** What calls back at each epoch (the page's position track). */
  track: { ticks: Set<() => void> };
  render: () => Promise<Update>;
}

export function registerPageEvents<Update>(app: ServiceApp, o: PageEventsOptions<Update>): EventStreams {
  const streams = new EventStreams(app);
  const listeners = new Set<(u: Update) => void>();
  let rendering = false;
  let again = false;
  const tick = async () => {
    if (!listeners.size) return;
    if (rendering) {
      again = true;
      return;
    }
    rendering = true;
    try {
      do {
        again = false;
        const update = await o.render();
        for (const send of listeners) send(update);
      } while (again && listeners.size);
    } catch (err) {
      app.log.warn({ err }, 'positioning page: live update failed');
    } finally {
      rendering = false;
    }
  };
  const onTick = () => void tick();
  o.track.ticks.add(onTick);
  app.addHook('onClose', async () => {
    o.track.ticks.delete(onTick);
  });

  app.get(o.path, { schema: { hide: true }, preHandler: o.guard }, async (req, reply) => {
    const stream = streams.open(req, reply, { retryMs: 1000 });
    const send = (u: Update) => stream.send('panels', u);
    // The current panels at once (a reconnected page may have missed epochs), then each epoch's.
    send(await o.render());
    listeners.add(send);
    stream.onClose(() => listeners.delete(send));
  });
  return streams;
}
