// A sandbox's background processes: start one, see which run, follow one's log as it grows (read by offset every
// second: the API serves logs as byte ranges), and send it a signal.
import { h, replace, when } from './dom.js';
import { fail, toast } from './ui.js';
import { resources } from './resources.js';
import { sandboxHead, table } from './parts.js';

const LIST_MS = 2000;
const LOG_MS = 1000;
/** Characters of a log kept in the page; the API has all of it. */
const MAX_SHOWN = 1024 * 1024;
const SIGNALS = ['TERM', 'INT', 'HUP', 'KILL', 'STOP', 'CONT', 'USR1', 'USR2', 'QUIT'];

export function renderProcesses(main, id) {
  const rows = h('tbody', {});
  const empty = h('p', { class: 'muted', hidden: true, id: 'processes-empty' }, 'No background processes.');
  const command = h('input', { id: 'process-command', class: 'mono', autocomplete: 'off', spellcheck: 'false', placeholder: 'python3 -m http.server 8000' });
  const start = h('button', { id: 'start-process', class: 'btn btn-primary', type: 'submit' }, 'Start');
  const logTitle = h('h2', { id: 'log-title' }, 'Log');
  const log = h('pre', { class: 'output', id: 'process-log' });
  const logNote = h('p', { class: 'muted small', id: 'log-note' }, 'Pick a process to follow its output.');
  const signal = h('select', { id: 'signal-name' }, SIGNALS.map((s) => h('option', { value: s }, `SIG${s}`)));
  const send = h('button', { id: 'send-signal', class: 'btn btn-secondary', type: 'button', disabled: true, onclick: () => sendSignal() }, 'Send signal');
  let stopped = false;
  let listTimer = null;
  let logTimer = null;
  let followed = null; // {pid, offset, decoder, shown}
  let processes = [];

  replace(main, ...sandboxHead(id, 'processes', 'Processes', 'Commands that run in the background; their output is kept and can be read while they run and after.'),
    h('section', { class: 'panel' },
      h('form', { class: 'command-form', onsubmit: startProcess }, h('span', { class: 'prompt mono' }, '$'), command, start),
      table('processes-table', ['PID', 'Command', 'Started', 'State', ''], rows), empty),
    h('section', { class: 'panel' },
      h('div', { class: 'panel-head row' }, logTitle, h('div', { class: 'actions' }, signal, send)),
      logNote, log));

  async function refreshList() {
    clearTimeout(listTimer);
    try {
      processes = (await resources.processes(id))?.data || [];
      if (stopped) return;
      replace(rows, processes.map((p) => h('tr', { class: `clickable${followed?.pid === p.pid ? ' selected' : ''}`, dataset: { pid: p.pid }, onclick: () => followLog(p.pid) },
        h('td', { class: 'mono' }, p.pid),
        h('td', { class: 'mono small wrap' }, (p.argv || []).join(' ')),
        h('td', { class: 'small' }, when(p.started_at)),
        h('td', {}, p.running ? h('span', { class: 'badge badge-running' }, 'running') : h('span', { class: 'badge badge-terminated' }, exitLabel(p.exit_code))),
        h('td', { class: 'num' }, h('button', { class: 'btn btn-small btn-secondary', type: 'button', dataset: { follow: p.pid } }, 'Follow log')))));
      empty.hidden = processes.length > 0;
      if (followed) send.disabled = !processes.find((p) => p.pid === followed.pid)?.running;
    } catch (err) {
      fail(err);
      // a sandbox that ended (or is gone) has no processes to follow: stop asking
      if (err.status >= 400 && err.status < 500) return;
    }
    if (!stopped) listTimer = setTimeout(refreshList, LIST_MS);
  }

  async function startProcess(event) {
    event.preventDefault();
    const line = command.value.trim();
    if (!line) return;
    start.disabled = true;
    try {
      const p = await resources.startProcess(id, line);
      command.value = '';
      await refreshList();
      followLog(p.pid);
    } catch (err) {
      fail(err);
    } finally {
      start.disabled = false;
    }
  }

  function followLog(pid) {
    clearTimeout(logTimer);
    followed = { pid, offset: 0, decoder: new TextDecoder('utf-8'), shown: 0 };
    log.textContent = '';
    logTitle.textContent = `Log of ${pid}`;
    logNote.textContent = 'Following…';
    for (const tr of rows.children) tr.classList.toggle('selected', tr.dataset.pid === String(pid));
    readLog(followed);
  }

  async function readLog(f) {
    if (stopped || followed !== f) return;
    try {
      for (;;) {
        const bytes = await resources.processLogs(id, f.pid, f.offset);
        if (followed !== f) return;
        if (bytes.length === 0) break;
        f.offset += bytes.length;
        const text = f.decoder.decode(bytes, { stream: true });
        if (f.shown < MAX_SHOWN) {
          const stick = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
          log.append(text.slice(0, MAX_SHOWN - f.shown));
          if (f.shown + text.length > MAX_SHOWN) log.append('\n… (the rest is cut here in the console)');
          if (stick) log.scrollTop = log.scrollHeight;
        }
        f.shown += text.length;
        if (bytes.length < 65536) break;
      }
      const p = processes.find((x) => x.pid === f.pid);
      const running = !p || p.running;
      logNote.textContent = running ? 'Following: new output appears as it is written.' : `Ended: ${exitLabel(p.exit_code)}; this is the whole log.`;
      send.disabled = !running;
      // one more read after the list said it exited: output written just before the end is not left out
      if (!running && processes.length) {
        if (f.drained) return;
        f.drained = true;
        return readLog(f);
      }
    } catch (err) {
      fail(err);
      return;
    }
    logTimer = setTimeout(() => readLog(f), LOG_MS);
  }

  async function sendSignal() {
    if (!followed) return;
    send.disabled = true;
    try {
      await resources.signalProcess(id, followed.pid, signal.value);
      toast(`Sent SIG${signal.value} to ${followed.pid}`, 'ok');
    } catch (err) {
      fail(err);
    } finally {
      send.disabled = false;
      refreshList();
    }
  }

  refreshList();
  return () => {
    stopped = true;
    clearTimeout(listTimer);
    clearTimeout(logTimer);
  };
}

/** A shell reports death by signal N as 128 + N. */
function exitLabel(code) {
  if (code === null || code === undefined) return 'exited';
  return code > 128 && code <= 192 ? `exit ${code} (signal ${code - 128})` : `exit ${code}`;
}
