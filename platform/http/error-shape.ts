/**
 * One service's refusals in the body shape its spec names, from its catalogue of codes: the
 * error constructor routes throw, and the formatter that puts every failure (the service's own
 * and the platform's: malformed JSON, schema failures, unknown routes) in that shape. A service
 * keeps only its codes, where the platform's refusals land, and its body. (Core and nav, whose
 * specs name the `{success, data}` envelope, use envelope.ts.)
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
  /** Malformed JSON, oversized bodies, bad requests, unsupported media types, and any other refusal below 500 the catalogue does not know. */
  invalid: C;
  /** Schema failures (wrong types, missing fields); left out, `invalid`. */
  validation?: C;
  /** Unknown routes. */
  notFound: C;
  /** Failures of the server, and any 5xx the catalogue does not know. */
  internal: C;
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
  const fromPlatform: Record<string, Code> = {
    validation_error: platform.validation ?? platform.invalid,
    invalid_json: platform.invalid,
    body_too_large: platform.invalid,
    bad_request: platform.invalid,
    unsupported_media_type: platform.invalid,
    not_found: platform.notFound,
    internal_error: platform.internal,
  };

  /** The catalogue code an error answers with: a code the catalogue does not know never reaches a client. */
  function codeOf(error: ErrorInfo): Code {
    return fromPlatform[error.code] ?? (error.code in codes ? (error.code as Code) : error.status >= 500 ? platform.internal : platform.invalid);
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
