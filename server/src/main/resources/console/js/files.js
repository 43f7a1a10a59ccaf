import { api } from './api.js';
import { h, replace, formatBytes, when } from './dom.js';
import { fail, toast } from './ui.js';

const MAX_PREVIEW = 256 * 1024;

/** A browser of /workspace: list, enter directories, preview small text files, upload, download, new folder, delete. */
export function createFileBrowser(id) {
  let cwd = '/workspace';
  const crumbs = h('div', { class: 'path mono', id: 'files-path' });
  const tbody = h('tbody', {});
  const preview = h('div', { class: 'preview', hidden: true });
  const upload = h('input', { type: 'file', id: 'upload-input', class: 'visually-hidden', onchange: uploadFiles, multiple: true });
  const uploadButton = h('label', { for: 'upload-input', class: 'btn btn-secondary' }, 'Upload');
  const refresh = h('button', { class: 'btn btn-ghost', type: 'button', id: 'files-refresh', onclick: () => open(cwd) }, 'Refresh');
  const newFolder = h('button', { class: 'btn btn-secondary', type: 'button', id: 'files-mkdir', onclick: makeFolder }, 'New folder');

  const element = h('section', { class: 'panel', id: 'files' },
    h('div', { class: 'panel-head row' }, h('h2', {}, 'Files'), h('div', { class: 'actions' }, refresh, newFolder, uploadButton, upload)),
    crumbs,
    h('div', { class: 'table-wrap' },
      h('table', { class: 'table files', id: 'files-table' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', { class: 'num' }, 'Size'), h('th', {}, 'Modified'), h('th', {}, ''))),
        tbody)),
    preview);

  async function open(path) {
    try {
      const page = await api.list(id, path);
      cwd = path;
      renderCrumbs();
      const entries = (page?.data || []).slice().sort((a, b) =>
        (a.type === 'directory' ? 0 : 1) - (b.type === 'directory' ? 0 : 1) || a.name.localeCompare(b.name));
      const rows = [];
      if (cwd !== '/workspace') rows.push(h('tr', {}, h('td', {}, h('a', { href: '#', class: 'dir', onclick: (e) => { e.preventDefault(); open(parent(cwd)); } }, '..')), h('td'), h('td'), h('td')));
      for (const e of entries) rows.push(row(e));
      replace(tbody, rows);
      if (entries.length === 0) tbody.appendChild(h('tr', {}, h('td', { colspan: '4', class: 'muted' }, 'This directory is empty.')));
    } catch (err) {
      fail(err);
    }
  }

  function row(e) {
    const isDir = e.type === 'directory';
    const name = isDir ? `${e.name}/` : e.type === 'symlink' ? `${e.name} → ${e.link_target ?? '?'}` : e.name;
    const link = h('a', { href: '#', class: isDir ? 'dir' : 'file', dataset: { name: e.name }, onclick: (ev) => {
      ev.preventDefault();
      if (isDir) open(e.path);
      else if (e.type === 'file') view(e);
    } }, name);
    return h('tr', {},
      h('td', {}, link),
      h('td', { class: 'num muted' }, isDir ? '' : formatBytes(e.size)),
      h('td', { class: 'muted' }, when(e.modified_at)),
      h('td', { class: 'num' },
        e.type === 'file' ? h('button', { class: 'btn btn-ghost btn-small', type: 'button', onclick: () => download(e) }, 'Download') : null,
        h('button', { class: 'btn btn-ghost btn-small btn-danger-text', type: 'button', title: `Delete ${e.name}`,
          dataset: { delete: e.name }, onclick: () => remove(e) }, 'Delete')));
  }

  async function makeFolder() {
    const name = (window.prompt(`New folder in ${cwd}:`) || '').trim();
    if (!name) return;
    if (name.includes('/') || name === '.' || name === '..') {
      toast('A folder name cannot contain "/" or be "." or "..".');
      return;
    }
    try {
      await api.mkdir(id, `${cwd}/${name}`);
      toast(`Created ${name}/`, 'ok');
    } catch (err) {
      fail(err);
    }
    open(cwd);
  }

  async function remove(e) {
    const isDir = e.type === 'directory';
    const what = isDir ? `the folder ${e.path} and everything in it` : e.path;
    if (!window.confirm(`Delete ${what}? This cannot be undone.`)) return;
    try {
      await api.removeFile(id, e.path, isDir);
      toast(`Deleted ${e.name}`, 'ok');
      preview.hidden = true;
    } catch (err) {
      fail(err);
    }
    open(cwd);
  }

  async function view(e) {
    if (e.size > MAX_PREVIEW) {
      replace(preview, h('p', { class: 'muted' }, `${e.name} is ${formatBytes(e.size)}; download it to look inside.`));
      preview.hidden = false;
      return;
    }
    try {
      const bytes = new Uint8Array(await (await api.read(id, e.path)).arrayBuffer());
      const binary = bytes.includes(0);
      replace(preview,
        h('div', { class: 'preview-head' }, h('strong', { class: 'mono' }, e.path),
          h('button', { class: 'btn btn-ghost btn-small', type: 'button', onclick: () => { preview.hidden = true; } }, 'Close')),
        binary ? h('p', { class: 'muted' }, 'This looks like a binary file; download it instead.')
          : h('pre', { class: 'output', id: 'file-preview' }, new TextDecoder('utf-8').decode(bytes)));
      preview.hidden = false;
    } catch (err) {
      fail(err);
    }
  }

  async function download(e) {
    try {
      const blob = await (await api.read(id, e.path)).blob();
      const url = URL.createObjectURL(blob);
      const a = h('a', { href: url, download: e.name });
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (err) {
      fail(err);
    }
  }

  async function uploadFiles() {
    const chosen = Array.from(upload.files || []);
    upload.value = '';
    for (const file of chosen) {
      try {
        await api.write(id, `${cwd}/${file.name}`, file);
        toast(`Uploaded ${file.name}`, 'ok');
      } catch (err) {
        fail(err);
      }
    }
    open(cwd);
  }

  function renderCrumbs() {
    const parts = cwd.split('/').filter(Boolean);
    const nodes = [];
    let acc = '';
    parts.forEach((p, i) => {
      acc += `/${p}`;
      const target = acc;
      if (i > 0) nodes.push(h('span', { class: 'sep' }, '/'));
      nodes.push(i === parts.length - 1 ? h('span', {}, p)
        : h('a', { href: '#', onclick: (ev) => { ev.preventDefault(); open(target); } }, p));
    });
    replace(crumbs, '/', nodes);
  }

  return { element, open, refresh: () => open(cwd) };
}

function parent(path) {
  const i = path.lastIndexOf('/');
  return i <= '/workspace'.length - 1 ? '/workspace' : path.slice(0, i);
}
