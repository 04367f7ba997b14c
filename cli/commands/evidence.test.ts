import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EvidenceKeys, newBundleId, sealBundle, sha3Hash, type Bundle } from '../../platform/evidence/index.ts';
import { allMigrations } from '../../platform/server.ts';
import { openStore } from '../../platform/storage/store.ts';
import { services } from '../../services/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');
const dir = mkdtempSync(join(tmpdir(), 'evidence-cli-'));
const dataDir = join(dir, 'data');
const QASM = 'OPENQASM 2.0;\nqreg q[1];\nx q[0];\n';

function lattice(args: string[]): { status: number | null; out: any; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '' },
  });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  let out: unknown = null;
  try {
    out = JSON.parse(last);
  } catch {
    // not JSON
  }
  return { status: r.status, out, stderr: r.stderr };
}

const file = (name: string, content: string | Uint8Array) => {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};

let oldBundle: Bundle;
let newBundle: Bundle;

before(async () => {
  // A store with a core key that signed one bundle and was then rotated.
  // Every migration the CLI applies, so that its own opening of the store has nothing left to do.
  const store = await openStore({ dataDir, migrations: allMigrations(services) });
  const db = store.db;
  const keys = new EvidenceKeys(db, 'core');
  const make = () => {
    const at = new Date(Date.now() - 30_000).toISOString();
    return { bundle_id: newBundleId(), version: '3.0', created_at: at, circuit_hash: sha3Hash(QASM), execution_proof: { backend: 'sim', shots: 10, timestamp: at } };
  };
  oldBundle = await sealBundle(keys, 'core', make());
  await keys.rotate();
  newBundle = await sealBundle(keys, 'core', make());
  await store.close();
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('lattice evidence', { skip: process.env.DATABASE_URL ? 'runs on the embedded store only' : false }, () => {
  let keysFile: string;

  test('keys prints the published keys of a service, the retired one included', () => {
    const r = lattice(['evidence', 'keys', '--service', 'core', '--data-dir', dataDir, '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.out.keys.map((k: { status: string }) => k.status), ['retired', 'active']);
    keysFile = file('keys.json', JSON.stringify(r.out));
  });

  test('verify checks a bundle of the retired key offline against a saved keys document', () => {
    for (const b of [oldBundle]) {
      const r = lattice(['evidence', 'verify', file(`${b.bundle_id}.json`, JSON.stringify(b)), '--keys', keysFile, '--json']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.out.valid, true);
      assert.equal(r.out.kind, 'core');
      assert.deepEqual(Object.keys(r.out.checks), ['signature', 'hash', 'timestamp']);
    }
  });

  test('verify exits 1 and names the failed check when a byte changed, or the circuit is not the one hashed', () => {
    const tampered = structuredClone(oldBundle);
    (tampered.execution_proof as { backend: string }).backend = 'sin';
    const r = lattice(['evidence', 'verify', file('tampered.json', JSON.stringify(tampered)), '--keys', keysFile, '--json']);
    assert.equal(r.status, 1);
    assert.equal(r.out.valid, false);
    assert.equal(r.out.checks.signature.verdict, 'invalid');
    assert.equal(r.out.checks.timestamp.verdict, 'valid');
    const h = lattice(['evidence', 'verify', file('ok.json', JSON.stringify(oldBundle)), '--keys', keysFile, '--hash-input', `circuit_hash=${file('other.qasm', `${QASM}x q[0];\n`)}`, '--json']);
    assert.equal(h.status, 1);
    assert.equal(h.out.checks.hash.verdict, 'invalid');
    assert.equal(h.out.checks.signature.verdict, 'valid');
  });

  test('export writes CBOR, and the CBOR file of a bundle of the new key verifies like the JSON', () => {
    const src = file('src.json', JSON.stringify(newBundle));
    const cbor = join(dir, 'b.cbor');
    const e = lattice(['evidence', 'export', src, '--format', 'cbor', '--out', cbor, '--json']);
    assert.equal(e.status, 0, e.stderr);
    assert.equal(e.out.bytes, readFileSync(cbor).length);
    const v = lattice(['evidence', 'verify', cbor, '--keys', keysFile, '--json']);
    assert.equal(v.status, 0, v.stderr);
    assert.equal(v.out.valid, true);
  });

  test('without --keys, verify uses the keys published in the local store, and compares a hash with the data given', () => {
    const r = lattice(['evidence', 'verify', file('old.json', JSON.stringify(oldBundle)), '--data-dir', dataDir, '--hash-input', `circuit_hash=${file('x.qasm', QASM)}`, '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.out.valid, true);
    assert.equal(r.out.checks.hash.reason, undefined, 'content compared');
  });

  test('without --keys or --data-dir, verify is a usage error naming where keys come from, and creates no store', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'evidence-cwd-'));
    try {
      const bundle = file('plain.json', JSON.stringify(newBundle));
      const r = spawnSync(process.execPath, [bin, 'evidence', 'verify', bundle], { cwd, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
      assert.equal(r.status, 2, r.stdout + r.stderr);
      assert.match(r.stderr, /--keys FILE/);
      assert.match(r.stderr, /--data-dir/);
      assert.match(r.stderr, /\/api\/v2\/evidence\/keys/);
      assert.doesNotMatch(r.stdout + r.stderr, /valid: false|invalid/);
      assert.equal(existsSync(join(cwd, 'data')), false, 'no store was created');
      const j = spawnSync(process.execPath, [bin, 'evidence', 'verify', bundle, '--json'], { cwd, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
      assert.equal(j.status, 2);
      assert.equal(JSON.parse(j.stdout.trim()).error.code, 'lattice.usage');
      // A --data-dir with no store in it is refused the same way, and left without one.
      const empty = join(cwd, 'nothing');
      const d = spawnSync(process.execPath, [bin, 'evidence', 'verify', bundle, '--data-dir', empty, '--json'], { cwd, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
      assert.equal(d.status, 2, d.stdout + d.stderr);
      assert.match(JSON.parse(d.stdout.trim()).error.message, /no Lattice store/);
      assert.equal(existsSync(empty), false);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  test('a signing key missing from the keys given is reported not checked, never invalid', () => {
    const others = file('other-keys.json', JSON.stringify({ keys: [{ ...JSON.parse(readFileSync(keysFile, 'utf8')).keys[0], key_id: 'core-mldsa65-000000000000' }] }));
    const r = lattice(['evidence', 'verify', file('unchecked.json', JSON.stringify(newBundle)), '--keys', others, '--json']);
    assert.equal(r.status, 3, r.stderr);
    assert.equal(r.out.valid, null);
    assert.equal(r.out.checks.signature.verdict, 'not_checked');
    assert.match(r.out.checks.signature.reason, /evidence\/keys/);
    assert.equal(r.out.checks.timestamp.verdict, 'valid');
    // A check that did fail still makes the bundle invalid.
    const tampered = structuredClone(newBundle);
    (tampered as { created_at: string }).created_at = 'yesterday';
    const t = lattice(['evidence', 'verify', file('unchecked-bad.json', JSON.stringify(tampered)), '--keys', others, '--json']);
    assert.equal(t.status, 1);
    assert.equal(t.out.valid, false);
  });

  test('keys without --service lists every service\'s keys; --rotate needs --service', () => {
    const all = lattice(['evidence', 'keys', '--data-dir', dataDir, '--json']);
    assert.equal(all.status, 0, all.stderr);
    assert.ok(all.out.keys.length >= 2);
    assert.ok(all.out.keys.every((k: { key_id: string }) => k.key_id.startsWith('core-')));
    const rotate = lattice(['evidence', 'keys', '--rotate', '--data-dir', dataDir, '--json']);
    assert.equal(rotate.status, 2);
    assert.match(rotate.out.error.message, /--rotate needs --service/);
  });

  test('a file that is no bundle is invalid with a format check', () => {
    const r = lattice(['evidence', 'verify', file('junk.json', '{"hello":"world"}'), '--keys', keysFile, '--json']);
    assert.equal(r.status, 1);
    assert.equal(r.out.checks.format.verdict, 'invalid');
  });
});
