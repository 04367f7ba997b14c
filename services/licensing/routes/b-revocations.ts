/** GET /api/v1/revocations — revoked license keys of the calling account, all or since a time. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { DetailError } from '../errors.ts';
import { parseIsoDateTime } from '../keys/format.ts';
import { revokedKeys } from '../keys/store.ts';
import { TAG_B, apiKeySecurity, type VariantBDeps } from './b-context.ts';

export function registerRevocations(app: ServiceApp, deps: VariantBDeps): void {
  app.get(
    '/api/v1/revocations',
    {
      preValidation: deps.apiKeyAuth,
      schema: {
        tags: [TAG_B],
        summary: 'Revocation list for offline clients (pass the previous `timestamp` as `since`)',
        security: apiKeySecurity,
        querystring: Type.Object({
          since: Type.Optional(
            Type.String({ maxLength: 64, description: 'ISO 8601; revocations at or after it. Without a zone, UTC.' }),
          ),
        }),
        response: {
          200: Type.Object({ revoked_ids: Type.Array(Type.String()), count: Type.Integer(), timestamp: Type.String() }),
          '4xx': DetailError,
        },
      },
    },
    async (req) => {
      let since: Date | null = null;
      if (req.query.since !== undefined) {
        since = parseIsoDateTime(req.query.since);
        if (!since) throw new ApiError(400, 'invalid_since', 'since must be an ISO 8601 datetime');
      }
      // The timestamp is taken before the read, so passing it back as `since` never skips a revocation.
      const timestamp = deps.ctx.now().toISOString();
      const ids = await revokedKeys(deps.ctx.db, identityOf(req).accountId, since);
      return { revoked_ids: ids, count: ids.length, timestamp };
    },
  );
}
