// Runtimes: where sandboxes can run besides this server. The Browser VM card pairs a new sandbox tab; the table
// lists paired tabs with their status and last heartbeat.
import { api } from './api.js';
import { h, replace } from './dom.js';
import { fail } from './ui.js';

function when(iso) {
  return iso ? new Date(iso).toLocaleTimeString() : '—';
}

async function openSandboxTab(button) {
  button.disabled = true;
  try {
    const pairing = await api.pairRuntime();
    // noopener: the tab gets no handle on this window and no copy of its session storage (the API key stays here)
    window.open(pairing.tab_url, '_blank', 'noopener');
  } catch (e) {
    fail(e);
  } finally {
    button.disabled = false;
  }
}

export function renderRuntimes(main) {
  const table = h('div', { class: 'panel-body' }, h('p', { class: 'muted' }, 'Loading…'));
  const open = h('button', { id: 'open-sandbox-tab', class: 'btn btn-primary', type: 'button', onclick: () => openSandboxTab(open) }, 'Open sandbox tab');
  replace(main,
    h('section', { class: 'panel', id: 'browser-vm-card' },
      h('div', { class: 'panel-head' }, h('h1', {}, 'Browser VM'),
        h('p', { class: 'muted' }, 'Run sandboxes in a Linux VM (v86, WebAssembly) inside a browser tab you keep open: no server compute, files stay in your browser. '
          + 'The VM has no network, and closing the tab fails its sandbox\'s next operation with "reopen your sandbox tab".')),
      h('div', { class: 'panel-body' }, open)),
    h('section', { class: 'panel' }, h('div', { class: 'panel-head' }, h('h2', {}, 'Paired runtimes')), table));

  const refresh = () => api.runtimes().then((page) => {
    const rows = page?.data || [];
    if (rows.length === 0) {
      replace(table, h('p', { class: 'muted' }, 'No sandbox tab or daemon is paired yet (a daemon: paddock runtime code, then paddock runtime pair on its machine).'));
      return;
    }
    replace(table, h('div', { class: 'table-wrap' }, h('table', { class: 'table', id: 'runtimes-table' },
      h('thead', {}, h('tr', {}, ['Runtime', 'Kind', 'Status', 'Last heartbeat', 'Sandbox', 'Boot'].map((t) => h('th', {}, t)))),
      h('tbody', {}, rows.map((r) => h('tr', { dataset: { id: r.id } },
        h('td', { class: 'mono' }, r.id), h('td', {}, r.kind === 'daemon' ? `daemon on ${r.host_name || '?'} (${r.driver || '?'}, ${r.capacity ?? 0} max)` : r.kind),
        h('td', {}, h('span', { class: `badge badge-${r.status === 'online' ? 'running' : 'terminated'}` }, r.status)),
        h('td', {}, when(r.last_heartbeat_at)), h('td', { class: 'mono' }, (r.sandbox_ids || []).join(' ') || r.sandbox_id || '—'),
        h('td', {}, r.boot_mode ? `${r.boot_mode === 'state' ? 'saved state' : 'cold'} ${r.boot_millis} ms` : '—')))))));
  }).catch(fail);
  refresh();
  const timer = setInterval(refresh, 3000);
  return () => clearInterval(timer);
}
