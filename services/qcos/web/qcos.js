// The quantum jobs page's behaviour: sign in and out (the shared console script); on the list,
// the rows and the usage and balance cards replaced as the server sees the account's jobs change
// (server-sent events); on a job's page, its state followed until it changes (then the server
// renders the page anew), and cancel.
import { api, base, follow, showError, wireSession } from './shared/console.js';

wireSession({ login: '/console/login', logout: '/console/logout', after: `${base}/` });

// The list: the rows (with the page's filters), and the cards that a job's change moves.
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
    cards(data) {
      for (const [id, markup] of Object.entries(data)) {
        const el = document.getElementById(id);
        if (el) el.outerHTML = markup;
      }
    },
  }, table, { probe: '/console/jobs?status=completed&service=qcos' });
}

// A job's page: while active, its state (status, and a supplier job's pending cancel); the
// server renders the page anew when it changes.
const job = document.getElementById('job');
if (job) {
  const id = job.dataset.jobId;
  if (job.dataset.active === 'yes') {
    follow(`/console/jobs/${encodeURIComponent(id)}/events`, {
      status(data) {
        if ((data.state ?? data.status) !== (job.dataset.state ?? job.dataset.status)) location.reload();
      },
    }, job, { probe: '/console/jobs?status=completed&service=qcos' });
  }
  const cancel = document.getElementById('cancel');
  if (cancel) {
    cancel.addEventListener('click', async () => {
      cancel.disabled = true;
      try {
        await api('POST', `/console/jobs/${encodeURIComponent(id)}/cancel`, {});
        location.reload();
      } catch (err) {
        showError('cancel-error', err);
        cancel.disabled = false;
      }
    });
  }
}
