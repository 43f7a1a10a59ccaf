import { api } from './api.js';
import { h, replace, badge, formatBytes, when } from './dom.js';
import { fail, toast } from './ui.js';
import { createFileBrowser } from './files.js';
import { sandboxTabs } from './parts.js';
import { createUsageCharts } from './charts.js';
import { createTerminalPanel } from './terminal.js';

const REFRESH_MS = 5000;

export function renderSandbox(main, id) {
  const title = h('h1', { class: 'mono' }, id);
  const state = h('span', {});
  const actions = h('div', { class: 'actions' });
  const details = h('dl', { class: 'details', id: 'sandbox-details' });
  const files = createFileBrowser(id);
  // a command may have changed the files: show the new state
  const terminal = createCommandBox(id, () => files.refresh());
  const charts = createUsageCharts(id);
  const shell = createTerminalPanel(id);
  let current = null;
  let canSuspend = false;
  let timer = null;
  let stopped = false;

  replace(main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/sandboxes' }, '← Sandboxes')),
    sandboxTabs(id, ''),
    h('section', { class: 'panel' },
      h('div', { class: 'panel-head row' }, h('div', { class: 'title-row' }, title, state), actions),
      details),
    charts.element,
    h('div', { class: 'columns' }, terminal.element, files.element),
    shell.element);

  function show(s) {
    current = s;
    replace(state, badge(s.state));
    const live = s.state === 'running' || s.state === 'suspended';
    replace(actions,
      s.template === 'browser' && live ? h('a', { class: 'btn btn-secondary', id: 'open-live-view', href: `#/sandboxes/${encodeURIComponent(id)}/live` }, 'Live view') : null,
      s.state === 'running' && canSuspend && canSuspend(s.driver) ? button('Suspend', 'suspend', () => api.suspend(id)) : null,
      s.state === 'suspended' ? button('Resume', 'resume', () => api.resume(id)) : null,
      live ? button('Delete', 'delete', () => confirmDelete(), 'btn-danger') : null);
    const rows = [
      ['Driver', s.driver],
      ['Memory', formatBytes(s.limits?.memory_bytes) + (known(s.status?.memory_bytes) ? ` (using ${formatBytes(s.status.memory_bytes)})` : '')],
      ['Processes', `${s.limits?.pids ?? ''}${known(s.status?.pids) ? ` (running ${s.status.pids})` : ''}`],
      ['CPUs', s.limits?.cpus],
      ['Image', s.image || 'host system (read-only)'],
      ['Network', s.network?.type],
      ['Created', when(s.created_at)],
      ['Expires', when(s.expires_at)],
      ['Last activity', when(s.last_activity_at)],
      ['State reason', s.state_reason || '—'],
    ];
    replace(details, rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v === undefined || v === null || v === '' ? '—' : String(v))]));
    terminal.setEnabled(s.state === 'running');
    shell.setEnabled(s.state === 'running');
  }

  function button(label, name, call, extra = 'btn-secondary') {
    return h('button', { class: `btn ${extra}`, type: 'button', id: `action-${name}`, onclick: async (event) => {
      event.currentTarget.disabled = true;
      try {
        const result = await call();
        if (result) show(result);
      } catch (err) {
        fail(err);
      } finally {
        load();
      }
    } }, label);
  }

  async function confirmDelete() {
    if (!window.confirm(`Terminate ${id}? Its processes stop; the workspace stays readable.`)) return null;
    const result = await api.remove(id);
    toast(`${id} terminated`, 'ok');
    return result;
  }

  async function load() {
    clearTimeout(timer);
    try {
      const s = await api.sandbox(id);
      if (!stopped) show(s);
    } catch (err) {
      fail(err);
    } finally {
      if (!stopped && (!current || !['terminated', 'failed'].includes(current.state))) timer = setTimeout(load, REFRESH_MS);
    }
  }

  // offer Suspend only where the sandbox's driver claims it
  api.drivers().then((page) => {
    const loadedDrivers = page?.data || [];
    canSuspend = (d) => loadedDrivers.some((c) => c.driver === d && c.lifecycle?.suspend_resume === 'supported');
    if (current) show(current);
  }).catch(() => {});
  load();
  files.open('/workspace');
  return () => {
    stopped = true;
    clearTimeout(timer);
    charts.stop();
    shell.close();
  };
}

/** Drivers report -1 (or nothing) for figures they cannot measure. */
function known(n) {
  return typeof n === 'number' && n >= 0;
}

/** Shown per stream; longer output is cut (the CLI and the API have all of it). */
const MAX_SHOWN = 1024 * 1024;

function createCommandBox(id, onDone) {
  const input = h('input', { id: 'command', name: 'command', class: 'mono', autocomplete: 'off', spellcheck: 'false',
    placeholder: 'echo hello > greeting.txt && ls -la' });
  const run = h('button', { id: 'run-command', class: 'btn btn-primary', type: 'submit' }, 'Run');
  const stop = h('button', { id: 'stop-command', class: 'btn btn-secondary', type: 'button', hidden: true,
    onclick: () => running?.abort() }, 'Stop');
  const status = h('div', { class: 'exec-status', id: 'exec-status' });
  const stdout = h('pre', { class: 'output', id: 'exec-stdout' });
  const stderr = h('pre', { class: 'output output-err', id: 'exec-stderr', hidden: true });
  const form = h('form', { class: 'command-form', onsubmit: submit }, h('span', { class: 'prompt mono' }, '$'), input, run, stop);
  let running = null;

  /** Appends streamed bytes to one output box, decoding UTF-8 across chunk boundaries. */
  function sink(box) {
    const decoder = new TextDecoder('utf-8');
    let shown = 0;
    let cut = false;
    return {
      write(bytes) {
        if (cut) return;
        const text = decoder.decode(bytes, { stream: true });
        if (shown + text.length > MAX_SHOWN) {
          box.append(text.slice(0, MAX_SHOWN - shown), '\n… (output cut here in the console)');
          cut = true;
        } else {
          box.append(text);
        }
        shown += text.length;
        box.hidden = false;
        box.scrollTop = box.scrollHeight;
      },
      end() { if (!cut) box.append(decoder.decode()); },
    };
  }

  async function submit(event) {
    event.preventDefault();
    const command = input.value.trim();
    if (!command || running) return;
    run.disabled = true;
    stop.hidden = false;
    running = new AbortController();
    stdout.textContent = '';
    stderr.textContent = '';
    stdout.hidden = false;
    stderr.hidden = true;
    replace(status, h('span', { class: 'muted', id: 'exec-running' }, 'Running…'));
    const out = { stdout: sink(stdout), stderr: sink(stderr) };
    try {
      const r = await api.execStream(id, command, 120, (stream, bytes) => out[stream].write(bytes), running.signal);
      out.stdout.end();
      out.stderr.end();
      const ok = r.exit_code === 0 && !r.timed_out;
      const label = r.timed_out ? 'timed out' : r.signal ? `killed by signal ${r.signal}` : `exit ${r.exit_code}`;
      replace(status, h('span', { class: `badge ${ok ? 'badge-running' : 'badge-failed'}`, id: 'exec-exit' }, label),
        h('span', { class: 'muted' }, ` ${r.duration_ms} ms`),
        r.oom_killed ? h('span', { class: 'badge badge-failed' }, 'out of memory') : null);
      stdout.hidden = !stdout.textContent;
      onDone();
    } catch (err) {
      if (err.code === 'aborted') {
        replace(status, h('span', { class: 'badge badge-failed', id: 'exec-exit' }, 'stopped'));
      } else {
        replace(status);
        fail(err);
      }
    } finally {
      running = null;
      run.disabled = false;
      stop.hidden = true;
    }
  }

  const element = h('section', { class: 'panel' },
    h('div', { class: 'panel-head' }, h('h2', {}, 'Run a command'), h('p', { class: 'muted small' }, 'Runs with /bin/sh -c in /workspace; output appears as it is written.')),
    form, status, stdout, stderr);
  return {
    element,
    setEnabled(enabled) {
      input.disabled = !enabled;
      run.disabled = !enabled || Boolean(running);
      input.placeholder = enabled ? 'echo hello > greeting.txt && ls -la' : 'the sandbox is not running';
    },
  };
}
