/**
 * The positioning and timing service (interface 7) as its own service (CONTRACT: id `nav`,
 * port 8401, bearer keys, plan `standard` at 600 requests per minute per key, the
 * `{success, data}` envelope): a live receiver (simulator, gpsd or a replayed log) solved in
 * the background, position, time, spoofing, holdover, evidence and integrity routes.
 * This descriptor stays light; `build` loads the engine and routes.
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import { NAV_KEY_PREFIX } from './ids.ts';
import { navMigrations } from './migrations.ts';
import type { NavSettings } from './settings.ts';

/** The service with settings (tests and benchmarks); the default reads the environment at start. */
export function createNavService(overrides: Partial<NavSettings> = {}): ServiceDefinition {
  return {
    id: 'nav',
    title: 'Positioning and timing (interface 7)',
    defaultPort: 8401,
    migrations: navMigrations,
    keyPrefix: NAV_KEY_PREFIX,
    plans: [{ name: 'standard' }],
    async build(ctx, options) {
      const [{ buildNavApp }, { settingsFromEnv }] = await Promise.all([import('./app.ts'), import('./settings.ts')]);
      return buildNavApp(ctx, options, { ...settingsFromEnv(), ...overrides });
    },
  };
}

export const navService: ServiceDefinition = createNavService();
