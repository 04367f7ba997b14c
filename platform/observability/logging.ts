/**
 * The JSON log of every service (pino, as Fastify writes it): one line per request at `info`
 * and one per failure at `error`, at the level of the configuration (LATTICE_LOG_LEVEL).
 *
 * Secrets never reach a line. The request lines carry only chosen fields (no URL, headers or
 * body, since a path or query may hold a key); every line, whatever a caller passes, then goes
 * through `scrub`: fields named like a secret are censored, and text shaped like key material
 * (API keys, bearer tokens, license keys, cookies, PEM blocks) is cut out of any string, so an
 * error message that quotes a rejected key does not leak it either.
 */
import type { FastifyServerOptions } from 'fastify';

const CENSORED = '[redacted]';

/** Field names whose values are secrets wherever they appear in a logged object. */
const SECRET_FIELD = /pass(word)?|secret|token|authorization|cookie|api[-_]?key|license[-_]?key|private|credential|master[-_]?key/i;

/**
 * Key material by its shape: API keys and service tokens (`prefix_` then 32+ base62; ids have
 * 24 hex and stay readable), bearer credentials, variant B (`LTC-...`) and Q (`LQK-...`)
 * license keys, a cookie header's values, PEM blocks and `whsec_` webhook secrets.
 */
const SECRET_TEXT = [
  /\b[A-Za-z][A-Za-z0-9]{1,15}_[A-Za-z0-9]{32,}\b/g,
  /\bBearer\s+\S+/gi,
  /\bLTC(?:-[0-9A-Fa-f]{4}){8}\b/g,
  /\bLQK(?:-[0-9A-Za-z]{4}){3}\b/g,
  /-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g,
  /\b(?:lattice_console|lattice_session|session|sid)=[^;\s]+/gi,
  /\bwhsec_[A-Za-z0-9+/=_-]+/g,
];

export function scrubText(text: string): string {
  let out = text;
  for (const pattern of SECRET_TEXT) out = out.replace(pattern, CENSORED);
  return out;
}

/** A copy of `value` with secret fields censored and key material cut out of strings. */
export function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  // Errors are written by their serializer below, which scrubs what they hold.
  if (value instanceof Error) return value;
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_FIELD.test(key) && (typeof v === 'string' || (typeof v === 'object' && v !== null)) ? CENSORED : scrub(v, depth + 1);
  }
  return out;
}

/** Errors as pino's `err` serializer writes them, with message, stack and causes scrubbed. */
function serializeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return scrub(err);
  const e = err as Error & { code?: unknown; statusCode?: unknown; cause?: unknown };
  return {
    type: e.name,
    message: scrubText(e.message),
    ...(e.code !== undefined ? { code: e.code } : {}),
    ...(e.statusCode !== undefined ? { statusCode: e.statusCode } : {}),
    stack: e.stack ? scrubText(e.stack) : undefined,
    ...(e.cause !== undefined && depth < 4 ? { cause: serializeError(e.cause, depth + 1) } : {}),
  };
}

/** Fastify's logger options for a service: the configured level, scrubbed lines. */
export function loggerOptions(level: string): NonNullable<FastifyServerOptions['logger']> {
  const serializers = { err: serializeError, error: serializeError } as unknown as Record<string, never>;
  return {
    level,
    serializers,
    formatters: {
      log: (object) => scrub(object) as Record<string, unknown>,
    },
    hooks: {
      // A message string passed to a log call is scrubbed too.
      logMethod(args, method) {
        method.apply(
          this,
          args.map((a) => (typeof a === 'string' ? scrubText(a) : a)) as Parameters<typeof method>,
        );
      },
    },
  };
}
