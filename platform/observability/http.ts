/**
 * What every service's application gets once, from the shared app builder: request metrics by
 * route template, one log line per request, `GET /metrics` (guarded as the contract says) and
 * `GET /ready` with the process's readiness.
 *
 * Readiness has three phases. An application answers `starting` until it is listening and,
 * under `lattice serve`, until every service of the process is up (the server holds it
 * until then); `ready`; then `draining` from SIGTERM on, while it still answers requests for
 * the drain period so that a load balancer polling `/ready` stops sending first.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpDuration, httpRequests, METRICS_CONTENT_TYPE, metricsText } from './metrics.ts';

export type Phase = 'starting' | 'ready' | 'draining';

interface AppRuntime {
  service: string;
  phase: Phase;
  /** The server marks the phase itself (all services of the process become ready together). */
  held: boolean;
}

const runtimes = new WeakMap<object, AppRuntime>();
let readinessPolled = false;

function runtimeOf(app: object): AppRuntime {
  const runtime = runtimes.get(app);
  if (!runtime) throw new Error('not an application built by createServiceApp');
  return runtime;
}

/** Names the service an application serves: its metrics and log lines carry this id. */
export function nameService(app: object, service: string): void {
  runtimeOf(app).service = service;
}

export function serviceNameOf(app: object): string {
  return runtimeOf(app).service;
}

/** Keeps the application `starting` until `setPhase` says otherwise (the server's start). */
export function holdReadiness(app: object): void {
  runtimeOf(app).held = true;
}

export function setPhase(app: object, phase: Phase): void {
  const runtime = runtimeOf(app);
  runtime.phase = phase;
  if (phase !== 'starting') runtime.held = false;
}

export function phaseOf(app: object): Phase {
  return runtimeOf(app).phase;
}

/**
 * Whether anybody has asked `/ready` in this process: only then is a load balancer watching it,
 * and only then does a stop wait out the drain period before closing.
 */
export function readinessWatched(): boolean {
  return readinessPolled;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The contract's guard: the bearer token when one is configured, else loopback clients only. */
function metricsAllowed(req: FastifyRequest): boolean {
  const token = process.env.LATTICE_METRICS_TOKEN;
  if (token) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
  }
  return LOOPBACK.has(req.socket.remoteAddress ?? '');
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by a service that knows the account behind a request without an API key (a console session). */
    logAccountId?: string;
  }
}

export function installObservability(app: FastifyInstance, prefix: string, defaultService: string): void {
  const runtime: AppRuntime = { service: defaultService, phase: 'starting', held: false };
  runtimes.set(app, runtime);
  app.addHook('onReady', async () => {
    if (!runtime.held && runtime.phase === 'starting') runtime.phase = 'ready';
  });

  app.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    const seconds = reply.elapsedTime / 1000;
    httpRequests(runtime.service).inc({ route, method: req.method, status: String(status) });
    httpDuration(runtime.service).observe({ route, method: req.method, status_class: `${Math.floor(status / 100)}xx` }, seconds);
    const accountId = req.identity?.accountId ?? req.logAccountId;
    req.log.info(
      {
        service: runtime.service,
        route,
        method: req.method,
        status,
        duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
        ...(accountId ? { account_id: accountId } : {}),
      },
      'request',
    );
  });

  app.get(`${prefix}/ready`, { schema: { hide: true } }, async (_req, reply) => {
    readinessPolled = true;
    const phase = runtime.phase;
    return reply.code(phase === 'ready' ? 200 : 503).send({ status: phase });
  });

  app.get(`${prefix}/metrics`, { schema: { hide: true } }, async (req, reply) => {
    if (!metricsAllowed(req)) return reply.callNotFound();
    const text = await metricsText(runtime.service);
    return reply.type(METRICS_CONTENT_TYPE).send(text);
  });
}
