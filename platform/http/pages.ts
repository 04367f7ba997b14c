/**
 * Serving a service's own web pages: server-rendered HTML under a strict Content-Security-Policy,
 * and static assets (script, style, images) from one folder of the repository, with caching
 * headers. Nothing is loaded from outside the machine: the policy allows only the page's own
 * origin, so a self-hosted install works with no internet access.
 *
 * Usage (inside a service's build(), after createServiceApp):
 *
 *   import { html, raw, sendPage, serveAssets } from '../../platform/http/pages.ts';
 *
 *   const assets = await serveAssets(app, {
 *     dir: fileURLToPath(new URL('./web/', import.meta.url)), // chat.js, chat.css, logo.svg...
 *     prefix: `${options.prefix}/assets`,                     // URL path the files are served under
 *   });
 *   app.get(`${options.prefix}/`, { schema: { hide: true } }, (req, reply) =>
 *     sendPage(reply, {
 *       title: 'Chat',
 *       styles: [assets.url('chat.css')],   // -> /assets/chat.css?v=<content hash>
 *       scripts: [assets.url('chat.js')],   // loaded with `defer`; inline scripts are refused by the CSP
 *       body: html`<main data-user="${name}">...</main>`, // interpolations are HTML-escaped
 *     }),
 *   );
 *
 * - `html` escapes every interpolated value; `raw(s)` marks trusted markup; arrays are joined.
 * - Assets are read once at start (a page's folder is small). A URL with the current `?v=` hash
 *   is cached for a year (`immutable`); any other request gets `no-cache` plus an ETag, and a
 *   matching If-None-Match answers 304. Unknown names answer the service's 404 (the app's
 *   not-found handler); names with `/`, `..` or hidden files are never served.
 * - Inline `style="..."` attributes and `<script>` blocks are blocked by the CSP: put styles in
 *   the CSS file and behaviour in the script file; pass data to the script through `data-*`
 *   attributes or a JSON API.
 * - Every app that serves assets also serves the platform's shared page scripts (the files of
 *   platform/http/web/) under `prefix/shared/<name>`, the same path beside every page's own
 *   files. `shared/console.js` is the console pages' common behaviour (API calls, sign-in, live
 *   event streams): an ES module, so a page's script is listed in `modules` and imports it
 *   with `import { api } from './shared/console.js'`.
 */
import { sha256Hex } from '../../engines/crypto/encoding.ts';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';

/** Only our own origin, no inline code, no framing, no plugins. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Headers every HTML page carries. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-store',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** Markup that `html` inserts as is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Marks a string of trusted markup (never user input). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: every interpolation is escaped unless it is SafeHtml (or an array of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

export interface PageOptions {
  title: string;
  body: SafeHtml;
  styles?: readonly string[];
  scripts?: readonly string[];
  /** ES modules (`type="module"`, deferred by nature): scripts that import the shared page scripts. */
  modules?: readonly string[];
  /** `lang` of the document (default `en`). */
  lang?: string;
  /** Icon URL (an asset); none by default, and the browser's /favicon.ico request is answered 404. */
  icon?: string;
}

/** The whole HTML document: viewport for phones, the styles, the deferred scripts. */
export function renderPage(page: PageOptions): string {
  return html`<!doctype html>
<html lang="${page.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
${page.icon ? html`<link rel="icon" href="${page.icon}">` : ''}
${(page.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}">\n`)}
${(page.scripts ?? []).map((src) => html`<script defer src="${src}"></script>\n`)}
${(page.modules ?? []).map((src) => html`<script type="module" src="${src}"></script>\n`)}
</head>
<body>
${page.body}
</body>
</html>
`.value;
}

/** Sends an HTML page with the security headers; `status` 200 by default. */
export function sendPage(reply: FastifyReply, page: PageOptions, status = 200): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(renderPage(page));
}

export interface AssetsOptions {
  /** Folder whose plain files are served (not its sub-folders). */
  dir: string;
  /** URL path they are served under, e.g. `/assets` or `${prefix}/assets`. */
  prefix: string;
  /** max-age in seconds for requests without the current version hash (default 0: revalidate). */
  maxAge?: number;
}

export interface Assets {
  /** URL of one asset with its content hash, e.g. `/assets/chat.js?v=1a2b3c4d5e6f`; `shared/<name>` names a shared page script. */
  url(name: string): string;
  /** Names served, sorted. */
  names(): string[];
}

interface Asset {
  body: Buffer;
  type: string;
  hash: string;
}

// Any Fastify instance, whatever its type provider: only `get` is used.
interface RoutableApp {
  get(path: string, opts: { schema: { hide: boolean } }, handler: (req: AssetRequest, reply: FastifyReply) => unknown): unknown;
}
interface AssetRequest {
  params: unknown;
  query: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** The platform's shared page scripts (platform/http/web/), served beside every app's assets. */
export const SHARED_ASSETS_DIR = fileURLToPath(new URL('./web/', import.meta.url));

/** The plain files of one folder (no sub-folders, no hidden files), with their types and content hashes. */
async function readAssets(dir: string): Promise<Map<string, Asset>> {
  const files = new Map<string, Asset>();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const body = await readFile(join(dir, entry.name));
    files.set(entry.name, {
      body,
      type: TYPES[extname(entry.name).toLowerCase()] ?? 'application/octet-stream',
      hash: sha256Hex(body).slice(0, 16),
    });
  }
  return files;
}

/**
 * Reads every file of `dir` and serves it under `prefix/<name>`, and the shared page scripts
 * under `prefix/shared/<name>`; throws if the folder is missing.
 */
export async function serveAssets(app: RoutableApp, options: AssetsOptions): Promise<Assets> {
  const files = await readAssets(options.dir);
  const shared = await readAssets(SHARED_ASSETS_DIR);
  const prefix = options.prefix.replace(/\/+$/, '');
  const revalidate = `public, max-age=${options.maxAge ?? 0}, must-revalidate`;

  const serve = (from: Map<string, Asset>) => (req: AssetRequest, reply: FastifyReply) => {
    const name = (req.params as { name?: string }).name ?? '';
    const file = from.get(name);
    // Not ours: fall through to the app's 404 in the service's own error shape.
    if (!file) return reply.callNotFound();
    const etag = `"${file.hash}"`;
    const version = (req.query as { v?: unknown } | undefined)?.v;
    reply
      .header('etag', etag)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', version === file.hash ? 'public, max-age=31536000, immutable' : revalidate)
      .type(file.type);
    const match = req.headers['if-none-match'];
    if (typeof match === 'string' && match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
      return reply.code(304).send();
    }
    return reply.send(file.body);
  };
  app.get(`${prefix}/:name`, { schema: { hide: true } }, serve(files));
  app.get(`${prefix}/shared/:name`, { schema: { hide: true } }, serve(shared));

  return {
    url(name) {
      const [from, file] = name.startsWith('shared/') ? [SHARED_ASSETS_DIR, shared.get(name.slice(7))] : [options.dir, files.get(name)];
      if (!file) throw new Error(`no asset '${name}' in ${from}`);
      return `${prefix}/${name.split('/').map(encodeURIComponent).join('/')}?v=${file.hash}`;
    },
    names: () => [...files.keys()].sort(),
  };
}

/**
 * The sign-in form of a console page (the console users of `lattice console-users create`),
 * the same on every service; the page's own script posts it.
 */
export function consoleSignInView(title: string): SafeHtml {
  return html`<main class="signin">
  <h1>${title}</h1>
  <form id="signin" class="card" autocomplete="on">
    <label>Email <input name="email" type="email" autocomplete="username" required></label>
    <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
    <p class="error" id="signin-error" hidden></p>
    <button type="submit">Sign in</button>
  </form>
  <p class="muted">Console users are created by the operator: <code>lattice console-users create</code>.</p>
</main>`;
}
