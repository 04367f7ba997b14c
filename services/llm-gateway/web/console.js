// The console page's behaviour: sign in and out, create a key with its scopes (secret shown once), edit limits,
// revoke with confirmation. Everything goes through the console API (/api/...) with the session
// cookie; the page is rendered by the server, so after a change it simply reloads. The API
// calls and the sign-in come from the shared console script (platform/http/web/console.js),
// loaded as a module from this classic script.
'use strict';

import('./shared/console.js').then(({ api, showError, wireSession }) => {
  wireSession({ login: '/api/auth/login', logout: '/api/auth/logout' });

  const createForm = document.getElementById('create-form');
  const secretDialog = document.getElementById('secret-dialog');
  if (createForm) {
    createForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      const form = new FormData(createForm);
      try {
        const created = await api('POST', '/api/api-keys', { name: form.get('name'), scopes: form.getAll('scopes') });
        document.getElementById('secret-value').textContent = created.key;
        document.getElementById('copy-status').textContent = '';
        secretDialog.showModal();
      } catch (err) {
        showError('keys-error', err);
      }
    });
    document.getElementById('copy-secret').addEventListener('click', async () => {
      const status = document.getElementById('copy-status');
      const value = document.getElementById('secret-value').textContent;
      try {
        await navigator.clipboard.writeText(value);
        status.textContent = 'Copied to the clipboard.';
      } catch {
        // No clipboard permission (plain http on another host): select the text for Ctrl+C.
        const range = document.createRange();
        range.selectNodeContents(document.getElementById('secret-value'));
        const selection = getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        status.textContent = 'Selected: press Ctrl+C (or Cmd+C) to copy.';
      }
    });
    // The secret leaves the page when the dialog closes; the reload shows the new key in the table.
    secretDialog.addEventListener('close', () => {
      document.getElementById('secret-value').textContent = '';
      location.reload();
    });
  }

  const editDialog = document.getElementById('edit-dialog');
  const editForm = document.getElementById('edit-form');
  const revokeDialog = document.getElementById('revoke-dialog');
  let current = null;

  function limitValue(text) {
    return text === '' ? null : Number(text);
  }

  document.querySelectorAll('tr[data-key-id]').forEach((row) => {
    row.querySelector('.edit').addEventListener('click', () => {
      current = row.dataset.keyId;
      editForm.elements.name.value = row.dataset.name;
      editForm.elements.spendLimit.value = row.dataset.spendLimit;
      editForm.elements.rpmLimit.value = row.dataset.rpmLimit;
      editForm.elements.tpmLimit.value = row.dataset.tpmLimit;
      showError('edit-error', null);
      editDialog.showModal();
    });
    row.querySelector('.revoke').addEventListener('click', () => {
      current = row.dataset.keyId;
      document.getElementById('revoke-name').textContent = row.dataset.name || current;
      revokeDialog.showModal();
    });
  });

  if (editForm) {
    editForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      const f = editForm.elements;
      try {
        await api('PATCH', `/api/api-keys/${encodeURIComponent(current)}`, {
          name: f.name.value,
          spendLimit: limitValue(f.spendLimit.value),
          rpmLimit: limitValue(f.rpmLimit.value),
          tpmLimit: limitValue(f.tpmLimit.value),
        });
        location.reload();
      } catch (err) {
        showError('edit-error', err);
      }
    });
    document.getElementById('edit-cancel').addEventListener('click', () => editDialog.close());
    document.getElementById('revoke-cancel').addEventListener('click', () => revokeDialog.close());
    document.getElementById('revoke-confirm').addEventListener('click', async () => {
      try {
        await api('DELETE', `/api/api-keys/${encodeURIComponent(current)}`);
        location.reload();
      } catch (err) {
        revokeDialog.close();
        showError('keys-error', err);
      }
    });
  }
});
