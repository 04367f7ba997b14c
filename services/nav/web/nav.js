// The positioning page's behaviour: sign in and out, and the live update. Once a second it asks
// the service for the panels (rendered on the server from the receiver's latest solution) and
// swaps them in; a failed poll is shown and retried, never fatal.
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

const live = document.getElementById('live');
if (live) {
  const every = Number(live.dataset.pollMs) || 1000;
  const updated = document.getElementById('updated');
  let failures = 0;
  const poll = async () => {
    try {
      const data = await api('GET', '/console/panels');
      for (const [id, markup] of Object.entries(data.panels)) {
        const el = document.getElementById(id);
        if (el) el.innerHTML = markup;
      }
      live.dataset.status = data.status;
      live.dataset.timeSource = data.time_source;
      failures = 0;
      updated.textContent = `Live: updated ${new Date().toISOString().slice(11, 19)} UTC.`;
      updated.classList.remove('error');
    } catch (err) {
      if (err.status === 401) {
        location.reload();
        return;
      }
      failures++;
      updated.textContent = `Update failed (${err.message}); retrying.`;
      updated.classList.add('error');
    }
    setTimeout(poll, failures ? Math.min(10_000, every * 2 ** failures) : every);
  };
  setTimeout(poll, every);
}
