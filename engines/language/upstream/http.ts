/**
 * JSON over HTTP to an upstream model server, with a timeout per attempt and retries with
 * exponential backoff and full jitter only where a retry is safe: connection failures before
 * any response, 429, 502, 503 and 504. Never 400/401/403/404/422 (the same request fails the
 * same way) and never a 500 or a timeout of a request the server may already be executing.
 */
import { LanguageError } from '../errors.ts';

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

function retryAfterSeconds(res: Response): number | undefined {
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
export function mapHttpError(res: Response, body: string, url: string): LanguageError {
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

/**
 * POSTs `body` and returns the open response (status 2xx) for the caller to read, as JSON
 * or as a stream. The timeout covers connecting and the response head; `onTimeout` lets a
 * streaming caller keep the same deadline for the body.
 */
export async function postJson(
  opts: UpstreamOptions,
  path: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<{ res: Response; controller: AbortController; clear: () => void }> {
  const url = joinUrl(opts.baseUrl, path);
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const retries = opts.retries ?? 2;
  const base = opts.backoffMs ?? 250;
  const cap = opts.maxBackoffMs ?? 4000;
  const random = opts.random ?? Math.random;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...opts.headers };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let lastError: LanguageError | undefined;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) {
      // Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2^attempt)], at
      // least what the server asked for in Retry-After.
      const wait = Math.max(random() * Math.min(cap, base * 2 ** attempt), (lastError?.retryAfter ?? 0) * 1000);
      await sleep(Math.min(wait, cap * 4), signal);
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const clear = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: controller.signal });
    } catch (err) {
      clear();
      if (signal?.aborted) throw err;
      if (timedOut) throw new LanguageError('upstream_timeout', `upstream ${url} did not answer within ${timeoutMs} ms`, { cause: err });
      // No response at all: the request never reached a handler, so repeating it is safe.
      lastError = new LanguageError('upstream_unavailable', `cannot reach upstream ${url}: ${(err as Error).cause ?? (err as Error).message}`, { retryable: true, cause: err });
      continue;
    }
    if (res.ok) return { res, controller, clear };
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
  call: { res: Response; controller: AbortController; clear: () => void },
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
