// Live view of a browser sandbox: polls the step-mode "frame" action (a JPEG of the visible viewport) a few times
// a second and shows it read-only. Polling stops while the tab is hidden, while the sandbox is suspended (a frame
// would wake it), and after WATCH_MS, so an open tab never keeps a sandbox awake for good.
import { api } from './api.js';
import { h, replace, badge } from './dom.js';
import { fail } from './ui.js';

const FRAME_GAP_MS = 300;
const STATE_EVERY_MS = 3000;
const WATCH_MS = 5 * 60 * 1000;

export function renderLive(main, id) {
  const image = h('img', { id: 'live-frame', class: 'live-frame', alt: 'The browser page in the sandbox' });
  const pageTitle = h('span', { id: 'live-title', class: 'live-title' });
  const pageUrl = h('span', { id: 'live-url', class: 'mono muted small' });
  const state = h('span', { id: 'live-state' });
  const note = h('span', { id: 'live-note', class: 'muted small' });
  const resume = h('button', { id: 'live-resume', class: 'btn btn-secondary', type: 'button', hidden: true, onclick: () => start() }, 'Resume live view');
  let stopped = false;
  let running = false;
  let startedAt = 0;
  let sandboxState = null;
  let stateCheckedAt = 0;
  let frameTimer = null;
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
    running = false;
    clearTimeout(frameTimer);
    note.textContent = message;
    resume.hidden = false;
  }

  function start() {
    if (stopped || document.hidden) return;
    startedAt = Date.now();
    running = true;
    resume.hidden = true;
    note.textContent = '';
    tick();
  }

  async function tick() {
    clearTimeout(frameTimer);
    if (!running || stopped) return;
    if (document.hidden) return pause('Paused while the tab was hidden.');
    if (Date.now() - startedAt > WATCH_MS) return pause('Paused after 5 minutes so the sandbox can sleep.');
    try {
      if (Date.now() - stateCheckedAt > STATE_EVERY_MS) {
        const s = await api.sandbox(id);
        stateCheckedAt = Date.now();
        sandboxState = s.state;
        replace(state, badge(s.state));
      }
      if (sandboxState === 'running') {
        note.textContent = '';
        show(await api.browserAction(id, { action: 'frame', quality: 60 }));
      } else if (sandboxState === 'suspended') {
        note.textContent = 'The sandbox is suspended; the view continues when it resumes.';
      } else {
        return pause(`The sandbox is ${sandboxState}.`);
      }
    } catch (err) {
      if (stopped) return;
      fail(err);
      return pause('Stopped after an error.');
    }
    if (running && !stopped) frameTimer = setTimeout(tick, sandboxState === 'running' ? FRAME_GAP_MS : STATE_EVERY_MS);
  }

  function show(answer) {
    if (stopped) return;
    pageTitle.textContent = answer.title || '';
    pageUrl.textContent = answer.url || '';
    if (!answer.ok || typeof answer.frame !== 'string') {
      if (answer.error) note.textContent = answer.error;
      return;
    }
    const bin = atob(answer.frame);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const next = URL.createObjectURL(new Blob([bytes], { type: 'image/jpeg' }));
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
    running = false;
    clearTimeout(frameTimer);
    document.removeEventListener('visibilitychange', visibility);
    if (blobUrl) URL.revokeObjectURL(blobUrl);
  };
}
