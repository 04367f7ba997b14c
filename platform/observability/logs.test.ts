/**
 * The log of a real `lattice serve` at level info: one JSON line per request with the fields an
 * operator filters on, and none of the secrets that the requests carried, in any line. Then the
 * stop: `/ready` turns to 503 `draining` on SIGTERM while the process still answers.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { call } from '../testing/harness.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');
const dataDir = mkdtempSync(join(tmpdir(), 'lattice-logs-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));
const ports = { LATTICE_LICENSING_PORT: '0', LATTICE_QCOS_PORT: '0', LATTICE_LLM_GATEWAY_PORT: '0' };

function lattice(args: string[]): Record<string, any> {
  const out = spawnSync(process.execPath, [bin, ...args, '--data-dir', dataDir, '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
  assert.equal(out.status, 0, `lattice ${args.join(' ')}: ${out.stdout}${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!) as Record<string, any>;
}

test('one JSON line per request with id, service, route, status, duration and account; no secret in any line; /ready drains on SIGTERM', { skip: process.env.DATABASE_URL ? 'embedded store only' : false, timeout: 240_000 }, async () => {
  const licensingKey = lattice(['keys', 'create', '--service', 'licensing']);
  const qcosKey = lattice(['keys', 'create', '--service', 'qcos']);
  const gatewayKey = lattice(['keys', 'create', '--service', 'llm-gateway']);
  const password = 'correct-horse-battery-staple-77';
  lattice(['console-users', 'create', '--email', 'ops@example.test', '--password', password, '--account', gatewayKey.account_id]);

  const child = spawn(process.execPath, [bin, 'serve', '--only', 'licensing,qcos,llm-gateway', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, ...ports, DATABASE_URL: '', LATTICE_LOG_LEVEL: 'info', LATTICE_DRAIN_SECONDS: '2' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr.on('data', (c: Buffer) => (log += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => log.includes('lattice: store') && (clearInterval(timer), resolve()), 100);
      void exited.then((code) => (clearInterval(timer), reject(new Error(`serve exited with ${code}: ${log}`))));
    });
    const urls: Record<string, string> = {};
    for (const m of log.matchAll(/^(\S+)\s+(http:\/\/\S+)\s+\(docs/gm)) urls[m[1]!] = m[2]!;
    const secrets: string[] = [licensingKey.key, qcosKey.key, gatewayKey.key, password];

    // API keys in both header styles, valid and not; a license key in the body and in the path.
    const generated = await call(`${urls.licensing}/api/v1/licenses/generate`, { headers: { 'x-api-key': licensingKey.key }, body: { end_customer_id: 'cust-1' } });
    assert.equal(generated.status, 201, JSON.stringify(generated.body));
    const licenseKey: string = generated.body.license_key;
    secrets.push(licenseKey);
    assert.equal((await call(`${urls.licensing}/api/v1/licenses/validate`, { headers: { 'x-api-key': licensingKey.key }, body: { license_key: licenseKey, end_customer_id: 'cust-1' } })).status, 200);
    assert.equal((await call(`${urls.licensing}/api/v1/licenses/${licenseKey}`, { headers: { 'x-api-key': licensingKey.key } })).status, 200);
    const madeUp = `lic_${'Z'.repeat(32)}`;
    secrets.push(madeUp);
    assert.equal((await call(`${urls.licensing}/api/v1/licenses/validate`, { headers: { 'x-api-key': madeUp }, body: { license_key: licenseKey, end_customer_id: 'x' } })).status, 401);

    // A webhook secret, in a good registration and in a refused one.
    const webhookSecret = 'whook-secret-5f1e9c2d7a';
    const badSecret = 'whook-secret-refused-0b3a';
    secrets.push(webhookSecret, badSecret);
    const qh = { 'x-api-key': qcosKey.key };
    assert.equal((await call(`${urls.qcos}/v2/webhooks`, { headers: qh, body: { url: 'http://127.0.0.1:9/hook', events: ['job.completed'], secret: webhookSecret } })).status, 201);
    assert.equal((await call(`${urls.qcos}/v2/webhooks`, { headers: qh, body: { url: 'ftp://nowhere', events: ['job.completed'], secret: badSecret } })).status, 400);

    // A password (right and wrong) and the session cookie it opens.
    const wrongPassword = 'not-the-password-41';
    secrets.push(wrongPassword);
    assert.equal((await call(`${urls['llm-gateway']}/api/auth/login`, { body: { email: 'ops@example.test', password: wrongPassword } })).status, 401);
    const login = await fetch(`${urls['llm-gateway']}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.test', password }) });
    assert.equal(login.status, 200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    secrets.push(cookie.split('=')[1]!);
    assert.equal((await call(`${urls['llm-gateway']}/api/auth/me`, { headers: { cookie } })).status, 200);
    // Accepted (an empty workspace answers 402, not 401).
    assert.notEqual((await call(`${urls['llm-gateway']}/api/v1/models`, { headers: { authorization: `Bearer ${gatewayKey.key}` } })).status, 401);

    // The lines are written as the answers leave; give the last ones a moment.
    await new Promise((r) => setTimeout(r, 300));
    const lines = log.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
    const requests = lines.filter((l) => l.msg === 'request');
    assert.ok(requests.length >= 10, `${requests.length} request lines`);
    for (const line of requests) {
      assert.equal(line.level, 30, 'info');
      assert.match(line.reqId, /^req_/);
      assert.ok(['licensing', 'qcos', 'llm-gateway'].includes(line.service), line.service);
      assert.equal(typeof line.status, 'number');
      assert.equal(typeof line.duration_ms, 'number');
      assert.ok(line.route.startsWith('/') || line.route === 'unmatched');
    }
    const validate = requests.find((l) => l.route === '/api/v1/licenses/:license_key');
    assert.equal(validate?.account_id, licensingKey.account_id, 'the account of an authenticated request');
    assert.equal(validate?.status, 200);
    assert.ok(requests.some((l) => l.route === '/api/auth/login' && l.status === 401));
    for (const secret of secrets) assert.ok(!log.includes(secret), `a secret (${secret.slice(0, 6)}...) reached the log`);

    // Draining: /ready was polled, so SIGTERM answers 503 draining for the drain period first.
    assert.deepEqual((await call(`${urls.qcos}/ready`)).body, { status: 'ready' });
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const draining = await call(`${urls.qcos}/ready`);
    assert.deepEqual([draining.status, draining.body], [503, { status: 'draining' }]);
    assert.equal((await call(`${urls.licensing}/health`)).status, 200, 'still answering while draining');
    assert.equal(await exited, 0);
  } finally {
    child.kill('SIGKILL');
  }
});
