/**
 * Secrets at rest: a store from before encryption is sealed at its first start with a master
 * key; a wrong, missing or exposed key stops the start with a message that says so; a dump of
 * every table and column of a served store holds no private key or secret in clear; and
 * `lattice keys rotate-master` re-wraps every secret while `serve` runs, with old signatures
 * still verifying and the running server still signing (webhooks) under the new key.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generateKeyPair, sign, verify } from '../../engines/crypto/index.ts';
import { services } from '../../services/index.ts';
import { allMigrations } from '../server.ts';
import { openPglite, type Sql } from '../storage/database.ts';
import { migrate } from '../storage/migrate.ts';
import { openStore } from '../storage/store.ts';
import { call } from '../testing/harness.ts';
import { isSealed } from './envelope.ts';
import { openSecret, openTextSecret, prepareSecrets, SEALED_COLUMNS, type SecretPurpose } from './index.ts';

const embeddedOnly = { skip: process.env.DATABASE_URL ? 'embedded store only' : false } as const;
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');
const base = mkdtempSync(join(tmpdir(), 'lattice-secrets-'));
after(() => rmSync(base, { recursive: true, force: true }));

/** Every value of every table, as text, hex and base64: what a leaked database shows. */
async function dumpEverything(db: Sql): Promise<{ text: string; columns: number }> {
  const tables = await db.query<{ schemaname: string; tablename: string }>(
    `SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
  );
  const parts: string[] = [];
  let columns = 0;
  for (const t of tables) {
    const rows = await db.query<Record<string, unknown>>(`SELECT * FROM "${t.schemaname}"."${t.tablename}"`);
    for (const row of rows) {
      for (const value of Object.values(row)) {
        columns++;
        if (value instanceof Uint8Array) parts.push(Buffer.from(value).toString('hex'), Buffer.from(value).toString('base64'), Buffer.from(value).toString('latin1'));
        else parts.push(typeof value === 'string' ? value : JSON.stringify(value));
      }
    }
  }
  return { text: parts.join('\n'), columns };
}

/** The forms a secret would take in a dump: whole and a slice, in hex and base64 (and as text). */
function needles(secret: Buffer | string): string[] {
  if (typeof secret === 'string') return [secret];
  const slice = secret.subarray(8, 40);
  return [secret.toString('hex'), slice.toString('hex'), secret.toString('base64'), slice.toString('base64').slice(0, 40)];
}

test('a store with clear secrets is sealed at its first start; a wrong, missing or exposed key stops the start and makes no new key', embeddedOnly, async () => {
  const dataDir = join(base, 'legacy');
  const old = await openPglite(join(dataDir, 'pgdata'));
  await migrate(old, allMigrations(services));
  const pair = await generateKeyPair('ML-DSA-65');
  const evidencePair = await generateKeyPair('ML-DSA-65');
  const bSecret = randomBytes(32);
  const cSecret = randomBytes(32);
  const hookSecret = 'whsec_legacy-clear-secret-9c1d';
  const message = Buffer.from('signed before the upgrade');
  const oldSignature = await sign('ML-DSA-65', pair.secretKey, message);
  await old.query(`INSERT INTO accounts (id, email, name) VALUES ('acc_legacy000000000000000000', 'legacy@example.test', 'Legacy')`);
  await old.query(`INSERT INTO licensing_signing_keys (key_id, purpose, algorithm, public_key, secret_key) VALUES ('mldsa65-legacy', 'artifact', 'ML-DSA-65', $1, $2)`, [Buffer.from(pair.publicKey), Buffer.from(pair.secretKey)]);
  await old.query(`INSERT INTO evidence_signing_keys (key_id, service, algorithm, public_key, secret_key) VALUES ('core-legacy', 'core', 'ML-DSA-65', $1, $2)`, [Buffer.from(evidencePair.publicKey), Buffer.from(evidencePair.secretKey)]);
  await old.query(`INSERT INTO licensing_b_secrets (name, secret) VALUES ('quantum_signature', $1)`, [bSecret]);
  await old.query(`INSERT INTO licensing_c_secrets (name, secret) VALUES ('quantum_signature', $1)`, [cSecret]);
  await old.query(`INSERT INTO webhooks (id, account_id, service, url, events, secret) VALUES ('wh_legacy', 'acc_legacy000000000000000000', 'qcos', 'http://127.0.0.1:9/h', '{job.completed}', $1)`, [hookSecret]);
  await old.close();

  const store = await openStore({ dataDir, migrations: allMigrations(services) });
  try {
    assert.equal(store.secrets?.sealed, 5);
    assert.equal(store.secrets?.createdKeyFile, join(dataDir, 'master.key'));
    assert.equal(statSync(join(dataDir, 'master.key')).mode & 0o777, 0o600);
    const [k] = await store.db.query<{ secret_key: Uint8Array }>(`SELECT secret_key FROM licensing_signing_keys WHERE key_id = 'mldsa65-legacy'`);
    assert.ok(isSealed(k!.secret_key));
    const opened = openSecret('licensing_signing_keys.secret_key', k!.secret_key);
    assert.deepEqual(new Uint8Array(opened), pair.secretKey);
    // The opened key signs as before; what it signed before still verifies.
    assert.ok(await verify('ML-DSA-65', pair.publicKey, message, await sign('ML-DSA-65', new Uint8Array(opened), message)));
    assert.ok(await verify('ML-DSA-65', pair.publicKey, message, oldSignature));
    const [w] = await store.db.query<{ secret: string }>(`SELECT secret FROM webhooks WHERE id = 'wh_legacy'`);
    assert.equal(openTextSecret('webhooks.secret', w!.secret), hookSecret);
    const dump = await dumpEverything(store.db);
    for (const secret of [Buffer.from(pair.secretKey), Buffer.from(evidencePair.secretKey), bSecret, cSecret, hookSecret]) {
      for (const n of needles(secret)) assert.ok(!dump.text.includes(n), 'a secret is still in clear after the first start');
    }
  } finally {
    await store.close();
  }

  // A second start changes nothing more.
  const again = await openStore({ dataDir, migrations: allMigrations(services) });
  assert.equal(again.secrets?.sealed, 0);
  assert.equal(again.secrets?.createdKeyFile, null);
  await again.close();

  // The wrong key.
  process.env.LATTICE_MASTER_KEY = randomBytes(32).toString('base64');
  try {
    await assert.rejects(openStore({ dataDir, migrations: allMigrations(services) }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'master_key_wrong');
      assert.match(err.message, /the master key from LATTICE_MASTER_KEY .* is not the one the store's secrets are encrypted under/);
      return true;
    });
    process.env.LATTICE_MASTER_KEY = 'too-short';
    await assert.rejects(openStore({ dataDir, migrations: allMigrations(services) }), /LATTICE_MASTER_KEY must hold a master key: 32 random bytes in base64/);
  } finally {
    delete process.env.LATTICE_MASTER_KEY;
  }
  // No key at all: refused, and no new key file is made.
  renameSync(join(dataDir, 'master.key'), join(base, 'kept.key'));
  await assert.rejects(openStore({ dataDir, migrations: allMigrations(services) }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'master_key_missing');
    assert.match(err.message, /no master key is configured.*A new key would not open them, so none is made/);
    return true;
  });
  assert.equal(existsSync(join(dataDir, 'master.key')), false);
  // A key file others can read is refused too.
  renameSync(join(base, 'kept.key'), join(dataDir, 'master.key'));
  chmodSync(join(dataDir, 'master.key'), 0o644);
  await assert.rejects(openStore({ dataDir, migrations: allMigrations(services) }), /can be read by other users \(mode 644\): chmod 600/);
  chmodSync(join(dataDir, 'master.key'), 0o600);
  const back = await openStore({ dataDir, migrations: allMigrations(services) });
  await back.close();
});

function lattice(args: string[], env: Record<string, string> = {}): { status: number | null; out: Record<string, any>; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args, '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '', ...env } });
  return { status: r.status, out: JSON.parse(r.stdout.trim().split('\n').pop() || '{}') as Record<string, any>, stderr: r.stderr };
}

const PORTS = { LATTICE_LICENSING_PORT: '0', LATTICE_QCOS_PORT: '0' };

function serve(dataDir: string, env: Record<string, string> = {}): { child: ChildProcess; ready: Promise<Record<string, string>>; log: () => string } {
  const child = spawn(process.execPath, [bin, 'serve', '--only', 'licensing,qcos', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, ...PORTS, DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const ready = new Promise<Record<string, string>>((resolve, reject) => {
    const timer = setInterval(() => {
      if (!log.includes('lattice: store')) return;
      clearInterval(timer);
      const urls: Record<string, string> = {};
      for (const m of log.matchAll(/^(\S+)\s+(http:\/\/\S+)\s+\(docs/gm)) urls[m[1]!] = m[2]!;
      resolve(urls);
    }, 100);
    child.once('exit', (code) => (clearInterval(timer), reject(Object.assign(new Error(`serve exited with ${code}: ${log}`), { code, log }))));
  });
  return { child, ready, log: () => log };
}

const stop = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM'))));

test('a served store holds no secret in clear; rotate-master re-wraps every secret online, old signatures verify and the server signs under the new key', { ...embeddedOnly, timeout: 300_000 }, async () => {
  const dataDir = join(base, 'served');
  const received: { body: string; headers: IncomingHttpHeaders }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => (received.push({ body, headers: req.headers }), res.end('ok')));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

  let server = serve(dataDir);
  try {
    const urls = await server.ready;
    assert.match(server.log(), /made the master key .*master\.key/);
    assert.equal(statSync(join(dataDir, 'master.key')).mode & 0o777, 0o600);
    const oldKey = readFileSync(join(dataDir, 'master.key'), 'utf8').trim();

    const qcos = lattice(['keys', 'create', '--service', 'qcos', '--data-dir', dataDir]).out;
    const issued = lattice(['licenses', 'issue', '--account', qcos.account_id, '--entitlements', 'feature:export', '--data-dir', dataDir]);
    assert.equal(issued.status, 0, JSON.stringify(issued.out));
    assert.equal(lattice(['evidence', 'keys', '--service', 'core', '--rotate', '--data-dir', dataDir]).status, 0);
    const hookSecret = `hook-secret-${randomBytes(8).toString('hex')}`;
    const hook = await call(`${urls.qcos}/v2/webhooks`, { headers: { 'x-api-key': qcos.key }, body: { url: hookUrl, events: ['job.completed'], secret: hookSecret } });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));

    // The dump: every table, every column; no secret in any form.
    const peek = await openStore({ dataDir });
    let sealedCount = 0;
    try {
      await prepareSecrets(peek.db, dataDir);
      const dump = await dumpEverything(peek.db);
      assert.ok(dump.columns > 100, `${dump.columns} values dumped`);
      const plain: (Buffer | string)[] = [hookSecret];
      for (const c of SEALED_COLUMNS) {
        for (const row of await peek.db.query<{ v: Uint8Array | string }>(`SELECT ${c.column} AS v FROM ${c.table}`)) {
          assert.ok(isSealed(row.v), `${c.table}.${c.column} is sealed`);
          plain.push(openSecret(`${c.table}.${c.column}` as SecretPurpose, row.v));
          sealedCount++;
        }
      }
      // Artifact keys (ML-DSA and RSA), variant B's signature secret, core's evidence key, the webhook secret.
      assert.ok(sealedCount >= 5, `${sealedCount} sealed secrets`);
      for (const p of plain) for (const n of needles(p)) assert.ok(!dump.text.includes(n), 'a secret in clear in the dump');
      assert.ok(!dump.text.includes(oldKey), 'the master key is not in the database');
    } finally {
      await peek.close();
    }

    // Rotation while serving.
    const newKey = randomBytes(32).toString('base64');
    const keyFile = join(base, 'new.key');
    writeFileSync(keyFile, `${newKey}\n`, { mode: 0o600 });
    const rotated = lattice(['keys', 'rotate-master', '--new-key-file', keyFile, '--data-dir', dataDir]);
    assert.equal(rotated.status, 0, JSON.stringify(rotated.out));
    assert.deepEqual(rotated.out, { rewrapped: sealedCount });
    assert.equal(readFileSync(join(dataDir, 'master.key'), 'utf8').trim(), newKey);
    assert.equal(statSync(join(dataDir, 'master.key')).mode & 0o777, 0o600);

    // The artifact signed before the rotation still verifies.
    const before = await call(`${urls.licensing}/api/v1/v2/validate`, { headers: { authorization: `Bearer ${lattice(['keys', 'create', '--service', 'licensing', '--data-dir', dataDir]).out.key}` }, body: { artifact_compact: issued.out.artifact_compact } });
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.equal(before.body.is_valid, true, JSON.stringify(before.body));
    // A new process opens the keys under the new master key and signs.
    const after = lattice(['licenses', 'issue', '--account', qcos.account_id, '--entitlements', 'feature:export', '--data-dir', dataDir]);
    assert.equal(after.status, 0, JSON.stringify(after.out));
    // The running server reads the webhook secret, re-wrapped under the new key, to sign a delivery.
    const job = await call(`${urls.qcos}/v2/circuits`, {
      headers: { 'x-api-key': qcos.key },
      body: { circuit: { qasm: 'OPENQASM 2.0; include "qelib1.inc"; qreg q[1]; creg c[1]; h q[0]; measure q -> c;', format: 'qasm2' }, backend: 'statevector_simulator', shots: 10 },
    });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    const deadline = Date.now() + 60_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.ok(received.length > 0, `no delivery: ${server.log().slice(-2000)}`);
    const signature = received[0]!.headers['x-signature'];
    assert.equal(signature, `sha256=${createHmac('sha256', hookSecret).update(received[0]!.body).digest('hex')}`);
    await stop(server.child);

    // The old key no longer opens the store; the new one does, and the old artifact still verifies.
    const refused = serve(dataDir, { LATTICE_MASTER_KEY: oldKey });
    await assert.rejects(refused.ready, (err: Error & { code?: number }) => {
      assert.equal(err.code, 1);
      assert.match(err.message, /is not the one the store's secrets are encrypted under/);
      return true;
    });
    server = serve(dataDir);
    const again = await server.ready;
    const licKey = lattice(['keys', 'create', '--service', 'licensing', '--data-dir', dataDir]).out.key;
    for (const artifact of [issued.out.artifact_compact, after.out.artifact_compact]) {
      const r = await call(`${again.licensing}/api/v1/v2/validate`, { headers: { authorization: `Bearer ${licKey}` }, body: { artifact_compact: artifact } });
      assert.equal(r.body.is_valid, true, JSON.stringify(r.body));
    }
  } finally {
    await stop(server.child);
    receiver.close();
  }
});
