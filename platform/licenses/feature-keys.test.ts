import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createAccount } from '../identity/accounts.ts';
import { identityMigrations } from '../identity/migrations.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import { checkFeatureKey, FEATURE_KEY_PATTERN, issueFeatureKey, revokeFeatureKey } from './feature-keys.ts';
import { featureKeyMigrations } from './migrations.ts';

let t: TestDatabase;
before(async () => {
  t = await openTestDatabase([...identityMigrations, ...featureKeyMigrations]);
});
after(() => t.close());

test('an issued key has the LQK shape and unlocks exactly its features of its service', async () => {
  const k = await issueFeatureKey(t.db, { service: 'llm', features: ['lora_training', 'lora_training'] });
  assert.match(k.license_key, FEATURE_KEY_PATTERN);
  assert.deepEqual(k.features, ['lora_training']);
  assert.equal((await checkFeatureKey(t.db, { key: k.license_key, service: 'llm', feature: 'lora_training' })).ok, true);
  assert.deepEqual(await checkFeatureKey(t.db, { key: k.license_key, service: 'llm', feature: 'quantum_rerank' }), { ok: false, reason: 'feature_not_licensed' });
  assert.deepEqual(await checkFeatureKey(t.db, { key: k.license_key, service: 'qcos', feature: 'lora_training' }), { ok: false, reason: 'other_service' });
  assert.deepEqual(await checkFeatureKey(t.db, { key: 'LQK-0000-0000-0000', service: 'llm', feature: 'lora_training' }), { ok: false, reason: 'unknown' });
  assert.deepEqual(await checkFeatureKey(t.db, { key: 'nope', service: 'llm', feature: 'lora_training' }), { ok: false, reason: 'malformed' });
  assert.deepEqual(await checkFeatureKey(t.db, { key: undefined, service: 'llm', feature: 'lora_training' }), { ok: false, reason: 'missing' });
});

test('revocation and expiry take effect on the next check', async () => {
  const k = await issueFeatureKey(t.db, { service: 'llm', features: ['quantum_rerank'], expiresAt: new Date(Date.now() + 60_000) });
  assert.equal((await checkFeatureKey(t.db, { key: k.license_key, service: 'llm', feature: 'quantum_rerank' })).ok, true);
  assert.deepEqual(await checkFeatureKey(t.db, { key: k.license_key, service: 'llm', feature: 'quantum_rerank', now: new Date(Date.now() + 120_000) }), { ok: false, reason: 'expired' });
  assert.equal(await revokeFeatureKey(t.db, k.license_key), true);
  assert.deepEqual(await checkFeatureKey(t.db, { key: k.license_key, service: 'llm', feature: 'quantum_rerank' }), { ok: false, reason: 'revoked' });
  assert.equal(await revokeFeatureKey(t.db, 'LQK-0000-0000-0000'), false);
});

test('a key issued for an account serves only that account', async () => {
  const a = await createAccount(t.db, { email: 'fk-a@example.test' });
  const k = await issueFeatureKey(t.db, { service: 'llm', features: ['lora_training'], accountId: a.id });
  assert.equal((await checkFeatureKey(t.db, { key: k.license_key, service: 'llm', feature: 'lora_training', accountId: a.id })).ok, true);
  assert.deepEqual(await checkFeatureKey(t.db, { key: k.license_key, service: 'llm', feature: 'lora_training', accountId: 'acc_other' }), { ok: false, reason: 'other_account' });
});
