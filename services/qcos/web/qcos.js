// The quantum jobs page's behaviour: sign in and out, live job rows (server-sent events), a job's
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

// Live updates arrive as server-sent events. The browser reconnects a broken stream by itself;
// a stream refused outright (the session ended) reloads the page, which shows the sign-in form.
function follow(path, handlers, mark) {
  let source = null;
  const connect = () => {
    source = new EventSource(`${base}${path}`);
    mark.dataset.stream = 'connecting';
    source.addEventListener('open', () => {
      mark.dataset.stream = 'open';
    });
    for (const [event, handle] of Object.entries(handlers)) source.addEventListener(event, (e) => handle(JSON.parse(e.data)));
    source.addEventListener('error', async () => {
      if (source.readyState !== EventSource.CLOSED) {
        mark.dataset.stream = 'reconnecting';
        return;
      }
      mark.dataset.stream = 'closed';
      try {
        await api('GET', '/console/jobs?status=completed&service=qcos');
      } catch (err) {
        if (err.status === 401) return location.reload();
      }
      setTimeout(connect, 5000);
    });
  };
  connect();
  addEventListener('pagehide', () => source && source.close());
}

// The list: the rows (with the page's filters) as the server sees jobs change.
const table = document.getElementById('jobs');
if (table) {
  const body = document.getElementById('jobs-body');
  const note = document.getElementById('live-note');
  follow(`/console/jobs/events${location.search}`, {
    rows(data) {
      body.innerHTML = data.rows;
      table.dataset.active = String(data.active);
      note.textContent = data.active ? `${data.active} job(s) active: updating live.` : '';
    },
  }, table);
}

// A job's page: while active, its status; the server renders the page anew when it changes.
const job = document.getElementById('job');
if (job) {
  const id = job.dataset.jobId;
  if (job.dataset.active === 'yes') {
    follow(`/console/jobs/${encodeURIComponent(id)}/events`, {
      status(data) {
        if (data.status !== job.dataset.status) location.reload();
      },
    }, job);
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
