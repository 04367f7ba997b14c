import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decode } from 'cbor2';
import { platformMigrations } from '../migrations.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import {
  canonicalJson,
  decodeBundleCbor,
  encodeBundleCbor,
  EvidenceKeys,
  exportBundle,
  newBundleId,
  sealBundle,
  sha3Hash,
  type Bundle,
  type PublicKeysDocument,
  verifyBundle,
} from './index.ts';

let t: TestDatabase;
let bundle: Bundle;
let keys: PublicKeysDocument;
const dir = mkdtempSync(join(tmpdir(), 'evidence-export-'));

before(async () => {
  t = await openTestDatabase(platformMigrations);
  const k = new EvidenceKeys(t.db, 'core');
  const at = new Date(Date.now() - 60_000).toISOString();
  bundle = await sealBundle(k, 'core', {
    bundle_id: newBundleId(),
    version: '3.0',
    created_at: at,
    circuit_hash: sha3Hash('OPENQASM 2.0;\nqreg q[1];\nh q[0];\n'),
    execution_proof: { backend: 'aer_simulator', shots: 1024, timestamp: at },
  });
  keys = await k.publicKeys();
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

describe('JSON and CBOR exports', () => {
  test('the JSON export is the bundle as issued and verifies', async () => {
    const out = await exportBundle(bundle, 'json');
    assert.equal(out.contentType, 'application/json');
    assert.equal(out.filename, `${bundle.bundle_id}.json`);
    const back = JSON.parse(out.body.toString('utf8'));
    assert.deepEqual(back, bundle);
    assert.equal((await verifyBundle(back, { keys })).valid, true);
  });

  test('the CBOR export is an RFC 8949 map that decodes with an independent decoder and still verifies', async () => {
    const out = await exportBundle(bundle, 'cbor');
    assert.equal(out.contentType, 'application/cbor');
    // Major type 5 (map) with 7 entries: 0xa7.
    assert.equal(out.body[0], 0xa7);
    const plain = decode(out.body) as Bundle;
    assert.deepEqual(plain, bundle);
    const back = await decodeBundleCbor(out.body);
    assert.equal(canonicalJson(back), canonicalJson(bundle));
    assert.equal((await verifyBundle(back, { keys })).valid, true);
  });

  test('the CBOR encoding is deterministic: key order in the input does not change a byte, and keys are sorted bytewise', async () => {
    const a = await encodeBundleCbor(bundle);
    const reversed = Object.fromEntries(Object.entries(bundle).reverse().map(([k, v]) => [k, v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).reverse()) : v]));
    const b = await encodeBundleCbor(reversed);
    assert.ok(a.equals(b));
    assert.ok(a.equals(await encodeBundleCbor(await decodeBundleCbor(a))), 'decode then encode gives the same bytes');
    // Deterministic order (RFC 8949 4.2.1) sorts encoded keys bytewise: shorter text keys first.
    const keysInOrder = [...(decode(a, { preferMap: true }) as Map<string, unknown>).keys()];
    assert.deepEqual(keysInOrder, ['key_id', 'version', 'bundle_id', 'created_at', 'signatures', 'circuit_hash', 'execution_proof']);
  });

  test('a CBOR document that is not a map is refused', async () => {
    await assert.rejects(decodeBundleCbor(Uint8Array.from([0x83, 1, 2, 3])), /not a map/);
  });
});

describe('PDF export', () => {
  test('the PDF is a real document that shows the bundle id, hashes, key id, the whole signature and how to verify it', async () => {
    const out = await exportBundle(bundle, 'pdf');
    assert.equal(out.contentType, 'application/pdf');
    assert.equal(out.body.subarray(0, 5).toString(), '%PDF-');
    const file = join(dir, 'bundle.pdf');
    writeFileSync(file, out.body);
    const text = spawnSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    assert.equal(text.status, 0, text.stderr);
    const t = text.stdout;
    assert.ok(t.includes(bundle.bundle_id as string), 'bundle id');
    assert.ok(t.includes(bundle.circuit_hash as string), 'circuit hash');
    assert.ok(t.includes(bundle.key_id as string), 'key id');
    assert.ok(t.includes('ML-DSA-65'));
    assert.ok(t.includes('How to verify this bundle offline'));
    assert.ok(t.includes('/api/v2/evidence/keys'));
    assert.ok(t.includes('aer_simulator') && t.includes('1024'));
    const signature = (bundle.signatures as { signature: string }).signature.slice('base64:'.length);
    assert.ok(t.replace(/\s+/g, '').includes(signature), 'the whole signature, across its wrapped lines');
    // The appendix prints the exact signed bytes.
    const { signatures: _s, key_id: _k, ...unsigned } = bundle;
    assert.ok(t.replace(/\s+/g, '').includes(canonicalJson(unsigned).replace(/\s+/g, '')));
    const info = spawnSync('pdfinfo', [file], { encoding: 'utf8' });
    assert.match(info.stdout, /Pages:\s+[23]/);
    const attached = spawnSync('pdfdetach', ['-list', file], { encoding: 'utf8' });
    assert.match(attached.stdout, new RegExp(`${bundle.bundle_id}\\.json`));
  });
});
