import { api } from './api.js';
import { h, replace } from './dom.js';
import { fail } from './ui.js';

const ROWS = [
  ['Description', (d) => d.description],
  ['Lanes', (d) => d.lanes],
  ['Lease', (d) => d.lifecycle?.lease],
  ['Suspend / resume', (d) => d.lifecycle?.suspend_resume],
  ['Hard terminate', (d) => d.lifecycle?.hard_terminate],
  ['Orphan reap', (d) => d.lifecycle?.orphan_reap],
  ['Workspace', (d) => d.workspace?.strategies],
  ['Durability', (d) => d.workspace?.durability],
  ['Outputs', (d) => d.outputs?.collection],
  ['Egress enforcement', (d) => d.credential_egress?.enforcement],
  ['Intercepted protocols', (d) => d.credential_egress?.intercepted_protocols],
  ['Checkpoints', (d) => d.runtime_checkpoints],
  ['Available', (d) => d.port_facts?.available],
  ['Unavailable', (d) => d.port_facts?.unavailable],
];

const GOOD = new Set(['supported', 'enforced', 'host_fenced', 'host_managed', 'durable']);
const BAD = new Set(['unsupported', 'unavailable', 'none', 'advisory']);

function cell(value) {
  if (value === undefined || value === null) return h('td', { class: 'muted' }, '—');
  if (Array.isArray(value)) {
    if (value.length === 0) return h('td', { class: 'muted' }, 'none');
    return h('td', {}, value.map((v) => h('span', { class: 'chip' }, String(v))));
  }
  const text = String(value);
  const cls = GOOD.has(text) ? 'claim-good' : BAD.has(text) ? 'claim-bad' : '';
  return h('td', { class: cls }, text);
}

export function renderDrivers(main) {
  const body = h('div', { class: 'panel-body' }, h('p', { class: 'muted' }, 'Loading…'));
  replace(main, h('section', { class: 'panel' },
    h('div', { class: 'panel-head' }, h('h1', {}, 'Drivers'),
      h('p', { class: 'muted' }, 'What each loaded driver guarantees. Every claim is proven by the conformance kit.')),
    body));
  api.drivers().then((page) => {
    const drivers = page?.data || [];
    if (drivers.length === 0) {
      replace(body, h('p', { class: 'muted' }, 'No drivers are loaded.'));
      return;
    }
    const table = h('table', { class: 'table conformance', id: 'drivers-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Claim'), drivers.map((d) => h('th', {}, d.driver)))),
      h('tbody', {}, ROWS.map(([label, get]) => h('tr', {}, h('th', { scope: 'row' }, label), drivers.map((d) => cell(get(d)))))));
    replace(body, h('div', { class: 'table-wrap' }, table));
  }).catch(fail);
}
