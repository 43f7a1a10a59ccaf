// The tenant at a glance (GET /v1/usage): its live sandboxes by state and the storage it uses against its quota.
import { h, replace, formatBytes } from './dom.js';
import { fail } from './ui.js';
import { resources } from './resources.js';

const REFRESH_MS = 5000;

export function renderUsage(main) {
  const body = h('div', { id: 'tenant-usage' }, h('p', { class: 'muted' }, 'Loading…'));
  let timer = null;
  let stopped = false;
  replace(main, h('section', { class: 'panel' },
    h('div', { class: 'panel-head' }, h('h1', {}, 'Usage'), h('p', { class: 'muted' }, 'What your tenant holds now. Each sandbox\'s page charts its memory, CPU and processes.')),
    body));

  function stat(name, label, value, note) {
    return h('div', { class: 'stat', id: `usage-${name}` }, h('div', { class: 'muted small' }, label), h('div', { class: 'stat-value' }, value),
      note ? h('div', { class: 'muted small' }, note) : null);
  }

  async function refresh() {
    try {
      const u = await resources.usage();
      if (stopped) return;
      const byState = u.sandboxes?.by_state || {};
      const used = u.storage?.used_bytes ?? 0;
      const quota = u.storage?.quota_bytes;
      const share = quota ? Math.min(100, (used / quota) * 100) : null;
      const meter = h('div', { class: 'meter' }, h('div', { class: 'meter-fill' }));
      if (share !== null) meter.firstChild.style.width = `${share.toFixed(1)}%`; // CSSOM, allowed by the CSP
      replace(body,
        h('div', { class: 'stats' },
          stat('live', 'Live sandboxes', String(u.sandboxes?.live ?? 0),
            Object.keys(byState).length ? Object.entries(byState).map(([k, v]) => `${v} ${k}`).join(', ') : 'none'),
          stat('storage', 'Storage used', formatBytes(used), quota ? `of ${formatBytes(quota)} (${share.toFixed(1)}%)` : 'no quota set'),
          stat('tenant', 'Tenant', u.tenant_id)),
        quota ? meter : null,
        h('p', { class: 'muted small' }, 'Storage counts checkpoints, skills and uploaded files; workspaces are limited per sandbox (limits.disk).'));
    } catch (err) {
      fail(err);
    } finally {
      if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
    }
  }

  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
