// The API keys the caller manages: create one (its secret is shown once, here, and never again), list, revoke.
import { h, replace, when } from './dom.js';
import { fail, toast } from './ui.js';
import { resources } from './resources.js';
import { session } from './api.js';
import { field, table } from './parts.js';

export function renderKeys(main) {
  const rows = h('tbody', {});
  const name = h('input', { id: 'key-name', name: 'name', autocomplete: 'off', placeholder: 'ci-runner', required: true });
  const admin = h('input', { id: 'key-admin', name: 'admin', type: 'checkbox' });
  const tenant = h('input', { id: 'key-tenant', name: 'tenant', autocomplete: 'off', placeholder: 'ten_… (optional)' });
  const create = h('button', { id: 'create-key', class: 'btn btn-primary', type: 'submit' }, 'Create key');
  const created = h('div', { id: 'created-key', class: 'notice', hidden: true });
  let stopped = false;

  replace(main,
    h('section', { class: 'panel' },
      h('div', { class: 'panel-head' }, h('h1', {}, 'API keys'), h('p', { class: 'muted' }, 'Keys of your tenant (all tenants\' for the operator). A key is shown only when it is made.')),
      table('keys-table', ['Key', 'Name', 'Prefix', 'Tenant', 'Admin', 'Created', ''], rows)),
    h('section', { class: 'panel' },
      h('form', { class: 'form', onsubmit: submit },
        h('h2', {}, 'New key'),
        h('div', { class: 'grid2' }, field('Name', name),
          field('Tenant', tenant, 'empty: a tenant admin\'s own tenant; for the operator, a new tenant')),
        h('label', { class: 'check' }, admin, h('span', {}, 'Admin (may manage its tenant\'s keys)')),
        h('div', { class: 'actions' }, create)),
      created));

  async function refresh() {
    try {
      const list = (await resources.keys())?.data || [];
      if (stopped) return;
      const mine = session.key() || '';
      replace(rows, list.map((k) => {
        const self = k.prefix && mine.startsWith(k.prefix);
        return h('tr', { dataset: { id: k.id } },
          h('td', { class: 'mono small' }, k.id), h('td', {}, k.name), h('td', { class: 'mono small' }, `${k.prefix}…`),
          h('td', { class: 'mono small' }, k.tenant_id), h('td', {}, k.admin ? 'yes' : 'no'), h('td', { class: 'small' }, when(k.created_at)),
          h('td', { class: 'num' }, self ? h('span', { class: 'muted small' }, 'this session\'s key')
            : h('button', { class: 'btn btn-small btn-danger', type: 'button', dataset: { revoke: k.id }, onclick: () => revoke(k) }, 'Revoke')));
      }));
    } catch (err) {
      fail(err);
    }
  }

  async function submit(event) {
    event.preventDefault();
    create.disabled = true;
    try {
      const k = await resources.createKey(name.value.trim(), admin.checked, tenant.value.trim() || undefined);
      name.value = '';
      admin.checked = false;
      tenant.value = '';
      const secret = h('code', { class: 'secret mono', id: 'created-key-secret' }, k.key);
      replace(created,
        h('p', {}, h('strong', {}, `Key ${k.name} (${k.id})`), ' — copy it now: it will not be shown again.'),
        secret,
        h('div', { class: 'actions' },
          h('button', { class: 'btn btn-small btn-secondary', type: 'button', onclick: () => navigator.clipboard?.writeText(k.key).then(() => toast('Copied', 'ok')).catch(() => {}) }, 'Copy'),
          h('button', { class: 'btn btn-small btn-ghost', type: 'button', id: 'dismiss-key', onclick: () => { replace(created); created.hidden = true; } }, 'Done')));
      created.hidden = false;
      refresh();
    } catch (err) {
      fail(err);
    } finally {
      create.disabled = false;
    }
  }

  async function revoke(k) {
    if (!window.confirm(`Revoke ${k.name} (${k.id})? Clients using it are refused from now on.`)) return;
    try {
      await resources.revokeKey(k.id);
      toast(`Revoked ${k.name}`, 'ok');
    } catch (err) {
      fail(err);
    }
    refresh();
  }

  refresh();
  return () => {
    stopped = true;
    replace(created); // the new key's secret leaves the page with it
  };
}
