/** GET /api/v1/runtime/evidence/keys: the public keys that sign execution_evidence.json, without authentication (CONTRACT). */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { TAG_EVIDENCE, type RuntimeDeps } from './context.ts';

const KeysOut = Type.Object({
  keys: Type.Array(
    Type.Object({
      key_id: Type.String(),
      algorithm: Type.String(),
      public_key: Type.String({ description: 'Standard base64 of the raw public key' }),
      created_at: Type.String(),
      status: Type.String(),
    }),
  ),
});

export function registerEvidenceKeys(app: ServiceApp, deps: RuntimeDeps): void {
  app.get(
    '/api/v1/runtime/evidence/keys',
    { schema: { tags: [TAG_EVIDENCE], summary: 'Public keys of the runtime evidence signer (no authentication)', response: { 200: KeysOut } } },
    async () => deps.jobs.evidence.publicKeys(),
  );
}
