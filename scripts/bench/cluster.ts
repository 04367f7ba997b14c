/**
 * Cluster benchmark.
 *
 * 1. The cost of a cluster-wide limit check on the hot path: one server, two routes that do the
 *    same work (read a key's identity from a header), one of them also taking a unit of a
 *    per-minute limit it never reaches (platform/limits), measured in the same run; on the
 *    embedded store and, when a server is reachable, on PostgreSQL. Aim: under 5 % added.
 * 2. Throughput of one vs two `lattice serve` processes on one PostgreSQL: variant A license
 *    validation (the same artifact; 32 connections spread over the processes) and core's
 *    rate-limited backend list.
 * The load comes from autocannon in child processes (lib/http-load.ts), 5 s per measurement.
 * On a 2-core machine two server processes and the load generator share the cores: the
 * one-vs-two figure shows what the shared store costs, not how far more cores would take it.
 */
import Fastify from 'fastify';
import { createAccount, setPlan } from '../../platform/identity/accounts.ts';
import { createKey } from '../../platform/identity/keys.ts';
import { MINUTE, WindowLimiter } from '../../platform/limits/windows.ts';
import { platformMigrations } from '../../platform/migrations.ts';
import { openPglite, openPostgres, type Database } from '../../platform/storage/database.ts';
import { migrate } from '../../platform/storage/migrate.ts';
import { call } from '../../platform/testing/harness.ts';
import { clusterDatabaseUrl, startCluster } from '../../platform/testing/cluster.ts';
import { measure, row, type LoadResult } from './lib/http-load.ts';

async function limitCost(db: Database, label: string): Promise<void> {
  const limiter = new WindowLimiter(db);
  const app = Fastify();
  const windows = [{ name: 'minute', limit: 1_000_000_000, ms: MINUTE }];
  app.get('/plain', async (req) => ({ key: req.headers['x-api-key'] }));
  app.get('/limited', async (req, reply) => {
    const taken = await limiter.take(`bench:${String(req.headers['x-api-key'])}`, windows);
    if (!taken.ok) return reply.code(429).send({ detail: 'limited' });
    return { key: req.headers['x-api-key'] };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const headers = { 'x-api-key': 'bench-key' };
  try {
    console.log(`\n-- a limit check on the hot path, ${label}`);
    const plain = await measure({ url: `http://127.0.0.1:${port}/plain`, headers });
    const limited = await measure({ url: `http://127.0.0.1:${port}/limited`, headers });
    console.log(row('route without a limit', plain));
    console.log(row('same route taking a per-minute limit', limited, plain));
    const added = (1 / limited.rps - 1 / plain.rps) * 1e6;
    console.log(`   the limit check adds ${(100 * (plain.rps / limited.rps - 1)).toFixed(1)} % to a request (${added.toFixed(1)} us of server time each; aim under 5 %)`);
    const [row0] = await db.query<{ taken: number }>("SELECT sum(taken)::float8 AS taken FROM limit_windows WHERE subject = 'bench:bench-key'");
    console.log(`   ${limited.total} requests took ${Number(row0?.taken ?? 0)} units in the table (slices not yet spent included)`);
  } finally {
    await limiter.close();
    await app.close();
  }
}

/** Runs one measurement per URL at the same time (connections split between them) and adds them up. */
async function spread(urls: string[], spec: { method?: 'GET' | 'POST'; headers: Record<string, string>; bodies?: string[] }): Promise<LoadResult> {
  const results = await Promise.all(urls.map((url) => measure({ ...spec, url, connections: Math.ceil(32 / urls.length) })));
  return {
    rps: results.reduce((s, r) => s + r.rps, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    errors: results.reduce((s, r) => s + r.errors, 0),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    total: results.reduce((s, r) => s + r.total, 0),
  };
}

async function oneVersusTwo(pgUrl: string): Promise<void> {
  const cluster = await startCluster(pgUrl, { services: ['licensing', 'core'], size: 2 });
  try {
    const account = await createAccount(cluster.db, { email: 'bench-cluster@example.test' });
    await setPlan(cluster.db, account.id, 'licensing', 'Enterprise');
    await setPlan(cluster.db, account.id, 'core', 'enterprise');
    const lic = await createKey(cluster.db, { accountId: account.id, service: 'licensing', prefix: 'lic' });
    const bearer = { authorization: `Bearer ${lic.key}` };
    const [a, b] = cluster.processes;
    const issued = await call(`${a!.urls.licensing}/api/v1/v2/licenses`, { headers: bearer, body: { entitlements: ['feature:bench'] } });
    const body = JSON.stringify({ artifact_compact: issued.body.artifact_compact });
    const validate = (p: typeof a) => `${p!.urls.licensing}/api/v1/v2/validate`;

    console.log('\n-- one vs two serve processes on one PostgreSQL (32 connections in all)');
    const one = await spread([validate(a)], { method: 'POST', headers: bearer, bodies: [body] });
    console.log(row('variant A validate, one process', one));
    const two = await spread([validate(a), validate(b)], { method: 'POST', headers: bearer, bodies: [body] });
    console.log(`${row('variant A validate, two processes', two)}  ${(two.rps / one.rps).toFixed(2)}x one process`);

    // Core's enterprise plan allows 1000 requests a minute: the rest are 429s counted by the
    // same limiter, so this measures authentication plus the cluster-wide limit either way.
    const coreKey = await createKey(cluster.db, { accountId: account.id, service: 'core', prefix: 'core' });
    const coreHeaders = { 'x-api-key': coreKey.key };
    const health = (p: typeof a) => `${p!.urls.core}/health`;
    const h1 = await spread([health(a)], { headers: coreHeaders });
    console.log(row('core /health, one process', h1));
    const h2 = await spread([health(a), health(b)], { headers: coreHeaders });
    console.log(`${row('core /health, two processes', h2)}  ${(h2.rps / h1.rps).toFixed(2)}x one process`);
    const backends = (p: typeof a) => `${p!.urls.core}/api/v2/backends`;
    const c1 = await spread([backends(a)], { headers: coreHeaders });
    console.log(`${row('core backends (keyed, limited), one process', c1)}  ${(c1.rps / h1.rps).toFixed(2)}x /health`);
    const c2 = await spread([backends(a), backends(b)], { headers: coreHeaders });
    console.log(`${row('core backends (keyed, limited), two processes', c2)}  ${(c2.rps / h2.rps).toFixed(2)}x /health`);
    const [{ taken }] = await cluster.db.query<{ taken: number }>("SELECT coalesce(sum(taken), 0)::float8 AS taken FROM limit_windows WHERE subject LIKE 'core:key:%'");
    console.log(`   core admitted ${taken} requests in all across both processes (the plan allows 1000 a minute)`);
  } finally {
    await cluster.close();
  }
}

export async function run(): Promise<void> {
  const embedded = await openPglite(null);
  await migrate(embedded, platformMigrations);
  await limitCost(embedded, 'embedded store (PGlite)');
  await embedded.close();

  const pgUrl = await clusterDatabaseUrl();
  if (!pgUrl) {
    console.log('\nno PostgreSQL server reachable (LATTICE_TEST_POSTGRES_URL / DATABASE_URL): the PostgreSQL rows are not measured');
    return;
  }
  const schema = `bench_${process.pid}`;
  const admin = openPostgres({ connectionString: pgUrl, max: 1 });
  await admin.exec(`CREATE SCHEMA ${schema}`);
  const pg = openPostgres({ connectionString: pgUrl, options: `-c search_path=${schema}` });
  try {
    await migrate(pg, platformMigrations);
    await limitCost(pg, 'PostgreSQL');
  } finally {
    await pg.close();
    await admin.exec(`DROP SCHEMA ${schema} CASCADE`);
    await admin.close();
  }
  await oneVersusTwo(pgUrl);
}
