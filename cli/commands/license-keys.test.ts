import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../platform/storage/store.ts';
import { checkFeatureKey } from '../../platform/licenses/feature-keys.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'lattice-lqk-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function lattice(args: string[]): { status: number | null; json: Record<string, unknown> } {
  const out = spawnSync(process.execPath, [join(root, 'bin/lattice.mjs'), ...args, '--data-dir', dir, '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
  return { status: out.status, json: JSON.parse(out.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown> };
}

test('licenses issue-key prints an LQK key with its features; revoke-key stops it on the next check', async () => {
  const issued = lattice(['licenses', 'issue-key', '--service', 'llm', '--features', 'quantum_rerank,lora_training', '--expires-at', '2099-01-01T00:00:00Z']);
  assert.equal(issued.status, 0);
  assert.match(String(issued.json.license_key), /^LQK-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
  assert.deepEqual(issued.json.features, ['quantum_rerank', 'lora_training']);
  assert.equal(issued.json.expires_at, '2099-01-01T00:00:00.000Z');
  const key = String(issued.json.license_key);
  const revoked = lattice(['licenses', 'revoke-key', '--key', key]);
  assert.deepEqual(revoked.json, { license_key: key, revoked: true });
  const store = await openStore({ dataDir: dir });
  try {
    assert.deepEqual(await checkFeatureKey(store.db, { key, service: 'llm', feature: 'lora_training' }), { ok: false, reason: 'revoked' });
  } finally {
    await store.close();
  }
  const badService = lattice(['licenses', 'issue-key', '--service', 'nope', '--features', 'x']);
  assert.equal(badService.status, 1);
});
