// Live view of a browser sandbox: follows the sandbox's CDP screencast (GET …/browser/screencast, Server-Sent
// Events read with fetch, since EventSource cannot send the key header) and shows each frame read-only. The view
// stops while the tab is hidden and when the server ends the cast after 5 minutes (a watched sandbox counts as
// active), so an open tab never keeps a sandbox awake for good.
import { api, base64Bytes } from './api.js';
import { h, replace, badge } from './dom.js';
import { fail } from './ui.js';

export function renderLive(main, id) {
  const image = h('img', { id: 'live-frame', class: 'live-frame', alt: 'The browser page in the sandbox' });
  const pageTitle = h('span', { id: 'live-title', class: 'live-title' });
  const pageUrl = h('span', { id: 'live-url', class: 'mono muted small' });
  const state = h('span', { id: 'live-state' });
  const note = h('span', { id: 'live-note', class: 'muted small' });
  const resume = h('button', { id: 'live-resume', class: 'btn btn-secondary', type: 'button', hidden: true, onclick: () => start() }, 'Resume live view');
  let stopped = false;
  let cast = null;
  let blobUrl = null;

  replace(main,
    h('p', { class: 'crumbs' }, h('a', { href: `#/sandboxes/${encodeURIComponent(id)}` }, `← ${id}`)),
    h('section', { class: 'panel' },
      h('div', { class: 'panel-head row' },
        h('div', {}, h('div', { class: 'title-row' }, h('h1', {}, 'Live view'), state), h('p', { class: 'muted small' }, 'Read-only: what the sandbox\'s browser shows now.')),
        h('div', { class: 'actions' }, note, resume)),
      h('div', { class: 'live-bar' }, pageTitle, pageUrl),
      h('div', { class: 'live-screen' }, image)));

  function pause(message) {
    if (cast) cast.abort();
    cast = null;
    note.textContent = message;
    resume.hidden = false;
  }

  async function start() {
    if (stopped || document.hidden || cast) return;
    resume.hidden = true;
    note.textContent = '';
    const controller = new AbortController();
    cast = controller;
    try {
      const s = await api.sandbox(id);
      replace(state, badge(s.state));
      if (s.state !== 'running' && s.state !== 'suspended') return pause(`The sandbox is ${s.state}.`);
      if (s.state === 'suspended') note.textContent = 'The sandbox is suspended; the view continues when it resumes.';
      await api.screencast(id, 60, (type, data) => {
        if (controller.signal.aborted) return;
        if (type === 'frame' || type === 'page') show(data);
        if (type === 'error') note.textContent = data.error || 'The browser could not be watched.';
      }, controller.signal);
      if (cast === controller) pause('Paused after 5 minutes so the sandbox can sleep.');
    } catch (err) {
      if (stopped || controller.signal.aborted) return;
      fail(err);
      pause('Stopped after an error.');
    }
  }

  function show(answer) {
    if (stopped) return;
    note.textContent = '';
    if (typeof answer.title === 'string') pageTitle.textContent = answer.title;
    if (typeof answer.url === 'string') pageUrl.textContent = answer.url;
    if (typeof answer.frame !== 'string') return;
    const next = URL.createObjectURL(new Blob([base64Bytes(answer.frame)], { type: 'image/jpeg' }));
    const previous = blobUrl;
    blobUrl = next;
    image.src = next;
    if (previous) URL.revokeObjectURL(previous);
  }

  function visibility() {
    if (document.hidden) pause('Paused while the tab was hidden.');
  }

  document.addEventListener('visibilitychange', visibility);
  start();
  return () => {
    stopped = true;
    if (cast) cast.abort();
    cast = null;
    document.removeEventListener('visibilitychange', visibility);
    if (blobUrl) URL.revokeObjectURL(blobUrl);
  };
}
