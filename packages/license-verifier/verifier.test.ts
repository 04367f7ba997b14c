import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { licensingService } from '../../services/licensing/service.ts';
import { SigningKeys } from '../../services/licensing/signing-keys.ts';
import { FileEpochStore, MemoryEpochStore, OfflineVerifier, RevocationSetError, type RevocationSet } from './index.ts';

describe('offline verifier against artifacts from the real server', () => {
  let svc: TestService;
  let auth: Record<string, string>;
  let dir: string;

  before(async () => {
    svc = await startTestService(licensingService);
    auth = { authorization: `Bearer ${(await svc.newKey()).key}` };
    dir = mkdtempSync(join(tmpdir(), 'lattice-verifier-'));
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const issue = async (body: Record<string, unknown> = {}) =>
    (await call(`${svc.url}/api/v1/v2/licenses`, { headers: auth, body: { entitlements: ['feature:offline'], ...body } })).body;
  const keys = async () => (await call(`${svc.url}/api/v1/v2/keys`)).body.keys;
  const revocationSet = async (since?: number): Promise<RevocationSet> =>
    (await call(`${svc.url}/api/v1/v2/revocation${since === undefined ? '' : `?since_epoch=${since}`}`, { headers: auth })).body;

  test('verifies both forms, hybrid included, with the same result as the server', async () => {
    const plain = await issue();
    const hybrid = await issue({ hybrid: true, grace_days: 1 });
    const verifier = new OfflineVerifier({ keys: await keys() });
    for (const text of [plain.artifact_compact, plain.artifact_json, hybrid.artifact_compact, hybrid.artifact_json]) {
      const offline = await verifier.validate(text);
      const online = (await call(`${svc.url}/api/v1/v2/validate`, { headers: auth, body: { artifact_compact: text } })).body;
      assert.equal(offline.status, 'valid');
      assert.deepEqual({ ...offline, revocation_epoch: 0 }, { ...online, revocation_epoch: 0 });
    }
  });

  test('without the published key nothing verifies', async () => {
    const lic = await issue();
    const verifier = new OfflineVerifier({ keys: [] });
    assert.equal((await verifier.validate(lic.artifact_compact)).error, 'SIGNATURE_INVALID');
  });

  test('binding, not-before, expiry and grace with an injected clock', async () => {
    const device = { cpu_id: '1', disk_serial: '2', mac_address: '3', motherboard_serial: '4' };
    const lic = await issue({
      device_fingerprint: device,
      not_before: '2040-01-01T00:00:00.000Z',
      expires_at: '2040-02-01T00:00:00.000Z',
      grace_days: 1,
    });
    let now = new Date('2039-12-31T23:59:59.999Z');
    const verifier = new OfflineVerifier({ keys: await keys(), now: () => now });
    assert.equal((await verifier.validate(lic.artifact_compact, device)).error, 'NOT_YET_VALID');
    now = new Date('2040-01-01T00:00:00.000Z');
    assert.equal((await verifier.validate(lic.artifact_compact, device)).status, 'valid');
    assert.equal((await verifier.validate(lic.artifact_compact, { ...device, cpu_id: 'x', disk_serial: 'y' })).error, 'BINDING_MISMATCH');
    now = new Date('2040-02-01T12:00:00.000Z');
    const grace = await verifier.validate(lic.artifact_compact, device);
    assert.equal(grace.status, 'grace_period');
    assert.equal(grace.in_grace_period, true);
    now = new Date('2040-02-02T00:00:00.000Z');
    assert.equal((await verifier.validate(lic.artifact_compact, device)).error, 'EXPIRED');
  });

  test('applies revocation sets, full and incremental, after checking their signature', async () => {
    const a = await issue();
    const b = await issue();
    const verifier = new OfflineVerifier({ keys: await keys() });
    await verifier.applyRevocationSet(await revocationSet());
    const mark = verifier.epoch;
    await call(`${svc.url}/api/v1/v2/revoke`, { headers: auth, body: { license_id: a.license_id, reason: 'fraud' } });
    await call(`${svc.url}/api/v1/v2/revoke`, { headers: auth, body: { license_id: b.license_id, reason: 'fraud' } });
    await verifier.applyRevocationSet(await revocationSet(mark));
    assert.equal((await verifier.validate(a.artifact_compact)).status, 'revoked');
    assert.equal((await verifier.validate(b.artifact_compact)).status, 'revoked');
    const mark2 = verifier.epoch;
    await call(`${svc.url}/api/v1/v2/revoke/${a.license_id}`, { method: 'DELETE', headers: auth });
    await verifier.applyRevocationSet(await revocationSet(mark2));
    assert.equal((await verifier.validate(a.artifact_compact)).status, 'valid');
    assert.equal((await verifier.validate(b.artifact_compact)).status, 'revoked');
  });

  test('an older signed set replayed fails with EPOCH_ROLLBACK and changes nothing', async () => {
    const lic = await issue();
    const old = await revocationSet();
    await call(`${svc.url}/api/v1/v2/revoke`, { headers: auth, body: { license_id: lic.license_id, reason: 'fraud' } });
    const fresh = await revocationSet();
    const verifier = new OfflineVerifier({ keys: await keys(), epochStore: new MemoryEpochStore() });
    await verifier.applyRevocationSet(fresh);
    await assert.rejects(verifier.applyRevocationSet(old), (err: unknown) => err instanceof RevocationSetError && err.code === 'EPOCH_ROLLBACK');
    assert.equal(verifier.epoch, fresh.epoch);
    assert.equal((await verifier.validate(lic.artifact_compact)).status, 'revoked');
    assert.throws(() => verifier.observeEpoch(fresh.epoch - 1), /EPOCH_ROLLBACK|older/);
  });

  test('the highest epoch survives a restart of the client (file store)', async () => {
    const path = join(dir, 'epoch');
    const lic = await issue();
    const old = await revocationSet();
    await call(`${svc.url}/api/v1/v2/revoke`, { headers: auth, body: { license_id: lic.license_id, reason: 'fraud' } });
    const first = new OfflineVerifier({ keys: await keys(), epochStore: new FileEpochStore(path) });
    await first.applyRevocationSet(await revocationSet());
    const second = new OfflineVerifier({ keys: await keys(), epochStore: new FileEpochStore(path) });
    assert.equal(second.epoch, first.epoch);
    await assert.rejects(second.applyRevocationSet(old), /older than the stored minimum/);
  });

  test('a tampered set, or one signed by an unknown key, is refused', async () => {
    const verifier = new OfflineVerifier({ keys: await keys() });
    const set = await revocationSet();
    await assert.rejects(verifier.applyRevocationSet({ ...set, revoked_ids: [] , epoch: set.epoch + 5 }), (e: unknown) => (e as RevocationSetError).code === 'SIGNATURE_INVALID');
    await assert.rejects(verifier.applyRevocationSet({ ...set, key_id: 'mldsa65-unknown' }), (e: unknown) => (e as RevocationSetError).code === 'SIGNATURE_INVALID');
    assert.equal(verifier.epoch, 0);
  });

  test('after a key rotation old artifacts still verify and new ones use the new key', async () => {
    const before = await issue();
    const rotated = await new SigningKeys(svc.db).rotate('artifact', 'ML-DSA-65');
    const afterRotation = await issue();
    const published = await keys();
    assert.ok(published.some((k: { key_id: string; status: string }) => k.key_id === rotated.key_id && k.status === 'active'));
    assert.ok(published.some((k: { status: string }) => k.status === 'retired'));
    assert.equal(JSON.parse(afterRotation.artifact_json).header.sigs[0].kid, rotated.key_id);
    const verifier = new OfflineVerifier({ keys: published });
    assert.equal((await verifier.validate(before.artifact_compact)).status, 'valid');
    assert.equal((await verifier.validate(afterRotation.artifact_compact)).status, 'valid');
    const online = await call(`${svc.url}/api/v1/v2/validate`, { headers: auth, body: { artifact_compact: before.artifact_compact } });
    assert.equal(online.body.status, 'valid');
    await verifier.applyRevocationSet(await revocationSet());
  });
});
