/**
 * Every service of a real `lattice serve`, scraped before and after real traffic: request
 * counts rise and latency histograms fill on each, the service figures move (license
 * validations, gateway calls, tokens and spend, quantum jobs and their wait, webhook
 * deliveries, positioning), process figures are there, and no label anywhere carries an id,
 * a key or a path parameter.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { services } from '../../services/index.ts';
import { call } from '../testing/harness.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');
const dataDir = mkdtempSync(join(tmpdir(), 'lattice-scrape-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));
const portEnv = Object.fromEntries(services.map((s) => [`LATTICE_${s.id.toUpperCase().replaceAll('-', '_')}_PORT`, '0']));

function lattice(args: string[]): Record<string, any> {
  const r = spawnSync(process.execPath, [bin, ...args, '--data-dir', dataDir, '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
  assert.equal(r.status, 0, `lattice ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, any>;
}

interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parse(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

const total = (series: Series[], name: string, where: Record<string, string> = {}) =>
  series.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
const has = (series: Series[], name: string, where: Record<string, string> = {}) =>
  series.some((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v));

async function scrape(url: string): Promise<Series[]> {
  const r = await fetch(`${url}/metrics`);
  assert.equal(r.status, 200, url);
  return parse(await r.text());
}

test('every service exposes /metrics whose series move with real traffic, with no id, key or path parameter in a label', { skip: process.env.DATABASE_URL ? 'embedded store only' : false, timeout: 600_000 }, async () => {
  const receiver = createServer((req, res) => req.resume().on('end', () => res.end('ok')));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

  const child = spawn(process.execPath, [bin, 'serve', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, ...portEnv, DATABASE_URL: '', LATTICE_QUANTUM_WORKERS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr.on('data', (c: Buffer) => (log += c.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => log.includes('lattice: store') && (clearInterval(timer), resolve()), 100);
      child.once('exit', (code) => (clearInterval(timer), reject(new Error(`serve exited with ${code}: ${log}`))));
    });
    const urls: Record<string, string> = {};
    for (const m of log.matchAll(/^(\S+)\s+(http:\/\/\S+)\s+\(docs/gm)) urls[m[1]!] = m[2]!;
    assert.deepEqual(Object.keys(urls).sort(), services.map((s) => s.id).sort());
    // Keys and credit through the running server's socket (a command each, one at a time).
    const licensing = lattice(['keys', 'create', '--service', 'licensing']);
    const account = licensing.account_id as string;
    const keyOf = (service: string) => lattice(['keys', 'create', '--service', service, '--account', account]).key as string;
    const keys: Record<string, string> = { licensing: licensing.key };
    for (const id of ['licensing-c', 'qcos', 'llm-gateway', 'llm', 'core', 'platform', 'runtime', 'suppliers', 'nav']) keys[id] = keyOf(id);
    lattice(['credits', 'add', '--account', account, '--usd', '20']);
    const artifact = lattice(['licenses', 'issue', '--account', account, '--entitlements', 'feature:export']);

    const before: Record<string, Series[]> = {};
    for (const [id, url] of Object.entries(urls)) before[id] = await scrape(url);

    // Traffic on every service: health, and a real call where one is cheap.
    for (const url of Object.values(urls)) assert.equal((await call(`${url}/health`)).status, 200);
    const bearer = (id: string) => ({ authorization: `Bearer ${keys[id]}` });
    const xkey = (id: string) => ({ 'x-api-key': keys[id]! });
    const a = await call(`${urls.licensing}/api/v1/v2/validate`, { headers: bearer('licensing'), body: { artifact_compact: artifact.artifact_compact } });
    assert.equal(a.body.is_valid, true);
    const b = await call(`${urls.licensing}/api/v1/licenses/generate`, { headers: xkey('licensing'), body: { end_customer_id: 'c-1' } });
    const licenseKey = b.body.license_key as string;
    await call(`${urls.licensing}/api/v1/licenses/validate`, { headers: xkey('licensing'), body: { license_key: licenseKey, end_customer_id: 'c-1' } });
    await call(`${urls.licensing}/api/v1/licenses/validate`, { headers: xkey('licensing'), body: { license_key: licenseKey, end_customer_id: 'someone-else' } });
    const c = await call(`${urls['licensing-c']}/api/v1/licenses/generate`, { headers: bearer('licensing-c'), body: { end_customer_id: 'c-2', features: ['f'] } });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    await call(`${urls['licensing-c']}/api/v1/licenses/validate`, { headers: bearer('licensing-c'), body: { license_key: c.body.license_key } });
    const chat = await call(`${urls['llm-gateway']}/api/v1/chat/completions`, { headers: bearer('llm-gateway'), body: { model: 'lattice-tiny', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 } });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    const hook = await call(`${urls.qcos}/v2/webhooks`, { headers: xkey('qcos'), body: { url: hookUrl, events: ['job.completed'], secret: 'scrape-hook-secret' } });
    assert.equal(hook.status, 201);
    const job = await call(`${urls.qcos}/v2/circuits`, {
      headers: xkey('qcos'),
      body: { circuit: { qasm: 'OPENQASM 2.0; include "qelib1.inc"; qreg q[2]; creg c[2]; h q[0]; cx q[0],q[1]; measure q -> c;', format: 'qasm2' }, backend: 'statevector_simulator', shots: 50 },
    });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    const jobId = String(job.body.job_id ?? job.body.id);
    // An id in a path: the route template is counted, never the id.
    await call(`${urls.qcos}/v2/jobs/${jobId}`, { headers: xkey('qcos') });
    await call(`${urls.licensing}/api/v1/licenses/${licenseKey}`, { headers: xkey('licensing') });
    for (const id of ['core', 'platform', 'runtime', 'suppliers', 'nav', 'llm', 'chat']) await call(`${urls[id]}/no/such/${jobId}`, { headers: bearer(id) });

    // The job finishes and its webhook is delivered; nav publishes epochs on its own.
    const deadline = Date.now() + 90_000;
    let after: Record<string, Series[]> = {};
    for (;;) {
      for (const [id, url] of Object.entries(urls)) after[id] = await scrape(url);
      const done =
        total(after.qcos!, 'lattice_webhook_deliveries_total') > 0 &&
        has(after.nav!, 'lattice_nav_satellites_used') &&
        total(after.qcos!, 'lattice_quantum_queue_wait_seconds_count') > 0;
      if (done || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 1000));
    }

    for (const [id, series] of Object.entries(after)) {
      const own = series.filter((s) => s.name === 'lattice_http_requests_total');
      assert.ok(own.every((s) => s.labels.service === id), `${id} shows only its own requests`);
      assert.ok(total(series, 'lattice_http_requests_total') > total(before[id]!, 'lattice_http_requests_total'), `${id}: request count rose`);
      assert.ok(total(series, 'lattice_http_request_duration_seconds_count', { route: '/health' }) > 0, `${id}: latency histogram filled`);
      assert.ok(has(series, 'nodejs_eventloop_lag_seconds') && has(series, 'nodejs_heap_size_used_bytes'), `${id}: process figures`);
    }
    const lic = after.licensing!;
    assert.ok(total(lic, 'lattice_license_validations_total', { variant: 'a', result: 'valid' }) >= 1);
    assert.ok(total(lic, 'lattice_license_validations_total', { variant: 'b', result: 'valid' }) >= 1);
    assert.ok(total(lic, 'lattice_license_validations_total', { variant: 'b', result: 'not_found' }) >= 1);
    assert.ok(total(after['licensing-c']!, 'lattice_license_validations_total', { variant: 'c', result: 'valid' }) >= 1);
    const gw = after['llm-gateway']!;
    assert.equal(total(gw, 'lattice_gateway_calls_total', { model: 'lattice-tiny', outcome: 'ok' }), 1);
    assert.ok(total(gw, 'lattice_gateway_tokens_total', { model: 'lattice-tiny', kind: 'prompt' }) > 0);
    assert.ok(total(gw, 'lattice_gateway_spend_usd_total', { model: 'lattice-tiny' }) > 0);
    assert.ok(has(gw, 'lattice_credit_holds_open'), 'open holds are shown');
    const q = after.qcos!;
    assert.ok(total(q, 'lattice_quantum_jobs', { backend: 'statevector_simulator' }) >= 1);
    assert.ok(total(q, 'lattice_quantum_queue_wait_seconds_count', { backend: 'statevector_simulator' }) >= 1);
    assert.ok(total(q, 'lattice_webhook_deliveries_total', { outcome: 'delivered', attempt: 'first' }) >= 1);
    assert.ok(has(q, 'lattice_quantum_workers', { state: 'busy' }) && has(q, 'lattice_quantum_workers', { state: 'idle' }));
    assert.ok(has(q, 'lattice_quantum_queue_length') || total(q, 'lattice_quantum_jobs', { state: 'queued' }) === 0);
    for (const family of ['lattice_nav_fix', 'lattice_nav_satellites_used', 'lattice_nav_spoofing_detected', 'lattice_nav_holdover', 'lattice_nav_fix_age_seconds']) {
      assert.ok(has(after.nav!, family), family);
    }

    // No label value is an id, a key or a path with a parameter filled in.
    const secrets = [account, licenseKey, String(c.body.license_key), jobId, ...Object.values(keys)];
    for (const [id, series] of Object.entries(after)) {
      for (const s of series) {
        for (const [label, value] of Object.entries(s.labels)) {
          for (const secret of secrets) assert.ok(!value.includes(secret), `${id} ${s.name}{${label}} carries an id or key`);
          assert.doesNotMatch(value, /[a-z]+_[0-9a-f]{24}|[0-9a-f]{8}-[0-9a-f]{4}-|LTC-|LQK-|[A-Za-z]+_[A-Za-z0-9]{32}/, `${id} ${s.name}{${label}="${value}"}`);
          if (label === 'route') assert.ok(value === 'unmatched' || !/\/no\/such\//.test(value), `${id}: a raw path as route: ${value}`);
        }
      }
    }
    assert.ok(has(after.qcos!, 'lattice_http_requests_total', { route: '/v2/jobs/:job_id' }) || after.qcos!.some((s) => s.labels.route?.startsWith('/v2/jobs/:')), 'the job route by its template');
  } finally {
    child.kill('SIGTERM');
    receiver.close();
    await new Promise((r) => setTimeout(r, 500));
  }
});
