/** Variant B license keys end to end: generate, validate, detail, list, revoke, revocation list. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { nextNotice } from '../../../platform/licenses/testing.ts';
import { noticeDigest } from '../../../platform/licenses/license-rows.ts';
import { LICENSE_ROWS_TOPIC } from '../keys/store.ts';
import { startB, type BTest } from './b-testing.ts';

let b: BTest;
let key: string;
let otherKey: string;

before(async () => {
  b = await startB();
  key = (await b.svc.newKey({ plan: 'Startup' })).key;
  otherKey = (await b.svc.newKey({ plan: 'Startup' })).key;
});
after(() => b.svc.close());

describe('generate', () => {
  test('answers 201 with a key of eight hex groups, the fields and a measured fidelity', async () => {
    b.svc.clock.set('2026-03-10T12:34:56.789Z');
    const res = await b.generate(key, { end_customer_id: 'acme-7', features: ['pro', 'export'], valid_days: 30 });
    assert.equal(res.status, 201);
    assert.match(res.body.license_key, /^LTC(-[0-9A-F]{4}){8}$/);
    assert.equal(res.body.end_customer_id, 'acme-7');
    assert.deepEqual(res.body.features, ['pro', 'export']);
    assert.equal(res.body.valid_until, '2026-04-09T12:34:56');
    assert.equal(res.body.generated_at, '2026-03-10T12:34:56.000Z');
    assert.equal(res.body.quantum_verified, true);
    assert.match(res.body.quantum_signature, /^[0-9a-f]{64}$/);
    assert.equal(typeof res.body.qcos_fidelity, 'number');
    assert.ok(res.body.qcos_fidelity > 0.5 && res.body.qcos_fidelity < 1, `fidelity ${res.body.qcos_fidelity}`);
    assert.match(res.body.security_level, /HMAC-SHA3-256/);
  });

  test('defaults to 365 days and no features', async () => {
    b.svc.clock.set('2026-01-01T00:00:00Z');
    const res = await b.as(key, '/api/v1/licenses/generate', { body: { end_customer_id: 'defaults' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.valid_until, '2027-01-01T00:00:00');
    assert.deepEqual(res.body.features, []);
  });

  test('different fields give different circuits, so different fidelities and signatures', async () => {
    const one = await b.generate(key, { end_customer_id: 'x' });
    const two = await b.generate(key, { end_customer_id: 'y' });
    assert.notEqual(one.body.quantum_signature, two.body.quantum_signature);
    assert.notEqual(one.body.qcos_fidelity, two.body.qcos_fidelity);
  });
});

describe('validate', () => {
  test('a fresh key for its customer is valid and quantum verified', async () => {
    b.svc.clock.set('2026-05-01T00:00:00Z');
    const gen = await b.generate(key, { end_customer_id: 'val-1' });
    const res = await b.as(key, '/api/v1/licenses/validate', { body: { license_key: gen.body.license_key, end_customer_id: 'val-1' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { valid: true, end_customer_id: 'val-1', quantum_verified: true, message: 'License valid' });
  });

  test('accepts the key in lower case with blanks around it', async () => {
    const gen = await b.generate(key, { end_customer_id: 'val-case' });
    const res = await b.as(key, '/api/v1/licenses/validate', {
      body: { license_key: `  ${gen.body.license_key.toLowerCase()} `, end_customer_id: 'val-case' },
    });
    assert.equal(res.body.valid, true);
  });

  test('another end customer, an unknown key and another account all read as not found', async () => {
    const gen = await b.generate(key, { end_customer_id: 'val-2' });
    const notFound = { valid: false, quantum_verified: false, message: 'License not found or does not match end-customer ID' };
    const wrongCustomer = await b.as(key, '/api/v1/licenses/validate', { body: { license_key: gen.body.license_key, end_customer_id: 'val-3' } });
    assert.deepEqual(wrongCustomer.body, { ...notFound, end_customer_id: 'val-3' });
    const unknown = await b.as(key, '/api/v1/licenses/validate', {
      body: { license_key: 'LTC-0000-0000-0000-0000-0000-0000-0000-0000', end_customer_id: 'val-2' },
    });
    assert.deepEqual(unknown.body, { ...notFound, end_customer_id: 'val-2' });
    const garbage = await b.as(key, '/api/v1/licenses/validate', { body: { license_key: 'not-a-key', end_customer_id: 'val-2' } });
    assert.deepEqual(garbage.body, { ...notFound, end_customer_id: 'val-2' });
    const other = await b.as(otherKey, '/api/v1/licenses/validate', { body: { license_key: gen.body.license_key, end_customer_id: 'val-2' } });
    assert.deepEqual(other.body, { ...notFound, end_customer_id: 'val-2' });
  });

  test('expires exactly at valid_until by the injected clock', async () => {
    b.svc.clock.set('2026-06-01T00:00:00Z');
    const gen = await b.generate(key, { end_customer_id: 'exp-1', valid_days: 1 });
    const body = { license_key: gen.body.license_key, end_customer_id: 'exp-1' };
    b.svc.clock.set('2026-06-01T23:59:59.999Z');
    assert.equal((await b.as(key, '/api/v1/licenses/validate', { body })).body.valid, true);
    b.svc.clock.set('2026-06-02T00:00:00Z');
    const res = await b.as(key, '/api/v1/licenses/validate', { body });
    assert.deepEqual(res.body, { valid: false, end_customer_id: 'exp-1', quantum_verified: true, message: 'License expired' });
  });

  test('a license whose stored fields were altered fails the re-derived quantum signature', async () => {
    b.svc.clock.set('2026-06-01T00:00:00Z');
    const gen = await b.generate(key, { end_customer_id: 'tamper', features: ['basic'] });
    await b.svc.db.query(`UPDATE licensing_b_licenses SET features = '{basic,enterprise}' WHERE license_key = $1`, [gen.body.license_key]);
    const res = await b.as(key, '/api/v1/licenses/validate', { body: { license_key: gen.body.license_key, end_customer_id: 'tamper' } });
    assert.deepEqual(res.body, { valid: false, end_customer_id: 'tamper', quantum_verified: false, message: 'Quantum signature mismatch' });
    // Extending the expiry in the database breaks the signature too.
    const gen2 = await b.generate(key, { end_customer_id: 'tamper-2' });
    await b.svc.db.query(`UPDATE licensing_b_licenses SET valid_until = valid_until + interval '1 day' WHERE license_key = $1`, [
      gen2.body.license_key,
    ]);
    const res2 = await b.as(key, '/api/v1/licenses/validate', { body: { license_key: gen2.body.license_key, end_customer_id: 'tamper-2' } });
    assert.equal(res2.body.message, 'Quantum signature mismatch');
  });
});

describe('detail', () => {
  test('shows every field, the fidelity as decimal text equal to the generated number', async () => {
    b.svc.clock.set('2026-07-01T08:00:00Z');
    const gen = await b.generate(key, { end_customer_id: 'det-1', features: ['a'], valid_days: 10, metadata: { seats: 5 } });
    const res = await b.as(key, `/api/v1/licenses/${gen.body.license_key}`);
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.id, 'number');
    assert.equal(res.body.license_key, gen.body.license_key);
    assert.equal(res.body.end_customer_id, 'det-1');
    assert.deepEqual(res.body.features, ['a']);
    assert.equal(res.body.valid_until, '2026-07-11T08:00:00');
    assert.equal(res.body.created_at, '2026-07-01T08:00:00.000Z');
    assert.equal(res.body.quantum_signature, gen.body.quantum_signature);
    assert.equal(typeof res.body.qcos_fidelity, 'string');
    assert.equal(Number(res.body.qcos_fidelity), gen.body.qcos_fidelity);
    assert.equal(res.body.status, 'active');
    assert.equal(res.body.revoked, false);
    assert.equal(res.body.revoked_at, null);
    assert.equal(res.body.revoked_reason, null);
    assert.deepEqual(res.body.metadata, { seats: 5 });
  });

  test('status turns expired by the clock alone', async () => {
    b.svc.clock.set('2026-07-01T08:00:00Z');
    const gen = await b.generate(key, { end_customer_id: 'det-2', valid_days: 1 });
    b.svc.clock.set('2026-07-02T08:00:00Z');
    assert.equal((await b.as(key, `/api/v1/licenses/${gen.body.license_key}`)).body.status, 'expired');
  });

  test("another account's license and an unknown key are 404", async () => {
    const gen = await b.generate(key, { end_customer_id: 'det-3' });
    const other = await b.as(otherKey, `/api/v1/licenses/${gen.body.license_key}`);
    assert.equal(other.status, 404);
    assert.deepEqual(other.body, { detail: 'License not found' });
    const unknown = await b.as(key, '/api/v1/licenses/LTC-0000-0000-0000-0000-0000-0000-0000-0001');
    assert.equal(unknown.status, 404);
    assert.equal((await b.as(key, '/api/v1/licenses/whatever')).status, 404);
  });
});

describe('revoke and the revocation list', () => {
  test('revokes once with reason and time; a second revoke is 400 and changes nothing', async () => {
    b.svc.clock.set('2026-08-01T10:00:00Z');
    const gen = await b.generate(key, { end_customer_id: 'rev-1' });
    b.svc.clock.set('2026-08-02T10:00:00Z');
    const res = await b.as(key, `/api/v1/licenses/${gen.body.license_key}/revoke`, { body: { reason: 'chargeback' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      success: true,
      license_key: gen.body.license_key,
      revoked_at: '2026-08-02T10:00:00.000Z',
      reason: 'chargeback',
      message: 'License revoked',
    });
    b.svc.clock.set('2026-08-03T10:00:00Z');
    const again = await b.as(key, `/api/v1/licenses/${gen.body.license_key}/revoke`, { body: { reason: 'other' } });
    assert.equal(again.status, 400);
    assert.deepEqual(again.body, { detail: 'License already revoked' });
    const detail = await b.as(key, `/api/v1/licenses/${gen.body.license_key}`);
    assert.equal(detail.body.status, 'revoked');
    assert.equal(detail.body.revoked, true);
    assert.equal(detail.body.revoked_at, '2026-08-02T10:00:00.000Z');
    assert.equal(detail.body.revoked_reason, 'chargeback');
    const validate = await b.as(key, '/api/v1/licenses/validate', { body: { license_key: gen.body.license_key, end_customer_id: 'rev-1' } });
    assert.equal(validate.body.valid, false);
    assert.equal(validate.body.message, 'License revoked');
  });

  test('a license validated (its signature remembered) and then revoked validates as revoked at once', async () => {
    const gen = await b.generate(key, { end_customer_id: 'rev-cached' });
    const body = { license_key: gen.body.license_key, end_customer_id: 'rev-cached' };
    for (let i = 0; i < 2; i++) assert.equal((await b.as(key, '/api/v1/licenses/validate', { body })).body.valid, true);
    assert.equal((await b.as(key, `/api/v1/licenses/${gen.body.license_key}/revoke`, { body: {} })).status, 200);
    const after = await b.as(key, '/api/v1/licenses/validate', { body });
    assert.deepEqual([after.body.valid, after.body.message], [false, 'License revoked']);
  });

  test('a validated license revoked outside the service (SQL by hand) is refused on the next request', async () => {
    const gen = await b.generate(key, { end_customer_id: 'rev-by-hand' });
    const body = { license_key: gen.body.license_key, end_customer_id: 'rev-by-hand' };
    for (let i = 0; i < 2; i++) assert.equal((await b.as(key, '/api/v1/licenses/validate', { body })).body.valid, true);
    // The trigger's change notice is what drops the kept row here (no route ran): wait until the server heard it.
    const notice = await nextNotice(b.svc.db, LICENSE_ROWS_TOPIC, noticeDigest(gen.body.license_key));
    await b.svc.db.query(`UPDATE licensing_b_licenses SET revoked_at = now() WHERE license_key = $1`, [gen.body.license_key]);
    await notice.heard;
    const after = await b.as(key, '/api/v1/licenses/validate', { body });
    assert.deepEqual([after.body.valid, after.body.message], [false, 'License revoked']);
  });

  test('a validated license deleted from the database is not found on the next request', async () => {
    const owner = await b.svc.newKey({ plan: 'Startup' });
    const gen = await b.generate(owner.key, { end_customer_id: 'gone' });
    const body = { license_key: gen.body.license_key, end_customer_id: 'gone' };
    assert.equal((await b.as(owner.key, '/api/v1/licenses/validate', { body })).body.valid, true);
    const notice = await nextNotice(b.svc.db, LICENSE_ROWS_TOPIC, noticeDigest(gen.body.license_key));
    await b.svc.db.query(`DELETE FROM licensing_b_licenses WHERE account_id = $1`, [owner.accountId]);
    await notice.heard;
    const after = await b.as(owner.key, '/api/v1/licenses/validate', { body });
    assert.deepEqual([after.body.valid, after.body.message], [false, 'License not found or does not match end-customer ID']);
  });

  test('revoke works without a body and without a reason', async () => {
    const gen = await b.generate(key, { end_customer_id: 'rev-2' });
    const res = await fetch(`${b.svc.url}/api/v1/licenses/${gen.body.license_key}/revoke`, { method: 'POST', headers: { 'x-api-key': key } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { reason: unknown }).reason, null);
  });

  test("revoking another account's or an unknown license is 404", async () => {
    const gen = await b.generate(key, { end_customer_id: 'rev-3' });
    const other = await b.as(otherKey, `/api/v1/licenses/${gen.body.license_key}/revoke`, { body: {} });
    assert.equal(other.status, 404);
    assert.equal((await b.as(key, `/api/v1/licenses/${gen.body.license_key}`)).body.revoked, false);
    const unknown = await b.as(key, '/api/v1/licenses/LTC-0000-0000-0000-0000-0000-0000-0000-0002/revoke', { body: {} });
    assert.equal(unknown.status, 404);
  });

  test('the revocation list holds revoked keys of the account, and `since` gives only later ones', async () => {
    const acct = (await b.svc.newKey({ plan: 'Startup' })).key;
    b.svc.clock.set('2026-09-01T00:00:00Z');
    const first = await b.generate(acct, { end_customer_id: 'r1' });
    const second = await b.generate(acct, { end_customer_id: 'r2' });
    await b.generate(acct, { end_customer_id: 'r3' });
    b.svc.clock.set('2026-09-02T00:00:00Z');
    await b.as(acct, `/api/v1/licenses/${first.body.license_key}/revoke`, { body: {} });
    b.svc.clock.set('2026-09-03T00:00:00Z');
    const poll = await b.as(acct, '/api/v1/revocations');
    assert.deepEqual(poll.body, { revoked_ids: [first.body.license_key], count: 1, timestamp: '2026-09-03T00:00:00.000Z' });
    b.svc.clock.set('2026-09-04T00:00:00Z');
    await b.as(acct, `/api/v1/licenses/${second.body.license_key}/revoke`, { body: {} });
    const since = await b.as(acct, `/api/v1/revocations?since=${encodeURIComponent(poll.body.timestamp)}`);
    assert.deepEqual(since.body.revoked_ids, [second.body.license_key]);
    assert.equal(since.body.count, 1);
    // Without a zone the time is UTC, like valid_until.
    const noZone = await b.as(acct, '/api/v1/revocations?since=2026-09-04T00:00:00');
    assert.deepEqual(noZone.body.revoked_ids, [second.body.license_key]);
    const later = await b.as(acct, '/api/v1/revocations?since=2026-09-05T00:00:00Z');
    assert.deepEqual(later.body, { revoked_ids: [], count: 0, timestamp: '2026-09-04T00:00:00.000Z' });
    // Another account sees none of them.
    assert.deepEqual((await b.as(otherKey, '/api/v1/revocations?since=2026-09-01T00:00:00Z')).body.revoked_ids, []);
  });
});

describe('list', () => {
  test('pages newest first with total and total_pages, and filters by computed status', async () => {
    const acct = (await b.svc.newKey({ plan: 'Startup' })).key;
    b.svc.clock.set('2026-10-01T00:00:00Z');
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) keys.push((await b.generate(acct, { end_customer_id: `l${i}`, valid_days: i < 2 ? 1 : 100 })).body.license_key);
    await b.as(acct, `/api/v1/licenses/${keys[4]}/revoke`, { body: {} });
    b.svc.clock.set('2026-10-03T00:00:00Z');

    const all = await b.as(acct, '/api/v1/licenses');
    assert.equal(all.status, 200);
    assert.equal(all.body.total, 5);
    assert.equal(all.body.page, 1);
    assert.equal(all.body.per_page, 50);
    assert.equal(all.body.total_pages, 1);
    assert.deepEqual(all.body.licenses.map((l: { license_key: string }) => l.license_key), [...keys].reverse());
    assert.deepEqual(Object.keys(all.body.licenses[0]).sort(), [
      'created_at', 'end_customer_id', 'features', 'id', 'license_key', 'revoked', 'status', 'valid_until',
    ]);

    const page2 = await b.as(acct, '/api/v1/licenses?page=2&per_page=2');
    assert.equal(page2.body.total_pages, 3);
    assert.deepEqual(page2.body.licenses.map((l: { license_key: string }) => l.license_key), [keys[2], keys[1]]);
    const beyond = await b.as(acct, '/api/v1/licenses?page=9&per_page=2');
    assert.deepEqual(beyond.body.licenses, []);
    assert.equal(beyond.body.total, 5);

    const statuses = async (filter: string) =>
      (await b.as(acct, `/api/v1/licenses?status_filter=${filter}`)).body.licenses.map((l: { license_key: string; status: string }) => [
        l.license_key,
        l.status,
      ]);
    assert.deepEqual(await statuses('active'), [[keys[3], 'active'], [keys[2], 'active']]);
    assert.deepEqual(await statuses('expired'), [[keys[1], 'expired'], [keys[0], 'expired']]);
    assert.deepEqual(await statuses('revoked'), [[keys[4], 'revoked']]);
    const revoked = await b.as(acct, '/api/v1/licenses?status_filter=revoked');
    assert.equal(revoked.body.total, 1);
    assert.equal(revoked.body.licenses[0].revoked, true);
  });

  test('shows only the calling account', async () => {
    const lonely = (await b.svc.newKey()).key;
    const res = await b.as(lonely, '/api/v1/licenses');
    assert.deepEqual(res.body, { licenses: [], total: 0, page: 1, per_page: 50, total_pages: 0 });
  });
});
