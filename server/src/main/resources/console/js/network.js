// A sandbox's network: its egress audit log as a live table (GET …/egress as Server-Sent Events, resumed after the
// last record seen), filterable, refused connections marked; beside it the sandbox's policy and its credential rules
// (secret ids only: values never reach the console).
import { api } from './api.js';
import { h, replace, formatBytes } from './dom.js';
import { fail } from './ui.js';
import { follow } from './resources.js';
import { sandboxHead, table, time } from './parts.js';

const RECONNECT_MS = 2000;
/** Rows kept in the page; the API has them all. */
const MAX_ROWS = 5000;

export function renderNetwork(main, id) {
  const rows = h('tbody', {});
  const filter = h('input', { id: 'egress-filter', type: 'search', placeholder: 'Filter by host, method, path, rule…', autocomplete: 'off' });
  const refusedOnly = h('input', { id: 'egress-refused-only', type: 'checkbox' });
  const counts = h('span', { id: 'egress-counts', class: 'muted small' });
  const streamState = h('span', { id: 'egress-stream-state', class: 'muted small' }, 'connecting…');
  const empty = h('p', { class: 'muted', id: 'egress-empty' }, 'No outbound connections yet.');
  const policy = h('div', { id: 'network-policy' }, h('p', { class: 'muted' }, 'Loading…'));
  const records = [];
  let lastId = null;
  let stopped = false;
  let controller = null;

  filter.addEventListener('input', applyFilter);
  refusedOnly.addEventListener('change', applyFilter);

  replace(main, ...sandboxHead(id, 'network', 'Network', 'Every outbound connection the sandbox made through the egress proxy, as it happens.'),
    h('div', { class: 'split' },
      h('section', { class: 'panel' },
        h('div', { class: 'panel-head row' }, h('h2', {}, 'Egress audit log'), streamState),
        h('div', { class: 'toolbar' }, filter, h('label', { class: 'check' }, refusedOnly, h('span', {}, 'Refused only')), counts),
        table('egress-table', ['Time', 'Decision', 'Host', 'Port', 'Request', 'Rule / reason', 'Status', 'Up / down'], rows),
        empty),
      h('section', { class: 'panel' }, h('div', { class: 'panel-head' }, h('h2', {}, 'Policy')), policy)));

  function refused(r) {
    return r.decision !== 'allowed';
  }

  function row(r) {
    const request = [r.method, pathOf(r.url)].filter(Boolean).join(' ') || (r.mode === 'connect_tunnel' ? 'CONNECT (tunnel)' : '—');
    const tr = h('tr', { class: refused(r) ? 'refused' : null, dataset: { id: r.id, decision: r.decision } },
      h('td', { class: 'small nowrap' }, time(r.time)),
      h('td', {}, h('span', { class: `badge ${refused(r) ? 'badge-failed' : 'badge-running'}` }, refused(r) ? `refused${r.decision === 'denied' ? '' : ` (${r.decision})`}` : 'allowed')),
      h('td', { class: 'mono small wrap' }, r.host || '—', r.resolved_address ? h('div', { class: 'muted' }, r.resolved_address) : null),
      h('td', { class: 'small' }, r.port ?? '—'),
      h('td', { class: 'mono small wrap', title: r.url || null }, request),
      h('td', { class: 'mono small wrap' }, r.rule || '—',
        (r.injected_secrets || []).length ? h('div', { class: 'muted' }, `secrets sent: ${r.injected_secrets.join(', ')}`) : null,
        (r.leaked_placeholder_secrets || []).length ? h('div', { class: 'warn' }, `placeholder sent elsewhere: ${r.leaked_placeholder_secrets.join(', ')}`) : null),
      h('td', { class: 'small' }, r.status ?? '—'),
      h('td', { class: 'small nowrap' }, `${formatBytes(r.bytes_up ?? 0)} / ${formatBytes(r.bytes_down ?? 0)}`));
    tr.dataset.search = [r.host, r.resolved_address, r.port, r.method, r.url, r.rule, r.decision, r.status].filter((v) => v !== null && v !== undefined).join(' ').toLowerCase();
    return tr;
  }

  function matches(tr) {
    const q = filter.value.trim().toLowerCase();
    if (refusedOnly.checked && tr.dataset.decision === 'allowed') return false;
    return !q || tr.dataset.search.includes(q);
  }

  function applyFilter() {
    for (const tr of rows.children) tr.hidden = !matches(tr);
    showCounts();
  }

  function showCounts() {
    const denied = records.filter(refused).length;
    counts.textContent = `${records.length} connection${records.length === 1 ? '' : 's'}, ${denied} refused`;
    counts.className = denied ? 'small refused-count' : 'muted small';
    empty.hidden = records.length > 0;
  }

  function onRecord(r) {
    if (!r || !r.id) return;
    lastId = r.id;
    records.push(r);
    const tr = row(r);
    tr.hidden = !matches(tr);
    rows.prepend(tr); // newest first
    if (records.length > MAX_ROWS) {
      records.shift();
      rows.lastElementChild?.remove();
    }
    showCounts();
  }

  function showPolicy(s) {
    const net = s.network || {};
    const hosts = net.allowed_hosts || [];
    const credentials = s.credentials || [];
    replace(policy,
      h('dl', { class: 'details details-2' },
        h('dt', {}, 'Mode'), h('dd', { id: 'network-mode' }, net.type || '—'),
        h('dt', {}, 'Package managers'), h('dd', {}, net.allow_package_managers ? 'allowed' : 'not allowed')),
      h('h3', {}, 'Allowed hosts'),
      hosts.length ? h('div', { id: 'allowed-hosts' }, hosts.map((x) => h('span', { class: 'chip' }, x)))
        : h('p', { class: 'muted small' }, net.type === 'unrestricted' ? 'Any public destination.' : 'None.'),
      h('h3', {}, 'Credential rules'),
      credentials.length ? h('ul', { class: 'rules', id: 'credential-rules' }, credentials.map((c) => h('li', { dataset: { secret: c.secret_id } },
        h('div', { class: 'mono small' }, c.secret_id),
        h('div', {}, (c.hosts || []).map((x) => h('span', { class: 'chip' }, x))),
        h('div', { class: 'small' }, c.header ? `${c.header}: ${c.template || '{secret}'}` : 'placeholder replaced in headers'),
        c.env ? h('div', { class: 'muted small mono' }, `$${c.env} holds a placeholder`) : null)))
        : h('p', { class: 'muted small' }, 'None.'),
      h('p', { class: 'muted small' }, 'Secrets are shown by id only; manage them on the ', h('a', { href: '#/secrets' }, 'Secrets'), ' page.'));
  }

  async function followLive() {
    while (!stopped) {
      controller = new AbortController();
      let ended = false;
      try {
        await follow(`/v1/sandboxes/${encodeURIComponent(id)}/egress`, { after_id: lastId }, (e) => {
          if (e.type === 'egress') onRecord(e.data);
          if (e.type === 'end') ended = true;
        }, controller.signal, () => {
          streamState.textContent = '● live';
          streamState.className = 'live-dot small';
        });
      } catch (err) {
        if (stopped) return;
        if (err.status === 401 || err.status === 404) return fail(err);
      }
      if (stopped) return;
      if (ended) {
        streamState.textContent = 'the sandbox has ended: this is the whole log';
        streamState.className = 'muted small';
        return;
      }
      streamState.textContent = 'reconnecting…';
      streamState.className = 'muted small';
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  }

  api.sandbox(id).then((s) => { if (!stopped) showPolicy(s); }).catch(fail);
  showCounts();
  followLive();
  return () => {
    stopped = true;
    if (controller) controller.abort();
  };
}

/** The path of a recorded URL (the host has its own column); the URL as it is when it does not parse. */
function pathOf(url) {
  if (!url) return null;
  try {
    return new URL(url).pathname;
  } catch (e) {
    return url;
  }
}
