import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { platformMigrations } from '../migrations.ts';
import { createAccount } from '../identity/accounts.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import {
  EvidenceKeys,
  loadBundle,
  bundleForSubject,
  newBundleId,
  saveBundle,
  sealBundle,
  sha3Hash,
  sha3HashJson,
  signedBytes,
  unsignedView,
  verifyBundle,
  PROFILES,
  type Bundle,
  type EvidenceKind,
  type PublicKeysDocument,
} from './index.ts';

let t: TestDatabase;
before(async () => {
  t = await openTestDatabase(platformMigrations);
});
after(() => t.close());

const QASM = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\nh q[0];\ncx q[0],q[1];\n';
const RESULT = '{"counts":{"00":510,"11":514}}';

function minutesAgo(m: number): string {
  return new Date(Date.now() - m * 60_000).toISOString();
}

const unsignedOf: Record<EvidenceKind, () => Bundle> = {
  core: () => ({
    bundle_id: newBundleId(),
    version: '3.0',
    created_at: minutesAgo(1),
    circuit_hash: sha3Hash(QASM),
    execution_proof: { backend: 'aer_simulator', shots: 1024, timestamp: minutesAgo(2) },
  }),
  nav: () => ({
    bundle_id: newBundleId('nav'),
    version: '1.0',
    created_at: minutesAgo(1),
    position: { latitude: 48.8584, longitude: 2.2945, altitude: 35.2, timestamp: minutesAgo(2) },
    timing: { utc: minutesAgo(2), accuracy_ns: 12 },
    integrity: { score: 0.98, spoofing_detected: false },
  }),
  platform: () => ({
    bundle: { job_id: 'job_1', created_at: minutesAgo(1), settled_at: minutesAgo(2), result_hash: sha3Hash(RESULT), shots: 100 },
    checks: { result_hash: 'valid' },
  }),
  runtime: () => ({
    evidence_version: '1.0',
    job_id: 'rt_1',
    backend_id: 'sim',
    shots: 100,
    qasm_hash: sha3Hash(QASM),
    result_hash: sha3Hash(RESULT),
    created_at: minutesAgo(1),
    completed_at: minutesAgo(2),
  }),
};
const hashInputs = { circuit_hash: QASM, qasm_hash: QASM, result_hash: RESULT };

/** Every leaf of `value` by path, arrays included. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, Array.isArray(value) ? Number(k) : k]));
  }
  return [path];
}

/** A copy of `bundle` with one byte of the leaf at `path` changed (a digit or letter moved by one, a number by one, a boolean negated). */
function flipOneByte(bundle: Bundle, path: (string | number)[]): Bundle {
  const copy = structuredClone(bundle);
  let parent: any = copy;
  for (const p of path.slice(0, -1)) parent = parent[p];
  const last = path[path.length - 1]!;
  const v = parent[last];
  if (typeof v === 'number') parent[last] = v + 1;
  else if (typeof v === 'boolean') parent[last] = !v;
  else if (typeof v === 'string') {
    // Change the last character that is a hex digit or letter, keeping the form (a hex hash stays hex).
    const i = v.length - 1;
    const c = v[i]!;
    const next = c === '9' ? '8' : c === 'f' ? 'e' : c === 'Z' ? 'Y' : c === '=' ? '=' : String.fromCharCode(c.charCodeAt(0) + 1);
    parent[last] = c === '=' ? `${v.slice(0, 10)}${v[10] === 'A' ? 'B' : 'A'}${v.slice(11)}` : v.slice(0, i) + next;
  } else throw new Error(`no leaf at ${path.join('.')}`);
  return copy;
}

describe('evidence keys', () => {
  test('a service key is created on first use and published with its base64 public key', async () => {
    const keys = new EvidenceKeys(t.db, 'nav');
    const key = await keys.active();
    assert.match(key.key_id, /^nav-mldsa65-[0-9a-f]{12}$/);
    assert.equal((await keys.active()).key_id, key.key_id, 'the same key until rotation');
    const doc = await keys.publicKeys();
    assert.equal(doc.keys.length, 1);
    const [pub] = doc.keys;
    assert.deepEqual(Object.keys(pub!).sort(), ['algorithm', 'created_at', 'key_id', 'public_key', 'status']);
    assert.equal(pub!.algorithm, 'ML-DSA-65');
    assert.equal(pub!.status, 'active');
    // FIPS 204 ML-DSA-65 public keys are 1952 bytes.
    assert.equal(Buffer.from(pub!.public_key, 'base64').length, 1952);
    assert.deepEqual((await new EvidenceKeys(t.db, 'core').publicKeys()).keys.filter((k) => k.key_id === key.key_id), [], 'each service publishes only its own keys');
  });

  test('after rotation old bundles still verify, the old key stays published as retired, and new bundles use the new key', async () => {
    const keys = new EvidenceKeys(t.db, 'runtime');
    const old = await sealBundle(keys, 'runtime', unsignedOf.runtime());
    const oldKey = await keys.active();
    const newKey = await keys.rotate();
    assert.notEqual(newKey.key_id, oldKey.key_id);
    const fresh = await sealBundle(keys, 'runtime', unsignedOf.runtime());
    assert.equal((fresh.signature as { key_id: string }).key_id, newKey.key_id);
    const doc = await keys.publicKeys();
    assert.deepEqual(
      doc.keys.map((k) => [k.key_id, k.status]),
      [
        [oldKey.key_id, 'retired'],
        [newKey.key_id, 'active'],
      ],
    );
    for (const b of [old, fresh]) {
      const r = await verifyBundle(b, { keys: doc, hashInputs });
      assert.equal(r.valid, true, JSON.stringify(r.checks));
    }
  });

  test('ML-DSA-87 keys sign and verify beside the ML-DSA-65 key', async () => {
    const keys = new EvidenceKeys(t.db, 'platform');
    const b = await sealBundle(keys, 'platform', unsignedOf.platform(), { algorithm: 'ML-DSA-87' });
    assert.equal(b.algo, 'ML-DSA-87');
    assert.match(b.key_version as string, /^platform-mldsa87-/);
    // FIPS 204 ML-DSA-87 signatures are 4627 bytes.
    assert.equal(Buffer.from(b.signature as string, 'base64').length, 4627);
    assert.equal((await verifyBundle(b, { keys: await keys.publicKeys() })).valid, true);
  });
});

describe('sealing and verifying each kind of bundle', () => {
  const keysDoc: Record<string, PublicKeysDocument> = {};
  const sealed: Partial<Record<EvidenceKind, Bundle>> = {};
  before(async () => {
    for (const kind of ['core', 'nav', 'platform', 'runtime'] as const) {
      const keys = new EvidenceKeys(t.db, kind);
      sealed[kind] = await sealBundle(keys, kind, unsignedOf[kind]());
      keysDoc[kind] = await keys.publicKeys();
    }
  });

  test('core bundles have the spec fields, version 3.0 and a base64: signature naming the key', () => {
    const b = sealed.core!;
    assert.deepEqual(Object.keys(b), ['bundle_id', 'version', 'created_at', 'circuit_hash', 'execution_proof', 'signatures', 'key_id']);
    assert.equal(b.version, '3.0');
    assert.match(b.circuit_hash as string, /^sha3-256:[0-9a-f]{64}$/);
    const sigs = b.signatures as { algorithm: string; signature: string };
    assert.equal(sigs.algorithm, 'ML-DSA-65');
    assert.match(sigs.signature, /^base64:[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(sigs.signature.slice(7), 'base64').length, 3309);
  });

  test('nav and platform bundles carry the hashes of what they embed', () => {
    const nav = sealed.nav!;
    assert.equal(nav.position_hash, sha3HashJson(nav.position));
    assert.equal(nav.timing_hash, sha3HashJson(nav.timing));
    const platform = sealed.platform!;
    assert.deepEqual(Object.keys(platform).sort(), ['algo', 'bundle', 'checks', 'hash', 'key_version', 'signature']);
    assert.equal(platform.hash, sha3HashJson(platform.bundle));
    assert.equal(sealed.runtime!.type, 'execution_evidence');
  });

  test('the signed bytes are the canonical JSON without the signature fields', () => {
    const b = sealed.core!;
    const text = Buffer.from(signedBytes(unsignedView(PROFILES.core, b))).toString();
    assert.ok(text.startsWith('{"bundle_id":'), text);
    assert.ok(!text.includes('signatures') && !text.includes('key_id'));
    // Key order and whitespace do not matter: JCS sorts keys.
    const reordered = Object.fromEntries(Object.entries(b).reverse());
    assert.equal(Buffer.from(signedBytes(unsignedView(PROFILES.core, reordered))).toString(), text);
  });

  test('a second ML-DSA implementation verifies a core bundle from the published key and the documented bytes alone', () => {
    const b = sealed.core!;
    const { signatures, key_id, ...rest } = b as { signatures: { signature: string }; key_id: string } & Bundle;
    // RFC 8785 by hand for this float-free bundle: keys sorted, no whitespace.
    const sortKeys = (v: unknown): unknown =>
      v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Bundle)[k])])) : v;
    const bytes = new TextEncoder().encode(JSON.stringify(sortKeys(rest)));
    const published = keysDoc.core!.keys.find((k) => k.key_id === key_id)!;
    const signature = Buffer.from(signatures.signature.replace(/^base64:/, ''), 'base64');
    assert.equal(ml_dsa65.verify(signature, bytes, Buffer.from(published.public_key, 'base64')), true);
    bytes[bytes.length - 2] ^= 1;
    assert.equal(ml_dsa65.verify(signature, bytes, Buffer.from(published.public_key, 'base64')), false);
  });

  for (const kind of ['core', 'nav', 'platform', 'runtime'] as const) {
    test(`${kind}: an untouched bundle verifies with every check valid`, async () => {
      const r = await verifyBundle(sealed[kind], { keys: keysDoc[kind]!, hashInputs });
      assert.equal(r.valid, true, JSON.stringify(r.checks));
      assert.equal(r.kind, kind);
      for (const [name, c] of Object.entries(r.checks)) assert.equal(c.verdict, 'valid', name);
    });

    test(`${kind}: changing one byte of any field makes it invalid and names the check that failed`, async () => {
      const b = sealed[kind]!;
      const paths = leaves(b);
      assert.ok(paths.length >= 8, `${kind} has ${paths.length} fields`);
      for (const path of paths) {
        const changed = flipOneByte(b, path);
        const r = await verifyBundle(changed, { keys: keysDoc[kind]!, hashInputs });
        const failed = Object.entries(r.checks).filter(([, c]) => c.verdict === 'invalid').map(([n]) => n);
        assert.equal(r.valid, false, `${kind}: ${path.join('.')} changed but the bundle still verifies`);
        const field = path.join('.');
        if (kind === 'runtime' && field === 'type') {
          // The field that tells the kind apart: changed, the bundle is no longer of a known kind.
          assert.deepEqual(failed, ['format']);
          continue;
        }
        // Every byte is covered by the signature, or is the signature (or its algorithm or key id).
        assert.ok(failed.includes('signature'), `${kind}: ${field}: failed ${failed}`);
        const expectedHash: Record<string, string> = {
          circuit_hash: 'hash',
          position_hash: 'position_hash',
          timing_hash: 'timing_hash',
          hash: 'hash',
          qasm_hash: 'qasm_hash',
          result_hash: 'result_hash',
        };
        if (expectedHash[field]) assert.ok(failed.includes(expectedHash[field]!), `${kind}: ${field}: failed ${failed}`);
        if (field.startsWith('position.')) assert.ok(failed.includes('position_hash'), `${field}: failed ${failed}`);
        if (field.startsWith('timing.')) assert.ok(failed.includes('timing_hash'), `${field}: failed ${failed}`);
        if (kind === 'platform' && field.startsWith('bundle.')) assert.ok(failed.includes('hash'), `${field}: failed ${failed}`);
      }
    });
  }

  test('a circuit that is not the one hashed fails the core hash check, and only it', async () => {
    const r = await verifyBundle(sealed.core, { keys: keysDoc.core!, hashInputs: { circuit_hash: `${QASM} ` } });
    assert.equal(r.valid, false);
    assert.equal(r.checks.hash!.verdict, 'invalid');
    assert.equal(r.checks.signature!.verdict, 'valid');
    assert.equal(r.checks.timestamp!.verdict, 'valid');
  });

  test('a bundle signed with a created_at in the future fails only the timestamp check', async () => {
    const keys = new EvidenceKeys(t.db, 'core');
    const u = unsignedOf.core();
    u.created_at = new Date(Date.now() + 3_600_000).toISOString();
    const b = await sealBundle(keys, 'core', u);
    const r = await verifyBundle(b, { keys: await keys.publicKeys() });
    assert.deepEqual(
      Object.fromEntries(Object.entries(r.checks).map(([k, v]) => [k, v.verdict])),
      { signature: 'valid', hash: 'valid', timestamp: 'invalid' },
    );
    assert.match(r.checks.timestamp!.reason!, /created_at is in the future/);
    // An execution after the bundle was made is out of order.
    const u2 = unsignedOf.core();
    (u2.execution_proof as Record<string, unknown>).timestamp = new Date().toISOString();
    u2.created_at = minutesAgo(3);
    const r2 = await verifyBundle(await sealBundle(keys, 'core', u2), { keys: await keys.publicKeys() });
    assert.match(r2.checks.timestamp!.reason!, /execution_proof.timestamp is after created_at/);
  });

  test('a key missing from the published keys, an unknown shape and a non-object all verify as invalid without throwing', async () => {
    const r = await verifyBundle(sealed.nav, { keys: { keys: [] } });
    assert.equal(r.checks.signature!.verdict, 'invalid');
    assert.match(r.checks.signature!.reason!, /not among the published keys/);
    for (const junk of [null, 42, 'x', [], { hello: 'world' }]) {
      const j = await verifyBundle(junk, { keys: keysDoc.core! });
      assert.equal(j.valid, false);
      assert.equal(j.checks.format!.verdict, 'invalid');
    }
    // Another service's key with the same bytes signed: the key id names the signer, so it fails.
    const r2 = await verifyBundle(sealed.core, { keys: keysDoc.nav! });
    assert.equal(r2.checks.signature!.verdict, 'invalid');
  });
});

describe('stored bundles', () => {
  test('a bundle is kept as issued and found by id and subject only within its owner', async () => {
    const a = await createAccount(t.db, { email: `ev-${Date.now()}@example.test` });
    const b = await createAccount(t.db, { email: `ev2-${Date.now()}@example.test` });
    const keys = new EvidenceKeys(t.db, 'core');
    const bundle = await sealBundle(keys, 'core', unsignedOf.core());
    const id = bundle.bundle_id as string;
    await saveBundle(t.db, { bundleId: id, service: 'core', accountId: a.id, subjectId: 'job_42', bundle });
    const got = await loadBundle(t.db, { service: 'core', bundleId: id, accountId: a.id });
    assert.deepEqual(got!.bundle, bundle);
    assert.equal(got!.kind, 'core');
    assert.equal(got!.key_id, bundle.key_id);
    assert.equal(await loadBundle(t.db, { service: 'core', bundleId: id, accountId: b.id }), null);
    assert.equal(await loadBundle(t.db, { service: 'nav', bundleId: id }), null);
    assert.equal((await bundleForSubject(t.db, { service: 'core', subjectId: 'job_42' }))!.bundle_id, id);
    assert.equal((await verifyBundle(got!.bundle, { keys: await keys.publicKeys() })).valid, true);
  });
});
