/**
 * Test harness: a fresh, migrated database per test file (in-memory PGlite by default, loaded
 * from a migrated dump (storage/store-template.ts); a private schema on the PostgreSQL server when
 * DATABASE_URL is set, dropped afterwards), and
 * services listening on a real port so tests speak HTTP to them.
 */
import { randomBytes } from 'node:crypto';
import type { ServiceApp } from '../http/app.ts';
import { createAccount, setPlan } from '../identity/accounts.ts';
import { createKey, type KeyKind } from '../identity/keys.ts';
import { lazyQueue } from '../jobs/queue.ts';
import { nameService } from '../observability/http.ts';
import { prepareSecrets } from '../secrets/index.ts';
import { allMigrations } from '../server.ts';
import type { ServiceContext, ServiceDefinition } from '../service.ts';
import { openPglite, openPostgres, type Database } from '../storage/database.ts';
import { migrate, type Migration } from '../storage/migrate.ts';
import { migratedDump } from '../storage/store-template.ts';

/** One master key per test process: every test database seals its secrets under it. */
const TEST_MASTER_KEY = randomBytes(32).toString('base64');

export interface TestDatabase {
  db: Database;
  /** Schema for the job queue: a private one on a shared PostgreSQL server, so test files never take each other's jobs. */
  queueSchema: string;
  close(): Promise<void>;
}

export async function openTestDatabase(migrations: readonly Migration[]): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const admin = openPostgres({ connectionString: url, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    const db = openPostgres({ connectionString: url, options: `-c search_path=${schema}` });
    await migrate(db, migrations);
    await prepareSecrets(db, null, { LATTICE_MASTER_KEY: TEST_MASTER_KEY });
    return {
      db,
      queueSchema: `pgboss_${schema}`,
      async close() {
        await db.close();
        await admin.exec(`DROP SCHEMA ${schema} CASCADE`);
        await admin.exec(`DROP SCHEMA IF EXISTS pgboss_${schema} CASCADE`);
        await admin.close();
      },
    };
  }
  // No autovacuum: a test's store lives for seconds, and its passes (vacuums and analyzes of the
  // tables a test fills) added about 3 s to a test file; embedded-autovacuum.test.ts tests it.
  const db = await openPglite(null, { loadDataDir: await migratedDump(migrations), autovacuumMs: 0 });
  await prepareSecrets(db, null, { LATTICE_MASTER_KEY: TEST_MASTER_KEY });
  return { db, queueSchema: 'pgboss', close: () => db.close() };
}

/** A clock tests can stop and move; it runs in real time until `set` is first called. */
export class TestClock {
  private fixed: number | null = null;
  now = (): Date => new Date(this.fixed ?? Date.now());
  set(at: Date | string): void {
    this.fixed = new Date(at).getTime();
  }
  advance(ms: number): void {
    this.fixed = (this.fixed ?? Date.now()) + ms;
  }
}

export interface TestService {
  url: string;
  app: ServiceApp;
  db: Database;
  clock: TestClock;
  ctx: ServiceContext;
  /** Creates an account with a key of this service; returns the raw key. */
  newKey(options?: { plan?: string; role?: string; kind?: KeyKind; expiresAt?: Date; accountId?: string }): Promise<{
    key: string;
    keyId: string;
    accountId: string;
  }>;
  close(): Promise<void>;
}

export async function startTestService(def: ServiceDefinition, options: { prefix?: string } = {}): Promise<TestService> {
  const { db, queueSchema, close } = await openTestDatabase(allMigrations([def]));
  const clock = new TestClock();
  // Fast maintenance and polling so that retries and expiries happen within a test's time.
  const queue = lazyQueue(db, { schema: queueSchema, maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 });
  const ctx: ServiceContext = { db, dataDir: '', now: clock.now, queue: queue.get };
  const app = await def.build(ctx, { prefix: options.prefix ?? '' });
  nameService(app, def.id);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let counter = 0;
  return {
    url: `http://127.0.0.1:${port}${options.prefix ?? ''}`,
    app,
    db,
    clock,
    ctx,
    async newKey(o = {}) {
      const accountId =
        o.accountId ??
        (await createAccount(db, { email: `user${++counter}-${randomBytes(4).toString('hex')}@example.test`, name: 'Test' })).id;
      await setPlan(db, accountId, def.id, o.plan ?? def.plans[0]!.name);
      const kind = o.kind ?? 'api_key';
      const created = await createKey(db, {
        accountId,
        service: def.id,
        prefix: kind === 'service_token' ? def.serviceTokenPrefix! : def.keyPrefix,
        kind,
        role: o.role ?? def.roles?.[0] ?? 'member',
        expiresAt: o.expiresAt ?? null,
      });
      return { key: created.key, keyId: created.id, accountId };
    },
    async close() {
      await app.close();
      await queue.stop();
      await close();
    },
  };
}

/** fetch with a JSON body; returns status, headers and the parsed body. */
export async function call(
  url: string,
  init: { method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined;
  if (init.rawBody !== undefined) body = init.rawBody;
  else if (init.body !== undefined) body = JSON.stringify(init.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  // `any`: test bodies are inspected field by field with assertions.
  return { status: response.status, headers: response.headers, body: parsed as any };
}

/** Calls to one service with the same headers (its key): GET, POST with a JSON body, a raw body, DELETE. */
export function jsonClient(base: string, headers: Record<string, string>) {
  return {
    get: (path: string) => call(`${base}${path}`, { headers }),
    post: (path: string, body?: unknown) => call(`${base}${path}`, { method: 'POST', body, headers }),
    raw: (path: string, rawBody: string, method = 'POST') => call(`${base}${path}`, { method, rawBody, headers }),
    del: (path: string) => call(`${base}${path}`, { method: 'DELETE', headers }),
  };
}
