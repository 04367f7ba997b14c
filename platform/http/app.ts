/**
 * Builds the Fastify application of one service: schema validation, the service's error
 * shape for every failure (validation, malformed JSON, oversized bodies, NUL bytes, unknown
 * routes, crashes), a request id on every response, and the documentation routes.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyRequest, type FastifySchemaCompiler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError, type ErrorFormatter, type ErrorInfo } from './errors.ts';
import { registerDocs, type DocsInfo } from './docs.ts';
import type { ErrorObject } from 'ajv';
import { closeRequestSchema, createValidatorCompiler, unexpectedBodyField, validationMessage } from './validation.ts';
import { installObservability } from '../observability/http.ts';
import { loggerOptions } from '../observability/logging.ts';

export type ServiceApp = FastifyInstance<
  import('node:http').Server,
  import('node:http').IncomingMessage,
  import('node:http').ServerResponse,
  import('fastify').FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface ServiceAppOptions {
  docs: DocsInfo;
  formatError: ErrorFormatter;
  /** Path prefix the whole service is mounted under ('' for none). */
  prefix?: string;
  /** Largest accepted request body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Status for schema validation failures: 400 by default, 422 where a spec says so. */
  validationStatus?: 400 | 422;
  logLevel?: string;
  /**
   * The service id its metrics and log lines carry; the server names each service it starts
   * (`nameService`), so a service's own code need not pass it.
   */
  service?: string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
}

/**
 * How much of an oversized body is read and thrown away before its error is sent: a client
 * that writes its whole body before reading (most do) then reads the answer instead of a
 * reset connection. Past this bound, or this time, the connection is closed after the answer.
 */
const DRAIN_BYTES = 16 * 1024 * 1024;
const DRAIN_MS = 10_000;

function drainBody(raw: import('node:http').IncomingMessage): Promise<void> {
  if (raw.complete || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', finish).off('error', finish).off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_BYTES) finish();
    };
    const timer = setTimeout(finish, DRAIN_MS);
    raw.on('data', onData).on('end', finish).on('error', finish).on('close', finish);
    raw.resume();
  });
}

// PostgreSQL stores no NUL character in text or jsonb (22021, 22P05): such a value is the
// client's mistake, refused before any handler runs so that nothing is half written; the
// database's own refusal of such text is mapped to the same 400 as a second guard.
const NUL_MESSAGE = 'Text may not contain a NUL character (\\u0000 or %00)';
const ENCODED_NUL = /%00/;

/** Whether a parsed body holds a NUL in any string or key; a loop, as bodies may nest deeper than the stack. */
function holdsNul(body: unknown): boolean {
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes('\0')) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
      for (const [key, v] of Object.entries(value)) {
        if (key.includes('\0')) return true;
        pending.push(v);
      }
    }
  }
  return false;
}

/**
 * Compiles each route's validator and response serializer on its first use instead of at
 * start: compiling every route's schemas is most of a service's start-up (half a second for
 * a large one), while a route pays a few ms once.
 */
function compileOnFirstUse(compile: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
  return (route) => {
    let compiled: ReturnType<FastifySchemaCompiler<unknown>> | null = null;
    const validate: ReturnType<FastifySchemaCompiler<unknown>> = (data) => {
      compiled ??= compile(route);
      const result = compiled(data);
      validate.errors = compiled.errors;
      return result;
    };
    return validate;
  };
}

type SerializerFactory = (externalSchemas: unknown, options: unknown) => (route: unknown) => (data: unknown) => string;

/** Fastify's own serializer factory (fast-json-stringify), loaded as Fastify loads it, compiling lazily. */
function serializersOnFirstUse(): SerializerFactory {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const selector = fromFastify('@fastify/fast-json-stringify-compiler') as () => SerializerFactory;
  const factory = selector();
  return (externalSchemas, options) => (route) => {
    let serialize: ((data: unknown) => string) | null = null;
    // A fresh factory per route: Fastify's compiler edits its shared options for a schema with an $id.
    return (data) => (serialize ??= factory(externalSchemas, options)(route))(data);
  };
}

/** Maps any thrown value to the status, code and message the client may see. */
function describe(err: unknown, validationStatus: number): ErrorInfo {
  if (err instanceof ApiError) {
    return { status: err.status, code: err.code, message: err.message, extra: err.extra };
  }
  const e = err as FastifyError;
  if (e.validation) {
    const message = validationMessage(e.validationContext ?? 'request', e.validation as unknown as ErrorObject[]);
    return { status: validationStatus, code: 'validation_error', message, extra: {} };
  }
  switch (e.code) {
    case '22021': // invalid byte sequence for UTF8 (a NUL in text)
    case '22P05': // untranslatable character (a \u0000 in jsonb)
      return { status: 400, code: 'validation_error', message: NUL_MESSAGE, extra: {} };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      // The contract: oversized bodies are a 400 in the service's own shape.
      return { status: 400, code: 'body_too_large', message: 'Request body is too large', extra: {} };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'invalid_json', message: `Malformed JSON body: ${e.message}`, extra: {} };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type', message: 'Content-Type must be application/json', extra: {} };
  }
  if (e instanceof SyntaxError) {
    return { status: 400, code: 'invalid_json', message: `Malformed JSON body: ${e.message}`, extra: {} };
  }
  const status = typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : 500;
  if (status < 500) return { status, code: 'bad_request', message: e.message, extra: {} };
  return { status: 500, code: 'internal_error', message: 'Internal server error', extra: {} };
}

export async function createServiceApp(options: ServiceAppOptions): Promise<ServiceApp> {
  const prefix = options.prefix ?? '';
  const app = Fastify({
    logger: loggerOptions(options.logLevel ?? process.env.LATTICE_LOG_LEVEL ?? 'warn'),
    // One line per request is written by the observability hook, with the route template
    // instead of the URL (a path or query may carry a key).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    genReqId: requestIdOf,
    routerOptions: { ignoreTrailingSlash: true },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false } },
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse() } },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(compileOnFirstUse(createValidatorCompiler()));
  // Unknown body and query fields are refused, not dropped (validation.ts says why).
  app.addHook('onRoute', (route) => {
    route.schema = closeRequestSchema(route.schema);
  });
  // Specs whose clients send `Content-Type: application/json` on every request (variant A,
  // variant P) send it on a bodiless POST or DELETE too: an empty body is no body, not
  // malformed JSON. Anything else goes to Fastify's own parser (and its poisoning guards).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    body === '' ? done(null, undefined) : parseJson(req, body as string, done),
  );
  installObservability(app, prefix, options.service ?? options.docs.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'));
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (ENCODED_NUL.test(req.url)) throw new ApiError(400, 'validation_error', NUL_MESSAGE);
  });
  // After the route's own authentication (preValidation), before any handler reads the body.
  app.addHook('preHandler', (req, _reply, done) => {
    if (holdsNul(req.body)) return done(new ApiError(400, 'validation_error', NUL_MESSAGE));
    const stray = unexpectedBodyField(req.method, req.routeOptions.schema, req.body);
    done(stray === null ? undefined : new ApiError(options.validationStatus ?? 400, 'validation_error', `body.${stray} is not a known field; this route takes no body`));
  });

  const validationStatus = options.validationStatus ?? 400;
  app.setErrorHandler(async (err, req: FastifyRequest, reply) => {
    const info = describe(err, validationStatus);
    if (info.status >= 500) req.log.error({ err, route: req.routeOptions.url ?? 'unmatched' }, 'request failed');
    if (err instanceof ApiError) reply.headers(err.headers);
    if ((err as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE') await drainBody(req.raw);
    return reply.code(info.status).type('application/json').send(options.formatError(info, req.id));
  });
  app.setNotFoundHandler((req, reply) => {
    const info: ErrorInfo = {
      status: 404,
      code: 'not_found',
      message: `Route ${req.method} ${req.url.split('?')[0]} not found`,
      extra: {},
    };
    reply.code(404).type('application/json').send(options.formatError(info, req.id));
  });

  await registerDocs(app, options.docs, prefix);
  return app as unknown as ServiceApp;
}
