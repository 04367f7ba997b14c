/**
 * The one error type routes throw. Each service family turns it into the body shape its spec
 * names through an ErrorFormatter, so a handler never builds an error body by hand.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** Stable machine code, e.g. `not_found`, `invalid_api_key`, `rate_limited`. */
    readonly code: string,
    message: string,
    /** Extra fields some shapes carry (interface 2's `supplier`, Q's `param`...). */
    readonly extra: Record<string, unknown> = {},
    /** Response headers that belong to this error (Retry-After on 429). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ErrorInfo {
  status: number;
  code: string;
  message: string;
  extra: Record<string, unknown>;
}

/** Builds the service's error body from an error and the request id. */
export type ErrorFormatter = (error: ErrorInfo, requestId: string) => unknown;

export const badRequest = (message: string, code = 'invalid_request') => new ApiError(400, code, message);
export const unauthorized = (message = 'Invalid or missing API key', code = 'invalid_api_key') =>
  new ApiError(401, code, message);
export const forbidden = (message: string, code = 'forbidden') => new ApiError(403, code, message);
export const notFound = (message: string, code = 'not_found') => new ApiError(404, code, message);
export const conflict = (message: string, code = 'conflict') => new ApiError(409, code, message);
export const tooManyRequests = (message: string, retryAfterSeconds?: number, code = 'rate_limited') =>
  new ApiError(429, code, message, {}, retryAfterSeconds ? { 'retry-after': String(retryAfterSeconds) } : {});
