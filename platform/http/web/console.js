// What every console page's script needs (the quantum jobs page, the positioning page, the
// gateway console, the chat page): the service's base path, JSON calls with the session cookie
// (or the raw answer, for a reply read as it streams in), the sign-in
// form and sign-out button, and a live event stream that reconnects by itself and reloads the
// page once its session has ended. An ES module, served by platform/http/pages.ts beside each
// page's own assets (`<assets>/shared/console.js`), so a page's script imports it with
// `import { ... } from './shared/console.js'` (or `import('./shared/console.js')` from a classic
// script). It keeps no state beyond the streams it opened, which it closes when the page goes.

/** The service's path prefix ('' at the root): this module is served at `<prefix>/assets/shared/console.js`. */
export const base = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

/** A refusal of the console API: the service's message, and the HTTP status. */
export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/**
 * One call under the service's prefix whose answer the caller reads itself (the chat's streamed
 * reply): resolves to the Response when it succeeded, throws ApiError on 4xx/5xx; `signal`
 * (an AbortSignal) stops it.
 */
export async function request(method, path, body, { signal } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    signal,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) {
    const data = await res.json().catch(() => ({}));
    throw new ApiError(data && data.error && data.error.message ? data.error.message : `HTTP ${res.status}`, res.status);
  }
  return res;
}

/** One JSON call under the service's prefix; resolves to the parsed body, throws ApiError on 4xx/5xx. */
export async function api(method, path, body, options) {
  const res = await request(method, path, body, options);
  return res.json().catch(() => ({}));
}

/** Shows `err`'s message in the element `id` (hides it when `err` is null). */
export function showError(id, err) {
  const el = document.getElementById(id);
  if (!el) return;
  el.textContent = err ? err.message : '';
  el.hidden = !err;
}

/**
 * Wires the page's sign-in form (platform/http/pages.ts `consoleSignInView`) and its sign-out
 * button, where the page has them: `login` and `logout` are the service's console paths;
 * after signing out the page goes to `after` (default: reload).
 */
export function wireSession({ login, logout, after }) {
  const signin = document.getElementById('signin');
  if (signin) {
    signin.addEventListener('submit', async (event) => {
      event.preventDefault();
      const form = new FormData(signin);
      // One attempt at a time: the button waits for the answer, and an old refusal goes meanwhile.
      const button = signin.querySelector('button[type="submit"]');
      if (button) button.disabled = true;
      showError('signin-error', null);
      try {
        await api('POST', login, { email: form.get('email'), password: form.get('password') });
        location.reload();
        return;
      } catch (err) {
        // A refusal has the service's message; anything else is the network (fetch's own words name no cause).
        showError('signin-error', err instanceof ApiError ? err : new Error('The server cannot be reached. Try again.'));
      }
      if (button) button.disabled = false;
    });
  }
  const signout = document.getElementById('signout');
  if (signout) {
    signout.addEventListener('click', async () => {
      await api('POST', logout, {}).catch(() => {});
      if (after) location.href = after;
      else location.reload();
    });
  }
}

/**
 * Follows server-sent events at `path`: `handlers` maps an event name to what its JSON data
 * does. `mark.dataset.stream` says where the stream stands (connecting, open, reconnecting,
 * closed). The browser reconnects a broken stream by itself; a stream refused outright is
 * explained by one call to `probe` (a console path): 401 means the session ended, and the page
 * reloads into its sign-in form; anything else tries again after 5 s. `onTrouble` is told of
 * each interruption.
 */
export function follow(path, handlers, mark, { probe, onTrouble } = {}) {
  let source = null;
  const connect = () => {
    source = new EventSource(`${base}${path}`);
    mark.dataset.stream = 'connecting';
    source.addEventListener('open', () => {
      mark.dataset.stream = 'open';
    });
    for (const [event, handle] of Object.entries(handlers)) source.addEventListener(event, (e) => handle(JSON.parse(e.data)));
    source.addEventListener('error', async () => {
      if (onTrouble) onTrouble();
      if (source.readyState !== EventSource.CLOSED) {
        mark.dataset.stream = 'reconnecting';
        return;
      }
      mark.dataset.stream = 'closed';
      if (probe) {
        try {
          await api('GET', probe);
        } catch (err) {
          if (err.status === 401) return location.reload();
        }
      }
      setTimeout(connect, 5000);
    });
  };
  connect();
  addEventListener('pagehide', () => source && source.close());
}
