import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');

function lattice(args: string[], dataDir: string): { status: number | null; json: Record<string, any> } {
  const out = spawnSync(process.execPath, [bin, ...args, '--data-dir', dataDir, '--json'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '' },
  });
  const text = out.status === 0 ? out.stdout : out.stdout || out.stderr;
  return { status: out.status, json: JSON.parse(text.trim().split('\n').pop()!) };
}

test('credits add prints the new balance, refuses bad amounts with a message, and credits balance reads it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lattice-credits-'));
  try {
    const account = lattice(['accounts', 'create', '--email', 'credits@example.test'], dir).json.account_id as string;
    assert.deepEqual(lattice(['credits', 'add', '--account', account, '--usd', '12.5'], dir), { status: 0, json: { account_id: account, balance_usd: 12.5 } });
    assert.deepEqual(lattice(['credits', 'add', '--account', account, '--usd', '0.25'], dir).json, { account_id: account, balance_usd: 12.75 });
    const refused = lattice(['credits', 'add', '--account', account, '--usd=-5'], dir);
    assert.equal(refused.status, 1);
    assert.match(JSON.stringify(refused.json), /above zero/);
    assert.equal(lattice(['credits', 'add', '--account', 'acc_missing', '--usd', '5'], dir).status, 1);
    assert.deepEqual(lattice(['credits', 'balance', '--account', account], dir).json, { account_id: account, balance_usd: 12.75, held_usd: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
