// Small pieces the newer pages share: folded long text, the sandbox page's tabs, tables and form fields.
import { h } from './dom.js';

/** Text longer than this many characters or lines is folded behind its first lines. */
const FOLD_CHARS = 600;
const FOLD_LINES = 10;

/**
 * A block of text from the model, a tool or a process: always a text node (never markup), folded when long so a
 * large output does not bury the rest of the page.
 */
export function fold(text, { cls = '', open = false } = {}) {
  const value = text === null || text === undefined ? '' : String(text);
  const lines = value.split('\n');
  if (value.length <= FOLD_CHARS && lines.length <= FOLD_LINES) return h('pre', { class: `block ${cls}` }, value);
  const head = lines.slice(0, 3).join('\n').slice(0, 240);
  return h('details', { class: 'fold', open },
    h('summary', {}, h('span', { class: 'fold-head mono' }, head), h('span', { class: 'muted small' }, ` … ${lines.length} lines, ${value.length} characters`)),
    h('pre', { class: `block ${cls}` }, value));
}

/** JSON from the server shown as indented text. */
export function jsonText(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch (e) {
    return String(value);
  }
}

export const SANDBOX_TABS = [
  ['', 'Overview'], ['network', 'Network'], ['checkpoints', 'Checkpoints'], ['processes', 'Processes'],
];

/** The row of links between a sandbox's pages; {@code current} is '' for the overview. */
export function sandboxTabs(id, current) {
  const base = `#/sandboxes/${encodeURIComponent(id)}`;
  return h('nav', { class: 'tabs', id: 'sandbox-tabs' }, SANDBOX_TABS.map(([path, label]) =>
    h('a', { href: path ? `${base}/${path}` : base, class: path === current ? 'active' : null, dataset: { tab: path || 'overview' } }, label)));
}

/** The head of a sandbox sub-page: back link, tabs and title. */
export function sandboxHead(id, current, title, note) {
  return [
    h('p', { class: 'crumbs' }, h('a', { href: '#/sandboxes' }, '← Sandboxes'), ' / ', h('a', { class: 'mono', href: `#/sandboxes/${encodeURIComponent(id)}` }, id)),
    sandboxTabs(id, current),
    h('div', { class: 'panel-head' }, h('h1', {}, title), note ? h('p', { class: 'muted' }, note) : null),
  ];
}

export function table(id, headings, body) {
  return h('div', { class: 'table-wrap' }, h('table', { class: 'table', id },
    h('thead', {}, h('tr', {}, headings.map((t) => h('th', {}, t)))), body));
}

export function field(label, input, hint) {
  return h('label', { class: 'field' }, h('span', {}, label), input, hint ? h('small', { class: 'muted' }, hint) : null);
}

export function time(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleTimeString();
}
