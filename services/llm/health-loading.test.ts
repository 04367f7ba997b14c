// The default chat model and /health: while it loads, /health answers at once (`starting`,
// inference `loading`); `lattice serve` loads it after the services listen, /ready waiting;
// a model that cannot load leaves the start to complete and /health `degraded`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BUILTIN_MODEL_PATH } from '../../engines/language/config.ts';
import { isModelLoading, loadModel, unloadAll } from '../../engines/language/local/runtime.ts';
import { loadConfig } from '../../platform/config.ts';
import { createServiceApp, type ServiceApp } from '../../platform/http/app.ts';
import { startLattice } from '../../platform/server.ts';
import type { ServiceDefinition } from '../../platform/service.ts';
import { call } from '../../platform/testing/harness.ts';
import { llmService } from './service.ts';
import { startLlm } from './testing.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test('while the model loads, /health says starting with inference loading; once loaded, healthy', async () => {
  const s = await startLlm();
  try {
    // Nothing in this process has loaded it yet (the test service does not warm up).
    const loading = loadModel(BUILTIN_MODEL_PATH);
    assert.equal(isModelLoading(BUILTIN_MODEL_PATH), true);
    const early = await s.req('/health', '');
    assert.equal(early.status, 200);
    assert.equal(early.body.status, 'starting');
    assert.equal(early.body.components.inference.status, 'loading');
    assert.match(early.body.components.inference.detail, /lattice-tiny is loading/);
    assert.equal(early.body.components.database.status, 'ok');
    await loading;
    assert.equal(isModelLoading(BUILTIN_MODEL_PATH), false);
    const later = await s.req('/health', '');
    assert.equal(later.body.status, 'healthy');
    assert.equal(later.body.components.inference.status, 'ok');
    assert.match(later.body.components.inference.detail, /tokenizer ok/);
  } finally {
    await s.close();
  }
});

test('a failed load ends the loading state (the next load tries again)', async () => {
  const missing = join(tmpdir(), 'lattice-no-such-model.gguf');
  await assert.rejects(loadModel(missing), /does not exist/);
  assert.equal(isModelLoading(missing), false);
  // Not cached: the next call loads again (and fails again, the file still missing).
  const again = loadModel(missing);
  assert.equal(isModelLoading(missing), true);
  await assert.rejects(again, /does not exist/);
  assert.equal(isModelLoading(missing), false);
});

test('lattice serve loads the default chat model once every service listens; /health says starting until then, /ready waits', { skip: process.env.DATABASE_URL ? 'lattice serve on a data dir: embedded store only' : false }, async () => {
  await unloadAll();
  const dataDir = mkdtempSync(join(tmpdir(), 'lattice-llm-warm-'));
  dirs.push(dataDir);
  // A second service whose build waits for the test: the llm service listens, the held starts do not run yet.
  const built: ServiceApp[] = [];
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  const definitions: ServiceDefinition[] = [
    {
      ...llmService,
      build: async (ctx, o) => {
        const app = await llmService.build(ctx, o);
        built.push(app);
        return app;
      },
    },
    {
      id: 'gate',
      title: 'gate',
      defaultPort: 0,
      migrations: [],
      keyPrefix: 'gate',
      plans: [{ name: 'free' }],
      build: async () => {
        await gate;
        return createServiceApp({ docs: { title: 'gate', description: 'holds the start', version: '1' }, formatError: (e) => ({ detail: e.message }) });
      },
    },
  ];
  const config = loadConfig({ env: { LATTICE_DRAIN_SECONDS: '0' }, flags: { dataDir }, defaults: { llm: 0, gate: 0 } });
  const starting = startLattice(config, definitions, () => {});
  const until = Date.now() + 60_000;
  while (!built[0]?.server.listening) {
    if (Date.now() > until) assert.fail('the llm service did not listen');
    await new Promise((r) => setTimeout(r, 20));
  }
  const address = built[0]!.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // Asked before the load has begun: starting, and the question does not load the model itself.
  const early = await call(`${url}/health`);
  assert.equal(early.body.status, 'starting');
  assert.equal(early.body.components.inference.status, 'loading');
  assert.equal(isModelLoading(BUILTIN_MODEL_PATH), false, '/health did not start a load of its own');
  assert.equal((await call(`${url}/ready`)).status, 503);
  openGate();
  const lattice = await starting;
  try {
    // The start ended after the load: the model is in memory, and nobody asked for it.
    void loadModel(BUILTIN_MODEL_PATH);
    assert.equal(isModelLoading(BUILTIN_MODEL_PATH), false, 'loaded by the start, not by this call');
    assert.deepEqual((await call(`${url}/ready`)).body, { status: 'ready' });
    const h = await call(`${url}/health`);
    assert.equal(h.body.status, 'healthy');
    assert.equal(h.body.components.inference.status, 'ok');
  } finally {
    await lattice.stop();
  }
});

test('lattice serve with a default chat model that cannot load: the start completes, /ready is 200, /health is degraded with the reason', { skip: process.env.DATABASE_URL ? 'lattice serve on a data dir: embedded store only' : false }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lattice-llm-bad-model-'));
  dirs.push(dataDir);
  const model = join(dataDir, 'broken.gguf');
  writeFileSync(model, 'not a model');
  const modelsFile = join(dataDir, 'models.json');
  writeFileSync(modelsFile, JSON.stringify({ models: [{ id: 'broken', provider: 'local', path: model, capabilities: ['chat'] }], default_chat_model: 'broken' }));
  const saved = process.env.LATTICE_MODELS;
  process.env.LATTICE_MODELS = modelsFile;
  try {
    const config = loadConfig({ env: { LATTICE_DRAIN_SECONDS: '0' }, flags: { dataDir, only: 'llm' }, defaults: { llm: 0 } });
    const lattice = await startLattice(config, [llmService], () => {});
    try {
      const url = lattice.services[0]!.url;
      assert.deepEqual((await call(`${url}/ready`)).body, { status: 'ready' });
      const h = await call(`${url}/health`);
      assert.equal(h.status, 200);
      assert.equal(h.body.status, 'degraded');
      assert.equal(h.body.components.inference.status, 'error');
      assert.match(h.body.components.inference.detail, /is not a GGUF file/);
      assert.equal(h.body.components.database.status, 'ok');
    } finally {
      await lattice.stop();
    }
  } finally {
    if (saved === undefined) delete process.env.LATTICE_MODELS;
    else process.env.LATTICE_MODELS = saved;
  }
});
