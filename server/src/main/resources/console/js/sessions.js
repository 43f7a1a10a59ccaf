// Managed Agents at a glance: the tenant's sessions (newest first), agents and environments. Refreshes every few
// seconds; a session row opens its timeline.
import { h, replace, age } from './dom.js';
import { fail } from './ui.js';
import { resources } from './resources.js';
import { table } from './parts.js';

const REFRESH_MS = 5000;

export function sessionBadge(status) {
  const cls = { running: 'running', idle: 'creating', rescheduling: 'suspended', terminated: 'terminated' }[status] || 'unknown';
  return h('span', { class: `badge badge-${cls}`, dataset: { status: status || '' } }, status || 'unknown');
}

export function renderSessions(main) {
  const sessionRows = h('tbody', {});
  const agentRows = h('tbody', {});
  const environmentRows = h('tbody', {});
  const noSessions = h('p', { class: 'empty muted', hidden: true }, 'No sessions yet. Create one with an SDK or the API (POST /v1/sessions).');
  let timer = null;
  let stopped = false;

  replace(main,
    h('section', { class: 'panel' },
      h('div', { class: 'panel-head' }, h('h1', {}, 'Sessions'), h('p', { class: 'muted' }, 'Agent sessions of your tenant, newest first. Open one to follow its events as they happen.')),
      table('sessions-table', ['Session', 'Status', 'Agent', 'Environment', 'Tokens in / out', 'Age'], sessionRows),
      noSessions),
    h('div', { class: 'columns' },
      h('section', { class: 'panel' }, h('div', { class: 'panel-head' }, h('h2', {}, 'Agents')),
        table('agents-table', ['Agent', 'Name', 'Model', 'Version'], agentRows)),
      h('section', { class: 'panel' }, h('div', { class: 'panel-head' }, h('h2', {}, 'Environments')),
        table('environments-table', ['Environment', 'Name', 'Type', 'Network'], environmentRows))));

  async function refresh() {
    try {
      const [sessions, agents, environments] = await Promise.all([resources.sessions(), resources.agents(), resources.environments()]);
      if (stopped) return;
      const agentNames = new Map(agents.map((a) => [a.id, a.name]));
      const environmentNames = new Map(environments.map((e) => [e.id, e.name]));
      replace(sessionRows, sessions.map((s) => {
        const href = `#/sessions/${encodeURIComponent(s.id)}`;
        return h('tr', { class: 'clickable', dataset: { id: s.id }, onclick: () => { window.location.hash = href; } },
          h('td', {}, h('a', { class: 'mono', href }, s.id), s.title ? h('div', { class: 'small muted' }, s.title) : null),
          h('td', {}, sessionBadge(s.status)),
          h('td', {}, s.agent?.name || agentNames.get(s.agent?.id) || s.agent?.id || '—'),
          h('td', {}, environmentNames.get(s.environment_id) || s.environment_id || '—'),
          h('td', { class: 'mono small' }, `${s.usage?.input_tokens ?? 0} / ${s.usage?.output_tokens ?? 0}`),
          h('td', { class: 'muted' }, age(s.created_at)));
      }));
      noSessions.hidden = sessions.length > 0;
      replace(agentRows, agents.length ? agents.map((a) => h('tr', { dataset: { id: a.id } },
        h('td', { class: 'mono small' }, a.id), h('td', {}, a.name), h('td', { class: 'mono small' }, a.model?.id || a.model || '—'),
        h('td', {}, a.version ?? '—'))) : h('tr', {}, h('td', { colspan: 4, class: 'muted' }, 'No agents.')));
      replace(environmentRows, environments.length ? environments.map((e) => h('tr', { dataset: { id: e.id } },
        h('td', { class: 'mono small' }, e.id), h('td', {}, e.name), h('td', {}, e.config?.type || '—'),
        h('td', {}, e.config?.networking?.type || '—'))) : h('tr', {}, h('td', { colspan: 4, class: 'muted' }, 'No environments.')));
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
