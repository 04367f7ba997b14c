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
