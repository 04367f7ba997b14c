/** Schemas shared by the variant A routes. */
import { Type } from 'typebox';

export const IsoDateTime = Type.String({ format: 'date-time' });

export const Fingerprint = Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), {
  maxProperties: 32,
  description: 'Device properties with string values, e.g. cpu_id, disk_serial, mac_address, motherboard_serial.',
});

export const ValidationResult = Type.Object(
  {
    is_valid: Type.Boolean(),
    status: Type.Enum(['valid', 'grace_period', 'expired', 'revoked', 'not_yet_valid', 'binding_mismatch', 'signature_invalid']),
    error: Type.Union([Type.String(), Type.Null()]),
    error_message: Type.Union([Type.String(), Type.Null()]),
    license_id: Type.String(),
    entitlements: Type.Array(Type.String()),
    expires_at: Type.String(),
    in_grace_period: Type.Boolean(),
    binding_verified: Type.Boolean(),
    revocation_epoch: Type.Integer(),
  },
  { $id: 'ValidationResult' },
);

export const bearerSecurity = [{ bearerAuth: [] }];
