// The sandbox tab: pairs with Paddock (one-time code from the URL fragment), boots the VM through the engine
// seam, restores the workspace from OPFS, then serves sandbox ops from the relay and shows what it did.
import { createEngine } from './engine.js';
import { Relay } from './relay.js';
import { saveMirror, loadMirror, dropMirror, listMirrors } from './opfs.js';

const SESSION = 'paddock.sandboxTab';
// credentials never enter this tab: drop an API key a same-origin opener may have copied into session storage
sessionStorage.removeItem('paddock.apiKey');
const $ = (id) => document.getElementById(id);
const state = { runtimeId: null, token: null, sandboxId: null, vm: 'starting', bootMode: null, bootMs: null, mirrors: [] };
const killIds = new Map();
let engine = null;
let relay = null;
let mirrorTimer = null;

function log(kind, text) {
  const li = document.createElement('li');
  li.className = `op op-${kind}`;
  li.textContent = `${new Date().toLocaleTimeString()}  ${text}`;
  const list = $('op-log');
  list.prepend(li);
  while (list.children.length > 200) list.lastChild.remove();
}

function show(id, text) { $(id).textContent = text; }

function fatal(message) {
  const el = $('tab-error');
  el.textContent = message;
  el.hidden = false;
}

function saveSession() {
  sessionStorage.setItem(SESSION, JSON.stringify({ runtimeId: state.runtimeId, token: state.token, sandboxId: state.sandboxId }));
}

async function pair() {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const code = params.get('code');
  // the code is single-use: drop it from the address bar and history at once
  if (window.location.hash) history.replaceState(null, '', window.location.pathname + window.location.search);
  const saved = JSON.parse(sessionStorage.getItem(SESSION) || 'null');
  if (saved && saved.token && !code) {
    Object.assign(state, saved);
    return;
  }
  if (!code) throw new Error('This tab has no pairing code. Open it from the Paddock console: Runtimes, Browser VM, Open sandbox tab.');
  const res = await fetch('/v1/runtimes/exchange', {
    method: 'POST', credentials: 'omit', cache: 'no-store',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ code, kind: 'browser-vm' }),
  });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(body?.error?.message || `pairing failed (HTTP ${res.status})`);
  state.runtimeId = body.runtime_id;
  state.token = body.runtime_token;
  state.sandboxId = null;
  saveSession();
}

async function fetchBytes(name) {
  const res = await fetch(`/sandbox-tab/vm/${name}`, { cache: 'no-cache' });
  if (!res.ok) {
    const body = await res.json().catch(() => null);
    throw Object.assign(new Error(body?.error?.message || `cannot load ${name} (HTTP ${res.status})`), { status: res.status });
  }
  return res.arrayBuffer();
}

async function boot() {
  show('vm-state', 'loading');
  const [vm, { V86 }] = await Promise.all([
    fetchBytes('vm.json').then((b) => JSON.parse(new TextDecoder().decode(b))),
    import('/sandbox-tab/vm/libv86.mjs'),
  ]);
  let saved = null;
  // ?boot=cold skips the saved state (to measure or debug a cold boot)
  if (new URLSearchParams(window.location.search).get('boot') !== 'cold') {
    try {
      saved = await fetchBytes('state.bin.zst');
    } catch (e) {
      if (e.status !== 404) throw e;
    }
  }
  engine = createEngine('v86', { V86, wasmPath: '/sandbox-tab/vm/v86.wasm', load: fetchBytes, vm, state: saved });
  const booted = await engine.boot({ onStatus: (s) => show('vm-state', s) });
  state.bootMode = booted.mode;
  state.bootMs = booted.millis;
  show('boot-info', `${booted.mode === 'state' ? 'restored saved state' : 'cold boot'} in ${booted.millis} ms`);
  log('info', `VM ready (${booted.mode === 'state' ? 'saved state' : 'cold boot'}, ${booted.millis} ms)`);
}

async function restoreWorkspace() {
  if (!state.sandboxId) return;
  try {
    const files = await loadMirror(state.sandboxId);
    for (const f of files) await engine.writeFile(f.path, f.bytes);
    show('mirror-state', `restored ${files.length} file(s) from OPFS`);
    log('info', `restored ${files.length} workspace file(s) from OPFS`);
  } catch (e) {
    show('mirror-state', `could not restore: ${e.message}`);
  }
}

function scheduleMirror() {
  const sandboxId = state.sandboxId;
  if (!sandboxId) return;
  clearTimeout(mirrorTimer);
  show('mirror-state', 'saving…');
  mirrorTimer = setTimeout(async () => {
    try {
      const n = await saveMirror(sandboxId, await engine.files());
      if (state.sandboxId === sandboxId) show('mirror-state', `saved ${n} file(s) to OPFS at ${new Date().toLocaleTimeString()}`);
    } catch (e) {
      show('mirror-state', `not mirrored: ${e.message}`);
    }
  }, 150);
}

// ---- ops ----------------------------------------------------------------------------------------------

class OpError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

const inside = (p) => p === '/workspace' || p.startsWith('/workspace/');

function checkedPath(raw, followLast) {
  if (typeof raw !== 'string' || raw.length > 4096 || !raw.startsWith('/')) throw new OpError('malformed_op', 'path must be an absolute string');
  let resolved;
  if (followLast) {
    resolved = engine.resolve(raw);
  } else {
    const cut = raw.replace(/\/+$/, '').lastIndexOf('/');
    const parent = cut <= 0 ? '/' : raw.slice(0, cut);
    resolved = `${engine.resolve(parent).replace(/\/$/, '')}/${raw.slice(cut + 1)}`;
  }
  if (!inside(resolved)) throw new OpError('path_outside_workspace', `${raw.slice(0, 200)} resolves outside /workspace`);
  return resolved;
}

function strings(value, what) {
  if (!Array.isArray(value) || value.length === 0 || value.some((s) => typeof s !== 'string')) throw new OpError('malformed_op', `${what} must be a non-empty array of strings`);
  return value;
}

function envOf(value) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new OpError('malformed_op', 'env must be an object');
  for (const [k, v] of Object.entries(value)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || typeof v !== 'string') throw new OpError('invalid_env', 'env names are identifiers and values are strings');
  }
  return value;
}

const MUTATING = new Set(['exec', 'write_file', 'mkdir', 'delete', 'clear']);

async function runOp(f, data) {
  const a = f.args;
  if (f.op !== 'bind' && f.sandbox_id !== state.sandboxId) throw new OpError('sandbox_not_here', `this tab does not run sandbox ${f.sandbox_id}`);
  switch (f.op) {
    case 'bind':
      if (state.sandboxId && state.sandboxId !== f.sandbox_id) await dropMirror(state.sandboxId);
      await engine.clearWorkspace();
      if (a.fresh === false) {
        // the server moved a sandbox whose tab was closed to this tab: its workspace comes back from this browser's mirror
        state.sandboxId = f.sandbox_id;
        await restoreWorkspace();
        log('info', `took over sandbox ${f.sandbox_id}`);
      } else {
        state.sandboxId = f.sandbox_id;
      }
      state.mirrors = state.mirrors.filter((id) => id !== f.sandbox_id);
      saveSession();
      show('sandbox-id', state.sandboxId);
      return [{}];
    case 'exec': {
      const r = await engine.exec({
        argv: strings(a.argv, 'argv'), env: envOf(a.env || {}), cwd: checkedPath(a.cwd, true), stdin: data,
        onKillable: (id) => killIds.set(f.request_id, id),
      });
      killIds.delete(f.request_id);
      return [{ exit_code: r.exitCode }, { stdout: r.stdout, stderr: r.stderr }];
    }
    case 'stat': return [{ entry: engine.stat(checkedPath(a.path, false)) }];
    case 'list': return [{ entries: engine.list(checkedPath(a.path, true)) }];
    case 'read_file': return [{}, { data: await engine.readFile(checkedPath(a.path, true)) }];
    case 'write_file': {
      const bytes = data || new Uint8Array(0);
      if (a.size !== bytes.length) throw new OpError('malformed_op', `expected ${a.size} bytes, got ${bytes.length}`);
      const p = checkedPath(a.path, true);
      await engine.writeFile(p, bytes);
      return [{ entry: engine.stat(p) }];
    }
    case 'mkdir': engine.mkdir(checkedPath(a.path, true)); return [{}];
    case 'delete': engine.remove(checkedPath(a.path, false), a.recursive === true); return [{}];
    case 'clear': await engine.clearWorkspace(); return [{}];
    case 'destroy': {
      for (const id of killIds.values()) engine.kill(id);
      killIds.clear();
      const ended = state.sandboxId;
      await engine.clearWorkspace();
      await dropMirror(ended);
      state.sandboxId = null;
      saveSession();
      show('sandbox-id', 'none');
      show('mirror-state', '—');
      return [{}];
    }
    default: throw new OpError('malformed_op', 'unknown op');
  }
}

function onOp(f, data) {
  if (f.op === 'kill') {
    const id = killIds.get(f.args.target_request_id);
    if (id) { engine.kill(id); log('op', 'kill'); }
    return;
  }
  const started = performance.now();
  const label = f.op === 'exec' && Array.isArray(f.args.argv) ? `exec ${f.args.argv.join(' ').slice(0, 80)}` : `${f.op} ${String(f.args.path || '').slice(0, 80)}`;
  runOp(f, data).then(([fields, streams]) => {
    relay.reply(f.request_id, fields, streams || {});
    const exit = fields.exit_code !== undefined ? ` → exit ${fields.exit_code}` : '';
    log('op', `${label}${exit} (${Math.round(performance.now() - started)} ms)`);
    if (MUTATING.has(f.op)) scheduleMirror();
  }).catch((e) => {
    const code = e instanceof OpError || (e && /^[a-z_]+$/.test(e.code || '')) ? e.code : 'engine_error';
    relay.fail(f.request_id, code, e.message || String(e));
    log('error', `${label} failed: ${e.message || e}`);
  });
}

// ---- start ----------------------------------------------------------------------------------------------

async function start() {
  try {
    await pair();
  } catch (e) {
    show('vm-state', 'not paired');
    fatal(e.message);
    return;
  }
  show('runtime-id', state.runtimeId);
  show('sandbox-id', state.sandboxId || 'none');
  try {
    await boot();
  } catch (e) {
    show('vm-state', 'failed');
    fatal(`The VM could not start: ${e.message}`);
    return;
  }
  await restoreWorkspace();
  // mirrors of sandboxes whose tab was closed: offered in the hello, the server may move one of them here
  state.mirrors = (await listMirrors()).filter((id) => id !== state.sandboxId);
  state.vm = 'ready';
  show('vm-state', 'ready');
  relay = new Relay({
    token: state.token,
    hello: () => ({ engine: engine.name, vm: state.vm, sandbox_id: state.sandboxId, boot_mode: state.bootMode, boot_ms: state.bootMs, mirrors: state.sandboxId ? [] : state.mirrors }),
    onOp,
    log,
    onState: (s, why) => {
      show('relay-state', s);
      document.body.dataset.relay = s;
      if (why) fatal(why);
      // a refused token never works again: a reload should not retry it
      if (s === 'refused') sessionStorage.removeItem(SESSION);
    },
  });
  relay.start();
}

$('disconnect').addEventListener('click', () => {
  if (relay) relay.stop();
  $('disconnect').hidden = true;
  $('reconnect').hidden = false;
  log('info', 'disconnected by you; sandbox ops fail until you reconnect');
});
$('reconnect').addEventListener('click', () => {
  if (relay) relay.start();
  $('disconnect').hidden = false;
  $('reconnect').hidden = true;
});
start();
