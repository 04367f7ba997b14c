/**
 * Interface 2 errors: `{detail, error_code, supplier, request_id}` with the spec's codes and
 * statuses. `supplier` names the supplier whose route answered (null on the shared routes).
 * Beyond the spec's table (decided in README.md): INVALID_PARAMETERS (400: malformed JSON,
 * oversized bodies, bad values), VALIDATION_ERROR (422: wrong types, missing fields),
 * RATE_LIMITED and JOB_LIMIT_EXCEEDED (429), INSUFFICIENT_CREDITS and LICENSE_REQUIRED (403),
 * JOB_NOT_CANCELLABLE (400), NOT_FOUND (404: unknown routes, batches, webhooks).
 */
import { Type } from 'typebox';
import { errorShape } from '../../platform/http/error-shape.ts';

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

const shape = errorShape({
  codes: SUPPLIER_CODES,
  platform: { invalid: 'INVALID_PARAMETERS', validation: 'VALIDATION_ERROR', notFound: 'NOT_FOUND', internal: 'INTERNAL_ERROR' },
  body: (code, error, requestId) => {
    const { supplier, ...rest } = error.extra ?? {};
    return { detail: error.message, error_code: code, supplier: (supplier as string | undefined) ?? null, request_id: requestId, ...rest };
  },
});

/** An error of interface 2: `supplierError(code, detail, extra?, headers?)`; `extra.supplier` names the supplier. */
export const supplierError = shape.error;

/** The supplier a path belongs to, for the `supplier` field of its errors. */
export function supplierOfPath(path: string): string | null {
  const m = /\/(supplier_a_quantum|supplier_b_quantum|supplier_c)(\/|$)/.exec(path);
  if (m) return m[1]!;
  // The legacy routes (outside /api/v1) run on the HPC GPU supplier.
  if (!path.includes('/api/v1/') && /\/(execute|status\/[^/]+)$/.test(path)) return 'hpc_gpu';
  return null;
}

export const formatSupplierError = shape.format;

export const SupplierErrorBody = Type.Object(
  {
    detail: Type.String(),
    error_code: Type.String({ enum: Object.keys(SUPPLIER_CODES) }),
    supplier: Type.Union([Type.String(), Type.Null()]),
    request_id: Type.String(),
  },
  { $id: 'SupplierError', description: 'Error body of interface 2 (and of the interface 4 routes on this service).', additionalProperties: true },
);
