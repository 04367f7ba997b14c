/**
 * Server-sent event streams for a service's own pages (`EventSource` in the page's script, which
 * the pages' CSP allows through `connect-src 'self'`): the route authenticates as any other
 * (the page's session cookie travels with the request), then hands the request to `open`, which
 * answers `text/event-stream` and keeps the connection until the browser leaves or the app
 * closes. The browser reconnects by itself after `retry` milliseconds when a stream breaks.
 *
 * What it keeps: the streams open now, per app; each is dropped when its connection closes, and
 * all are ended in the app's `preClose`, so that closing the app never waits on a page left open.
 *
 * @example
 *   const streams = new EventStreams(app);
 *   app.get('/console/events', { preHandler: guard }, async (req, reply) => {
 *     const stream = streams.open(req, reply);
 *     stream.send('rows', await render());
 *     const off = feed.subscribe(() => stream.send('rows', ...));
 *     stream.onClose(off);
 *   });
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface EventStream {
  /** Writes one event (`event: name`, the data as one line of JSON); nothing once closed. */
  send(event: string, data: unknown): void;
  /** Called once, when the browser goes away or the stream is ended. */
  onClose(fn: () => void): void;
  end(): void;
  readonly closed: boolean;
}

export interface StreamOptions {
  /** How long the browser waits before reconnecting a broken stream. */
  retryMs?: number;
  /** A comment line this often keeps proxies from closing a quiet stream. */
  heartbeatMs?: number;
}

export class EventStreams {
  private readonly streams = new Set<EventStream>();

  constructor(app: FastifyInstance) {
    app.addHook('preClose', async () => {
      for (const s of [...this.streams]) s.end();
    });
  }

  /** Streams open now. */
  get size(): number {
    return this.streams.size;
  }

  open(req: FastifyRequest, reply: FastifyReply, options: StreamOptions = {}): EventStream {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: ${options.retryMs ?? 2000}\n\n`);
    const closers: Array<() => void> = [];
    let closed = false;
    const heartbeat = setInterval(() => {
      if (!closed) res.write(': keep-alive\n\n');
    }, options.heartbeatMs ?? 15_000);
    heartbeat.unref();
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      // Ended on our side too, so that the server counts the request done.
      if (!res.writableEnded) res.end();
      this.streams.delete(stream);
      for (const fn of closers.splice(0)) {
        try {
          fn();
        } catch (err) {
          req.log.warn({ err }, 'event stream close handler failed');
        }
      }
    };
    const stream: EventStream = {
      send(event, data) {
        if (closed || res.destroyed || res.writableEnded) return;
        res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      },
      onClose(fn) {
        if (closed) fn();
        else closers.push(fn);
      },
      end() {
        close();
      },
      get closed() {
        return closed;
      },
    };
    this.streams.add(stream);
    // The response's close, not the request's: a request's 'close' comes once its body is read.
    res.on('close', close);
    return stream;
  }
}
