/**
 * One live receiver per source in a cluster: the process that leads `nav-receiver:<source>`
 * (platform/cluster) runs the receiver, writes the history and answers the routes; every other
 * process serving the same source is a follower that sends each request on to the leader and
 * returns its answer unchanged (so `age_ms` and every figure are the leader's, measured when it
 * answers). When the leader dies another process takes over within about a second; while no
 * leader is known a follower answers 503 `NO_FIX` with `Retry-After: 1`.
 *
 * What a follower keeps: the leader's address, read from `cluster_leaders` and kept for one
 * second (or until a request to it fails), and the event streams it passes through (the
 * positioning page's live updates), each until its browser leaves or the app closes.
 */
import { get as httpGet, type ClientRequest } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentLeader } from '../../platform/cluster/leader.ts';
import type { Database } from '../../platform/storage/database.ts';
import { navError } from './errors.ts';

/** Routes every process answers itself: its own documentation, metrics and readiness. */
const LOCAL = /^\/(docs|redoc|openapi\.json|metrics|ready)(\/|\?|$)/;

/** Request headers that belong to one hop, not to the request. */
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);
/** Response headers the follower's own server sets. */
const HOP_OUT = new Set([...HOP, 'content-length', 'content-encoding', 'date']);

export class LeaderForwarder {
  private cached: { address: string | null; at: number } | null = null;
  /** Event streams passed through now: the request to the leader of each. */
  private readonly streams = new Set<ClientRequest>();

  constructor(
    private readonly db: Database,
    readonly leadershipName: string,
    private readonly prefix: string,
  ) {}

  /** True for a path this process answers itself even as a follower. */
  isLocal(url: string): boolean {
    const path = url.startsWith(this.prefix) ? url.slice(this.prefix.length) || '/' : url;
    return LOCAL.test(path);
  }

  async forward(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const leader = await this.leaderAddress();
    if (!leader) throw navError('NO_FIX', 'No position available: the receiver is changing over to another process; retry in a second', { 'retry-after': '1' });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP.has(name)) continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.ip].filter(Boolean).join(', ');
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    if (req.method === 'GET' && req.headers.accept === 'text/event-stream') return this.passStream(`${leader}${req.url}`, headers, reply);
    let res: Response;
    try {
      res = await fetch(`${leader}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? (req.raw as unknown as ReadableStream) : undefined,
        // Node's fetch streams a request body only half-duplex.
        ...(hasBody ? { duplex: 'half' } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(60_000),
      } as RequestInit);
    } catch {
      this.cached = null;
      throw navError('NO_FIX', 'No position available: the receiver is changing over to another process; retry in a second', { 'retry-after': '1' });
    }
    reply.code(res.status);
    res.headers.forEach((value, name) => {
      if (!HOP_OUT.has(name)) reply.header(name, value);
    });
    return reply.send(Buffer.from(await res.arrayBuffer()));
  }

  /** Ends the event streams passed through from the leader (the app's preClose: closing never waits on an open page). */
  endStreams(): void {
    for (const up of this.streams) up.destroy();
    this.streams.clear();
  }

  /**
   * An event stream (the page's live updates) passes through as it comes and stays open until
   * the browser leaves, the leader ends it, or this app closes. Its own connection to the leader
   * (no pool), so that ending it leaves nothing open on the leader to hold up its close.
   */
  private passStream(url: string, headers: Record<string, string>, reply: FastifyReply): Promise<FastifyReply> {
    return new Promise((resolve, reject) => {
      const up = (url.startsWith('https:') ? httpsGet : httpGet)(url, { headers, agent: false }, (res) => {
        reply.hijack();
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined && !HOP_OUT.has(name)) out[name] = value;
        reply.raw.writeHead(res.statusCode ?? 502, out);
        res.pipe(reply.raw);
        resolve(reply);
      });
      this.streams.add(up);
      up.on('close', () => this.streams.delete(up));
      up.on('error', () => {
        if (reply.raw.headersSent) reply.raw.end();
        else {
          this.cached = null;
          reject(navError('NO_FIX', 'No position available: the receiver is changing over to another process; retry in a second', { 'retry-after': '1' }));
        }
      });
      reply.raw.on('close', () => up.destroy());
    });
  }

  private async leaderAddress(): Promise<string | null> {
    if (this.cached && performance.now() - this.cached.at < 1_000) return this.cached.address;
    const row = await currentLeader(this.db, this.leadershipName);
    this.cached = { address: row?.address ?? null, at: performance.now() };
    return this.cached.address;
  }
}

/** The address other processes reach this one at: LATTICE_NAV_ADVERTISE_URL, or its own port on the loopback or listening address. */
export function advertisedAddress(address: ReturnType<import('node:net').Server['address']>, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.LATTICE_NAV_ADVERTISE_URL) return env.LATTICE_NAV_ADVERTISE_URL.replace(/\/+$/, '');
  if (!address || typeof address !== 'object') return null;
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

