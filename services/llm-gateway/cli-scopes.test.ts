// `lattice keys create --service llm-gateway --scopes ...` against a running `lattice serve`,
// as an operator does it: the key carries the scopes it was given, and each route checks its own.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { call } from '../../platform/testing/harness.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');
const dir = mkdtempSync(join(tmpdir(), 'gateway-scopes-'));
const dataDir = join(dir, 'data');
const embeddedOnly = { skip: process.env.DATABASE_URL ? 'embedded store only' : false };

let server: ChildProcess | null = null;
let url = '';

function lattice(args: string[]): { status: number | null; out: any } {
  const r = spawnSync(process.execPath, [bin, ...args, '--data-dir', dataDir, '--json'], { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, DATABASE_URL: '' } });
  return { status: r.status, out: JSON.parse(r.stdout.trim().split('\n').pop() || 'null') };
}

before(async () => {
  if (process.env.DATABASE_URL) return;
  server = spawn(process.execPath, [bin, 'serve', '--only', 'llm-gateway', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', LATTICE_LLM_GATEWAY_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  server.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  server.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /llm-gateway\s+(http:\/\/\S+)/.exec(log);
      if (m && log.includes('lattice: store')) {
        clearInterval(timer);
        url = m[1]!;
        resolve();
      }
    }, 100);
    server!.once('exit', (code) => (clearInterval(timer), reject(new Error(`serve exited with ${code}: ${log}`))));
  });
});

after(async () => {
  if (server && server.exitCode === null) {
    await new Promise<void>((resolve) => {
      server!.once('exit', () => resolve());
      server!.kill('SIGTERM');
    });
  }
  rmSync(dir, { recursive: true, force: true });
});

test('--scopes models:read makes a key that reads the catalog and gets the spec’s 403 on chat', embeddedOnly, async () => {
  const created = lattice(['keys', 'create', '--service', 'llm-gateway', '--scopes', 'models:read']);
  assert.equal(created.status, 0, JSON.stringify(created.out));
  assert.deepEqual(created.out.scopes, ['models:read']);
  assert.equal(lattice(['credits', 'add', '--account', created.out.account_id, '--usd', '1']).status, 0);
  const auth = { authorization: `Bearer ${created.out.key}` };
  const models = await call(`${url}/api/v1/models`, { headers: auth });
  assert.equal(models.status, 200);
  assert.ok(models.body.data.length > 0);
  const chat = await call(`${url}/api/v1/chat/completions`, { body: { model: 'lattice-tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }, headers: auth });
  assert.equal(chat.status, 403);
  assert.deepEqual(chat.body, { error: { message: 'API key does not have chat:write scope', type: 'permission_error' } });
});

test('a key made with --scopes chat:write may chat but not read the catalog; without --scopes it has both', embeddedOnly, async () => {
  const writer = lattice(['keys', 'create', '--service', 'llm-gateway', '--scopes', 'chat:write']);
  assert.deepEqual(writer.out.scopes, ['chat:write']);
  const account = writer.out.account_id;
  assert.equal(lattice(['credits', 'add', '--account', account, '--usd', '1']).status, 0);
  const denied = await call(`${url}/api/v1/models`, { headers: { authorization: `Bearer ${writer.out.key}` } });
  assert.equal(denied.status, 403);
  assert.deepEqual(denied.body, { error: { message: 'API key does not have models:read scope', type: 'permission_error' } });
  const chat = await call(`${url}/api/v1/chat/completions`, { body: { model: 'lattice-tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }, headers: { authorization: `Bearer ${writer.out.key}` } });
  assert.equal(chat.status, 200, JSON.stringify(chat.body));
  const both = lattice(['keys', 'create', '--service', 'llm-gateway', '--account', account]);
  assert.deepEqual(both.out.scopes, ['chat:write', 'models:read']);
  assert.equal((await call(`${url}/api/v1/models`, { headers: { authorization: `Bearer ${both.out.key}` } })).status, 200);
});

test('scopes the gateway does not have, or none at all, are refused naming the ones it has', embeddedOnly, () => {
  const unknown = lattice(['keys', 'create', '--service', 'llm-gateway', '--scopes', 'models:read,chat:read']);
  assert.equal(unknown.status, 1);
  assert.equal(unknown.out.error.message, "unknown scope 'chat:read' for llm-gateway (scopes: chat:write, models:read)");
  const none = lattice(['keys', 'create', '--service', 'llm-gateway', '--scopes', ',']);
  assert.equal(none.status, 1);
  assert.match(none.out.error.message, /--scopes names no scope; give one or more of chat:write, models:read/);
});
