/**
 * The package as a customer gets it: `npm pack` builds plain JavaScript with declarations, the
 * tarball installs into an empty application, and the README's example runs there under
 * plain Node (no TypeScript loader) against a real licensing service.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { licensingService } from '../../services/licensing/service.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const repoModules = fileURLToPath(new URL('../../node_modules/', import.meta.url));

describe('the packed license-verifier in an application of its own', { skip: process.env.DATABASE_URL ? 'the package does not depend on the store: embedded pass only' : false }, () => {
  let work: string;
  let app: string;
  let svc: TestService;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'lattice-verifier-pack-'));
    app = join(work, 'app');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(npm, ['pack', '--pack-destination', work, '--loglevel', 'error'], { cwd: here, stdio: ['ignore', 'pipe', 'inherit'] });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote a tarball');
    const installed = join(app, 'node_modules/@lattice/license-verifier');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', installed, '--strip-components=1']);
    // The package's dependencies, as `npm install` of the tarball would bring them (no network here).
    mkdirSync(join(app, 'node_modules/@noble'), { recursive: true });
    symlinkSync(join(repoModules, '@noble/post-quantum'), join(app, 'node_modules/@noble/post-quantum'));
    symlinkSync(join(repoModules, '@noble/hashes'), join(app, 'node_modules/@noble/hashes'));
    symlinkSync(join(repoModules, 'canonicalize'), join(app, 'node_modules/canonicalize'));
    writeFileSync(join(app, 'package.json'), '{ "type": "module", "private": true }\n');
    svc = await startTestService(licensingService);
  });
  after(async () => {
    await svc?.close();
    rmSync(work, { recursive: true, force: true });
  });

  test('the tarball holds JavaScript and declarations, not TypeScript sources', () => {
    const pkg = join(app, 'node_modules/@lattice/license-verifier');
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { main: string; types: string; dependencies: Record<string, string> };
    assert.equal(manifest.main, './dist/index.js');
    assert.ok(existsSync(join(pkg, manifest.main)));
    assert.ok(existsSync(join(pkg, manifest.types)));
    assert.deepEqual(Object.keys(manifest.dependencies).sort(), ['@noble/post-quantum', 'canonicalize']);
    const files = readdirSync(join(pkg, 'dist'));
    assert.ok(!files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), files.join(' '));
    assert.doesNotMatch(readFileSync(join(pkg, 'dist/index.d.ts'), 'utf8'), /from '\.\/[\w-]+\.ts'/);
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', "const m = await import('@lattice/license-verifier'); console.log(typeof m.OfflineVerifier, typeof m.FileEpochStore)"], {
      cwd: app,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'function function');
  });

  test("the README's example runs as written under plain Node", async () => {
    const readme = readFileSync(join(app, 'node_modules/@lattice/license-verifier/README.md'), 'utf8');
    const example = /## Example[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(example, 'the README has a js example');
    writeFileSync(join(app, 'example.mjs'), example);
    const key = (await svc.newKey()).key;
    const headers = { authorization: `Bearer ${key}` };
    const issued = await call(`${svc.url}/api/v1/v2/licenses`, { headers, body: { entitlements: ['feature:sso', 'seats:5'] } });
    assert.equal(issued.status, 201);
    // Asynchronously: the service answering the example runs in this process.
    const run = (token: string) =>
      new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          ['example.mjs'],
          { cwd: app, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH, LATTICE_URL: svc.url, LATTICE_API_KEY: key, LICENSE_TOKEN: token } },
          (err, stdout, stderr) => resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const ok = await run(issued.body.artifact_compact as string);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), 'valid valid feature:sso,seats:5');
    const revoked = await call(`${svc.url}/api/v1/v2/revoke`, { headers, body: { license_id: issued.body.license_id, reason: 'chargeback' } });
    assert.equal(revoked.status, 200);
    const after = await run(issued.body.artifact_compact as string);
    assert.match(after.stderr, /^invalid REVOKED /);
    // The revocation raised the epoch, and the example's file store kept it for the next start.
    assert.ok(Number(readFileSync(join(app, 'license-epoch'), 'utf8').trim()) >= 1, 'the epoch store file holds the new epoch');
  });
});
