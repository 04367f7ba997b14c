/**
 * The chat application (CONTRACT: id `chat`, port 8203): the public model catalog, console
 * users signed in with a session cookie, conversations kept in the database, streamed replies
 * under daily message limits, and its web page at `/`.
 *
 * A light descriptor: `build()` loads the application (./app.ts) when the service starts.
 * `createChatService(options)` makes one with its own settings (tests use small limits).
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import type { ChatAppOptions } from './app.ts';
import { chatMigrations } from './migrations.ts';

export function createChatService(options: ChatAppOptions = {}): ServiceDefinition {
  return {
    id: 'chat',
    title: 'Chat application',
    defaultPort: 8203,
    migrations: chatMigrations,
    // The chat application signs people in with console users; it takes no API keys. The
    // platform asks every service for a key prefix and a plan, so it has them, unused.
    keyPrefix: 'lch',
    plans: [{ name: 'standard' }],
    async build(ctx, buildOptions) {
      const { build } = await import('./app.ts');
      return build(ctx, buildOptions, options);
    },
  };
}

export const chatService: ServiceDefinition = createChatService();
