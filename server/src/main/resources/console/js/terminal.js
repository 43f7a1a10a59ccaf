// The sandbox page's terminal (xterm.js, bundled at build time into vendor/xterm) and its forwarded ports. A terminal
// is opened with the API key in a header (POST …/pty); its WebSocket then carries only the single-use attach token
// the server answered, never the key. A reconnect (the socket dropped) asks for a new token and gets what the
// terminal wrote meanwhile.
import { session, ApiError } from './api.js';
import { h, replace } from './dom.js';
import { fail } from './ui.js';

const enc = encodeURIComponent;

async function call(method, path, body) {
  const headers = { Accept: 'application/json', 'x-api-key': session.key() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(new URL(path, window.location.origin), { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) throw new ApiError(res.status, data?.error?.code || `http_${res.status}`, data?.error?.message || `HTTP ${res.status}`);
  return data;
}

let xtermModule = null;

/** xterm.js and its stylesheet, loaded on first use; null when this build has no xterm.js. */
async function loadXterm() {
  if (xtermModule) return xtermModule;
  try {
    xtermModule = await import('../vendor/xterm/xterm.esm.js');
  } catch (e) {
    return null;
  }
  if (!document.getElementById('xterm-css')) {
    document.head.append(h('link', { id: 'xterm-css', rel: 'stylesheet', href: 'vendor/xterm/xterm.css' }));
  }
  return xtermModule;
}

/** A panel with "Open terminal" and, once open, the terminal; setEnabled follows the sandbox's state. */
export function createTerminalPanel(id) {
  const screen = h('div', { class: 'terminal-screen', id: 'terminal-screen' });
  const status = h('span', { class: 'exec-status', id: 'terminal-status' });
  const open = h('button', { class: 'btn btn-secondary', type: 'button', id: 'open-terminal', onclick: () => start() }, 'Open terminal');
  const ports = createPortList(id);
  const element = h('section', { class: 'panel', id: 'terminal-panel' },
    h('div', { class: 'panel-head row' }, h('h2', {}, 'Terminal'), h('div', { class: 'actions' }, status, open)),
    screen, ports.element);
  let term = null;
  let socket = null;
  let ptyId = null;
  let closed = false;

  async function start() {
    const xterm = await loadXterm();
    if (!xterm) {
      replace(status, 'This build of Paddock has no xterm.js (npm was not available when it was built): use `paddock sandbox shell`.');
      return;
    }
    open.disabled = true;
    term?.dispose();
    term = new xterm.Terminal({ rows: 24, cols: 100, convertEol: false, fontSize: 13, cursorBlink: true });
    term.open(screen);
    try {
      const pty = await call('POST', `/v1/sandboxes/${enc(id)}/pty`, { rows: term.rows, cols: term.cols });
      ptyId = pty.id;
      connect(pty.attach_url);
    } catch (err) {
      open.disabled = false;
      fail(err);
    }
    const encoder = new TextEncoder();
    term.onData((data) => { if (socket?.readyState === WebSocket.OPEN) socket.send(encoder.encode(data)); });
    term.onResize(({ rows, cols }) => { if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'resize', rows, cols })); });
    term.focus();
  }

  function connect(attachUrl) {
    const url = new URL(attachUrl, window.location.origin);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    replace(status, 'connecting…');
    socket.onopen = () => replace(status, 'connected');
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') {
        term.write(new Uint8Array(event.data));
        return;
      }
      const m = JSON.parse(event.data);
      if (m.type === 'exit') {
        ptyId = null;
        replace(status, h('span', { id: 'terminal-exit' }, `exited${m.exit_code === null ? '' : ` with code ${m.exit_code}`}`));
        open.disabled = false;
      } else if (m.type === 'replaced') {
        ptyId = null;
        replace(status, 'another client took over this terminal');
        open.disabled = false;
      } else if (m.type === 'error') {
        replace(status, m.message);
      }
    };
    socket.onclose = () => {
      // dropped while the terminal lives: attach again with a new token (the terminal kept what it wrote)
      if (!closed && ptyId) setTimeout(reconnect, 1000);
    };
  }

  async function reconnect() {
    if (closed || !ptyId) return;
    try {
      const token = await call('POST', `/v1/sandboxes/${enc(id)}/pty/${enc(ptyId)}/attach_tokens`);
      connect(token.attach_url);
    } catch (err) {
      replace(status, 'disconnected');
      open.disabled = false;
    }
  }

  return {
    element,
    setEnabled(running) {
      open.disabled = !running || (ptyId !== null && socket?.readyState === WebSocket.OPEN);
      ports.refresh(running);
    },
    /** Leaving the page: the terminal lives on for its grace period, reachable with `paddock sandbox shell`'s API. */
    close() {
      closed = true;
      socket?.close();
      term?.dispose();
    },
  };
}

/** The sandbox's forwarded ports: open one, follow its link (it carries the port's token), close it. */
function createPortList(id) {
  const list = h('ul', { class: 'ports', id: 'port-list' });
  const input = h('input', { id: 'port-number', class: 'mono', type: 'number', min: '1', max: '65535', placeholder: '8000' });
  const form = h('form', { class: 'command-form', onsubmit: async (event) => {
    event.preventDefault();
    try {
      await call('POST', `/v1/sandboxes/${enc(id)}/ports`, { port: Number(input.value) });
      input.value = '';
      refresh(true);
    } catch (err) {
      fail(err);
    }
  } }, h('span', { class: 'prompt mono' }, 'port'), input, h('button', { class: 'btn btn-secondary', type: 'submit', id: 'open-port' }, 'Forward'));
  const element = h('div', { class: 'port-forwards' }, h('h3', {}, 'Forwarded ports'), form, list);

  async function refresh(running) {
    if (!running) return;
    try {
      const page = await call('GET', `/v1/sandboxes/${enc(id)}/ports`);
      replace(list, (page?.data || []).map((p) => h('li', {},
        h('a', { href: p.url, target: '_blank', rel: 'noopener noreferrer', class: 'mono', id: `port-link-${p.port}` }, `:${p.port}`), ' ',
        h('button', { class: 'btn btn-secondary', type: 'button', onclick: async () => {
          try {
            await call('DELETE', `/v1/sandboxes/${enc(id)}/ports/${p.port}`);
            refresh(true);
          } catch (err) {
            fail(err);
          }
        } }, 'Close'))));
    } catch (err) {
      // the sandbox's driver may not forward ports: the list stays empty
    }
  }

  return { element, refresh };
}
