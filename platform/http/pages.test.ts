import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createServiceApp, type ServiceApp } from './app.ts';
import { html, raw, sendPage, serveAssets, SHARED_ASSETS_DIR, type Assets } from './pages.ts';

let app: ServiceApp;
let base: string;
let dir: string;
let assets: Assets;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pages-test-'));
  await writeFile(join(dir, 'app.js'), 'document.body.dataset.ready = "yes";\n');
  await writeFile(join(dir, 'app.css'), 'body { color: black; }\n');
  await writeFile(join(dir, '.hidden'), 'secret');
  app = await createServiceApp({
    docs: { title: 't', description: 'd', version: '1' },
    formatError: (e) => ({ error: { code: e.code, message: e.message } }),
  });
  assets = await serveAssets(app, { dir, prefix: '/assets' });
  app.get('/', { schema: { hide: true } }, (req, reply) =>
    sendPage(reply, {
      title: 'A <page>',
      styles: [assets.url('app.css')],
      scripts: [assets.url('app.js')],
      modules: [assets.url('shared/console.js')],
      body: html`<p data-name="${'"><script>alert(1)</script>'}">${raw('<b>bold</b>')}</p>`,
    }),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
after(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

test('a page carries a strict CSP, escapes interpolations and links hashed assets', async () => {
  const res = await fetch(`${base}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|https?:/);
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  const body = await res.text();
  assert.match(body, /<title>A &lt;page&gt;<\/title>/);
  assert.match(body, /data-name="&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;"/);
  assert.match(body, /<b>bold<\/b>/);
  assert.match(body, /<script defer src="\/assets\/app\.js\?v=[0-9a-f]{16}"><\/script>/);
  assert.match(body, /<meta name="viewport"/);
  assert.match(body, /<script type="module" src="\/assets\/shared\/console\.js\?v=[0-9a-f]{16}"><\/script>/);
});

test('the shared console script is served beside every app\'s own assets, as the file in platform/http/web', async () => {
  const res = await fetch(`${base}/assets/shared/console.js`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.equal(await res.text(), await readFile(join(SHARED_ASSETS_DIR, 'console.js'), 'utf8'));
  assert.equal((await fetch(`${base}${assets.url('shared/console.js')}`)).headers.get('cache-control'), 'public, max-age=31536000, immutable');
  // The app's own files are not served under shared/, nor shared files at the app's level.
  for (const path of ['/assets/shared/app.js', '/assets/console.js', '/assets/shared/..%2Fapp.js']) assert.equal((await fetch(`${base}${path}`)).status, 404, path);
  assert.throws(() => assets.url('shared/nope.js'), /no asset 'shared\/nope.js'/);
});

test('an asset with the current hash is immutable; without it, revalidated by ETag', async () => {
  const versioned = await fetch(`${base}${assets.url('app.js')}`);
  assert.equal(versioned.status, 200);
  assert.match(versioned.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.equal(versioned.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.equal(await versioned.text(), 'document.body.dataset.ready = "yes";\n');

  const plain = await fetch(`${base}/assets/app.css`);
  assert.equal(plain.headers.get('cache-control'), 'public, max-age=0, must-revalidate');
  const etag = plain.headers.get('etag');
  assert.ok(etag);
  const again = await fetch(`${base}/assets/app.css`, { headers: { 'if-none-match': etag } });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), '');
});

test('unknown, hidden and traversing asset names answer the app 404', async () => {
  for (const path of ['/assets/nope.js', '/assets/.hidden', '/assets/..%2Fpages.ts', '/assets/%2E%2E%2Fapp.ts']) {
    const res = await fetch(`${base}${path}`);
    assert.equal(res.status, 404, path);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'not_found');
  }
  assert.throws(() => assets.url('missing.js'), /no asset 'missing.js'/);
});
