/**
 * Interface 2 errors: `{detail, error_code, supplier, request_id}` with the spec's codes and
 * statuses. `supplier` names the supplier whose route answered (null on the shared routes).
 * Beyond the spec's table (decided in README.md): INVALID_PARAMETERS (400: malformed JSON,
 * oversized bodies, bad values), VALIDATION_ERROR (422: wrong types, missing fields),
 * RATE_LIMITED and JOB_LIMIT_EXCEEDED (429), INSUFFICIENT_CREDITS and LICENSE_REQUIRED (403),
 * JOB_NOT_CANCELLABLE (400), NOT_FOUND (404: unknown routes, batches, webhooks).
 */
import { Type } from 'typebox';
import { ApiError, type ErrorFormatter } from '../../platform/http/errors.ts';

export const SUPPLIER_CODES = {
  AUTH_REQUIRED: 401,
  AUTH_INVALID: 401,
  SUPPLIER_NOT_CONFIGURED: 503,
  PROVIDER_UNAVAILABLE: 503,
  CIRCUIT_INVALID: 400,
  QUBITS_EXCEEDED: 400,
  SHOTS_EXCEEDED: 400,
  JOB_NOT_FOUND: 404,
  JOB_FAILED: 500,
  BACKEND_ERROR: 503,
  INVALID_PARAMETERS: 400,
  VALIDATION_ERROR: 422,
  JOB_NOT_CANCELLABLE: 400,
  INSUFFICIENT_CREDITS: 403,
  LICENSE_REQUIRED: 403,
  RATE_LIMITED: 429,
  JOB_LIMIT_EXCEEDED: 429,
  NOT_FOUND: 404,
  INTERNAL_ERROR: 500,
} as const;

export type SupplierCode = keyof typeof SUPPLIER_CODES;

export function supplierError(code: SupplierCode, detail: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): ApiError {
  return new ApiError(SUPPLIER_CODES[code], code, detail, extra, headers);
}

/** Codes the platform raises for requests refused before a route runs. */
const PLATFORM: Record<string, SupplierCode> = {
  validation_error: 'VALIDATION_ERROR',
  invalid_json: 'INVALID_PARAMETERS',
  body_too_large: 'INVALID_PARAMETERS',
  bad_request: 'INVALID_PARAMETERS',
  unsupported_media_type: 'INVALID_PARAMETERS',
  not_found: 'NOT_FOUND',
  internal_error: 'INTERNAL_ERROR',
};

/** The supplier a path belongs to, for the `supplier` field of its errors. */
export function supplierOfPath(path: string): string | null {
  const m = /\/(supplier_a_quantum|supplier_b_quantum|supplier_c)(\/|$)/.exec(path);
  if (m) return m[1]!;
  // The legacy routes (outside /api/v1) run on the HPC GPU supplier.
  if (!path.includes('/api/v1/') && /\/(execute|status\/[^/]+)$/.test(path)) return 'hpc_gpu';
  return null;
}

export const formatSupplierError: ErrorFormatter = (error, requestId) => {
  const code = PLATFORM[error.code] ?? (error.code in SUPPLIER_CODES ? error.code : error.status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_PARAMETERS');
  const { supplier, ...rest } = error.extra ?? {};
  return { detail: error.message, error_code: code, supplier: (supplier as string | undefined) ?? null, request_id: requestId, ...rest };
};

export const SupplierErrorBody = Type.Object(
  {
    detail: Type.String(),
    error_code: Type.String({ enum: Object.keys(SUPPLIER_CODES) }),
    supplier: Type.Union([Type.String(), Type.Null()]),
    request_id: Type.String(),
  },
  { $id: 'SupplierError', description: 'Error body of interface 2 (and of the interface 4 routes on this service).', additionalProperties: true },
);
