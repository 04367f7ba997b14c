import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, startTestService, type TestService } from '../../../platform/testing/harness.ts';
import { OfflineVerifier } from '../../../packages/license-verifier/index.ts';
import { licensingService } from '../service.ts';

describe('variant A revocation, restore and the epoch', () => {
  let svc: TestService;
  let auth: Record<string, string>;
  let otherAuth: Record<string, string>;

  before(async () => {
    svc = await startTestService(licensingService);
    auth = { authorization: `Bearer ${(await svc.newKey()).key}` };
    otherAuth = { authorization: `Bearer ${(await svc.newKey()).key}` };
  });
  after(() => svc.close());

  async function issue(headers = auth) {
    const res = await call(`${svc.url}/api/v1/v2/licenses`, { headers, body: { entitlements: ['feature:a'] } });
    assert.equal(res.status, 201);
    return res.body as { license_id: string; artifact_compact: string; artifact_json: string };
  }
  const revoke = (body: Record<string, unknown>, headers = auth) => call(`${svc.url}/api/v1/v2/revoke`, { headers, body });
  const restore = (id: string, headers = auth) => call(`${svc.url}/api/v1/v2/revoke/${id}`, { method: 'DELETE', headers });
  const validate = (artifact: string) => call(`${svc.url}/api/v1/v2/validate`, { headers: auth, body: { artifact_compact: artifact } });
  const epochNow = async () => (await call(`${svc.url}/api/v1/v2/revocation`, { headers: auth })).body.epoch as number;

  test('revoking returns the result fields and increments the epoch by exactly one', async () => {
    const lic = await issue();
    const before = await epochNow();
    const res = await revoke({ license_id: lic.license_id, reason: 'chargeback' });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.equal(res.body.license_id, lic.license_id);
    assert.equal(res.body.reason, 'chargeback');
    assert.equal(res.body.epoch, before + 1);
    assert.ok(!Number.isNaN(Date.parse(res.body.revoked_at)));
    const v = (await validate(lic.artifact_compact)).body;
    assert.equal(v.status, 'revoked');
    assert.equal(v.error, 'REVOKED');
    assert.equal(v.is_valid, false);
    assert.equal(v.revocation_epoch, before + 1);
  });

  test('revoking twice answers 409 License already revoked and leaves the epoch alone', async () => {
    const lic = await issue();
    await revoke({ license_id: lic.license_id, reason: 'fraud' });
    const before = await epochNow();
    const res = await revoke({ license_id: lic.license_id, reason: 'fraud' });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { detail: 'License already revoked' });
    assert.equal(await epochNow(), before);
  });

  test('an unknown license answers 404 License not found: <id>', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const res = await revoke({ license_id: id, reason: 'fraud' });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: `License not found: ${id}` });
    const r2 = await restore(id);
    assert.equal(r2.status, 404);
    assert.deepEqual(r2.body, { detail: `License not found: ${id}` });
    assert.equal((await revoke({ license_id: 'not-a-uuid' })).status, 404);
  });

  test("another account's license answers 404 and stays valid", async () => {
    const lic = await issue(otherAuth);
    const res = await revoke({ license_id: lic.license_id, reason: 'fraud' });
    assert.equal(res.status, 404);
    assert.equal((await restore(lic.license_id)).status, 404);
    assert.equal((await validate(lic.artifact_compact)).body.status, 'valid');
  });

  test('every reason code is accepted, an unknown one is a 400', async () => {
    for (const reason of ['unspecified', 'violation', 'fraud', 'chargeback', 'expired_subscription', 'key_compromise', 'administrative']) {
      const lic = await issue();
      assert.equal((await revoke({ license_id: lic.license_id, reason })).status, 200, reason);
    }
    const lic = await issue();
    const res = await revoke({ license_id: lic.license_id, reason: 'because' });
    assert.equal(res.status, 400);
    assert.equal(typeof res.body.detail, 'string');
    assert.equal((await validate(lic.artifact_compact)).body.status, 'valid');
  });

  test('restore answers License restored with the new epoch; restoring again is 409', async () => {
    const lic = await issue();
    const revoked = (await revoke({ license_id: lic.license_id, reason: 'violation' })).body;
    const res = await restore(lic.license_id);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, license_id: lic.license_id, epoch: revoked.epoch + 1, message: 'License restored' });
    assert.equal((await validate(lic.artifact_compact)).body.status, 'valid');
    const again = await restore(lic.license_id);
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { detail: 'License not revoked' });
  });

  test('a repeatedly validated artifact follows every change: revoked, then restored with the new epoch, then another license revoked', async () => {
    const lic = await issue();
    const other = await issue();
    // Validated twice: the second answer is the kept one.
    const first = (await validate(lic.artifact_compact)).body;
    assert.deepEqual((await validate(lic.artifact_compact)).body, first);
    assert.equal(first.status, 'valid');
    const revoked = (await revoke({ license_id: lic.license_id, reason: 'violation' })).body;
    const whileRevoked = (await validate(lic.artifact_compact)).body;
    assert.deepEqual([whileRevoked.status, whileRevoked.revocation_epoch], ['revoked', revoked.epoch]);
    const restored = (await restore(lic.license_id)).body;
    const afterRestore = (await validate(lic.artifact_compact)).body;
    assert.deepEqual([afterRestore.status, afterRestore.revocation_epoch], ['valid', restored.epoch]);
    // Another license's revocation raises the epoch, and the answer shows it.
    const otherRevoked = (await revoke({ license_id: other.license_id, reason: 'chargeback' })).body;
    const afterOther = (await validate(lic.artifact_compact)).body;
    assert.deepEqual([afterOther.status, afterOther.revocation_epoch], ['valid', otherRevoked.epoch]);
  });

  test('a suspension ends by itself at effective_until', async () => {
    const t0 = new Date('2033-03-01T00:00:00.000Z');
    svc.clock.set(t0);
    const res = await call(`${svc.url}/api/v1/v2/licenses`, { headers: auth, body: { entitlements: ['feature:a'], expires_at: '2034-01-01T00:00:00Z' } });
    const lic = res.body;
    const until = '2033-03-02T00:00:00.000Z';
    const r = await revoke({ license_id: lic.license_id, reason: 'administrative', effective_until: until });
    assert.equal(r.status, 200);
    assert.equal(r.body.effective_until, until);
    svc.clock.set(new Date(Date.parse(until) - 1));
    assert.equal((await validate(lic.artifact_compact)).body.status, 'revoked');
    assert.equal((await revoke({ license_id: lic.license_id })).status, 409);
    svc.clock.set(new Date(until));
    assert.equal((await validate(lic.artifact_compact)).body.status, 'valid');
    // Once lapsed it is no longer revoked: restoring is a 409, revoking works again.
    assert.equal((await restore(lic.license_id)).status, 409);
    assert.equal((await revoke({ license_id: lic.license_id, reason: 'fraud' })).status, 200);
    svc.clock.set(new Date());
  });

  test('effective_until in the past is a 400 and changes nothing', async () => {
    const lic = await issue();
    const before = await epochNow();
    const res = await revoke({ license_id: lic.license_id, effective_until: '2000-01-01T00:00:00Z' });
    assert.equal(res.status, 400);
    assert.equal(await epochNow(), before);
  });

  test('the revocation set is signed, and since_epoch returns only later changes', async () => {
    const a = await issue();
    const b = await issue();
    await revoke({ license_id: a.license_id, reason: 'fraud' });
    const mark = await epochNow();
    await revoke({ license_id: b.license_id, reason: 'violation' });
    await restore(a.license_id);

    const full = (await call(`${svc.url}/api/v1/v2/revocation`, { headers: auth })).body;
    for (const f of ['epoch', 'revoked_ids', 'issued_at', 'valid_until', 'signature']) assert.ok(f in full, f);
    assert.equal(full.epoch, mark + 2);
    assert.ok(full.revoked_ids.includes(b.license_id));
    assert.ok(!full.revoked_ids.includes(a.license_id));

    const delta = (await call(`${svc.url}/api/v1/v2/revocation?since_epoch=${mark}`, { headers: auth })).body;
    assert.deepEqual(delta.revoked_ids, [b.license_id]);
    assert.deepEqual(delta.restored_ids, [a.license_id]);
    assert.equal(delta.since_epoch, mark);

    const keys = (await call(`${svc.url}/api/v1/v2/keys`)).body.keys;
    const verifier = new OfflineVerifier({ keys });
    await verifier.applyRevocationSet(full);
    assert.equal(verifier.epoch, full.epoch);
    assert.equal((await verifier.validate(b.artifact_compact)).status, 'revoked');
    assert.equal((await verifier.validate(a.artifact_compact)).status, 'valid');
  });

  test("the set lists only the caller's licenses", async () => {
    const mine = await issue();
    const theirs = await issue(otherAuth);
    await revoke({ license_id: mine.license_id });
    await revoke({ license_id: theirs.license_id }, otherAuth);
    const set = (await call(`${svc.url}/api/v1/v2/revocation`, { headers: auth })).body;
    assert.ok(set.revoked_ids.includes(mine.license_id));
    assert.ok(!set.revoked_ids.includes(theirs.license_id));
  });

  test('since_epoch must be a non-negative integer', async () => {
    for (const q of ['-1', 'abc', '1.5', '100000000000000000000000']) {
      const res = await call(`${svc.url}/api/v1/v2/revocation?since_epoch=${q}`, { headers: auth });
      assert.equal(res.status, 400, q);
    }
  });

  test('concurrent revocations each take their own epoch', async () => {
    const lics = await Promise.all(Array.from({ length: 8 }, () => issue()));
    const before = await epochNow();
    const results = await Promise.all(lics.map((l) => revoke({ license_id: l.license_id, reason: 'fraud' })));
    const epochs = results.map((r) => r.body.epoch as number).sort((x, y) => x - y);
    assert.deepEqual(epochs, Array.from({ length: 8 }, (_, i) => before + i + 1));
    // The same license revoked by eight requests at once: exactly one wins.
    const one = await issue();
    const racing = await Promise.all(Array.from({ length: 8 }, () => revoke({ license_id: one.license_id })));
    assert.equal(racing.filter((r) => r.status === 200).length, 1);
    assert.equal(racing.filter((r) => r.status === 409).length, 7);
  });
});
