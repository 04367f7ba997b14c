// The live positioning page in a real browser (Debian's Chromium): sign in with a console user,
// see the satellites the API reports, watch the spoofing scenario raise an alert and clearing it
// resolve the event, and a loss of signal put the time into holdover with its bound growing; at
// desktop and phone widths, with nothing loaded from outside the machine. Screenshots go to docs/.
import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createConsoleUser } from '../../platform/identity/console-users.ts';
import { launchBrowser, openPage, PHONE, type TestBrowser } from '../../platform/testing/browser.ts';
import { call, type TestService } from '../../platform/testing/harness.ts';
import { requestScenario, scenarioAck } from './control.ts';
import { startNav, startSibling, until } from './testing.ts';

const DOCS = process.env.LATTICE_SCREENSHOTS ?? fileURLToPath(new URL('./docs/', import.meta.url));
const PASSWORD = 'correct horse battery';

let svc: TestService & { auth: Record<string, string> };
let browser: TestBrowser;
let email: string;

before(async () => {
  svc = await startNav();
  const { accountId } = await svc.newKey();
  email = `nav-${accountId}@example.test`;
  await createConsoleUser(svc.db, { accountId, email, password: PASSWORD });
  await until(`${svc.url}/position/latest`, svc.auth, (b) => b?.success === true);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await svc?.close();
});

async function scenario(name: string): Promise<void> {
  const seq = await requestScenario(svc.db, name);
  const deadline = Date.now() + 5000;
  while (!(await scenarioAck(svc.db, seq)).applied) {
    assert.ok(Date.now() < deadline, `scenario ${name} was not applied`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function signIn(page: Page): Promise<void> {
  await page.goto(`${svc.url}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#live').waitFor();
}

/** The satellites the page shows now (table rows and sky plot marks). */
async function shownSatellites(page: Page): Promise<{ rows: string[]; marks: string[] }> {
  const rows = await page.locator('table.sats tbody tr').evaluateAll((els: any[]) => els.map((e) => e.dataset.sat));
  const marks = await page.locator('svg.sky g.sat').evaluateAll((els: any[]) => els.map((e) => e.dataset.sat));
  return { rows, marks };
}

test('without a session the page is the sign-in form and the data routes answer 401', async () => {
  const res = await fetch(`${svc.url}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.match(await res.text(), /<form id="signin"/);
  const state = await call(`${svc.url}/console/state`);
  assert.equal(state.status, 401);
  assert.deepEqual(state.body, { success: false, error: { code: 'UNAUTHORIZED', message: 'Not signed in' } });
  const events = await call(`${svc.url}/console/events`);
  assert.equal(events.status, 401);
  assert.equal(events.body.error.code, 'UNAUTHORIZED');
  const bad = await call(`${svc.url}/console/login`, { body: { email } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.success, false);
});

test('signed in, the page shows the satellites the API reports, the position, time and checks, and updates live', async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${svc.url}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Invalid email or password').waitFor();
  await signIn(page);

  // The same satellites as the API: the sky table and plot list what /integrity counts, per constellation too.
  let matched = false;
  let last = '';
  for (let i = 0; i < 20 && !matched; i++) {
    const { rows, marks } = await shownSatellites(page);
    const integrity = (await call(`${svc.url}/integrity`, { headers: svc.auth })).body.data;
    const byConst = (await call(`${svc.url}/integrity/constellation`, { headers: svc.auth })).body.data;
    const shownByConst: Record<string, number> = {};
    for (const c of await page.locator('table.sats tbody tr td:nth-child(2)').allTextContents()) shownByConst[c] = (shownByConst[c] ?? 0) + 1;
    const apiByConst = Object.fromEntries(Object.entries(byConst.constellations ?? byConst).map(([k, v]: [string, any]) => [k, v.satellites_visible]));
    matched = rows.length === integrity.satellites_visible && rows.length > 4 && marks.length === rows.length && JSON.stringify(Object.entries(shownByConst).sort()) === JSON.stringify(Object.entries(apiByConst).filter(([, n]) => (n as number) > 0).sort());
    last = JSON.stringify({ rows, marks, visible: integrity.satellites_visible, shownByConst, apiByConst });
    if (!matched) await page.waitForTimeout(500);
  }
  assert.ok(matched, last);
  const used = Number(await page.locator('#sat-used').textContent());
  assert.ok(used >= 4, `${used} used`);
  // No satellite's name covers another's, as the browser lays the text out.
  const labels = await page.locator('svg.sky').evaluate((svg: any) =>
    [...svg.querySelectorAll('g.sat')].map((g: any) => {
      const t = g.querySelector('text.label');
      const r = t ? t.getBBox() : null;
      return { sat: g.dataset.sat, label: t?.textContent, x: r?.x, y: r?.y, width: r?.width, height: r?.height };
    }),
  );
  assert.ok(labels.length > 4);
  for (const l of labels) assert.equal(l.label, l.sat, 'every satellite on the plot has its name');
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      const [a, b] = [labels[i], labels[j]];
      const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
      assert.ok(apart, `${a.sat} and ${b.sat} overlap: ${JSON.stringify([a, b])}`);
    }
  }
  // The position figures and the scatter; the state route is the same data as JSON.
  await page.locator('#lat', { hasText: /° [NS]$/ }).waitFor();
  assert.equal(await page.locator('#time-source').textContent(), 'GNSS');
  assert.equal(await page.locator('#spoof-status').textContent(), 'clear');
  assert.equal(await page.locator('table.checks tbody tr').count(), 6);
  await page.locator('svg.scatter circle.pt').nth(5).waitFor();
  await page.locator('svg.scatter ellipse.ellipse').waitFor();
  // Live: the UTC shown moves on without a reload.
  const utc1 = await page.locator('#utc').textContent();
  await page.locator('#updated', { hasText: 'received' }).waitFor();
  let utc2 = utc1;
  for (let i = 0; i < 40 && utc2 === utc1; i++) {
    await page.waitForTimeout(250);
    utc2 = await page.locator('#utc').textContent();
  }
  assert.notEqual(utc2, utc1);
  await page.screenshot({ path: join(DOCS, 'nav-page.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('the spoofing scenario shows the alert within seconds, and clearing it shows the recovery, pushed as server-sent events without a reload or a poll', async () => {
  const { page, context, problems } = await openPage(browser);
  await signIn(page);
  const requests: Array<{ path: string; type: string }> = [];
  page.on('request', (req) => requests.push({ path: new URL(req.url()).pathname, type: req.resourceType() }));
  await page.locator('#live[data-stream="open"]').waitFor();
  await page.evaluate('window.stillTheSamePage = true');
  assert.equal(await page.locator('#spoof-status').textContent(), 'clear');
  await scenario('spoofing');
  const t0 = Date.now();
  await page.locator('#spoof-status.alert, #spoof-status.warning').waitFor({ timeout: 60_000 });
  const seconds = (Date.now() - t0) / 1000;
  // The event escalates to an alert in the history (the live status follows each epoch's checks).
  await page.locator('.events li[data-status="alert"][data-resolved="no"]').first().waitFor({ timeout: 60_000 });
  assert.ok((await page.locator('table.checks tr[data-result="warning"]').count()) >= 1);
  assert.ok(await page.locator('svg.timeline rect.event').count() >= 1);
  await page.screenshot({ path: join(DOCS, 'nav-spoofing.png'), fullPage: true });
  await scenario('clear');
  await page.locator('#spoof-status.clear').waitFor({ timeout: 60_000 });
  // The event resolves after the engine's quiet period (120 s of receiver time, 12 s here).
  await page.locator('.events li[data-resolved="yes"]').first().waitFor({ timeout: 90_000 });
  await page.screenshot({ path: join(DOCS, 'nav-recovered.png'), fullPage: true });
  assert.ok(seconds < 30, `alert shown after ${seconds} s`);
  // All of it arrived on the one event stream opened with the page: no reload, no fetch of the panels.
  assert.equal(await page.evaluate('window.stillTheSamePage'), true, 'the page was not reloaded');
  assert.deepEqual(requests.filter((q) => q.type === 'fetch' || q.type === 'xhr' || q.type === 'document').map((q) => q.path), []);
  assert.equal(await page.locator('#live').getAttribute('data-stream'), 'open');
  assert.deepEqual(problems, []);
  await context.close();
});

test('at phone width a loss of signal shows holdover with the error bound growing, and the page fits the screen', async () => {
  const { page, context, problems } = await openPage(browser, { viewport: PHONE });
  await page.goto(`${svc.url}/`);
  await page.screenshot({ path: join(DOCS, 'nav-signin-phone.png') });
  await signIn(page);
  await scenario('signal-loss');
  await page.locator('#time-source', { hasText: 'Holdover' }).waitFor({ timeout: 60_000 });
  const bound = async () => Number(((await page.locator('#bound').textContent()) ?? '').replace(/[^\d.]/g, ''));
  const b1 = await bound();
  let b2 = b1;
  for (let i = 0; i < 40 && !(b2 > b1); i++) {
    await page.waitForTimeout(250);
    b2 = await bound();
  }
  assert.ok(b2 > b1, `bound ${b1} -> ${b2}`);
  await page.locator('#holdover-age').waitFor();
  const fits = await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
  assert.ok(fits, 'no sideways scrolling');
  await page.screenshot({ path: join(DOCS, 'nav-holdover-phone.png'), fullPage: true });
  await scenario('clear');
  await page.locator('#time-source', { hasText: 'GNSS' }).waitFor({ timeout: 60_000 });
  assert.deepEqual(problems, []);
  await context.close();
});

// The embedded store belongs to one process, which always leads: a follower needs PostgreSQL.
const followerSkip = process.env.DATABASE_URL ? false : 'a follower needs PostgreSQL (on the embedded store every process leads)';
test('a follower process answers the page and its data from the leader\'s receiver', { skip: followerSkip }, async () => {
  const follower = await startSibling(svc, {});
  try {
    const page = await fetch(`${follower.url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const login = await fetch(`${follower.url}/console/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    assert.equal(login.status, 200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.match(cookie, /^lattice_nav=/);
    const viaFollower = await call(`${follower.url}/console/state`, { headers: { cookie } });
    assert.equal(viaFollower.status, 200);
    const direct = await call(`${svc.url}/console/state`, { headers: { cookie } });
    // The same receiver behind both: the same epochs and satellites (within an epoch or two of each other).
    assert.ok(Math.abs(viaFollower.body.data.epoch.seq - direct.body.data.epoch.seq) <= 5, `${viaFollower.body.data.epoch.seq} vs ${direct.body.data.epoch.seq}`);
    assert.ok(viaFollower.body.data.sky.length > 4);
    const html = await (await fetch(`${follower.url}/`, { headers: { cookie } })).text();
    assert.match(html, /<main class="grid" id="live"/);
    // The live updates pass through the follower as they come: two epochs' panels on one open stream.
    // (A plain connection of its own: a pooled client may leave a spare connection open that holds up the server's close.)
    const events = await new Promise<IncomingMessage>((resolve, reject) =>
      get(`${follower.url}/console/events`, { agent: false, headers: { cookie, accept: 'text/event-stream' } }, resolve).on('error', reject),
    );
    assert.equal(events.statusCode, 200);
    assert.match(events.headers['content-type'] ?? '', /^text\/event-stream/);
    events.setEncoding('utf8');
    let seen = '';
    events.on('data', (chunk: string) => {
      seen += chunk;
    });
    while ((seen.match(/event: panels\n/g) ?? []).length < 2) {
      assert.ok(!events.readableEnded, seen.slice(0, 200));
      await new Promise((r) => setTimeout(r, 20));
    }
    events.destroy();
  } finally {
    await follower.app.close();
  }
});
