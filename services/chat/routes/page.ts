/**
 * GET / — the chat web page, rendered on the server: the sign-in form for a visitor; for a
 * signed-in user the conversation list, the open conversation (`?c=<id>`), the model picker
 * with context sizes and prices, and the day's remaining messages. web/chat.js adds sending,
 * the streamed reply, the stop button and sign-in/out on top of it.
 */
import { fileURLToPath } from 'node:url';
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { html, sendPage, serveAssets, type Assets, type SafeHtml } from '../../../platform/http/pages.ts';
import { BUILTIN_MODEL_ID } from '../../../engines/language/config.ts';
import { CATALOG, DEFAULT_SLOT_ID, findSlot, type CatalogSlot } from '../catalog.ts';
import { remaining, type Remaining } from '../limits.ts';
import type { Conversation, Message } from '../store.ts';
import type { ChatDeps } from './context.ts';

/** 128000 -> "128K", 1000000 -> "1M". */
export function tokens(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${+(n / 1000).toFixed(1)}K`;
  return String(n);
}

const usd = (n: number): string => `$${n.toFixed(2)}`;

export function slotSummary(s: CatalogSlot): string {
  return `${tokens(s.contextWindow)} context · up to ${tokens(s.maxOutput)} out · ${usd(s.inputCost)} in / ${usd(s.outputCost)} out per 1M tokens`;
}

function picker(deps: ChatDeps, selected: string): SafeHtml {
  return html`<select id="model" name="model">
${CATALOG.map(
  (s) => html`<option value="${s.id}"${s.id === selected ? html` selected` : ''} data-summary="${slotSummary(s)}" data-description="${s.description}" data-pro="${s.pro ? 'yes' : 'no'}" data-name="${s.name}" data-builtin="${deps.models.servedByBuiltin(s) ? 'yes' : 'no'}">${s.name}${s.pro ? ' (pro)' : ''} · ${tokens(s.contextWindow)} · ${usd(s.inputCost)}/${usd(s.outputCost)}</option>\n`,
)}</select>`;
}

/**
 * Shown while the picked slot is answered by the built-in smoke-test model (chat.js follows the
 * picker), so that its nonsense replies are not taken for the product: it names how an operator
 * configures a real model, and is hidden for a slot a real model serves.
 */
function builtinNotice(deps: ChatDeps, slot: CatalogSlot): SafeHtml {
  const all = CATALOG.every((s) => deps.models.servedByBuiltin(s));
  return html`<div id="builtin-notice" class="builtin-notice" role="status"${deps.models.servedByBuiltin(slot) ? '' : html` hidden`}>
<strong>Test model: replies are not real answers.</strong>
<span>${all ? 'Every model here is' : 'This model is'} served by the built-in smoke-test model <code>${BUILTIN_MODEL_ID}</code>, which only shows that the chat works.
To get real answers, the operator configures a real model in the JSON file that <code>LATTICE_MODELS</code> names — a GGUF file (<code>"provider": "local", "path": "/models/model.gguf"</code>) or an OpenAI-compatible upstream (<code>"provider": "openai", "base_url": "http://host:8080/v1"</code>) — maps this slot to it with <code>LATTICE_CHAT_MODELS={"<span id="builtin-slot">${slot.id}</span>": "model-id"}</code> and restarts the chat service.</span>
</div>`;
}

function remainingLine(r: Remaining): SafeHtml {
  return html`<p id="remaining" class="remaining" data-messages="${r.messages.remaining}" data-pro="${r.proMessages.remaining}">
<span><strong id="remaining-messages">${r.messages.remaining}</strong> of ${r.messages.limit} messages left today</span>
<span>pro models: <strong id="remaining-pro">${r.proMessages.remaining}</strong> of ${r.proMessages.limit}</span>
<span class="reset">resets at 00:00 UTC</span></p>`;
}

/** Shown when the day's messages are used up, so a returning user knows before typing. */
function limitNotice(r: Remaining): SafeHtml {
  const text =
    r.messages.remaining === 0 ? `You have used all ${r.messages.limit} messages for today; they start again at 00:00 UTC.` : '';
  return html`<p id="notice" class="notice" role="alert"${text ? '' : html` hidden`}>${text}</p>`;
}

function messageView(m: Message): SafeHtml {
  const who = m.role === 'user' ? 'You' : (findSlot(m.model)?.name ?? m.model);
  return html`<article class="message ${m.role}" data-status="${m.status}">
<div class="who">${who}${m.status === 'stopped' ? html` <span class="tag">stopped</span>` : ''}${m.status === 'failed' ? html` <span class="tag error">failed</span>` : ''}</div>
<div class="content">${m.content}</div>${m.error ? html`<div class="failure">${m.error}</div>` : ''}
</article>`;
}

function signInView(deps: ChatDeps): SafeHtml {
  return html`<main class="signin">
<form id="signin" class="card" novalidate>
<h1>Lattice Chat</h1>
<p class="muted">Sign in with your console account.</p>
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" class="primary">Sign in</button>
<p id="signin-error" class="error" role="alert" hidden></p>
</form>
<section class="card catalog" aria-label="Models">
<h2>Models</h2>
<ul>${CATALOG.map(
    (s) => html`<li><strong>${s.name}</strong>${s.pro ? html` <span class="tag">pro</span>` : ''}<br><span class="muted">${slotSummary(s)}</span></li>`,
  )}</ul>
<p class="muted">${deps.config.dailyMessages} messages a day; ${deps.config.dailyProMessages} of them to pro models.</p>
</section>
</main>`;
}

function chatView(
  deps: ChatDeps,
  data: { email: string; conversations: Conversation[]; open: Conversation | null; messages: Message[]; usage: Remaining },
): SafeHtml {
  const model = data.open?.model ?? DEFAULT_SLOT_ID;
  const slot = findSlot(model) ?? CATALOG[0]!;
  return html`<div class="app" data-prefix="${deps.prefix}" data-conversation="${data.open?.id ?? ''}">
<aside class="sidebar">
<a class="button primary new-chat" href="${deps.prefix}/">+ New chat</a>
<details id="conversations" open>
<summary>Conversations</summary>
<ul id="conversation-list">${data.conversations.map(
    (c) => html`<li><a href="${deps.prefix}/?c=${encodeURIComponent(c.id)}" data-id="${c.id}"${c.id === data.open?.id ? html` aria-current="page"` : ''}>${c.title}</a></li>`,
  )}</ul>
${data.conversations.length === 0 ? html`<p id="no-conversations" class="muted">No conversations yet.</p>` : ''}
</details>
<div class="account"><span class="muted" title="${data.email}">${data.email}</span><button type="button" id="signout" class="link">Sign out</button></div>
</aside>
<main class="chat">
<header class="topbar">
<div class="picker"><label for="model">Model</label>${picker(deps, model)}</div>
<p id="model-info" class="model-info"><span id="model-summary">${slotSummary(slot)}</span>${slot.pro ? html` <span class="tag" id="model-pro">pro</span>` : ''}</p>
${remainingLine(data.usage)}
</header>
${builtinNotice(deps, slot)}
<section id="messages" class="messages" aria-live="polite">
${data.messages.length === 0 ? html`<p id="empty" class="empty muted">${data.open ? 'No messages yet.' : 'Start a new chat: pick a model and send a message.'}</p>` : ''}
${data.messages.map(messageView)}
</section>
${limitNotice(data.usage)}
<form id="composer" class="composer">
<label for="message" class="visually-hidden">Message</label>
<textarea id="message" name="content" rows="2" maxlength="32000" placeholder="Send a message (Enter to send, Shift+Enter for a new line)" required></textarea>
<button type="submit" id="send" class="primary">Send</button>
<button type="button" id="stop" class="danger" hidden>Stop</button>
</form>
</main>
</div>`;
}

export async function registerPage(app: ServiceApp, deps: ChatDeps): Promise<void> {
  const assets: Assets = await serveAssets(app, {
    dir: fileURLToPath(new URL('../web/', import.meta.url)),
    prefix: `${deps.prefix}/assets`,
  });
  const page = { styles: [assets.url('chat.css')], modules: [assets.url('chat.js')], icon: assets.url('icon.svg') };

  app.get(
    `${deps.prefix}/`,
    { schema: { hide: true, querystring: Type.Object({ c: Type.Optional(Type.String({ maxLength: 64 })) }) } },
    async (req, reply) => {
      const session = await deps.sessions.find(req);
      if (!session) return sendPage(reply, { ...page, title: 'Sign in · Lattice Chat', body: signInView(deps) });
      const { accountId } = session;
      const conversations = await deps.store.list(accountId, 100);
      const wanted = (req.query as { c?: string }).c;
      // An unknown or foreign conversation id opens a new chat, like a missing one.
      const open = wanted ? await deps.store.get(accountId, wanted).catch(() => null) : null;
      const messages = open ? await deps.store.messages(open.id) : [];
      const usage = await remaining(deps.ctx.db, deps.config, accountId, deps.ctx.now());
      return sendPage(reply, {
        ...page,
        title: open ? `${open.title} · Lattice Chat` : 'Lattice Chat',
        body: chatView(deps, { email: session.email, conversations, open, messages, usage }),
      });
    },
  );
}
