/**
 * One service's refusals in the body shape its spec names, from its catalogue of codes: the
 * error constructor routes throw, and the formatter that puts every failure (the service's own
 * and the platform's: malformed JSON, schema failures, unknown routes, rate limits) in that
 * shape. Every service formats its errors through this; a service keeps only its codes, where
 * the platform's refusals land, and its body (the shapes several services share are here and
 * in envelope.ts).
 *
 * @example
 * const shape = errorShape({
 *   codes: { INVALID_REQUEST: 400, NOT_FOUND: 404, INTERNAL_ERROR: 500 },
 *   platform: { invalid: 'INVALID_REQUEST', notFound: 'NOT_FOUND', internal: 'INTERNAL_ERROR' },
 *   body: nestedErrorBody,
 * });
 * throw shape.error('NOT_FOUND', 'No such job', { job_id: id });
 */
import { Type } from 'typebox';
import { ApiError, type ErrorFormatter, type ErrorInfo } from './errors.ts';

/** Where the platform's own refusals land in a service's catalogue. */
export interface PlatformTargets<C extends string> {
  /** Malformed JSON, oversized bodies, bad requests, and any other refusal below 500 the catalogue does not know. */
  invalid: C;
  /** Schema failures (wrong types, missing fields); left out, `invalid`. */
  validation?: C;
  /** A body that is not JSON (415); left out, `invalid`. */
  unsupportedMediaType?: C;
  /** The platform's own rate limit (`rate_limited`, 429); left out, as any refusal the catalogue does not know. */
  rateLimited?: C;
  /** Unknown routes. */
  notFound: C;
  /** Failures of the server, and any 5xx the catalogue does not know. */
  internal: C;
  /**
   * For a spec whose codes follow the HTTP status (401, 403, 404, 429): every refusal the
   * catalogue does not know answers by its status alone, whatever the platform's code
   * (a status not listed: `internal` on a 5xx, `invalid` otherwise).
   */
  byStatus?: Readonly<Partial<Record<number, C>>>;
}

export function errorShape<const Codes extends Record<string, number>>(options: {
  /** Code to HTTP status, in the order OpenAPI lists them. */
  codes: Codes;
  platform: PlatformTargets<keyof Codes & string>;
  /** The body of a refusal, given its catalogue code. */
  body: (code: keyof Codes & string, error: ErrorInfo, requestId: string) => unknown;
}) {
  type Code = keyof Codes & string;
  const { codes, platform, body } = options;
  const fromPlatform = new Map<string, Code>([
    ['validation_error', platform.validation ?? platform.invalid],
    ['invalid_json', platform.invalid],
    ['body_too_large', platform.invalid],
    ['bad_request', platform.invalid],
    ['unsupported_media_type', platform.unsupportedMediaType ?? platform.invalid],
    ['not_found', platform.notFound],
    ['internal_error', platform.internal],
  ]);
  if (platform.rateLimited) fromPlatform.set('rate_limited', platform.rateLimited);

  /** The catalogue code an error answers with: a code the catalogue does not know never reaches a client. */
  function codeOf(error: ErrorInfo): Code {
    if (Object.hasOwn(codes, error.code)) return error.code as Code;
    const known = platform.byStatus ? platform.byStatus[error.status] : fromPlatform.get(error.code);
    return known ?? (error.status >= 500 ? platform.internal : platform.invalid);
  }

  function error(code: Code, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): ApiError {
    return new ApiError(codes[code]!, code, message, extra, headers);
  }

  const format: ErrorFormatter = (e, requestId) => body(codeOf(e), e, requestId);
  return { error, format, codeOf };
}

/** `{error: {code, message, details}, request_id}`: interface 1's body, which the runtime shares. */
export function nestedErrorBody(code: string, error: ErrorInfo, requestId: string) {
  return { error: { code, message: error.message, details: error.extra ?? {} }, request_id: requestId };
}

/** The OpenAPI schema of `nestedErrorBody` for a catalogue. */
export function nestedErrorSchema(codes: Record<string, number>, $id: string, description: string) {
  return Type.Object(
    {
      error: Type.Object({
        code: Type.String({ enum: Object.keys(codes) }),
        message: Type.String(),
        details: Type.Record(Type.String(), Type.Unknown()),
      }),
      request_id: Type.String(),
    },
    { $id, description },
  );
}

/**
 * `{detail: <message>}`, the body of the licensing variants: their refusals carry no code (a
 * client reads the status and the words), so there is no catalogue to map onto, only the body
 * and its schema, declared once under `$id`.
 */
export function detailShape($id: string, description: string) {
  const format: ErrorFormatter = (error) => ({ detail: error.message });
  const schema = Type.Object({ detail: Type.String({ description: 'What went wrong, in words.' }) }, { $id, description });
  return { format, schema };
}
