import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createAccount } from '../identity/accounts.ts';
import { identityMigrations } from '../identity/migrations.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import type { Database } from '../storage/database.ts';
import { checkFeatureKey, FEATURE_KEY_PATTERN, FEATURE_KEYS_TOPIC, issueFeatureKey, revokeFeatureKey } from './feature-keys.ts';
import { featureKeyMigrations } from './migrations.ts';
import { nextNotice } from './testing.ts';

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

/** The store with its statements counted (the same store: its notices, its rows). */
function counted(db: Database): { db: Database; reads: () => number } {
  let reads = 0;
  const wrapped = new Proxy(db, {
    get(target, prop) {
      if (prop === 'query') return (text: string, params?: readonly unknown[]) => (reads++, target.query(text, params));
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: wrapped, reads: () => reads };
}

const keyHash = (key: string) => createHash('sha256').update(key).digest('hex');

test('a checked key is answered from memory until its row changes: a change by hand, not through this module, is seen on the next check', async () => {
  const { db, reads } = counted(t.db);
  const check = (key: string) => checkFeatureKey(db, { key, service: 'llm', feature: 'quantum_rerank' });
  const revoked = await issueFeatureKey(t.db, { service: 'llm', features: ['quantum_rerank'] });
  const expired = await issueFeatureKey(t.db, { service: 'llm', features: ['quantum_rerank'] });
  const deleted = await issueFeatureKey(t.db, { service: 'llm', features: ['quantum_rerank'] });
  const account = await createAccount(t.db, { email: 'fk-cached@example.test' });
  const cascaded = await issueFeatureKey(t.db, { service: 'llm', features: ['quantum_rerank'], accountId: account.id });
  for (const k of [revoked, expired, deleted, cascaded]) assert.equal((await check(k.license_key)).ok, true);
  const afterFirst = reads();
  for (const k of [revoked, expired, deleted, cascaded]) assert.equal((await check(k.license_key)).ok, true);
  assert.equal(reads(), afterFirst, 'the second checks are answered from memory');

  const changes: [string, string, unknown[]][] = [
    [revoked.license_key, 'UPDATE license_feature_keys SET revoked_at = now() WHERE key_hash = $1', [keyHash(revoked.license_key)]],
    [expired.license_key, `UPDATE license_feature_keys SET expires_at = now() - interval '1 minute' WHERE key_hash = $1`, [keyHash(expired.license_key)]],
    [deleted.license_key, 'DELETE FROM license_feature_keys WHERE key_hash = $1', [keyHash(deleted.license_key)]],
    [cascaded.license_key, 'DELETE FROM accounts WHERE id = $1', [account.id]],
  ];
  for (const [key, sql, params] of changes) {
    const notice = await nextNotice(t.db, FEATURE_KEYS_TOPIC, keyHash(key));
    await t.db.query(sql, params);
    await notice.heard;
  }
  assert.deepEqual(await check(revoked.license_key), { ok: false, reason: 'revoked' });
  assert.deepEqual(await check(expired.license_key), { ok: false, reason: 'expired' });
  assert.deepEqual(await check(deleted.license_key), { ok: false, reason: 'unknown' });
  assert.deepEqual(await check(cascaded.license_key), { ok: false, reason: 'unknown' });
});

test('revoking through this module answers revoked at once in the revoking process, before any notice comes back', async () => {
  const k = await issueFeatureKey(t.db, { service: 'llm', features: ['quantum_rerank'] });
  assert.equal((await checkFeatureKey(t.db, { key: k.license_key, service: 'llm', feature: 'quantum_rerank' })).ok, true);
  assert.equal(await revokeFeatureKey(t.db, k.license_key), true);
  assert.deepEqual(await checkFeatureKey(t.db, { key: k.license_key, service: 'llm', feature: 'quantum_rerank' }), { ok: false, reason: 'revoked' });
});
