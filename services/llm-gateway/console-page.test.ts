import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import type { Page } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, PHONE, type TestBrowser } from '../../platform/testing/browser.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';
import { startGateway, upstreamModels, type GatewayUnderTest } from './testing/harness.ts';

// LATTICE_SCREENSHOTS=dir keeps the page's screenshots there (the docs' console.png comes from this test).
const shots = process.env.LATTICE_SCREENSHOTS;

async function signInOn(page: Page, url: string, email: string, password: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
}

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
    assert.deepEqual(await page.locator('tr[data-key-id]', { hasText: 'ci pipeline' }).locator('td.scopes code.scope').allInnerTexts(), ['chat:write', 'models:read']);
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
    // The keys table fits its card too (no scrolling inside it), its scopes under each key's name.
    const tableOverflow = (await page.evaluate("(() => { const w = document.querySelector('.table-wrap'); return w.scrollWidth - w.clientWidth; })()")) as number;
    assert.ok(tableOverflow <= 0, `the keys table is ${tableOverflow}px wider than its card`);
    assert.deepEqual(await page.locator('tr[data-key-id] .scopes-inline code.scope').allInnerTexts(), ['chat:write', 'models:read']);
    assert.ok(await page.getByRole('button', { name: 'Revoke' }).isVisible());
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('in the browser: a key created with only models:read lists the catalog, and chat answers the spec’s 403', async () => {
  const ws = await gw.workspace(5);
  const { email, password } = await gw.signIn(ws.accountId);
  const { page, context, problems } = await openPage(browser);
  try {
    await signInOn(page, gw.url, email, password);
    await page.getByLabel('Key name').fill('catalog reader');
    await page.getByLabel('chat:write').uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#secret-value', { hasText: /sk-lat_/ }).waitFor();
    const secret = (await page.locator('#secret-value').innerText()).trim();
    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.locator('tr[data-key-id]', { hasText: 'catalog reader' });
    await row.waitFor();
    assert.deepEqual(await row.locator('td.scopes code.scope').allInnerTexts(), ['models:read']);
    const auth = { authorization: `Bearer ${secret}` };
    assert.equal((await call(`${gw.url}/api/v1/models`, { headers: auth })).status, 200);
    const chat = await call(`${gw.url}/api/v1/chat/completions`, { body: { model: 'fast', messages: [{ role: 'user', content: 'hi' }] }, headers: auth });
    assert.equal(chat.status, 403);
    assert.deepEqual(chat.body, { error: { message: 'API key does not have chat:write scope', type: 'permission_error' } });
    // With no scope at all the console refuses the key and says why.
    await page.getByLabel('Key name').fill('nothing');
    await page.getByLabel('models:read').uncheck();
    await page.getByLabel('chat:write').uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('scopes must be a non-empty list of chat:write, models:read').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the spend chart’s y-axis labels fit and sit on their grid lines at every width, small amounts in cents', async () => {
  const ws = await gw.workspace(5);
  const { email, password } = await gw.signIn(ws.accountId);
  // A few tiny calls: a day's spend of a few hundredths of a cent.
  for (const max of [2, 3]) {
    const res = await call(`${gw.url}/api/v1/chat/completions`, { body: { model: 'fast', messages: [{ role: 'user', content: 'hello '.repeat(60) }], max_tokens: max }, headers: { authorization: `Bearer ${ws.key}` } });
    assert.equal(res.status, 200);
  }
  for (const viewport of [DESKTOP, { width: 800, height: 800 }, PHONE]) {
    const { page, context, problems } = await openPage(browser, { viewport });
    try {
      await signInOn(page, gw.url, email, password);
      const labels = await page.locator('.y-axis .tick').allInnerTexts();
      assert.equal(labels.length, 5);
      assert.equal(labels.at(-1), '0¢');
      for (const l of labels) assert.match(l, /^\d+(\.\d+)?¢$/, `label ${l}`);
      const geometry = (await page.evaluate(`(() => {
        const card = document.querySelector('.chart-box').closest('.card').getBoundingClientRect();
        const ticks = [...document.querySelectorAll('.y-axis .tick')].map((t) => {
          // The text itself, as drawn (the label's box has no height of its own).
          const range = document.createRange();
          range.selectNodeContents(t);
          const r = range.getBoundingClientRect();
          return { i: Number(t.dataset.tick), left: r.left, right: r.right, mid: (r.top + r.bottom) / 2, clipped: t.scrollWidth > t.clientWidth + 0.5, size: parseFloat(getComputedStyle(t).fontSize) };
        });
        const lines = Object.fromEntries([...document.querySelectorAll('svg.chart line.grid')].map((l) => [l.dataset.tick, l.getBoundingClientRect().top]));
        return { card: { left: card.left, right: card.right }, ticks, lines };
      })()`)) as { card: { left: number; right: number }; ticks: { i: number; left: number; right: number; mid: number; clipped: boolean; size: number }[]; lines: Record<string, number> };
      for (const t of geometry.ticks) {
        assert.ok(t.left >= geometry.card.left && t.right <= geometry.card.right, `${viewport.width}px: tick ${t.i} outside the card`);
        assert.equal(t.clipped, false, `${viewport.width}px: tick ${t.i} clipped`);
        assert.ok(t.size >= 10, `${viewport.width}px: tick ${t.i} is ${t.size}px`);
        assert.ok(Math.abs(t.mid - geometry.lines[String(t.i)]!) <= 2, `${viewport.width}px: tick ${t.i} at ${t.mid}, its line at ${geometry.lines[String(t.i)]}`);
      }
      if (shots) await page.locator('.chart-box').screenshot({ path: join(shots, `console-chart-${viewport.width}.png`) });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('with only the built-in model configured the console says so and how to configure a real one', async () => {
  const builtin = await startGateway();
  try {
    const ws = await builtin.workspace(1);
    const { email, password } = await builtin.signIn(ws.accountId);
    const { page, context, problems } = await openPage(browser);
    try {
      await signInOn(page, builtin.url, email, password);
      const notice = page.locator('#builtin-notice');
      await notice.waitFor();
      const text = await notice.innerText();
      assert.match(text, /built-in smoke-test model/);
      assert.match(text, /LATTICE_MODELS/);
      assert.match(text, /GGUF file/);
      assert.match(text, /OpenAI-compatible upstream/);
      assert.match(await page.locator('#models li[data-model="lattice-tiny"]').innerText(), /built-in smoke-test model/);
      if (shots) await page.screenshot({ path: join(shots, 'console-builtin.png'), fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  } finally {
    await builtin.close();
  }
  // A gateway with real models: the list shows them and no notice.
  const ws = await gw.workspace(1);
  const { email, password } = await gw.signIn(ws.accountId);
  const { page, context } = await openPage(browser);
  try {
    await signInOn(page, gw.url, email, password);
    await page.locator('#models li[data-model="fast"]').waitFor();
    assert.equal(await page.locator('#builtin-notice').count(), 0);
  } finally {
    await context.close();
  }
});
