// The tenant's secrets (the vault): list, create, delete. A value is write-only: it goes to the server once, the
// field is cleared at once, and no answer ever carries it back.
import { h, replace, when } from './dom.js';
import { fail, toast } from './ui.js';
import { resources } from './resources.js';
import { field, table } from './parts.js';

export function renderSecrets(main) {
  const rows = h('tbody', {});
  const empty = h('p', { class: 'muted', hidden: true }, 'No secrets yet.');
  const name = h('input', { id: 'secret-name', name: 'name', autocomplete: 'off', placeholder: 'openai', required: true });
  const value = h('input', { id: 'secret-value', name: 'value', type: 'password', autocomplete: 'new-password', required: true });
  const create = h('button', { id: 'create-secret', class: 'btn btn-primary', type: 'submit' }, 'Store secret');
  const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
  let stopped = false;

  replace(main,
    h('section', { class: 'panel' },
      h('div', { class: 'panel-head' }, h('h1', {}, 'Secrets'),
        h('p', { class: 'muted' }, 'Credentials the egress proxy adds to a sandbox\'s requests; the sandbox sees only a placeholder. Values are encrypted at rest and never shown again.')),
      table('secrets-table', ['Secret', 'Name', 'Version', 'Updated', ''], rows), empty),
    h('section', { class: 'panel' },
      h('form', { class: 'form', id: 'secret-form', onsubmit: submit },
        h('h2', {}, 'New secret'),
        h('div', { class: 'grid2' }, field('Name', name), field('Value', value, 'write-only: it cannot be read back')),
        error, h('div', { class: 'actions' }, create))));

  async function refresh() {
    try {
      const list = (await resources.secrets())?.data || [];
      if (stopped) return;
      replace(rows, list.map((s) => h('tr', { dataset: { id: s.id, name: s.name } },
        h('td', { class: 'mono small' }, s.id), h('td', {}, s.name), h('td', {}, s.version ?? '—'), h('td', { class: 'small' }, when(s.updated_at)),
        h('td', { class: 'num' }, h('button', { class: 'btn btn-small btn-danger', type: 'button', dataset: { delete: s.id }, onclick: () => remove(s) }, 'Delete')))));
      empty.hidden = list.length > 0;
    } catch (err) {
      fail(err);
    }
  }

  async function submit(event) {
    event.preventDefault();
    error.hidden = true;
    create.disabled = true;
    const secretValue = value.value;
    value.value = ''; // the value leaves the page's fields at once, whatever the answer
    try {
      const s = await resources.createSecret(name.value.trim(), secretValue);
      name.value = '';
      toast(`Stored ${s.name} as ${s.id}`, 'ok');
      refresh();
    } catch (err) {
      error.textContent = `${err.message}${err.code ? ` (${err.code})` : ''}`;
      error.hidden = false;
    } finally {
      create.disabled = false;
    }
  }

  async function remove(s) {
    if (!window.confirm(`Delete the secret ${s.name} (${s.id})? Sandboxes whose rules name it stop getting it.`)) return;
    try {
      await resources.deleteSecret(s.id);
      toast(`Deleted ${s.name}`, 'ok');
    } catch (err) {
      fail(err);
    }
    refresh();
  }

  refresh();
  return () => { stopped = true; };
}
