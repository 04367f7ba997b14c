/**
 * JSON over HTTP to an upstream model server, with a timeout per attempt and retries with
 * exponential backoff and full jitter only where a retry is safe: connection failures before
 * any response, 429, 502, 503 and 504. Never 400/401/403/404/422 (the same request fails the
 * same way) and never a 500 or a timeout of a request the server may already be executing.
 *
 * Requests go through node:http(s) on one keep-alive pool per protocol for the process (the
 * agents below): connections to an upstream stay open between calls, each closed by the agent
 * when idle past the upstream's Keep-Alive hint or by the upstream. A call sends its head and
 * body in one write, which `fetch` (WHATWG streams, a body stream per request) did not.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { finished } from 'node:stream';
import { urlToHttpOptions } from 'node:url';
import { LanguageError } from '../errors.ts';

const agents = { http: new HttpAgent({ keepAlive: true, scheduling: 'lifo' }), https: new HttpsAgent({ keepAlive: true, scheduling: 'lifo' }) };

type Target = ReturnType<typeof urlToHttpOptions>;

/**
 * Request options of each upstream URL, parsed once: a model's URL is the same on every call,
 * and parsing it (then turning the URL into options again inside node:http) was per-call work.
 */
const targets = new Map<string, Target>();

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (!target) {
    if (targets.size >= 1_000) targets.clear();
    target = urlToHttpOptions(new URL(url));
    targets.set(url, target);
  }
  return target;
}

/** An upstream's answer as postJson hands it over: status, headers, and the body, whole or as chunks. */
export interface UpstreamResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  /** The body as it arrives (an SSE stream is read this way). */
  readonly body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
}

function upstreamResponse(res: IncomingMessage): UpstreamResponse {
  const status = res.statusCode ?? 0;
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: {
      get(name) {
        const v = res.headers[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
    },
    get body() {
      return chunksOf(res);
    },
    text() {
      // Events, not `for await`: an async iterator over the stream cost a whole answer more
      // than collecting its one or two chunks. `finished` rejects as the iterator did: with
      // the reason the response was destroyed for (a timeout, the caller), or a premature close.
      return new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        finished(res, (err) => (err ? reject(err) : resolve(Buffer.concat(chunks).toString('utf8'))));
      });
    },
  };
}

/**
 * The body's chunks. A reader that stops early (an SSE stream read up to `[DONE]`) leaves the
 * connection to the pool when the whole response has arrived, and closes it otherwise.
 */
async function* chunksOf(res: IncomingMessage): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of res.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
  } finally {
    if (!res.readableEnded) {
      if (res.complete) res.resume();
      else res.destroy();
    }
  }
}

/** A reset of a reused keep-alive connection before the response head. */
class StaleConnectionError extends Error {}

/**
 * One POST attempt, which its timer or its caller can end at any point: before the response
 * head (the request is destroyed) or while the body is read (the response is). A method to call
 * rather than an AbortSignal of its own: a signal and its listeners per attempt were a
 * noticeable part of each call's cost.
 */
class Exchange {
  private req: ClientRequest | null = null;
  private res: IncomingMessage | null = null;
  private reason: Error | null = null;

  constructor(
    private readonly url: Target,
    private readonly headers: Record<string, string>,
    private readonly body: string,
  ) {}

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    if (this.res) this.res.destroy(reason);
    else this.req?.destroy(reason);
  }

  /**
   * Resolves with the response head, rejects when the connection fails or the exchange is
   * aborted first. A pooled connection that the server closed while it sat idle (its
   * keep-alive timeout ran out just as we picked it) fails with a reset before any answer;
   * the server never saw the request, so it is sent once more on a new connection, as Node's
   * documentation of `request.reusedSocket` advises. This resend does not count as one of the
   * caller's retries.
   */
  async send(): Promise<IncomingMessage> {
    try {
      return await this.sendOnce();
    } catch (err) {
      if (!(err instanceof StaleConnectionError) || this.reason) throw err instanceof StaleConnectionError ? err.cause : err;
      return this.sendOnce();
    }
  }

  private sendOnce(): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const https = this.url.protocol === 'https:';
      const req = (https ? httpsRequest : httpRequest)({ ...this.url, method: 'POST', headers: this.headers, agent: https ? agents.https : agents.http });
      this.req = req;
      req.once('error', (err: NodeJS.ErrnoException) => {
        const stale = req.reusedSocket && !this.res && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        reject(stale ? new StaleConnectionError('stale keep-alive connection', { cause: err }) : err);
      });
      req.once('response', (r) => {
        this.res = r;
        resolve(r);
      });
      req.end(this.body);
    });
  }
}

/** What an abort of the caller's signal ends the exchange with, as AbortController.abort passed it on. */
function abortReason(reason: unknown): Error {
  if (reason instanceof Error) return reason;
  return reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : new Error('aborted');
}

export interface UpstreamOptions {
  baseUrl: string;
  apiKey?: string;
  /** Per attempt, milliseconds (default 60 s). */
  timeoutMs?: number;
  /** Attempts after the first (default 2). */
  retries?: number;
  /** Backoff base and cap in milliseconds (defaults 250 and 4000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Seeded or test random source for jitter. */
  random?: () => number;
  headers?: Record<string, string>;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

function retryAfterSeconds(res: UpstreamResponse): number | undefined {
  const h = res.headers.get('retry-after');
  if (!h) return undefined;
  const n = Number(h);
  if (Number.isFinite(n) && n >= 0) return n;
  const at = Date.parse(h);
  return Number.isFinite(at) ? Math.max(0, (at - Date.now()) / 1000) : undefined;
}

/** The upstream's own message, from the body shapes servers use: {error:{message}}, {error}, {detail}, {message}. */
function upstreamMessage(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    if (typeof j.error === 'string') return j.error;
    if (j.error && typeof j.error.message === 'string') return j.error.message;
    if (typeof j.detail === 'string') return j.detail;
    if (typeof j.message === 'string') return j.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.slice(0, 300) || '(empty body)';
}

/** Maps an upstream error status to our error, keeping the upstream's status and message. */
export function mapHttpError(res: UpstreamResponse, body: string, url: string): LanguageError {
  const msg = `upstream ${url} answered ${res.status}: ${upstreamMessage(body)}`;
  const retryAfter = retryAfterSeconds(res);
  const opts = { status: res.status, retryable: RETRY_STATUSES.has(res.status), ...(retryAfter !== undefined ? { retryAfter } : {}) };
  if (res.status === 429) return new LanguageError('rate_limited', msg, opts);
  if (res.status === 401 || res.status === 403) return new LanguageError('authentication_failed', msg, opts);
  if (res.status === 404) return new LanguageError('model_not_found', msg, opts);
  if (res.status === 400 || res.status === 422) return new LanguageError('invalid_request', msg, opts);
  if (res.status === 503 || res.status === 502) return new LanguageError('upstream_unavailable', msg, opts);
  if (res.status === 504) return new LanguageError('upstream_timeout', msg, opts);
  return new LanguageError('upstream_error', msg, { ...opts, status: res.status >= 500 ? 502 : res.status });
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });

/** An open answer of postJson, and `clear` to call once it is read: it ends the attempt's deadline and the caller's abort. */
export interface UpstreamCall {
  res: UpstreamResponse;
  clear: () => void;
}

/**
 * POSTs `body` and returns the open response (status 2xx) for the caller to read, as JSON
 * or as a stream. The timeout covers connecting, the response head and the body, until the
 * caller calls `clear`: a streaming caller keeps the same deadline for the body.
 */
export async function postJson(
  opts: UpstreamOptions,
  path: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<UpstreamCall> {
  const url = joinUrl(opts.baseUrl, path);
  const target = targetOf(url);
  const payload = JSON.stringify(body);
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const retries = opts.retries ?? 2;
  const base = opts.backoffMs ?? 250;
  const cap = opts.maxBackoffMs ?? 4000;
  const random = opts.random ?? Math.random;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...opts.headers,
    'content-length': String(Buffer.byteLength(payload)),
  };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let lastError: LanguageError | undefined;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) {
      // Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2^attempt)], at
      // least what the server asked for in Retry-After.
      const wait = Math.max(random() * Math.min(cap, base * 2 ** attempt), (lastError?.retryAfter ?? 0) * 1000);
      await sleep(Math.min(wait, cap * 4), signal);
    }
    const exchange = new Exchange(target, headers, payload);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      exchange.abort(new DOMException('This operation was aborted', 'AbortError'));
    }, timeoutMs);
    const onAbort = (): void => exchange.abort(abortReason(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
    const clear = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    let res: UpstreamResponse;
    try {
      res = upstreamResponse(await exchange.send());
    } catch (err) {
      clear();
      if (signal?.aborted) throw err;
      if (timedOut) throw new LanguageError('upstream_timeout', `upstream ${url} did not answer within ${timeoutMs} ms`, { cause: err });
      // No response at all: the request never reached a handler, so repeating it is safe.
      lastError = new LanguageError('upstream_unavailable', `cannot reach upstream ${url}: ${err}`, { retryable: true, cause: err });
      continue;
    }
    if (res.ok) return { res, clear };
    let text = '';
    try {
      text = await res.text();
    } catch {
      // the body was cut: the status alone decides
    }
    clear();
    lastError = mapHttpError(res, text, url);
    if (!lastError.retryable) throw lastError;
  }
  throw lastError ?? new LanguageError('upstream_unavailable', `upstream ${url} failed`);
}

/** Reads a whole JSON body, turning a timeout or garbage into a clear error. */
export async function readJson(
  call: UpstreamCall,
  url: string,
): Promise<unknown> {
  let text: string;
  try {
    text = await call.res.text();
  } catch (err) {
    throw new LanguageError('upstream_timeout', `upstream ${url} stopped sending its answer`, { cause: err });
  } finally {
    call.clear();
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new LanguageError('upstream_bad_response', `upstream ${url} answered something that is not JSON: ${text.slice(0, 120)}`);
  }
}
