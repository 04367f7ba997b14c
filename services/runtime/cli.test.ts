import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { services } from '../index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'runtime-cli-'));
// The operator commands know a service once services/index.ts lists it.
const listed = services.some((s) => s.id === 'runtime');

function lattice(args: string[]): { status: number | null; out: any; stderr: string } {
  const r = spawnSync(process.execPath, [join(root, 'bin/lattice.mjs'), ...args, '--data-dir', join(dir, 'data'), '--json'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '' },
  });
  let out: unknown = null;
  try {
    out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
  } catch {
    // not JSON
  }
  return { status: r.status, out, stderr: r.stderr };
}

// Every command runs on its own embedded store (DATABASE_URL unset): the PostgreSQL pass would only repeat it.
describe('lattice keys create --role', { skip: process.env.DATABASE_URL ? 'runs on the embedded store only' : false }, () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a service without roles of its own takes member or admin, and names them when refusing another', () => {
    const bad = lattice(['keys', 'create', '--service', 'qcos', '--role', 'viewer']);
    assert.notEqual(bad.status, 0);
    assert.match(bad.out.error.message, /--role must be one of member, admin for qcos/);
    const ok = lattice(['keys', 'create', '--service', 'qcos']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.out.role, 'member');
  });

  test('runtime keys are viewer, developer (the default) or admin', { skip: !listed && 'runtime is not listed in services/index.ts' }, () => {
    const viewer = lattice(['keys', 'create', '--service', 'runtime', '--role', 'viewer']);
    assert.equal(viewer.status, 0, viewer.stderr);
    assert.equal(viewer.out.role, 'viewer');
    assert.equal(viewer.out.plan, 'standard');
    assert.match(viewer.out.key, /^qrt_/);
    assert.equal(lattice(['keys', 'create', '--service', 'runtime']).out.role, 'developer');
    assert.equal(lattice(['keys', 'create', '--service', 'runtime', '--role', 'admin']).out.role, 'admin');
    const bad = lattice(['keys', 'create', '--service', 'runtime', '--role', 'member']);
    assert.notEqual(bad.status, 0);
    assert.match(bad.out.error.message, /developer, viewer, admin/);
  });
});
