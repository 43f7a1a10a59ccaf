// A sandbox's checkpoints: take one (the workspace, or process memory where the driver can), restore, delete.
import { api } from './api.js';
import { h, replace, formatBytes, when } from './dom.js';
import { fail, toast } from './ui.js';
import { resources } from './resources.js';
import { sandboxHead, table } from './parts.js';

export function renderCheckpoints(main, id) {
  const rows = h('tbody', {});
  const empty = h('p', { class: 'muted', hidden: true, id: 'checkpoints-empty' }, 'No checkpoints yet.');
  const kind = h('select', { id: 'checkpoint-kind' }, h('option', { value: 'workspace_tar' }, 'Workspace (tar)'));
  const take = h('button', { id: 'create-checkpoint', class: 'btn btn-primary', type: 'button', onclick: () => create() }, 'Take checkpoint');
  let stopped = false;

  replace(main, ...sandboxHead(id, 'checkpoints', 'Checkpoints', 'A checkpoint keeps the workspace as it is now; restoring puts it back exactly (all or nothing).'),
    h('section', { class: 'panel' },
      h('div', { class: 'toolbar' }, kind, take),
      table('checkpoints-table', ['Checkpoint', 'Kind', 'Size', 'Taken', ''], rows), empty));

  async function refresh() {
    try {
      const list = (await resources.checkpoints(id))?.data || [];
      if (stopped) return;
      replace(rows, list.map((c) => h('tr', { dataset: { id: c.id } },
        h('td', { class: 'mono small' }, c.id), h('td', {}, c.kind), h('td', {}, formatBytes(c.size_bytes)), h('td', { class: 'small' }, when(c.created_at)),
        h('td', { class: 'num nowrap' },
          h('button', { class: 'btn btn-small btn-secondary', type: 'button', dataset: { restore: c.id }, onclick: (e) => act(e, () => restore(c)) }, 'Restore'), ' ',
          h('button', { class: 'btn btn-small btn-danger', type: 'button', dataset: { delete: c.id }, onclick: (e) => act(e, () => remove(c)) }, 'Delete')))));
      empty.hidden = list.length > 0;
    } catch (err) {
      fail(err);
    }
  }

  async function act(event, call) {
    event.currentTarget.disabled = true;
    try {
      await call();
    } catch (err) {
      fail(err);
    }
    refresh();
  }

  async function create() {
    take.disabled = true;
    try {
      const c = await resources.createCheckpoint(id, kind.value);
      toast(`Checkpoint ${c.id} taken (${formatBytes(c.size_bytes)})`, 'ok');
    } catch (err) {
      fail(err);
    } finally {
      take.disabled = false;
    }
    refresh();
  }

  async function restore(c) {
    if (!window.confirm(`Restore ${c.id}? The workspace goes back to how it was at ${when(c.created_at)}; later changes are lost.`)) return;
    await resources.restoreCheckpoint(id, c.id);
    toast(`Restored ${c.id}`, 'ok');
  }

  async function remove(c) {
    if (!window.confirm(`Delete ${c.id}? It cannot be restored afterwards.`)) return;
    await resources.deleteCheckpoint(id, c.id);
    toast(`Deleted ${c.id}`, 'ok');
  }

  // offer memory checkpoints only where the sandbox's driver claims them
  Promise.all([api.sandbox(id), api.drivers()]).then(([s, drivers]) => {
    const driver = (drivers?.data || []).find((d) => d.driver === s.driver);
    if ((driver?.runtime_checkpoints || []).includes('process_memory')) kind.append(h('option', { value: 'memory' }, 'Processes and memory'));
  }).catch(() => {});
  refresh();
  return () => { stopped = true; };
}
