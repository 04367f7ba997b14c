/**
 * The chat application's routes, sessions, model slots and web page. Loaded by `build()` in
 * service.ts only when the service starts.
 */
import { loadConfig, type LanguageConfig } from '../../engines/language/config.ts';
import { ModelRegistry } from '../../engines/language/registry.ts';
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { ConsoleSessions } from '../../platform/http/session.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { chatConfigFromEnv, type ChatConfig } from './config.ts';
import { ChatErrorSchema, errors, formatChatError } from './errors.ts';
import { SlotModels } from './models.ts';
import { registerAuth } from './routes/auth.ts';
import type { ChatDeps } from './routes/context.ts';
import { registerConversations } from './routes/conversations.ts';
import { registerHealth } from './routes/health.ts';
import { registerMessages } from './routes/messages.ts';
import { registerModels } from './routes/models.ts';
import { registerPage } from './routes/page.ts';
import { registerUsage } from './routes/usage.ts';
import { ChatStore } from './store.ts';

export interface ChatAppOptions {
  /** Settings over those of the environment (config.ts). */
  config?: Partial<ChatConfig>;
  /** The language engine's model configuration; default: LATTICE_MODELS or the built-in model. */
  languageConfig?: LanguageConfig;
}

export const SESSION_COOKIE = 'lattice_chat';

export async function build(ctx: ServiceContext, options: { prefix: string }, appOptions: ChatAppOptions = {}): Promise<ServiceApp> {
  const config: ChatConfig = { ...chatConfigFromEnv(), ...appOptions.config };
  return mountService<ChatDeps>(options.prefix, {
    app: {
      // A message is at most 32,000 characters (up to 4 bytes each in UTF-8) plus the JSON around it.
      bodyLimit: 160 * 1024,
      formatError: formatChatError,
      docs: {
        title: 'Lattice Chat',
        version: '1.0.0',
        description:
          'The chat application: a public catalog of six models with context sizes and prices, sign-in for console users, ' +
          'conversations kept in the database, streamed replies, and daily message limits (all messages, and pro models apart).',
        securitySchemes: {
          sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'Set by POST /api/auth/login' },
        },
      },
    },
    schemas: [ChatErrorSchema],
    start() {
      const registry = new ModelRegistry(appOptions.languageConfig ?? loadConfig());
      const deps: ChatDeps = {
        ctx,
        config,
        store: new ChatStore(ctx.db),
        models: new SlotModels(registry, config),
        prefix: options.prefix,
        sessions: new ConsoleSessions(ctx.db, {
          table: 'chat_sessions',
          cookie: SESSION_COOKIE,
          path: `${options.prefix}/`,
          now: ctx.now,
          notAuthenticated: errors.notAuthenticated,
          badCredentials: errors.badCredentials,
        }),
      };
      return { deps, stop: () => registry.close() };
    },
    routes: [registerHealth, registerModels, registerAuth, registerUsage, registerConversations, registerMessages],
    // The page and its assets name their full paths (the asset URLs carry the prefix).
    pages: [registerPage],
  });
}
