/**
 * Mounting a service: the one way an `app.ts` wires its parts into an application. A service
 * names its app options (error shape, docs, body limit), the schemas its routes share, what it
 * starts (workers, loops, hooks of its own) and its routes; this builds the app, starts the
 * parts, stops them when the app closes, and registers the routes under the prefix.
 *
 * @example
 *   return mountService(options.prefix, {
 *     app: { formatError: formatCoreError, docs: { title: 'Core', version: '2.0.0' } },
 *     schemas: [CoreError],
 *     async start(app) {
 *       const jobs = await CoreJobs.start(ctx);
 *       return { deps: { ctx, jobs }, stop: () => jobs.stop() };
 *     },
 *     routes: [registerHealth, registerJobs],
 *   });
 */
import type { TSchema } from 'typebox';
import { createServiceApp, type ServiceApp, type ServiceAppOptions } from './app.ts';

/** What a service's `start` gives back: its routes' dependencies, and what closing the app stops. */
export interface StartedService<Deps> {
  deps: Deps;
  stop?: () => Promise<void> | void;
}

export interface ServiceParts<Deps> {
  /** The app's options but the prefix, which is the mount's. */
  app: Omit<ServiceAppOptions, 'prefix'>;
  /**
   * Schemas the routes share (`$ref`), added on the root instance: a child context that adds
   * schemas gets a validator of its own, which would coerce JSON bodies.
   */
  schemas?: readonly TSchema[];
  /** Starts what the service runs, on the app built with the options (it may add hooks of its own). */
  start(app: ServiceApp): Promise<StartedService<Deps>> | StartedService<Deps>;
  /** Routes registered under the prefix, in this order (one that reads its page's files first may be async). */
  routes: ReadonlyArray<(app: ServiceApp, deps: Deps) => Promise<void> | void>;
  /** Routes that name their full paths themselves (a page whose asset URLs carry the prefix), registered last. */
  pages?: ReadonlyArray<(app: ServiceApp, deps: Deps, prefix: string) => Promise<void> | void>;
}

/** Builds the service's app under `prefix` from its parts. */
export async function mountService<Deps>(prefix: string, parts: ServiceParts<Deps>): Promise<ServiceApp> {
  const app = await createServiceApp({ ...parts.app, prefix });
  for (const schema of parts.schemas ?? []) app.addSchema(schema);
  const { deps, stop } = await parts.start(app);
  if (stop) {
    app.addHook('onClose', async () => {
      await stop();
    });
  }
  await app.register(
    async (scope) => {
      const s = scope as unknown as ServiceApp;
      for (const register of parts.routes) await register(s, deps);
    },
    { prefix },
  );
  for (const page of parts.pages ?? []) await page(app, deps, prefix);
  return app;
}
