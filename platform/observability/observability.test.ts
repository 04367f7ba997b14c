import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../config.ts';
import { createServiceApp, type ServiceApp } from '../http/app.ts';
import { startLattice } from '../server.ts';
import type { ServiceDefinition } from '../service.ts';
import { call } from '../testing/harness.ts';
import { nameService } from './http.ts';
import { counter } from './metrics.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function tinyApp(service: string, prefix = ''): Promise<{ app: ServiceApp; base: string }> {
  const app = await createServiceApp({
    prefix,
    docs: { title: service, description: 'observability test', version: '1' },
    formatError: (e) => ({ detail: e.message, code: e.code }),
  });
  nameService(app, service);
  app.get(`${prefix}/things/:id`, async (req) => ({ id: (req.params as { id: string }).id }));
  app.get(`${prefix}/boom`, async () => {
    throw new Error('exploded');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return { app, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${prefix}` };
}

/** The value of one series in Prometheus text, or 0 when it is not there. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const inside = /\{(.*)\}/.exec(line)?.[1] ?? '';
    if (Object.entries(labels).every(([k, v]) => inside.includes(`${k}="${v}"`))) return Number(line.split(' ').pop());
  }
  return 0;
}

test('/metrics counts requests by route template (never the raw path) with a latency histogram and process figures', async () => {
  const { app, base } = await tinyApp('obs-a', '/mounted');
  try {
    for (const id of ['first-secret-id', 'second-secret-id', 'third']) assert.equal((await call(`${base}/things/${id}`)).status, 200);
    assert.equal((await call(`${base}/boom`)).status, 500);
    assert.equal((await call(`${base}/nowhere/at/all`)).status, 404);
    const r = await fetch(`${base}/metrics`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    assert.equal(sample(text, 'lattice_http_requests_total', { route: '/mounted/things/:id', method: 'GET', status: '200', service: 'obs-a' }), 3);
    assert.equal(sample(text, 'lattice_http_requests_total', { route: '/mounted/boom', status: '500' }), 1);
    assert.equal(sample(text, 'lattice_http_requests_total', { route: 'unmatched', status: '404' }), 1);
    assert.equal(sample(text, 'lattice_http_request_duration_seconds_count', { route: '/mounted/things/:id', status_class: '2xx' }), 3);
    assert.ok(sample(text, 'lattice_http_request_duration_seconds_bucket', { route: '/mounted/things/:id', le: '+Inf' }) === 3);
    assert.doesNotMatch(text, /secret-id|nowhere/, 'no raw path in any label');
    for (const family of ['nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'process_cpu_user_seconds_total', 'process_resident_memory_bytes']) {
      assert.match(text, new RegExp(`^${family} \\d`, 'm'), family);
    }
    // The families of another service of the process stay on that service's /metrics.
    counter('obs-other', 'lattice_other_total', 'another service').inc();
    assert.doesNotMatch(await (await fetch(`${base}/metrics`)).text(), /lattice_other_total/);
  } finally {
    await app.close();
  }
});

test('/metrics: loopback only without a token; with LATTICE_METRICS_TOKEN only that bearer token; else a 404 in the service shape', async () => {
  const { app, base } = await tinyApp('obs-b');
  try {
    const remote = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.1.2.3' });
    assert.equal(remote.statusCode, 404);
    assert.equal(remote.json().code, 'not_found');
    const local = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    assert.equal(local.statusCode, 200);

    process.env.LATTICE_METRICS_TOKEN = 'scrape-token-123';
    try {
      assert.equal((await fetch(`${base}/metrics`)).status, 404, 'loopback without the token');
      assert.equal((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status, 404);
      const fromAfar = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.1.2.3', headers: { authorization: 'Bearer scrape-token-123' } });
      assert.equal(fromAfar.statusCode, 200);
      assert.match(fromAfar.body, /lattice_http_requests_total/);
    } finally {
      delete process.env.LATTICE_METRICS_TOKEN;
    }
  } finally {
    await app.close();
  }
});

test('/ready: 503 starting until every service of the process is up, 200 ready, 503 draining on stop while still answering', { skip: process.env.DATABASE_URL ? 'embedded store only' : false }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lattice-ready-'));
  dirs.push(dataDir);
  let releaseSecond!: () => void;
  const secondMayFinish = new Promise<void>((r) => (releaseSecond = r));
  let firstApp: ServiceApp | null = null;
  let firstUrl = '';
  const firstListening = new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      const address = firstApp?.server.address();
      if (address && typeof address === 'object') {
        firstUrl = `http://127.0.0.1:${address.port}`;
        clearInterval(poll);
        resolve();
      }
    }, 20);
  });
  const def = (id: string, build: () => Promise<ServiceApp>): ServiceDefinition => ({ id, title: id, defaultPort: 0, migrations: [], keyPrefix: id, plans: [{ name: 'free' }], build });
  const definitions = [
    def('one', async () => (firstApp = (await tinyAppUnstarted('one')))),
    def('two', async () => {
      await secondMayFinish; // still loading: the whole process is not ready
      return tinyAppUnstarted('two');
    }),
  ];
  const config = loadConfig({ env: { LATTICE_DRAIN_SECONDS: '1.5' }, flags: { dataDir }, defaults: { one: 0, two: 0 } });
  const starting = startLattice(config, definitions, () => {});
  await firstListening;
  const early = await call(`${firstUrl}/ready`);
  assert.deepEqual([early.status, early.body], [503, { status: 'starting' }]);
  assert.equal((await call(`${firstUrl}/health-like`)).status, 200, 'it already answers other requests');
  releaseSecond();
  const lattice = await starting;
  for (const s of lattice.services) {
    const r = await call(`${s.url}/ready`);
    assert.deepEqual([r.status, r.body], [200, { status: 'ready' }], s.id);
  }
  const began = Date.now();
  const stopping = lattice.stop();
  const draining = await call(`${firstUrl}/ready`);
  assert.deepEqual([draining.status, draining.body], [503, { status: 'draining' }]);
  assert.equal((await call(`${firstUrl}/health-like`)).status, 200, 'requests are still served while draining');
  await stopping;
  assert.ok(Date.now() - began >= 1400, `waited out the drain period (${Date.now() - began} ms)`);
  await assert.rejects(fetch(`${firstUrl}/ready`), 'closed after draining');
});

async function tinyAppUnstarted(service: string): Promise<ServiceApp> {
  const app = await createServiceApp({ docs: { title: service, description: 'ready test', version: '1' }, formatError: (e) => ({ detail: e.message }) });
  app.get('/health-like', async () => ({ status: 'ok' }));
  return app;
}

test('log scrubbing: fields named like secrets are censored and key material is cut out of any text, errors included', async () => {
  const { scrub } = await import('./logging.ts');
  const key = `lic_${'a1B2'.repeat(8)}`;
  const out = JSON.stringify(
    scrub({
      password: 'hunter2-long',
      nested: { webhook_secret: 'abc', note: `presented ${key} and Bearer tok.en.value`, ltc: 'LTC-9F3A-0C1B-77D2-E4A0-5B6C-1D2E-3F40-A1B2', lqk: 'LQK-ABCD-EFGH-JKMN' },
      account_id: 'acc_0123456789abcdef01234567',
      prompt_tokens: 12,
    }),
  );
  for (const secret of ['hunter2', '"abc"', key, 'tok.en.value', 'LTC-9F3A', 'LQK-ABCD']) assert.ok(!out.includes(secret), `${secret} in ${out}`);
  assert.match(out, /acc_0123456789abcdef01234567/, 'ids stay readable');
  assert.match(out, /"prompt_tokens":12/, 'counts stay readable');
});
