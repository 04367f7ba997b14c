// The positioning page's behaviour: sign in and out, and the live update: the panels rendered on
// the server from each epoch's solution arrive as server-sent events and are swapped in.
'use strict';

const base = location.pathname.replace(/\/$/, '');

async function api(method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error(data && data.error && data.error.message ? data.error.message : `HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return data.data;
}

const signin = document.getElementById('signin');
if (signin) {
  signin.addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = new FormData(signin);
    const error = document.getElementById('signin-error');
    try {
      await api('POST', '/console/login', { email: form.get('email'), password: form.get('password') });
      location.reload();
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  });
}

const signout = document.getElementById('signout');
if (signout) {
  signout.addEventListener('click', async () => {
    await api('POST', '/console/logout', {}).catch(() => {});
    location.reload();
  });
}

// The live update: an EventSource on /console/events; the server pushes the panels at each new
// epoch. The browser reconnects a broken stream by itself (after the server's `retry`); a stream
// refused outright (the session ended) reloads the page, which then shows the sign-in form.
const live = document.getElementById('live');
if (live) {
  const updated = document.getElementById('updated');
  const apply = (data) => {
    for (const [id, markup] of Object.entries(data.panels)) {
      const el = document.getElementById(id);
      if (el) el.innerHTML = markup;
    }
    live.dataset.status = data.status;
    live.dataset.timeSource = data.time_source;
    updated.textContent = `Live: epoch ${data.epoch ?? "—"} received ${new Date().toISOString().slice(11, 19)} UTC (this computer's clock).`;
    updated.classList.remove('error');
  };
  let source = null;
  const connect = () => {
    source = new EventSource(`${base}/console/events`);
    live.dataset.stream = 'connecting';
    source.addEventListener('open', () => {
      live.dataset.stream = 'open';
    });
    source.addEventListener('panels', (event) => apply(JSON.parse(event.data)));
    source.addEventListener('error', async () => {
      updated.textContent = 'Live updates interrupted; reconnecting.';
      updated.classList.add('error');
      if (source.readyState !== EventSource.CLOSED) {
        live.dataset.stream = 'reconnecting';
        return;
      }
      // Refused (not a broken stream): signed out, or the server answered an error. Ask why.
      live.dataset.stream = 'closed';
      try {
        await api('GET', '/console/state');
      } catch (err) {
        if (err.status === 401) return location.reload();
      }
      setTimeout(connect, 5000);
    });
  };
  connect();
  addEventListener('pagehide', () => source && source.close());
}
