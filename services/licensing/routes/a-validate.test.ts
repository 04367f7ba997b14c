import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, startTestService, type TestService } from '../../../platform/testing/harness.ts';
import { licensingService } from '../service.ts';

const DAY = 86_400_000;
const device = { cpu_id: 'BFEBFBFF000906EA', disk_serial: 'S4EVNX0N123456', mac_address: 'A4:5E:60:C1:22:9F', motherboard_serial: 'MB-7781' };

describe('variant A validate', () => {
  let svc: TestService;
  let auth: Record<string, string>;

  before(async () => {
    svc = await startTestService(licensingService);
    auth = { authorization: `Bearer ${(await svc.newKey()).key}` };
  });
  after(() => svc.close());

  async function issue(body: Record<string, unknown>) {
    const res = await call(`${svc.url}/api/v1/v2/licenses`, { headers: auth, body: { entitlements: ['feature:export', 'seats:10'], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { license_id: string; artifact_compact: string; artifact_json: string };
  }
  const validate = (body: Record<string, unknown>) => call(`${svc.url}/api/v1/v2/validate`, { headers: auth, body });

  test('a fresh license is valid in both artifact forms, with every result field', async () => {
    const lic = await issue({});
    for (const form of ['artifact_compact', 'artifact_json'] as const) {
      const res = await validate({ [form]: lic[form] });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), [
        'binding_verified',
        'entitlements',
        'error',
        'error_message',
        'expires_at',
        'in_grace_period',
        'is_valid',
        'license_id',
        'revocation_epoch',
        'status',
      ]);
      assert.equal(res.body.is_valid, true);
      assert.equal(res.body.status, 'valid');
      assert.equal(res.body.error, null);
      assert.equal(res.body.error_message, null);
      assert.equal(res.body.license_id, lic.license_id);
      assert.deepEqual(res.body.entitlements, ['feature:export', 'seats:10']);
      assert.equal(res.body.in_grace_period, false);
      assert.equal(res.body.binding_verified, false);
      assert.equal(typeof res.body.revocation_epoch, 'number');
    }
  });

  test('the JSON artifact has header, payload and signatures sections', async () => {
    const lic = await issue({});
    const json = JSON.parse(lic.artifact_json);
    assert.deepEqual(Object.keys(json).sort(), ['header', 'payload', 'signatures']);
    assert.equal(json.header.sigs[0].alg, 'ML-DSA-65');
    assert.equal(json.payload.license_id, lic.license_id);
    assert.ok(json.payload.expires_at && json.payload.not_before && Number.isInteger(json.payload.revocation_epoch));
  });

  test('compact is preferred when both forms are given', async () => {
    const good = await issue({});
    const res = await validate({ artifact_compact: good.artifact_compact, artifact_json: '{"not":"an artifact"}' });
    assert.equal(res.body.is_valid, true);
  });

  test('expiry and grace period at their exact boundaries', async () => {
    const start = new Date('2030-01-01T00:00:00.000Z');
    svc.clock.set(start);
    const lic = await issue({ expires_at: '2030-02-01T00:00:00.000Z', grace_days: 3 });
    const expires = Date.parse('2030-02-01T00:00:00.000Z');
    const at = async (ms: number) => {
      svc.clock.set(new Date(ms));
      return (await validate({ artifact_compact: lic.artifact_compact })).body;
    };
    let r = await at(expires - 1);
    assert.equal(r.status, 'valid');
    assert.equal(r.in_grace_period, false);
    r = await at(expires);
    assert.equal(r.status, 'grace_period');
    assert.equal(r.is_valid, true);
    assert.equal(r.in_grace_period, true);
    assert.deepEqual(r.entitlements, ['feature:export', 'seats:10']);
    r = await at(expires + 3 * DAY - 1);
    assert.equal(r.status, 'grace_period');
    r = await at(expires + 3 * DAY);
    assert.equal(r.status, 'expired');
    assert.equal(r.is_valid, false);
    assert.equal(r.error, 'EXPIRED');
    assert.deepEqual(r.entitlements, []);
    assert.equal(r.in_grace_period, false);
    svc.clock.set(new Date());
  });

  test('without a grace period a license is expired from its expiry instant', async () => {
    svc.clock.set(new Date('2031-01-01T00:00:00Z'));
    const lic = await issue({ expires_at: '2031-01-02T00:00:00.000Z' });
    svc.clock.set(new Date('2031-01-02T00:00:00.000Z'));
    const r = (await validate({ artifact_json: lic.artifact_json })).body;
    assert.equal(r.status, 'expired');
    assert.equal(r.error, 'EXPIRED');
    svc.clock.set(new Date());
  });

  test('before not_before a license is not yet valid, and valid from that instant', async () => {
    svc.clock.set(new Date('2032-01-01T00:00:00Z'));
    const lic = await issue({ not_before: '2032-01-10T00:00:00.000Z', expires_at: '2032-12-31T00:00:00.000Z' });
    svc.clock.set(new Date(Date.parse('2032-01-10T00:00:00.000Z') - 1));
    let r = (await validate({ artifact_compact: lic.artifact_compact })).body;
    assert.equal(r.status, 'not_yet_valid');
    assert.equal(r.error, 'NOT_YET_VALID');
    assert.equal(r.is_valid, false);
    svc.clock.set(new Date('2032-01-10T00:00:00.000Z'));
    r = (await validate({ artifact_compact: lic.artifact_compact })).body;
    assert.equal(r.status, 'valid');
    svc.clock.set(new Date());
  });

  test('device binding tolerates one changed property of four, not two', async () => {
    const lic = await issue({ device_fingerprint: device });
    let r = (await validate({ artifact_compact: lic.artifact_compact, device_fingerprint: device })).body;
    assert.equal(r.status, 'valid');
    assert.equal(r.binding_verified, true);
    // Normalisation: case and MAC separators do not matter.
    r = (await validate({ artifact_compact: lic.artifact_compact, device_fingerprint: { ...device, mac_address: 'a4-5e-60-c1-22-9f' } })).body;
    assert.equal(r.binding_verified, true);
    r = (await validate({ artifact_compact: lic.artifact_compact, device_fingerprint: { ...device, disk_serial: 'NEW-DISK' } })).body;
    assert.equal(r.status, 'valid');
    assert.equal(r.binding_verified, true);
    r = (await validate({ artifact_compact: lic.artifact_compact, device_fingerprint: { ...device, disk_serial: 'NEW', cpu_id: 'OTHER' } })).body;
    assert.equal(r.status, 'binding_mismatch');
    assert.equal(r.error, 'BINDING_MISMATCH');
    assert.equal(r.binding_verified, false);
    assert.equal(r.is_valid, false);
  });

  test('a bound license without a fingerprint is a binding mismatch', async () => {
    const lic = await issue({ device_fingerprint: device });
    const r = (await validate({ artifact_compact: lic.artifact_compact, device_fingerprint: null })).body;
    assert.equal(r.status, 'binding_mismatch');
  });

  test('max_mismatches 0 demands every property', async () => {
    const lic = await issue({ device_fingerprint: device, max_mismatches: 0 });
    const r = (await validate({ artifact_compact: lic.artifact_compact, device_fingerprint: { ...device, disk_serial: 'NEW' } })).body;
    assert.equal(r.status, 'binding_mismatch');
  });

  test('neither artifact form answers 400 with the spec detail', async () => {
    const r = await validate({ device_fingerprint: null });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { detail: 'Must provide artifact_json or artifact_compact' });
  });

  test('a null artifact form means not given', async () => {
    const neither = await validate({ artifact_compact: null, artifact_json: null });
    assert.equal(neither.status, 400);
    assert.deepEqual(neither.body, { detail: 'Must provide artifact_json or artifact_compact' });
    const lic = await issue({});
    const json = await validate({ artifact_compact: null, artifact_json: lic.artifact_json });
    assert.equal(json.status, 200);
    assert.equal(json.body.status, 'valid');
    const compact = await validate({ artifact_compact: lic.artifact_compact, artifact_json: null });
    assert.equal(compact.body.status, 'valid');
  });

  test('an unparseable artifact answers 400 Failed to parse artifact', async () => {
    for (const body of [{ artifact_compact: 'not-a-token' }, { artifact_json: '{"header":' }, { artifact_json: '[]' }, { artifact_compact: '!!.??.**' }]) {
      const r = await validate(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.detail, /^Failed to parse artifact: /);
    }
  });

  test('wrong types are a 400 in {detail} shape', async () => {
    for (const body of [{ artifact_compact: 42 }, { artifact_json: ['x'] }, { artifact_compact: 'a.b.c', device_fingerprint: { cpu_id: 7 } }]) {
      const r = await validate(body);
      assert.equal(r.status, 400);
      assert.equal(typeof r.body.detail, 'string');
    }
  });

  test('issuing validates its input', async () => {
    for (const body of [
      { entitlements: ['no-colon'] },
      { entitlements: 'feature:x' },
      { entitlements: ['a:b'], grace_days: -1 },
      { entitlements: ['a:b'], expires_at: 'tomorrow' },
      { entitlements: ['a:b'], expires_at: '2020-01-01T00:00:00Z', not_before: '2021-01-01T00:00:00Z' },
    ]) {
      const r = await call(`${svc.url}/api/v1/v2/licenses`, { headers: auth, body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(typeof r.body.detail, 'string');
    }
  });
});
