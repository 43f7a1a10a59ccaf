import { api } from './api.js';
import { h, replace, badge, formatBytes, age } from './dom.js';
import { fail, toast } from './ui.js';

const REFRESH_MS = 5000;

export function renderSandboxes(main) {
  const tbody = h('tbody', {});
  const empty = h('p', { class: 'empty muted', hidden: true }, 'No sandboxes yet. Create one to get started.');
  const newButton = h('button', { id: 'new-sandbox', class: 'btn btn-primary', type: 'button', onclick: () => dialog.showModal() }, 'New sandbox');
  const dialog = createDialog();
  let timer = null;
  let stopped = false;

  replace(main, h('section', { class: 'panel' },
    h('div', { class: 'panel-head row' },
      h('div', {}, h('h1', {}, 'Sandboxes'), h('p', { class: 'muted' }, 'Running and suspended sandboxes of your tenant. Refreshes every few seconds.')),
      newButton),
    h('div', { class: 'table-wrap' },
      h('table', { class: 'table', id: 'sandboxes-table' },
        h('thead', {}, h('tr', {}, ['ID', 'State', 'Driver', 'Memory', 'PIDs', 'CPUs', 'Age'].map((c) => h('th', {}, c)))),
        tbody)),
    empty),
  dialog);

  async function refresh() {
    try {
      const page = await api.sandboxes();
      if (stopped) return;
      const rows = (page?.data || []).map((s) => h('tr', { class: 'clickable', dataset: { id: s.id }, onclick: () => { window.location.hash = `#/sandboxes/${encodeURIComponent(s.id)}`; } },
        h('td', {}, h('a', { class: 'mono', href: `#/sandboxes/${encodeURIComponent(s.id)}` }, s.id)),
        h('td', {}, badge(s.state)),
        h('td', {}, s.driver),
        h('td', {}, formatBytes(s.limits?.memory_bytes)),
        h('td', {}, s.limits?.pids ?? ''),
        h('td', {}, s.limits?.cpus ?? ''),
        h('td', { class: 'muted' }, age(s.created_at))));
      replace(tbody, rows);
      empty.hidden = rows.length > 0;
    } catch (err) {
      fail(err);
    } finally {
      if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
    }
  }

  function createDialog() {
    const memory = h('input', { id: 'new-memory', name: 'memory', placeholder: '512m', autocomplete: 'off' });
    const pids = h('input', { id: 'new-pids', name: 'pids', type: 'number', min: '8', placeholder: '256' });
    const cpus = h('input', { id: 'new-cpus', name: 'cpus', type: 'number', min: '0.1', step: '0.1', placeholder: '1' });
    const timeout = h('input', { id: 'new-timeout', name: 'timeout', type: 'number', min: '1', placeholder: '60' });
    const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
    const create = h('button', { id: 'create-sandbox', class: 'btn btn-primary', type: 'submit' }, 'Create');
    const form = h('form', { method: 'dialog', class: 'form', onsubmit: submit },
      h('h2', {}, 'New sandbox'),
      h('p', { class: 'muted small' }, 'Leave a field empty to take the server default.'),
      h('div', { class: 'grid2' },
        field('Memory', memory, 'e.g. 512m or 1g'), field('Processes', pids, 'max PIDs'),
        field('CPUs', cpus, 'cores, e.g. 0.5'), field('Lifetime (minutes)', timeout, 'then it is terminated')),
      error,
      h('div', { class: 'actions' },
        h('button', { class: 'btn btn-ghost', type: 'button', onclick: () => dlg.close() }, 'Cancel'), create));
    const dlg = h('dialog', { class: 'dialog', id: 'new-sandbox-dialog' }, form);

    async function submit(event) {
      event.preventDefault();
      error.hidden = true;
      const body = {};
      const limits = {};
      if (memory.value.trim()) limits.memory = memory.value.trim();
      if (pids.value) limits.pids = Number(pids.value);
      if (cpus.value) limits.cpus = Number(cpus.value);
      if (Object.keys(limits).length) body.limits = limits;
      if (timeout.value) body.timeout_seconds = Math.round(Number(timeout.value) * 60);
      create.disabled = true;
      try {
        const sbx = await api.create(body);
        dlg.close();
        toast(`Created ${sbx.id}`, 'ok');
        window.location.hash = `#/sandboxes/${encodeURIComponent(sbx.id)}`;
      } catch (err) {
        error.textContent = `${err.message}${err.code ? ` (${err.code})` : ''}`;
        error.hidden = false;
      } finally {
        create.disabled = false;
      }
    }
    return dlg;
  }

  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
    if (dialog.open) dialog.close();
    dialog.remove();
  };
}

function field(label, input, hint) {
  return h('label', { class: 'field' }, h('span', {}, label), input, h('small', { class: 'muted' }, hint));
}
