// The quantum jobs page's behaviour: sign in and out, live job rows while jobs run, a job's
// status followed until it changes (then the server renders the page anew), and cancel.
'use strict';

const base = (() => {
  const link = document.querySelector('header.top h1 a');
  return link ? new URL(link.href).pathname.replace(/\/$/, '') : location.pathname.replace(/\/$/, '');
})();

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
  return data;
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
    location.href = `${base}/`;
  });
}

// The list: while any job is active, fetch the rows (same filters) every two seconds.
const table = document.getElementById('jobs');
if (table) {
  const body = document.getElementById('jobs-body');
  const note = document.getElementById('live-note');
  const poll = async () => {
    try {
      const data = await api('GET', `/console/jobs${location.search}`);
      body.innerHTML = data.rows;
      table.dataset.active = String(data.active);
      note.textContent = data.active ? `${data.active} job(s) running: updating live.` : '';
    } catch (err) {
      if (err.status === 401) return location.reload();
      note.textContent = `Update failed (${err.message}); retrying.`;
    }
    setTimeout(poll, Number(table.dataset.active) > 0 ? 2000 : 5000);
  };
  setTimeout(poll, 2000);
}

// A job's page: follow its status while active; cancel.
const job = document.getElementById('job');
if (job) {
  const id = job.dataset.jobId;
  if (job.dataset.active === 'yes') {
    const follow = async () => {
      try {
        const data = await api('GET', `/console/jobs/${encodeURIComponent(id)}/status`);
        if (data.status !== job.dataset.status) return location.reload();
      } catch (err) {
        if (err.status === 401) return location.reload();
      }
      setTimeout(follow, 1000);
    };
    setTimeout(follow, 1000);
  }
  const cancel = document.getElementById('cancel');
  if (cancel) {
    cancel.addEventListener('click', async () => {
      cancel.disabled = true;
      const error = document.getElementById('cancel-error');
      try {
        await api('POST', `/console/jobs/${encodeURIComponent(id)}/cancel`, {});
        location.reload();
      } catch (err) {
        error.textContent = err.message;
        error.hidden = false;
        cancel.disabled = false;
      }
    });
  }
}
