/** A tenant changed by another process of the cluster is seen here at the next request, not after the cache's 2 s. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { announceChange } from '../../platform/storage/changes.ts';
import { TENANT_CHANGES, tenantByKey } from './tenants.ts';
import { startLlm, type LlmTest } from './testing.ts';

let s: LlmTest;
before(async () => {
  s = await startLlm();
});
after(() => s.close());

test("another process's change notice drops this process's cached tenant", async () => {
  const tenant = await s.tenant({ tier: 'enterprise' });
  const [{ key_id: keyId }] = await s.t.db.query<{ key_id: string }>('SELECT key_id FROM llm_tenants WHERE id = $1', [tenant.id]);
  assert.equal((await tenantByKey(s.t.db, keyId))?.tier, 'enterprise');
  // Another process changes the row (its own cache is its own business)...
  await s.t.db.query("UPDATE llm_tenants SET tier = 'free' WHERE id = $1", [tenant.id]);
  assert.equal((await tenantByKey(s.t.db, keyId))?.tier, 'enterprise', 'this process still has the tenant cached');
  // ...and announces it, as forgetTenants does.
  await announceChange(s.t.db, TENANT_CHANGES, '*');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal((await tenantByKey(s.t.db, keyId))?.tier, 'free');
});
