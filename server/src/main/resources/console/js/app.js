// Entry point: a tiny hash router over a few views. Views render into <main> and return a cleanup function.
import { api, session } from './api.js';
import { hideToast } from './ui.js';
import { h, replace } from './dom.js';
import { renderSignIn } from './signin.js';
import { renderSandboxes } from './sandboxes.js';
import { renderSandbox } from './sandbox.js';
import { renderLive } from './live.js';
import { renderDrivers } from './drivers.js';
import { renderRuntimes } from './runtimes.js';
import { renderPage } from './pages.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const signOutButton = document.getElementById('sign-out');
let cleanup = () => {};

export function go(hash) {
  if (window.location.hash === hash) route();
  else window.location.hash = hash;
}

function route() {
  cleanup();
  cleanup = () => {};
  hideToast();
  const signedIn = Boolean(session.key());
  nav.hidden = !signedIn;
  signOutButton.hidden = !signedIn;
  if (!signedIn) {
    cleanup = renderSignIn(main, () => go('#/sandboxes')) || cleanup;
    return;
  }
  const hash = window.location.hash || '#/sandboxes';
  const parts = hash.replace(/^#\/?/, '').split('/');
  for (const link of nav.querySelectorAll('a')) link.classList.toggle('active', link.dataset.view === parts[0]);
  let view = renderPage(main, parts);
  if (view !== undefined) { /* a page of pages.js: sessions, network, checkpoints, processes, secrets, keys, usage */ }
  else if (parts[0] === 'sandboxes' && parts[1] && parts[2] === 'live') view = renderLive(main, decodeURIComponent(parts[1]));
  else if (parts[0] === 'sandboxes' && parts[1]) view = renderSandbox(main, decodeURIComponent(parts[1]));
  else if (parts[0] === 'drivers') view = renderDrivers(main);
  else if (parts[0] === 'runtimes') view = renderRuntimes(main);
  else if (parts[0] === 'sandboxes' || parts[0] === '') view = renderSandboxes(main);
  else view = replace(main, h('section', { class: 'panel' }, h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '#/sandboxes' }, 'Back to sandboxes'))));
  cleanup = typeof view === 'function' ? view : () => {};
}

signOutButton.addEventListener('click', () => {
  session.signOut();
  go('#/sandboxes');
});
window.addEventListener('hashchange', route);
window.addEventListener('paddock:signed-out', route);

api.health()
  .then((health) => { document.getElementById('server-version').textContent = health && health.version ? (/^\d/.test(health.version) ? `v${health.version}` : health.version) : ''; })
  .catch(() => {});
route();
