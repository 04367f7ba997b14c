/**
 * The gateway's application: the model catalog and registry, the call pipeline, the routes.
 * Loaded by `build()` in service.ts only when the service starts.
 */
import { loadConfig, type LanguageConfig } from '../../engines/language/config.ts';
import { ModelRegistry } from '../../engines/language/registry.ts';
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { keyAuthenticatorFor } from '../../platform/identity/key-cache.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { buildCatalog } from './catalog.ts';
import { GatewayError, errors, formatGatewayError, gatewayError } from './errors.ts';
import { Gateway, type GatewayOptions } from './gateway.ts';
import { registerApiKeys } from './routes/api-keys.ts';
import { registerAuth } from './routes/auth.ts';
import { registerChatCompletions } from './routes/chat-completions.ts';
import { registerConsolePage } from './routes/console-page.ts';
import { apiKeyHook, type GatewayDeps } from './routes/context.ts';
import { registerHealth } from './routes/health.ts';
import { registerModels } from './routes/models.ts';
import { registerUsage } from './routes/usage.ts';
import { ConsoleSessions } from '../../platform/http/session.ts';
import { GATEWAY_KEY_PREFIX } from './scopes.ts';

export interface GatewayBuildOptions extends GatewayOptions {
  prefix: string;
  /** The language engine's model configuration; default: LATTICE_MODELS or the built-in model. */
  models?: LanguageConfig;
}

/** The call pipeline of each app built here, kept as long as its app (a WeakMap: a closed, dropped app takes its entry along). */
const gateways = new WeakMap<ServiceApp, Gateway>();

/** The call pipeline of a built app (tests flush its leases to read the ledger at once). */
export function gatewayOf(app: ServiceApp): Gateway | undefined {
  return gateways.get(app);
}

export async function build(ctx: ServiceContext, options: GatewayBuildOptions): Promise<ServiceApp> {
  const config = options.models ?? loadConfig();
  const catalog = buildCatalog(config);
  return mountService<GatewayDeps>(options.prefix, {
    app: {
      // Long conversations fit; a body above this is a 400 in the spec's error shape.
      bodyLimit: 4 * 1024 * 1024,
      formatError: formatGatewayError,
      docs: {
        title: 'Lattice language-model gateway (variant P)',
        version: '1.0.0',
        description:
          'OpenAI-compatible chat completions (whole and streamed) and the model catalog under /api/v1, paid from the workspace prepaid credits; ' +
          'the console API under /api (session cookie) for API keys, balance and spend; the console web page at /.',
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: `An API key (${GATEWAY_KEY_PREFIX}_...) from the console or lattice keys create --service llm-gateway` },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: 'lattice_console', description: 'Set by POST /api/auth/login' },
        },
      },
    },
    schemas: [GatewayError],
    async start(app) {
      // Every body here is JSON (spec: every request carries Content-Type: application/json). Without
      // Fastify's text/plain parser a text/plain body is 415 `Content-Type must be application/json`
      // like any other type, instead of a string that failed validation as a 400.
      app.removeContentTypeParser('text/plain');
      if (catalog.unpriced.length) {
        app.log.warn(`llm-gateway: models without "pricing" are not served: ${catalog.unpriced.join(', ')}`);
      }
      const models = new ModelRegistry(config);
      const gateway = new Gateway(ctx, models, catalog, await keyAuthenticatorFor(ctx.db), options);
      await gateway.startRepair();
      gateways.set(app, gateway);
      const sessions = new ConsoleSessions(ctx.db, {
        table: 'llm_gateway_sessions',
        cookie: 'lattice_console',
        path: `${options.prefix}/`,
        now: ctx.now,
        notAuthenticated: errors.notAuthenticated,
        badCredentials: () => gatewayError(401, 'authentication_error', 'Invalid email or password'),
      });
      const deps: GatewayDeps = { ctx, gateway, prefix: options.prefix, apiKey: apiKeyHook(gateway), sessions, session: sessions.required() };
      const stop = async (): Promise<void> => {
        await gateway.close();
        await models.close();
      };
      return { deps, stop };
    },
    routes: [registerHealth, registerChatCompletions, registerModels, registerAuth, registerApiKeys, registerUsage, registerConsolePage],
  });
}
