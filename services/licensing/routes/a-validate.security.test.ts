import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { revokeKey } from '../../../platform/identity/keys.ts';
import { call, startTestService, type TestService } from '../../../platform/testing/harness.ts';
import { canonicalJson } from '../../../packages/license-verifier/index.ts';
import { licensingService } from '../service.ts';

type Json = Record<string, any>;
const b64url = (s: string) => Buffer.from(s).toString('base64url');
const fromB64url = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));

/** Rebuilds a compact token from (possibly altered) parts, canonically encoded. */
function compact(header: Json, payload: Json, sigs: string[]): string {
  return [b64url(canonicalJson(header)), b64url(canonicalJson(payload)), ...sigs].join('.');
}

describe('variant A security', () => {
  let svc: TestService;
  let auth: Record<string, string>;

  before(async () => {
    svc = await startTestService(licensingService);
    auth = { authorization: `Bearer ${(await svc.newKey()).key}` };
  });
  after(() => svc.close());

  const issue = async (body: Json = {}) =>
    (await call(`${svc.url}/api/v1/v2/licenses`, { headers: auth, body: { entitlements: ['tier:pro'], grace_days: 2, ...body } })).body as {
      license_id: string;
      artifact_compact: string;
      artifact_json: string;
    };
  const validate = async (body: Json) => (await call(`${svc.url}/api/v1/v2/validate`, { headers: auth, body })).body;

  test('tamper matrix over the JSON artifact: every change fails the signature check', async () => {
    const lic = await issue({ device_fingerprint: { cpu_id: 'c', disk_serial: 'd', mac_address: 'm', motherboard_serial: 'b' } });
    const other = await issue();
    const original = JSON.parse(lic.artifact_json) as Json;
    const otherSig = JSON.parse(other.artifact_json).signatures[0].sig as string;
    const mutations: Array<[string, (a: Json) => void]> = [
      ['header.typ', (a) => (a.header.typ = 'JWT')],
      ['header.ver', (a) => (a.header.ver = 2)],
      ['header alg ML-DSA-87 for an ML-DSA-65 key', (a) => (a.header.sigs[0].alg = 'ML-DSA-87')],
      ['header alg none', (a) => (a.header.sigs[0].alg = 'none')],
      ['header alg RSA for an ML-DSA key', (a) => (a.header.sigs[0].alg = 'RSA-PSS-SHA256')],
      ['header kid unknown', (a) => (a.header.sigs[0].kid = 'mldsa65-000000000000')],
      ['header extra field', (a) => (a.header.x = 1)],
      ['payload.license_id', (a) => (a.payload.license_id = other.license_id)],
      ['payload.account_id', (a) => (a.payload.account_id = 'acc_someone_else')],
      ['payload.entitlements added', (a) => a.payload.entitlements.push('tier:enterprise')],
      ['payload.entitlements removed', (a) => (a.payload.entitlements = [])],
      ['payload.issued_at', (a) => (a.payload.issued_at = '2020-01-01T00:00:00.000Z')],
      ['payload.not_before', (a) => (a.payload.not_before = '2020-01-01T00:00:00.000Z')],
      ['payload.expires_at extended', (a) => (a.payload.expires_at = '2099-01-01T00:00:00.000Z')],
      ['payload.grace_period_days', (a) => (a.payload.grace_period_days = 3650)],
      ['payload.revocation_epoch', (a) => (a.payload.revocation_epoch += 1)],
      ['payload.binding stripped', (a) => (a.payload.binding = null)],
      ['payload.binding tolerance raised', (a) => (a.payload.binding.max_mismatches = 4)],
      ['signature byte flipped', (a) => {
        const bytes = Buffer.from(a.signatures[0].sig, 'base64');
        bytes[100] = bytes[100]! ^ 1;
        a.signatures[0].sig = bytes.toString('base64');
      }],
      ['signature truncated', (a) => (a.signatures[0].sig = a.signatures[0].sig.slice(0, 400))],
      ['signature of another license', (a) => (a.signatures[0].sig = otherSig)],
      ['signature emptied', (a) => (a.signatures[0].sig = '')],
      ['signatures removed', (a) => (a.signatures = [])],
      ['signature alg copy changed', (a) => (a.signatures[0].alg = 'none')],
    ];
    const fingerprint = { cpu_id: 'c', disk_serial: 'd', mac_address: 'm', motherboard_serial: 'b' };
    assert.equal((await validate({ artifact_json: lic.artifact_json, device_fingerprint: fingerprint })).status, 'valid');
    for (const [name, mutate] of mutations) {
      const copy = structuredClone(original);
      mutate(copy);
      const r = await validate({ artifact_json: JSON.stringify(copy), device_fingerprint: fingerprint });
      assert.equal(r.status, 'signature_invalid', name);
      assert.equal(r.error, 'SIGNATURE_INVALID', name);
      assert.equal(r.is_valid, false, name);
      assert.deepEqual(r.entitlements, [], name);
    }
  });

  test('tamper matrix over the compact token', async () => {
    const lic = await issue();
    const [h, p, s] = lic.artifact_compact.split('.') as [string, string, string];
    const header = fromB64url(h);
    const payload = fromB64url(p);
    const cases: Array<[string, string]> = [
      ['payload expiry', compact(header, { ...payload, expires_at: '2099-01-01T00:00:00.000Z' }, [s])],
      ['payload entitlements', compact(header, { ...payload, entitlements: ['tier:pro', 'tier:max'] }, [s])],
      ['header alg', compact({ ...header, sigs: [{ ...header.sigs[0], alg: 'ML-DSA-87' }] }, payload, [s])],
      ['header none', compact({ ...header, sigs: [{ alg: 'none', kid: header.sigs[0].kid }] }, payload, ['AA'])],
      ['signature changed', [h, p, `${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`].join('.')],
      ['extra signature', [h, p, s, s].join('.')],
    ];
    for (const [name, token] of cases) {
      const r = await validate({ artifact_compact: token });
      assert.equal(r.status, 'signature_invalid', name);
    }
    // A non-canonical re-encoding of the same content is refused outright (one license, one token).
    const spaced = [b64url(JSON.stringify(header, null, 1)), p, s].join('.');
    const res = await call(`${svc.url}/api/v1/v2/validate`, { headers: auth, body: { artifact_compact: spaced } });
    assert.equal(res.status, 400);
    assert.match(res.body.detail, /^Failed to parse artifact: .*canonical/);
  });

  test('a hybrid artifact needs both signatures: stripping either fails', async () => {
    const lic = await issue({ hybrid: true });
    assert.equal((await validate({ artifact_compact: lic.artifact_compact })).status, 'valid');
    assert.equal((await validate({ artifact_json: lic.artifact_json })).status, 'valid');
    const parts = lic.artifact_compact.split('.');
    assert.equal(parts.length, 4);
    assert.equal((await validate({ artifact_compact: parts.slice(0, 3).join('.') })).status, 'signature_invalid');
    const json = JSON.parse(lic.artifact_json);
    assert.deepEqual(json.header.sigs.map((s: Json) => s.alg), ['ML-DSA-65', 'RSA-PSS-SHA256']);
    const withoutRsa = { ...json, signatures: json.signatures.slice(0, 1) };
    assert.equal((await validate({ artifact_json: JSON.stringify(withoutRsa) })).status, 'signature_invalid');
    // Dropping the RSA slot from the header too changes the signed bytes.
    const headerStripped = { ...withoutRsa, header: { ...json.header, sigs: json.header.sigs.slice(0, 1) } };
    assert.equal((await validate({ artifact_json: JSON.stringify(headerStripped) })).status, 'signature_invalid');
    // An RSA-only artifact is refused: a post-quantum signature is mandatory.
    const rsaOnly = {
      header: { ...json.header, sigs: json.header.sigs.slice(1) },
      payload: json.payload,
      signatures: json.signatures.slice(1),
    };
    assert.equal((await validate({ artifact_json: JSON.stringify(rsaOnly) })).status, 'signature_invalid');
  });

  test('a revocation takes effect on the very next validation of a cached artifact', async () => {
    const lic = await issue();
    for (let i = 0; i < 3; i++) assert.equal((await validate({ artifact_compact: lic.artifact_compact })).status, 'valid');
    await call(`${svc.url}/api/v1/v2/revoke`, { headers: auth, body: { license_id: lic.license_id, reason: 'fraud' } });
    assert.equal((await validate({ artifact_compact: lic.artifact_compact })).status, 'revoked');
    await call(`${svc.url}/api/v1/v2/revoke/${lic.license_id}`, { method: 'DELETE', headers: auth });
    assert.equal((await validate({ artifact_compact: lic.artifact_compact })).status, 'valid');
  });

  test('missing, malformed, unknown, revoked, expired and foreign keys answer 401 {detail}', async () => {
    const body = { artifact_compact: 'x.y.z' };
    const url = `${svc.url}/api/v1/v2/validate`;
    const revoked = await svc.newKey();
    await revokeKey(svc.db, revoked.keyId);
    const expired = await svc.newKey({ expiresAt: new Date(Date.now() - 1000) });
    const cases: Array<[string, Record<string, string>]> = [
      ['none', {}],
      ['not bearer', { authorization: `Basic ${auth.authorization!.slice(7)}` }],
      ['unknown', { authorization: 'Bearer lic_0000000000000000000000000000000' }],
      ['revoked', { authorization: `Bearer ${revoked.key}` }],
      ['expired', { authorization: `Bearer ${expired.key}` }],
      ['service token on an API-key route', { authorization: `Bearer ${(await svc.newKey({ kind: 'service_token' })).key}` }],
      ['X-API-Key instead of bearer', { 'x-api-key': auth.authorization!.slice(7) }],
    ];
    for (const [name, headers] of cases) {
      const r = await call(url, { headers, body });
      assert.equal(r.status, 401, name);
      assert.deepEqual(r.body, { detail: 'Invalid or inactive API key' }, name);
    }
    // The key is checked before the body: an unauthenticated caller learns nothing of the schema.
    const early = await call(`${svc.url}/api/v1/v2/revoke`, { body: { license_id: 42 } });
    assert.equal(early.status, 401);
  });

  test('huge bodies and malformed JSON are 400 {detail} and change nothing', async () => {
    const big = await call(`${svc.url}/api/v1/v2/validate`, { headers: auth, rawBody: JSON.stringify({ artifact_compact: 'a'.repeat(400_000) }) });
    assert.equal(big.status, 400);
    assert.equal(typeof big.body.detail, 'string');
    const lic = await issue();
    const bad = await call(`${svc.url}/api/v1/v2/revoke`, { headers: auth, rawBody: `{"license_id": "${lic.license_id}", ` });
    assert.equal(bad.status, 400);
    assert.match(bad.body.detail, /Malformed JSON/);
    assert.equal((await validate({ artifact_compact: lic.artifact_compact })).status, 'valid');
  });

  test('every response carries a request id, and a sane incoming one is echoed', async () => {
    const r1 = await call(`${svc.url}/api/v1/v2/keys`);
    assert.match(r1.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
    const r2 = await call(`${svc.url}/api/v1/v2/keys`, { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(r2.headers.get('x-request-id'), 'trace-123');
    const r3 = await call(`${svc.url}/nope`, { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.equal(r3.status, 404);
    assert.match(r3.headers.get('x-request-id') ?? '', /^req_/);
    assert.equal(typeof r3.body.detail, 'string');
  });
});
