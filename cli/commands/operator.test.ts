import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { call } from '../../platform/testing/harness.ts';
import { services } from '../../services/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');
// Port 0 everywhere: the OS picks free ports and `serve` logs the URLs it got.
const portEnv = Object.fromEntries(services.map((s) => [`LATTICE_${s.id.toUpperCase().replaceAll('-', '_')}_PORT`, '0']));

function lattice(args: string[], dataDir: string): Record<string, unknown> {
  const out = spawnSync(process.execPath, [bin, ...args, '--data-dir', dataDir, '--json'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '' },
  });
  assert.equal(out.status, 0, `lattice ${args.join(' ')}: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

function startServe(dataDir: string): Promise<{ child: ChildProcess; urls: Record<string, string>; log: () => string }> {
  const child = spawn(process.execPath, [bin, 'serve', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, ...portEnv, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${log}`)), 120_000);
    const check = setInterval(() => {
      if (!log.includes('lattice: store')) return;
      clearInterval(check);
      clearTimeout(timer);
      const urls: Record<string, string> = {};
      for (const m of log.matchAll(/^(\S+)\s+(http:\/\/\S+)\s+\(docs/gm)) urls[m[1]!] = m[2]!;
      resolve({ child, urls, log: () => log });
    }, 100);
    child.once('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${log}`));
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('lattice serve and the operator commands', { skip: process.env.DATABASE_URL ? 'runs on the embedded store only' : false }, () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lattice-op-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('commands work while serve runs, and nothing is lost across a restart', async () => {
    const first = await startServe(dataDir);
    let artifact: string;
    let licenseId: string;
    let key: string;
    try {
      for (const s of services) assert.ok(first.urls[s.id], `${s.id} logged its URL`);
      const licensing = first.urls.licensing!;

      const account = lattice(['accounts', 'create', '--email', 'operator@example.test', '--company', 'Op Co'], dataDir);
      assert.match(String(account.account_id), /^acc_/);
      const created = lattice(['keys', 'create', '--service', 'licensing', '--account', String(account.account_id), '--plan', 'BUSINESS'], dataDir);
      assert.equal(created.plan, 'Business');
      assert.equal(created.account_id, account.account_id);
      key = String(created.key);
      assert.match(key, /^lic_[A-Za-z0-9]{32}$/);

      const issued = lattice(['licenses', 'issue', '--account', String(account.account_id), '--entitlements', 'feature:sso,seats:25', '--grace-days', '7'], dataDir);
      artifact = String(issued.artifact_compact);
      licenseId = String(issued.license_id);
      const auth = { authorization: `Bearer ${key}` };
      const valid = await call(`${licensing}/api/v1/v2/validate`, { headers: auth, body: { artifact_compact: artifact } });
      assert.equal(valid.body.status, 'valid');
      assert.deepEqual(valid.body.entitlements, ['feature:sso', 'seats:25']);
      const revoked = await call(`${licensing}/api/v1/v2/revoke`, { headers: auth, body: { license_id: licenseId, reason: 'administrative' } });
      assert.equal(revoked.status, 200);

      const balance = lattice(['credits', 'add', '--account', String(account.account_id), '--usd', '12.5'], dataDir);
      assert.equal(balance.balance_usd, 12.5);
      const user = lattice(['console-users', 'create', '--email', 'console@example.test', '--password', 'correct horse', '--account', String(account.account_id)], dataDir);
      assert.equal(user.account_id, account.account_id);
      const spare = lattice(['keys', 'create', '--service', 'licensing'], dataDir);
      // Used once, so that the running server has the key in its cache...
      assert.equal((await call(`${licensing}/api/v1/v2/revocation`, { headers: { authorization: `Bearer ${spare.key}` } })).status, 200);
      assert.deepEqual(lattice(['keys', 'revoke', '--id', String(spare.id)], dataDir), { id: spare.id, revoked: true });
      // ...and the revocation, made through the store's socket, reaches that cache before the next request.
      const refused = await call(`${licensing}/api/v1/v2/revocation`, { headers: { authorization: `Bearer ${spare.key}` } });
      assert.equal(refused.status, 401);
    } finally {
      assert.equal(await stop(first.child), 0);
    }
    assert.match(first.log(), /SIGTERM/);
    assert.equal(existsSync(join(dataDir, 'lattice.lock')), false);

    // The store is closed: commands now open it directly.
    const offline = lattice(['accounts', 'create', '--email', 'offline@example.test'], dataDir);
    assert.match(String(offline.account_id), /^acc_/);

    const second = await startServe(dataDir);
    try {
      const licensing = second.urls.licensing!;
      const auth = { authorization: `Bearer ${key}` };
      const after = await call(`${licensing}/api/v1/v2/validate`, { headers: auth, body: { artifact_compact: artifact } });
      assert.equal(after.body.status, 'revoked');
      assert.equal(after.body.revocation_epoch, 1);
      const set = await call(`${licensing}/api/v1/v2/revocation`, { headers: auth });
      assert.deepEqual(set.body.revoked_ids, [licenseId]);
    } finally {
      assert.equal(await stop(second.child), 0);
    }
  });

  test('bad operator input stops with a message and exit code 1', () => {
    const out = spawnSync(process.execPath, [bin, 'keys', 'create', '--service', 'licensing', '--plan', 'platinum', '--data-dir', dataDir], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '' },
    });
    assert.equal(out.status, 1);
    assert.match(out.stderr, /unknown plan 'platinum'/);
    const port = spawnSync(process.execPath, [bin, 'serve', '--data-dir', dataDir], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, LATTICE_LICENSING_PORT: 'eighty', DATABASE_URL: '' },
    });
    assert.equal(port.status, 1);
    assert.match(port.stderr, /LATTICE_LICENSING_PORT must be a port number/);
  });
});
