/**
 * GET /api/v1/sdk/nodejs advises how to install the offline verifier. The advice is followed
 * here as a customer would, in a copy of the package (so that the checkout gets no tarball):
 * its `npm pack` builds and packs the package, and the tarball it names, installed into an empty
 * application, imports under plain Node with the import line the route gives.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { call } from '../../platform/testing/harness.ts';
import { VERIFIER_TARBALL } from './sdk-info.ts';
import { startC, type CTest } from './testing.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const packageDir = join(repo, 'packages/license-verifier');

describe('the nodejs SDK advice, followed', { skip: process.env.DATABASE_URL ? 'the advice does not depend on the store: embedded pass only' : false }, () => {
  let c: CTest;
  let checkout: string;
  let app: string;
  before(async () => {
    c = await startC();
    // A checkout of the package's sources (no dist/, no tarball); inside the repository's .tmp/
    // (ignored) so that its build finds the repository's node_modules as a checkout's would.
    mkdirSync(join(repo, '.tmp'), { recursive: true });
    checkout = mkdtempSync(join(repo, '.tmp', 'sdk-advice-'));
    cpSync(packageDir, join(checkout, 'packages/license-verifier'), { recursive: true, filter: (src) => !/[\\/](dist|node_modules)$|\.tgz$/.test(src) });
    symlinkSync(join(repo, 'node_modules'), join(checkout, 'node_modules'));
    app = mkdtempSync(join(tmpdir(), 'sdk-advice-app-'));
    writeFileSync(join(app, 'package.json'), '{ "type": "module", "private": true }\n');
  });
  after(async () => {
    await c?.svc.close();
    rmSync(checkout, { recursive: true, force: true });
    rmSync(app, { recursive: true, force: true });
  });

  test('the tarball the advice names is the one npm pack writes', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { name: string; version: string };
    assert.equal(VERIFIER_TARBALL, `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`);
  });

  test('npm pack as advised builds the package; the tarball installs and imports under plain Node', async () => {
    const res = await call(`${c.svc.url}/api/v1/sdk/nodejs`);
    assert.equal(res.status, 200);
    const commands = (res.body.installation as string).split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    assert.equal(commands.length, 2, res.body.installation);
    const [pack, install] = commands as [string, string];

    // Step 1, as written (only the checkout's place filled in).
    assert.equal(pack, 'cd <lattice>/packages/license-verifier && npm pack');
    execFileSync('bash', ['-c', `${pack.replace('<lattice>', checkout)} --loglevel error`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const tarball = join(checkout, 'packages/license-verifier', VERIFIER_TARBALL);
    assert.ok(existsSync(tarball), `npm pack wrote ${VERIFIER_TARBALL}: ${readdirSync(join(checkout, 'packages/license-verifier')).join(' ')}`);

    // Step 2 installs that very file. npm would fetch the two dependencies from the registry,
    // which this machine cannot reach: the tarball is unpacked where npm puts it and the
    // dependencies its manifest names are linked from the repository's node_modules.
    const m = /^cd <your-app> && npm install (\S+)$/.exec(install);
    assert.ok(m, install);
    assert.equal(m[1]!.replace('<lattice>', checkout), tarball);
    const installed = join(app, 'node_modules/@lattice/license-verifier');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { main: string; dependencies: Record<string, string> };
    assert.deepEqual(Object.keys(manifest.dependencies).sort(), ['@noble/post-quantum', 'canonicalize']);
    assert.match(res.body.installation, /@noble\/post-quantum and canonicalize, install with it/);
    assert.ok(existsSync(join(installed, manifest.main)), `the installed package has its build, ${manifest.main}`);
    mkdirSync(join(app, 'node_modules/@noble'), { recursive: true });
    for (const dep of ['@noble/post-quantum', '@noble/hashes', 'canonicalize']) symlinkSync(join(repo, 'node_modules', dep), join(app, 'node_modules', dep));

    // The route's import line works in the application, without any TypeScript loader.
    const program = `${res.body.import}\nconst v = new OfflineVerifier({ keys: [] });\nconsole.log(typeof v.validate);\n`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: app, encoding: 'utf8', env: { PATH: process.env.PATH } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'function');
  });
});
