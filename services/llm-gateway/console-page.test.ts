import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import { launchBrowser, openPage, PHONE, type TestBrowser } from '../../platform/testing/browser.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';
import { startGateway, upstreamModels, type GatewayUnderTest } from './testing/harness.ts';

// LATTICE_SCREENSHOTS=dir keeps the page's screenshots there (the docs' console.png comes from this test).
const shots = process.env.LATTICE_SCREENSHOTS;

let gw: GatewayUnderTest;
let up: FakeUpstream;
let browser: TestBrowser;
before(async () => {
  up = await startFakeUpstream();
  gw = await startGateway({ models: upstreamModels(up.url) });
  browser = await launchBrowser();
});
after(async () => {
  await browser.close();
  await gw.close();
  await up.close();
});

test('in the browser: sign in, see balance and spend, create a key and see its secret once, revoke it', async () => {
  const ws = await gw.workspace(25);
  const { email, password } = await gw.signIn(ws.accountId);
  // Some traffic on two keys so that the chart has bars.
  const other = await call(`${gw.url}/api/api-keys`, { body: { name: 'batch jobs' }, headers: { cookie: (await gw.signIn(ws.accountId)).cookie } });
  for (const [key, max] of [[ws.key, 5], [ws.key, 3], [other.body.key, 4]] as const) {
    const res = await call(`${gw.url}/api/v1/chat/completions`, { body: { model: 'fast', messages: [{ role: 'user', content: 'hello '.repeat(2000) }], max_tokens: max }, headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
  }

  const { page, context, problems } = await openPage(browser);
  try {
    await page.goto(`${gw.url}/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    assert.match(await page.locator('#balance').innerText(), /^\$24\.99/);
    assert.equal(await page.locator('svg.chart rect').count(), 2);
    assert.equal(await page.locator('tr[data-key-id]').count(), 2);

    await page.getByLabel('Key name').fill('ci pipeline');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#secret-value', { hasText: /sk-lat_/ }).waitFor();
    const secret = (await page.locator('#secret-value').innerText()).trim();
    assert.match(secret, /^sk-lat_[A-Za-z0-9]{32}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.locator('#copy-status').filter({ hasText: /Copied|Selected/ }).waitFor();
    if (shots) await page.screenshot({ path: join(shots, 'console-secret.png') });
    await page.getByRole('button', { name: 'Done' }).click();
    await page.locator('tr[data-key-id]', { hasText: 'ci pipeline' }).waitFor();
    // Shown once: after closing, the secret is nowhere on the page, and the key works.
    assert.ok(!(await page.content()).includes(secret));
    assert.equal((await call(`${gw.url}/api/v1/models`, { headers: { authorization: `Bearer ${secret}` } })).status, 200);
    if (shots) await page.screenshot({ path: join(shots, 'console.png'), fullPage: true });

    const row = page.locator('tr[data-key-id]', { hasText: 'ci pipeline' });
    await row.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Requests per minute').fill('30');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('tr[data-key-id]', { hasText: '30 req/min' }).waitFor();

    await page.locator('tr[data-key-id]', { hasText: 'ci pipeline' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.locator('tr[data-key-id]', { hasText: 'ci pipeline' }).waitFor({ state: 'detached' });
    assert.equal(await page.locator('tr[data-key-id]').count(), 2);
    const refused = await call(`${gw.url}/api/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(refused.status, 401);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('on a phone-width screen the signed-in console fits without sideways scrolling', async () => {
  const ws = await gw.workspace(1);
  const { email, password } = await gw.signIn(ws.accountId);
  const { page, context, problems } = await openPage(browser, { viewport: PHONE });
  try {
    await page.goto(`${gw.url}/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Invalid email or password').waitFor();
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    if (shots) await page.screenshot({ path: join(shots, 'console-phone.png'), fullPage: true });
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
