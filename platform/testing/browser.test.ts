import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createServiceApp, type ServiceApp } from '../http/app.ts';
import { html, raw, sendPage, serveAssets } from '../http/pages.ts';
import { launchBrowser, openPage, PHONE, type TestBrowser } from './browser.ts';

let app: ServiceApp;
let base: string;
let dir: string;
let browser: TestBrowser;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'browser-test-'));
  await writeFile(join(dir, 'app.js'), 'document.getElementById("out").textContent = "script ran " + window.innerWidth;\n');
  app = await createServiceApp({
    docs: { title: 't', description: 'd', version: '1' },
    formatError: (e) => ({ error: { code: e.code, message: e.message } }),
  });
  const assets = await serveAssets(app, { dir, prefix: '/assets' });
  app.get('/', { schema: { hide: true } }, (req, reply) =>
    sendPage(reply, {
      title: 'Browser check',
      scripts: [assets.url('app.js')],
      body: html`<p id="out">waiting</p>`,
    }),
  );
  app.get('/inline', { schema: { hide: true } }, (req, reply) =>
    sendPage(reply, { title: 'Inline', body: raw('<p id="out">untouched</p><script>document.getElementById("out").textContent = "inline ran"</script>') }),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

test('Chromium runs the page script from the assets folder at phone width', async () => {
  const { page, context, problems } = await openPage(browser, { viewport: PHONE });
  await page.goto(`${base}/`);
  await page.getByText('script ran 390').waitFor({ timeout: 10_000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('the page policy blocks inline scripts and the refusal is reported as a problem', async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${base}/inline`);
  await page.waitForLoadState('load');
  assert.equal(await page.locator('#out').textContent(), 'untouched');
  assert.ok(problems.some((p) => /Content Security Policy/i.test(p)), problems.join('\n'));
  await context.close();
});
