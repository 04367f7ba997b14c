/**
 * A real browser for page tests: Debian's Chromium (`/usr/bin/chromium`, installed by
 * scripts/setup-system.sh) driven by playwright-core, headless, with a fresh profile per launch
 * and no traffic of its own (no sync, updates, QUIC or background networking).
 *
 * Usage (in a *.test.ts beside a page):
 *
 *   import { launchBrowser, openPage, PHONE } from '../../platform/testing/browser.ts';
 *
 *   const browser = await launchBrowser();            // once per test file (about 0.5 s)
 *   after(() => browser.close());
 *   const { page, problems } = await openPage(browser, { viewport: PHONE }); // DESKTOP by default
 *   await page.goto(service.url + '/');
 *   await page.getByLabel('Email').fill('a@example.test');
 *   await page.getByRole('button', { name: 'Sign in' }).click();
 *   await page.getByText('Hello').waitFor();
 *   await page.screenshot({ path: 'docs/page.png' });
 *   assert.deepEqual(problems, []);  // page errors, console errors (CSP refusals among them),
 *                                    // failed requests, requests that left the machine
 *
 * A missing Chromium is an error, never a skip: the pages are part of the product and CI
 * installs the browser. LATTICE_CHROMIUM names another executable where needed.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.LATTICE_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const DESKTOP = { width: 1280, height: 800 } as const;
/** A common phone width (CSS pixels). */
export const PHONE = { width: 390, height: 844 } as const;

export interface TestBrowser {
  /** Opens an isolated context (own cookies and storage) with one page. */
  newContext(options?: { viewport?: { width: number; height: number } }): Promise<BrowserContext>;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium. playwright gives every launch a fresh temporary user-data dir
 * (`--user-data-dir` in /tmp, removed on close), so nothing carries over between runs; each
 * context opened on it is isolated too (own cookies and storage), so one launch serves a file.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: run scripts/setup-system.sh (installs Debian's chromium)`);
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS],
    timeout: 30_000,
  });
  return {
    browser,
    newContext: (options = {}) => browser.newContext({ viewport: options.viewport ?? DESKTOP }),
    close: () => browser.close(),
  };
}

export interface OpenedPage {
  page: Page;
  context: BrowserContext;
  /** What went wrong on the page so far: page errors, console errors, failed or off-machine requests. */
  problems: string[];
}

/** A new isolated context and page whose problems are collected; close the context when done. */
export async function openPage(
  browser: TestBrowser,
  options: { viewport?: { width: number; height: number }; ignoreConsole?: RegExp } = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: options.viewport });
  // Generous waits: CI machines run several suites at once, and a slow wait is not a failure.
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    // Expected HTTP errors the page handles (a 429, a 401 before sign-in) log as console errors.
    if (/Failed to load resource: the server responded with a status of 4\d\d/.test(text)) return;
    if (options.ignoreConsole?.test(text)) return;
    problems.push(`console error: ${text}`);
  });
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:') return;
    if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') problems.push(`request left the machine: ${req.url()}`);
  });
  page.on('requestfailed', (req) => {
    const reason = req.failure()?.errorText ?? 'failed';
    // A stream the page aborts on purpose (a stop button) is not a problem.
    if (reason === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${req.method()} ${req.url()} (${reason})`);
  });
  return { page, context, problems };
}
