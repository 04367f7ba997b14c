// The chat web page in a real browser (Debian's Chromium): sign in, pick a model, send a
// message and watch the reply stream in, stop a reply, reach the daily limit; at desktop and
// phone widths, with nothing loaded from outside the machine.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { launchBrowser, openPage, PHONE, type TestBrowser } from '../../platform/testing/browser.ts';
import { startChat, startUpstream, type ChatTest, type ChatUser, type Upstream } from './testing.ts';

const SHOTS = process.env.LATTICE_SCREENSHOTS ?? join(tmpdir(), 'lattice-chat-screens');
const REPLY = 'Lift comes from the pressure difference between the upper and lower surfaces of the wing, as the air is turned downwards.';

// Page-side expressions are strings: the project's TypeScript has no DOM types.
// A locator, not waitForFunction: polling a function needs eval, which the page's CSP forbids.
const streamingTextShown = (page: Page) => page.locator('.message.assistant[data-status="streaming"] .content').filter({ hasText: /\S/ }).waitFor();

let upstream: Upstream;
let chat: ChatTest;
let browser: TestBrowser;
before(async () => {
  await mkdir(SHOTS, { recursive: true });
  upstream = await startUpstream({ words: REPLY.split(/(?<= )/), delayMs: 60 });
  chat = await startChat({ dailyMessages: 3, dailyProMessages: 2 }, upstream);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await chat?.close();
  await upstream?.close();
});

async function signIn(page: Page, user: ChatUser): Promise<void> {
  await page.goto(`${chat.url}/`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#composer').waitFor();
}

test('sign in, send a message, watch the reply stream in, stop one, and reach the daily limit', async () => {
  const user = await chat.newUser();
  const { page, context, problems } = await openPage(browser);

  // A wrong password is shown on the form.
  await page.goto(`${chat.url}/`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Invalid email or password').waitFor();

  await signIn(page, user);
  // The model picker: the compact model by default, with context and prices.
  assert.equal(await page.locator('#model').inputValue(), 'lattice:compact');
  assert.equal(await page.locator('#model option').count(), 6);
  // A real model serves every slot here: no test-model notice.
  assert.equal(await page.locator('#builtin-notice').isVisible(), false);
  assert.match((await page.locator('#model-summary').textContent()) ?? '', /128K context · up to 16K out · \$0\.10 in \/ \$0\.40 out per 1M tokens/);
  await page.locator('#model').selectOption('lattice:frontier-reasoning');
  assert.match((await page.locator('#model-summary').textContent()) ?? '', /200K context · up to 32K out · \$3\.50 in \/ \$14\.00 out/);
  await page.locator('#model-pro').waitFor();
  await page.locator('#model').selectOption('lattice:compact');
  assert.equal(await page.locator('#remaining-messages').textContent(), '3');

  // Send: the reply shows partial text while it is still streaming, then the whole of it.
  await page.getByLabel('Message').fill('How does a wing make lift?');
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page.locator('.message.assistant').last();
  await streamingTextShown(page);
  const partial = (await reply.locator('.content').textContent()) ?? '';
  assert.ok(partial.length > 0 && partial.length < REPLY.length, `partial text seen: "${partial}"`);
  assert.ok(await page.getByRole('button', { name: 'Stop' }).isVisible());
  await page.locator('.message.assistant[data-status="complete"]').waitFor();
  assert.equal(await reply.locator('.content').textContent(), REPLY);
  assert.equal(await page.locator('#remaining-messages').textContent(), '2');
  // The new conversation is in the list, named after the message, and in the address.
  await page.locator('#conversation-list a', { hasText: 'How does a wing make lift?' }).waitFor();
  assert.match(page.url(), /\?c=conv_/);
  await page.screenshot({ path: join(SHOTS, 'chat-desktop.png') });

  // Stop: the reply stops where it was and says so.
  await page.getByLabel('Message').fill('Tell me more');
  await page.getByRole('button', { name: 'Send' }).click();
  await streamingTextShown(page);
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.locator('.message.assistant[data-status="stopped"]').waitFor();
  await page.getByRole('button', { name: 'Send' }).waitFor();
  const conversationId = new URL(page.url()).searchParams.get('c')!;
  let stored: any;
  for (let i = 0; i < 30; i++) {
    stored = (await chat.as(user, `/api/conversations/${conversationId}`)).body.messages.at(-1);
    if (stored.status !== 'streaming') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(stored.status, 'stopped');
  assert.ok(stored.content.length < REPLY.length);

  // The third message uses the last one of the day; the fourth is refused with the limit named.
  await page.getByLabel('Message').fill('Last one');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.message.assistant[data-status="complete"]').nth(1).waitFor();
  assert.equal(await page.locator('#remaining-messages').textContent(), '0');
  await page.getByLabel('Message').fill('One too many');
  await page.getByRole('button', { name: 'Send' }).click();
  const notice = page.locator('#notice');
  await page.locator('#notice', { hasText: 'Daily limit of 3 messages reached' }).waitFor();
  assert.match((await notice.textContent()) ?? '', /^Daily limit of 3 messages reached; it resets at \d{4}-\d\d-\d\dT00:00:00\.000Z \(midnight UTC\)$/);
  assert.equal(await page.getByLabel('Message').inputValue(), 'One too many', 'the refused text is kept for later');
  assert.equal(await page.locator('.message.user').count(), 3);
  await page.screenshot({ path: join(SHOTS, 'chat-limit.png') });

  // The server renders the same conversation on a reload.
  await page.reload();
  assert.equal(await page.locator('.message').count(), 6);
  await page.locator('.message.assistant[data-status="stopped"] .tag', { hasText: 'stopped' }).waitFor();
  assert.equal(await page.locator('#remaining-messages').textContent(), '0');
  assert.match((await page.locator('#notice').textContent()) ?? '', /used all 3 messages for today/);

  // Sign out returns to the sign-in form, and the session is gone.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

test('a sign-in the network loses says the server cannot be reached, and the form can be sent again', async () => {
  const user = await chat.newUser();
  const { page, context } = await openPage(browser);
  await page.goto(`${chat.url}/`);
  await page.route('**/api/auth/login', (route) => route.abort('connectionfailed'));
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('The server cannot be reached. Try again.').waitFor();
  assert.ok(await page.getByRole('button', { name: 'Sign in' }).isEnabled(), 'the form can be sent again');
  await page.unroute('**/api/auth/login');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#composer').waitFor();
  await context.close();
});

test('at phone width (390 px) the page fits the screen and a message can be sent', async () => {
  const user = await chat.newUser();
  const { page, context, problems } = await openPage(browser, { viewport: PHONE });
  await page.goto(`${chat.url}/`);
  await page.screenshot({ path: join(SHOTS, 'signin-phone.png') });
  await signIn(page, user);
  await page.getByLabel('Message').fill('Short question');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.message.assistant[data-status="complete"]').waitFor();
  const fits = await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
  assert.ok(fits, 'no sideways scrolling');
  for (const selector of ['#model', '#send', '#message', '#remaining']) {
    const box = await page.locator(selector).boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width && box.y + box.height <= PHONE.height, `${selector} is on screen: ${JSON.stringify(box)}`);
  }
  // The conversation list is folded away and opens on demand.
  assert.equal(await page.locator('#conversations').getAttribute('open'), null);
  await page.getByText('Conversations').click();
  await page.locator('#conversation-list a', { hasText: 'Short question' }).waitFor();
  await page.getByText('Conversations').click();
  await page.screenshot({ path: join(SHOTS, 'chat-phone.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('while the built-in smoke-test model serves a slot the page says so and how to configure a real model; a real model’s slot has no notice', async () => {
  // Only the code slot is mapped to a real (OpenAI-compatible) model; the others stay on the built-in one.
  const mixed = await startChat({ slotModels: { 'lattice:code': 'test-upstream' }, maxOutputTokens: 4 }, upstream);
  try {
    const user = await mixed.newUser();
    for (const viewport of [undefined, PHONE]) {
      const { page, context, problems } = await openPage(browser, viewport ? { viewport } : {});
      await page.goto(`${mixed.url}/`);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#composer').waitFor();
      const notice = page.locator('#builtin-notice');
      assert.equal(await page.locator('#model').inputValue(), 'lattice:compact');
      assert.ok(await notice.isVisible(), 'the notice is shown for the built-in model');
      const text = await notice.innerText();
      assert.match(text, /Test model: replies are not real answers/);
      assert.match(text, /built-in smoke-test model lattice-tiny/);
      assert.match(text, /GGUF file/);
      assert.match(text, /OpenAI-compatible upstream/);
      assert.match(text, /LATTICE_MODELS/);
      assert.match(text, /LATTICE_CHAT_MODELS=\{"lattice:compact": "model-id"\}/);
      const box = await notice.boundingBox();
      const width = viewport?.width ?? 1280;
      assert.ok(box && box.x >= 0 && box.x + box.width <= width, `the notice fits: ${JSON.stringify(box)}`);
      await page.screenshot({ path: join(SHOTS, viewport ? 'builtin-notice-phone.png' : 'builtin-notice.png') });
      // The slot a real model serves: the notice goes; back on a built-in slot it returns, naming that slot.
      await page.locator('#model').selectOption('lattice:code');
      await notice.waitFor({ state: 'hidden' });
      await page.locator('#model').selectOption('lattice:reasoning');
      await notice.waitFor({ state: 'visible' });
      assert.match(await notice.innerText(), /LATTICE_CHAT_MODELS=\{"lattice:reasoning": "model-id"\}/);
      assert.deepEqual(problems, []);
      await context.close();
    }
  } finally {
    await mixed.close();
  }
  // Every slot on the built-in model (no configuration): the notice says every model is.
  const plain = await startChat();
  try {
    const user = await plain.newUser();
    const { page, context, problems } = await openPage(browser);
    await page.goto(`${plain.url}/`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#composer').waitFor();
    assert.match(await page.locator('#builtin-notice').innerText(), /Every model here is served by the built-in smoke-test model/);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await plain.close();
  }
});
