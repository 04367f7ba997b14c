// Queue workers handed to startWorkersLater under `lattice serve`: run once every service answers, /ready waits for them, a failure fails the start.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../config.ts';
import { createServiceApp, type ServiceApp } from '../http/app.ts';
import { startLattice } from '../server.ts';
import type { ServiceContext, ServiceDefinition } from '../service.ts';
import { call } from '../testing/harness.ts';
import { startWorkersLater } from './background.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const embeddedOnly = { skip: process.env.DATABASE_URL ? 'lattice serve on a data dir: embedded store only' : false };

async function tinyApp(service: string): Promise<ServiceApp> {
  const app = await createServiceApp({ docs: { title: service, description: 'worker start test', version: '1' }, formatError: (e) => ({ detail: e.message }) });
  app.get('/health-like', async () => ({ status: 'ok' }));
  return app;
}

const def = (id: string, build: (ctx: ServiceContext) => Promise<ServiceApp>): ServiceDefinition => ({ id, title: id, defaultPort: 0, migrations: [], keyPrefix: id, plans: [{ name: 'free' }], build });

function urlOf(app: ServiceApp): string {
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a worker start runs after every service listens; /ready says starting until it is done, then the worker takes jobs', embeddedOnly, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lattice-workers-'));
  dirs.push(dataDir);
  const apps: ServiceApp[] = [];
  let ctx!: ServiceContext;
  let listeningAtStart: boolean[] | null = null;
  let openGate!: () => void;
  const gate = new Promise<void>((r) => (openGate = r));
  const handled: unknown[] = [];
  const definitions = [
    def('one', async (c) => {
      ctx = c;
      const app = await tinyApp('one');
      apps.push(app);
      void startWorkersLater(c, 'test worker', async () => {
        listeningAtStart = apps.map((a) => a.server.listening);
        await gate;
        const queue = await c.queue();
        await queue.define('test.background');
        await queue.work('test.background', async (job) => void handled.push(job.data));
      });
      return app;
    }),
    def('two', async () => {
      const app = await tinyApp('two');
      apps.push(app);
      return app;
    }),
  ];
  const config = loadConfig({ env: { LATTICE_DRAIN_SECONDS: '0' }, flags: { dataDir }, defaults: { one: 0, two: 0 } });
  const starting = startLattice(config, definitions, () => {});
  await eventually('the worker start ran', () => listeningAtStart !== null);
  assert.deepEqual(listeningAtStart, [true, true], 'every service listened before the start ran');
  for (const app of apps) {
    assert.equal((await call(`${urlOf(app)}/health-like`)).status, 200, 'it answers while the worker starts');
    const early = await call(`${urlOf(app)}/ready`);
    assert.deepEqual([early.status, early.body], [503, { status: 'starting' }]);
  }
  openGate();
  const lattice = await starting;
  try {
    for (const app of apps) {
      const r = await call(`${urlOf(app)}/ready`);
      assert.deepEqual([r.status, r.body], [200, { status: 'ready' }]);
    }
    await (await ctx.queue()).send('test.background', { n: 1 });
    await eventually('the job taken by the worker', () => handled.length === 1);
    assert.deepEqual(handled, [{ n: 1 }]);
  } finally {
    await lattice.stop();
  }
});

test('a worker start that fails fails the server start, and its services are closed', embeddedOnly, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lattice-workers-'));
  dirs.push(dataDir);
  const definitions = [
    def('one', async (c) => {
      void startWorkersLater(c, 'test worker', async () => {
        throw new Error('no queue today');
      });
      return tinyApp('one');
    }),
  ];
  const config = loadConfig({ env: { LATTICE_DRAIN_SECONDS: '0' }, flags: { dataDir }, defaults: { one: 0 } });
  const lines: string[] = [];
  await assert.rejects(startLattice(config, definitions, (line) => lines.push(line)), /no queue today/);
  const url = /(http:\/\/\S+)/.exec(lines.join('\n'))?.[1];
  assert.ok(url, `it had listened: ${lines.join(' | ')}`);
  await assert.rejects(fetch(`${url}/health-like`), 'closed');
});
