/** What a service module gives the platform, and what the platform gives it back. */
import type { ServiceApp } from './http/app.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { Database } from './storage/database.ts';
import type { Migration } from './storage/migrate.ts';

export interface ServiceContext {
  db: Database;
  dataDir: string;
  /** The current time; tests inject a controllable clock to hit exact boundaries. */
  now: () => Date;
  /**
   * The process's one durable job queue (pg-boss on the same store), started on first use and
   * stopped after the services close. Every service defines its own queue names on it.
   */
  queue: () => Promise<JobQueue>;
  /**
   * Set by `lattice serve`: load, once every service listens, what the first requests would
   * otherwise wait for (the language API's default chat model), with `/ready` at 503 until it is
   * loaded. Left out by tests and one-off commands, which start services and use few routes.
   */
  warmUp?: boolean;
}

export interface PlanInfo {
  /** Canonical name as the spec spells it; lookups ignore letter case (CONTRACT). */
  name: string;
}

export interface ServiceDefinition {
  id: string;
  title: string;
  defaultPort: number;
  migrations: readonly Migration[];
  /** Prefix of the API keys `lattice keys create --service <id>` makes. */
  keyPrefix: string;
  /** Prefix of service tokens (`--kind service-token`), where the service has them. */
  serviceTokenPrefix?: string;
  /** Plans from lowest to highest; the first is the default for new keys. */
  plans: readonly PlanInfo[];
  /** Scopes its keys may carry (`lattice keys create --scopes`); none when left out. */
  scopes?: readonly string[];
  /** Scopes of a key created without `--scopes`; none when left out. */
  defaultScopes?: readonly string[];
  /**
   * Roles its keys may carry (`lattice keys create --role`), the first being the default for a
   * new key; left out, keys are `member` or `admin`.
   */
  roles?: readonly string[];
  build(ctx: ServiceContext, options: { prefix: string }): Promise<ServiceApp>;
}

/** The canonical plan name for `name` in any letter case, or null when the service has no such plan. */
export function findPlan(service: ServiceDefinition, name: string): string | null {
  const wanted = name.trim().toLowerCase();
  return service.plans.find((p) => p.name.toLowerCase() === wanted)?.name ?? null;
}
