/** Console API keys: POST/GET /api/api-keys, PATCH/DELETE /api/api-keys/{id} (session cookie, never an API key). */
import { announceChange } from '../../../platform/storage/changes.ts';
import { KEY_LIMIT_CHANGES } from '../gateway.ts';
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { GatewayError, errors } from '../errors.ts';
import { checkScopes, createConsoleKey, getKey, listKeys, revokeConsoleKey, updateKey, type KeyPatch } from '../keys.ts';
import { TAG_CONSOLE, cookieSecurity, type GatewayDeps } from './context.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const KeyView = Type.Object(
  {
    id: Type.String(),
    name: Nullable(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Nullable(Type.String({ format: 'date-time' })),
    lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
    scopes: Type.Array(Type.String()),
    spendLimit: Nullable(Type.Number({ description: 'US dollars this key may spend in all (charges plus open holds); null: no limit' })),
    rpmLimit: Nullable(Type.Integer({ description: 'requests per UTC minute; null: no limit' })),
    tpmLimit: Nullable(Type.Integer({ description: 'tokens per UTC minute; null: no limit' })),
  },
  { $id: 'GatewayApiKey' },
);

const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const MAX_SPEND_USD = 1_000_000;
const MAX_RATE = 100_000_000;

function name(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 100) throw errors.invalid('name must be a non-empty string of at most 100 characters');
  return value.trim();
}

function limit(value: unknown, field: string, max: number, integer: boolean): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max || (integer && !Number.isInteger(value))) {
    throw errors.invalid(`${field} must be null or a ${integer ? 'whole number' : 'number'} from 0 to ${max}`);
  }
  return value;
}

export function registerApiKeys(app: ServiceApp, deps: GatewayDeps): void {
  const db = deps.ctx.db;
  app.post(
    '/api/api-keys',
    {
      preHandler: deps.session,
      schema: {
        tags: [TAG_CONSOLE],
        summary: 'Create an API key; its secret is in this answer only',
        security: cookieSecurity,
        body: Type.Object(
          {
            name: Type.Unknown({ description: 'label of the key' }),
            scopes: Type.Optional(Type.Unknown({ description: 'what the key may do: a non-empty list of chat:write, models:read; both when left out' })),
          },
          { additionalProperties: false },
        ),
        response: {
          // The spec's four fields; the key's scopes are in the list.
          201: Type.Object({ id: Type.String(), name: Type.String(), key: Type.String({ description: 'the secret, shown once' }), createdAt: Type.String({ format: 'date-time' }) }),
          '4xx': GatewayError,
        },
      },
    },
    async (req, reply) => {
      const body = req.body as { name?: unknown; scopes?: unknown };
      const scopes = body.scopes === undefined ? undefined : checkScopes(body.scopes);
      const created = await createConsoleKey(db, deps.sessions.of(req).accountId, name(body.name), scopes);
      reply.code(201).header('cache-control', 'no-store');
      return created;
    },
  );
  app.get(
    '/api/api-keys',
    {
      preHandler: deps.session,
      schema: { tags: [TAG_CONSOLE], summary: 'The workspace keys (never their secrets)', security: cookieSecurity, response: { 200: Type.Object({ data: Type.Array(KeyView) }), '4xx': GatewayError } },
    },
    async (req) => {
      // Finished calls are written first, so that lastUsedAt includes them.
      await deps.gateway.leases.flush();
      return { data: await listKeys(db, deps.sessions.of(req).accountId) };
    },
  );
  app.patch(
    '/api/api-keys/:id',
    {
      preHandler: deps.session,
      schema: {
        tags: [TAG_CONSOLE],
        summary: 'Rename a key or change its limits (null removes a limit)',
        security: cookieSecurity,
        params: IdParams,
        body: Type.Object(
          { name: Type.Optional(Type.Unknown()), spendLimit: Type.Optional(Type.Unknown()), rpmLimit: Type.Optional(Type.Unknown()), tpmLimit: Type.Optional(Type.Unknown()) },
          { additionalProperties: false },
        ),
        response: { 200: KeyView, '4xx': GatewayError },
      },
    },
    async (req) => {
      const accountId = deps.sessions.of(req).accountId;
      const { id } = req.params as { id: string };
      await getKey(db, accountId, id);
      const b = req.body as Record<string, unknown>;
      const patch: KeyPatch = {};
      if ('name' in b) patch.name = name(b.name);
      if ('spendLimit' in b) {
        const usd = limit(b.spendLimit, 'spendLimit', MAX_SPEND_USD, false);
        patch.spendLimitMicros = usd === null ? null : Math.round(usd * 1e6);
      }
      if ('rpmLimit' in b) patch.rpmLimit = limit(b.rpmLimit, 'rpmLimit', MAX_RATE, true);
      if ('tpmLimit' in b) patch.tpmLimit = limit(b.tpmLimit, 'tpmLimit', MAX_RATE, true);
      // This process's leases of the key were placed under the old limits: their charges are
      // written and what they have left given back before the key's spend is recounted.
      if (patch.spendLimitMicros !== undefined) await deps.gateway.leases.retireKey(id);
      const updated = await updateKey(db, accountId, id, patch);
      deps.gateway.forgetLimits(id);
      // Every other process drops its copy of the limits and retires its leases of the key too.
      await announceChange(db, KEY_LIMIT_CHANGES, id);
      return updated;
    },
  );
  app.delete(
    '/api/api-keys/:id',
    {
      preHandler: deps.session,
      schema: {
        tags: [TAG_CONSOLE],
        summary: 'Revoke a key permanently; its next use answers 401 Invalid or expired API key',
        security: cookieSecurity,
        params: IdParams,
        response: { 200: Type.Object({ id: Type.String(), revoked: Type.Boolean() }), '4xx': GatewayError },
      },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      await revokeConsoleKey(db, deps.sessions.of(req).accountId, id);
      deps.gateway.keys.clear();
      return { id, revoked: true };
    },
  );
}
