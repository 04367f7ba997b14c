/**
 * Positioning service benchmark: requests per second of GET /position/latest (bearer key,
 * rate limiter, answer prepared when the epoch was solved) next to a trivial route added to
 * the same server (no key, constant answer), measured in the same run with the live simulator
 * solving in the background at real time; and the time of POST /position without a signature,
 * with ML-DSA-65 and with ML-DSA-87 (sequential requests, each storing the position).
 * The key's plan limit (600 per minute) is lifted for the load runs, or they would measure 429s.
 */
import { createAccount, setPlan } from '../../platform/identity/accounts.ts';
import { createKey } from '../../platform/identity/keys.ts';
import { lazyQueue } from '../../platform/jobs/queue.ts';
import { allMigrations } from '../../platform/server.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { call, openTestDatabase } from '../../platform/testing/harness.ts';
import { createNavService } from '../../services/nav/service.ts';
import { measureWarm, row } from './lib/http-load.ts';

async function timePost(url: string, headers: Record<string, string>, body: unknown, n: number): Promise<{ mean: number; p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await call(url, { headers, body });
    times.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`POST /position answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
  times.sort((a, b) => a - b);
  return { mean: times.reduce((s, x) => s + x, 0) / n, p50: times[Math.floor(n / 2)]!, p95: times[Math.floor(n * 0.95)]! };
}

export async function run(): Promise<void> {
  const def = createNavService({ rate: 1, requestsPerMinute: 1e9 });
  const { db, queueSchema, close } = await openTestDatabase(allMigrations([def]));
  const queue = lazyQueue(db, { schema: queueSchema });
  const ctx: ServiceContext = { db, dataDir: '', now: () => new Date(), queue: queue.get };
  const app = await def.build(ctx, { prefix: '' });
  app.get('/bench/trivial', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  try {
    const account = await createAccount(db, { email: 'bench@example.test', name: 'Bench' });
    await setPlan(db, account.id, 'nav', 'standard');
    const { key } = await createKey(db, { accountId: account.id, service: 'nav', prefix: 'nav', kind: 'api_key', role: 'member', expiresAt: null });
    const headers = { authorization: `Bearer ${key}` };
    for (let i = 0; i < 100 && (await call(`${url}/position/latest`, { headers })).status !== 200; i++) await new Promise((r) => setTimeout(r, 200));

    console.log('-- nav: GET /position/latest beside a trivial route of the same server (simulator solving at 1 Hz meanwhile)');
    const trivial = await measureWarm({ url: `${url}/bench/trivial` });
    console.log(row('GET /bench/trivial (no key, constant)', trivial));
    const latest = await measureWarm({ url: `${url}/position/latest`, headers });
    console.log(row('GET /position/latest (bearer key)', latest, trivial));
    console.log(`   ratio latest / trivial: ${(latest.rps / trivial.rps).toFixed(2)} (aim: at least 0.8)`);

    console.log('\n-- nav: POST /position, 40 sequential requests each');
    const n = 40;
    const plain = await timePost(`${url}/position`, headers, { authenticate: false }, n);
    const ml65 = await timePost(`${url}/position`, headers, { authenticate: true, pqc_algorithm: 'ML-DSA-65' }, n);
    const ml87 = await timePost(`${url}/position`, headers, { authenticate: true, pqc_algorithm: 'ML-DSA-87' }, n);
    const line = (label: string, t: { mean: number; p50: number; p95: number }) =>
      console.log(`${label.padEnd(44)} mean ${t.mean.toFixed(2).padStart(6)} ms  p50 ${t.p50.toFixed(2).padStart(6)} ms  p95 ${t.p95.toFixed(2).padStart(6)} ms`);
    line('without signature', plain);
    line('signed ML-DSA-65', ml65);
    line('signed ML-DSA-87', ml87);
    console.log(`   signature cost: ML-DSA-65 +${(ml65.mean - plain.mean).toFixed(2)} ms, ML-DSA-87 +${(ml87.mean - plain.mean).toFixed(2)} ms per request (mean)`);
  } finally {
    await app.close();
    await queue.stop();
    await close();
  }
}
