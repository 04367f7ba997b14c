/** GET / — the console web page: sign in, balance, spend per key and day, the keys table. */
import { fileURLToPath } from 'node:url';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { getBalance, microsToUsd } from '../../../platform/billing/index.ts';
import { consoleSignInView, html, type SafeHtml, sendPage, serveAssets } from '../../../platform/http/pages.ts';
import { BUILTIN_MODEL_ID, BUILTIN_MODEL_PATH, type LanguageConfig } from '../../../engines/language/config.ts';
import type { GatewayModel } from '../catalog.ts';
import { money, spendChart, type DaySpend } from '../chart.ts';
import { listKeys, type KeyView } from '../keys.ts';
import { GATEWAY_SCOPES } from '../scopes.ts';
import { readUsage } from '../usage.ts';
import type { GatewayDeps } from './context.ts';

const DAYS = 30;

function when(iso: string | null): string {
  return iso ? iso.slice(0, 16).replace('T', ' ') : 'never';
}

function limits(k: KeyView): SafeHtml {
  const parts = [
    k.spendLimit === null ? null : `${money(k.spendLimit)} total`,
    k.rpmLimit === null ? null : `${k.rpmLimit} req/min`,
    k.tpmLimit === null ? null : `${k.tpmLimit} tok/min`,
  ].filter(Boolean);
  return parts.length ? html`${parts.join(' · ')}` : html`<span class="muted">none</span>`;
}

// The scopes column; on a phone the same tags sit under the key's name instead (console.css).
function scopeTags(k: KeyView): SafeHtml {
  return html`${k.scopes.map((sc) => html`<code class="scope">${sc}</code>`)}`;
}

function keysTable(keys: KeyView[], spend: Map<string, number>): SafeHtml {
  if (!keys.length) return html`<p class="muted" id="no-keys">No API keys yet. Create one to call <code>/api/v1/chat/completions</code>.</p>`;
  return html`<div class="table-wrap"><table class="keys">
  <thead><tr><th>Name</th><th>Id</th><th>Created</th><th>Last used</th><th>Spent (30 d)</th><th>Limits</th><th>Scopes</th><th></th></tr></thead>
  <tbody>${keys.map(
    (k) => html`<tr data-key-id="${k.id}" data-name="${k.name ?? ''}" data-spend-limit="${k.spendLimit ?? ''}" data-rpm-limit="${k.rpmLimit ?? ''}" data-tpm-limit="${k.tpmLimit ?? ''}">
    <td class="name">${k.name ?? '(unnamed)'}<div class="scopes-inline">${scopeTags(k)}</div></td><td><code>${k.id}</code></td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td>
    <td>${money(spend.get(k.id) ?? 0)}</td><td>${limits(k)}</td><td class="scopes">${scopeTags(k)}</td>
    <td class="actions"><button type="button" class="secondary edit">Edit</button> <button type="button" class="danger revoke">Revoke</button></td></tr>`,
  )}</tbody></table></div>`;
}

/** US dollars per million tokens, with cents always shown ($0.10, $0.075). */
function price(usd: number): string {
  const text = String(usd);
  const decimals = text.includes('.') ? text.split('.')[1]!.length : 0;
  return `$${usd.toFixed(Math.max(2, decimals))}`;
}

/** The engine's own tiny model, not one an operator configured under its id. */
export function isBuiltinModel(config: LanguageConfig, id: string): boolean {
  const m = config.models.find((x) => x.id === id);
  return id === BUILTIN_MODEL_ID && m?.provider === 'local' && m.path === BUILTIN_MODEL_PATH;
}

/**
 * The catalog a key can call; while no model but the built-in one serves chat, a notice says
 * its replies are test output and how to configure a real model (it goes once one is).
 */
function modelsCard(models: GatewayModel[], config: LanguageConfig): SafeHtml {
  const builtin = models.filter((m) => isBuiltinModel(config, m.id));
  const onlyBuiltin = builtin.length > 0 && builtin.length === models.length;
  const notice = onlyBuiltin
    ? html`<div class="notice" id="builtin-notice" role="status">
  <strong>Only the built-in smoke-test model is configured.</strong>
  <p><code>${BUILTIN_MODEL_ID}</code> is a tiny model that proves the gateway works end to end; its replies are test output, not real answers.
  To serve real answers, configure a real model in the JSON file that <code>LATTICE_MODELS</code> names and restart: a GGUF file on this machine
  (<code>{"id": "qwen-0.5b", "provider": "local", "path": "/models/qwen2.5-0.5b-instruct-q4_k_m.gguf", "pricing": {"input": 0.1, "output": 0.4}}</code>)
  or an OpenAI-compatible upstream (<code>{"id": "my-model", "provider": "openai", "base_url": "http://127.0.0.1:8080/v1", "pricing": {"input": 0.1, "output": 0.4}}</code>).
  See engines/language/README.md.</p></div>`
    : '';
  return html`<section class="card" id="models"><h2>Models</h2>${notice}
  <ul class="models">${models.map(
    (m) =>
      html`<li data-model="${m.id}"><code>${m.id}</code> <span class="muted">${m.contextWindow} tokens context · ${price(m.inputPrice)} in / ${price(m.outputPrice)} out per 1M tokens</span>${
        isBuiltinModel(config, m.id) ? html` <span class="tag">built-in smoke-test model</span>` : ''
      }${m.public ? '' : html` <span class="tag">not public</span>`}</li>`,
  )}</ul></section>`;
}

function dialogs(): SafeHtml {
  return html`<dialog id="secret-dialog">
  <h2>Your new API key</h2>
  <p>Copy it now: it is shown only this once and cannot be recovered.</p>
  <div class="secret"><code id="secret-value"></code><button type="button" id="copy-secret">Copy</button></div>
  <p class="muted" id="copy-status" aria-live="polite"></p>
  <form method="dialog"><button type="submit" id="secret-done">Done</button></form>
</dialog>
<dialog id="edit-dialog">
  <form id="edit-form">
    <h2>Edit key</h2>
    <label>Name <input name="name" required maxlength="100"></label>
    <label>Spend limit, US dollars <input name="spendLimit" type="number" min="0" step="0.01" placeholder="no limit"></label>
    <label>Requests per minute <input name="rpmLimit" type="number" min="0" step="1" placeholder="no limit"></label>
    <label>Tokens per minute <input name="tpmLimit" type="number" min="0" step="1" placeholder="no limit"></label>
    <p class="error" id="edit-error" hidden></p>
    <div class="row"><button type="button" class="secondary" id="edit-cancel">Cancel</button><button type="submit">Save</button></div>
  </form>
</dialog>
<dialog id="revoke-dialog">
  <h2>Revoke <span id="revoke-name"></span>?</h2>
  <p>Programs using this key stop working at once. This cannot be undone.</p>
  <div class="row"><button type="button" class="secondary" id="revoke-cancel">Cancel</button><button type="button" class="danger" id="revoke-confirm">Revoke key</button></div>
</dialog>`;
}

export async function registerConsolePage(app: ServiceApp, deps: GatewayDeps): Promise<void> {
  const assets = await serveAssets(app, { dir: fileURLToPath(new URL('../web/', import.meta.url)), prefix: `${deps.prefix}/assets` });
  const page = { styles: [assets.url('console.css')], scripts: [assets.url('console.js')], icon: assets.url('icon.svg') };
  app.get('/', { schema: { hide: true } }, async (req, reply) => {
    const session = await deps.sessions.find(req);
    if (!session) return sendPage(reply, { ...page, title: 'Sign in · Lattice gateway', body: consoleSignInView('Lattice gateway console') });
    const now = deps.ctx.now();
    // As GET /api/usage: finished calls written and idle leases given back before the balance is read.
    await deps.gateway.leases.returnIdle(session.accountId);
    const [balance, keys, usage] = await Promise.all([
      getBalance(deps.ctx.db, session.accountId),
      listKeys(deps.ctx.db, session.accountId),
      readUsage(deps.ctx.db, session.accountId, now, DAYS),
    ]);
    const days: DaySpend[] = [];
    for (let i = DAYS - 1; i >= 0; i--) days.push({ date: new Date(now.getTime() - i * 86_400_000).toISOString().slice(0, 10), byKey: new Map() });
    const byDate = new Map(days.map((d) => [d.date, d]));
    const spendPerKey = new Map<string, number>();
    const names = new Map<string, string>();
    let total = 0;
    let requests = 0;
    for (const r of usage) {
      const d = byDate.get(r.day);
      if (d) d.byKey.set(r.keyId, (d.byKey.get(r.keyId) ?? 0) + r.costUsd);
      spendPerKey.set(r.keyId, (spendPerKey.get(r.keyId) ?? 0) + r.costUsd);
      names.set(r.keyId, r.keyName ?? r.keyId);
      total += r.costUsd;
      requests += r.requests;
    }
    // Most spent first; equal spend by name, so the order is the same on every load.
    const order = [...spendPerKey.entries()].sort((a, b) => b[1] - a[1] || names.get(a[0])!.localeCompare(names.get(b[0])!) || a[0].localeCompare(b[0])).map(([k]) => k);
    const body = html`<header class="top"><h1>Lattice gateway</h1><span class="who">${session.email}</span><button type="button" class="secondary" id="signout">Sign out</button></header>
<main>
  <section class="tiles">
    <div class="card tile"><h2>Balance</h2><p class="big" id="balance">${money(microsToUsd(balance.availableMicros))}</p><p class="muted">${money(microsToUsd(balance.heldMicros))} held for calls running now</p></div>
    <div class="card tile"><h2>Spent, last ${DAYS} days</h2><p class="big">${money(total)}</p><p class="muted">${requests} requests</p></div>
    <div class="card tile"><h2>Keys</h2><p class="big">${keys.length}</p><p class="muted">API base: <code>/api/v1</code></p></div>
  </section>
  <section class="card"><h2>Spend per day and key</h2>${spendChart(days, order, names)}</section>
  ${modelsCard(deps.gateway.catalog.models, deps.gateway.models.config)}
  <section class="card">
    <div class="row spread"><h2>API keys</h2>
      <form id="create-form" class="inline"><input name="name" placeholder="Key name" aria-label="Key name" required maxlength="100">
        <fieldset class="scopes"><legend class="visually-hidden">Scopes</legend>${GATEWAY_SCOPES.map(
          (sc) => html`<label class="check"><input type="checkbox" name="scopes" value="${sc}" checked> ${sc}</label>`,
        )}</fieldset><button type="submit">Create key</button></form></div>
    <p class="error" id="keys-error" hidden></p>
    ${keysTable(keys, spendPerKey)}
  </section>
</main>
${dialogs()}`;
    return sendPage(reply, { ...page, title: 'Lattice gateway console', body });
  });
}
