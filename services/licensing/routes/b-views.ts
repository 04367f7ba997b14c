/** The variant B license views (list item and detail), shared by the routes that return them. */
import { Type } from 'typebox';
import { formatValidUntil } from '../keys/format.ts';
import { LICENSE_STATUSES, statusOf, type LicenseRow } from '../keys/store.ts';

export const LicenseListItem = Type.Object(
  {
    id: Type.Integer(),
    license_key: Type.String(),
    end_customer_id: Type.String(),
    features: Type.Array(Type.String()),
    valid_until: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS, UTC, no timezone suffix' }),
    created_at: Type.String(),
    status: Type.Enum([...LICENSE_STATUSES]),
    revoked: Type.Boolean(),
  },
  { $id: 'LicenseListItem' },
);

export const LicenseDetail = Type.Object(
  {
    id: Type.Integer(),
    license_key: Type.String(),
    end_customer_id: Type.String(),
    features: Type.Array(Type.String()),
    valid_until: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS, UTC, no timezone suffix' }),
    created_at: Type.String(),
    quantum_signature: Type.String(),
    qcos_fidelity: Type.String({ description: 'decimal text of the fidelity measured at generation' }),
    status: Type.Enum([...LICENSE_STATUSES]),
    revoked: Type.Boolean(),
    revoked_at: Type.Union([Type.String(), Type.Null()]),
    revoked_reason: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  },
  { $id: 'LicenseDetail' },
);

export function listItem(row: LicenseRow, now: Date) {
  return {
    id: row.id,
    license_key: row.license_key,
    end_customer_id: row.end_customer_id,
    features: row.features,
    valid_until: formatValidUntil(row.valid_until),
    created_at: row.created_at.toISOString(),
    status: statusOf(row, now),
    revoked: row.revoked_at !== null,
  };
}

export function detail(row: LicenseRow, now: Date) {
  return {
    ...listItem(row, now),
    quantum_signature: row.quantum_signature,
    qcos_fidelity: String(row.qcos_fidelity),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    revoked_reason: row.revoked_reason,
    metadata: row.metadata,
  };
}
