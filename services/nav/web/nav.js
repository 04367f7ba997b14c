// The positioning page's behaviour: sign in and out (the shared console script), and the live
// update: the panels rendered on the server from each epoch's solution arrive as server-sent
// events and are swapped in.
import { follow, wireSession } from './shared/console.js';

wireSession({ login: '/console/login', logout: '/console/logout' });

// The live update: the server pushes the panels at each new epoch (and once a second without one).
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
    updated.textContent = `Live: epoch ${data.epoch ?? '—'} received ${new Date().toISOString().slice(11, 19)} UTC (this computer's clock).`;
    updated.classList.remove('error');
  };
  follow('/console/events', { panels: apply }, live, {
    probe: '/console/state',
    onTrouble() {
      updated.textContent = 'Live updates interrupted; reconnecting.';
      updated.classList.add('error');
    },
  });
}
