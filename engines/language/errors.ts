/**
 * The language engine's one error type. `code` is stable and says what went wrong; `status`
 * is the HTTP status a service should answer with (upstream statuses pass through faithfully),
 * and `retryable` says whether repeating the same call can succeed.
 */
export type LanguageErrorCode =
  | 'invalid_request'
  | 'model_not_found'
  | 'context_length_exceeded'
  | 'model_file_invalid'
  | 'upstream_timeout'
  | 'upstream_unavailable'
  | 'upstream_error'
  | 'upstream_bad_response'
  | 'rate_limited'
  | 'authentication_failed'
  | 'index_invalid'
  | 'training_failed';

const STATUS: Record<LanguageErrorCode, number> = {
  invalid_request: 400,
  model_not_found: 400,
  context_length_exceeded: 400,
  model_file_invalid: 500,
  upstream_timeout: 504,
  upstream_unavailable: 503,
  upstream_error: 502,
  upstream_bad_response: 502,
  rate_limited: 429,
  authentication_failed: 401,
  index_invalid: 400,
  training_failed: 500,
};

export class LanguageError extends Error {
  readonly code: LanguageErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  /** Seconds the upstream asked us to wait (from Retry-After), when it said. */
  readonly retryAfter?: number;

  constructor(
    code: LanguageErrorCode,
    message: string,
    opts: { status?: number; retryable?: boolean; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'LanguageError';
    this.code = code;
    this.status = opts.status ?? STATUS[code];
    this.retryable = opts.retryable ?? false;
    if (opts.retryAfter !== undefined) this.retryAfter = opts.retryAfter;
  }
}

export function invalid(message: string): LanguageError {
  return new LanguageError('invalid_request', message);
}
