// One agent session: its event timeline, filled from the event list and then followed live over the event stream
// (GET /v1/sessions/{id}/events/stream, resumed after the last event seen, with previews of the agent's text as the
// model writes it), its usage, and a box to send a message or interrupt the turn.
import { h, replace, when } from './dom.js';
import { fail, toast } from './ui.js';
import { resources, follow } from './resources.js';
import { createTimeline } from './timeline.js';
import { sessionBadge } from './sessions.js';

const RECONNECT_MS = 2000;

export function renderSession(main, id) {
  const status = h('span', { id: 'session-status' });
  const streamState = h('span', { id: 'stream-state', class: 'muted small' }, 'connecting…');
  const details = h('dl', { class: 'details', id: 'session-details' });
  const usage = h('dl', { class: 'details', id: 'session-usage' });
  const list = h('ol', { class: 'timeline', id: 'timeline' });
  const scroller = h('div', { class: 'timeline-wrap' }, list);
  const empty = h('p', { class: 'muted', id: 'timeline-empty' }, 'No events yet.');
  const message = h('textarea', { id: 'session-message', rows: 3, placeholder: 'Message the agent…', spellcheck: 'true' });
  const send = h('button', { id: 'send-message', class: 'btn btn-primary', type: 'submit' }, 'Send');
  const interrupt = h('button', { id: 'interrupt-session', class: 'btn btn-danger', type: 'button', onclick: () => interruptTurn() }, 'Interrupt');
  const composer = h('form', { class: 'composer', onsubmit: (e) => sendMessage(e) }, message, h('div', { class: 'actions' }, interrupt, send));
  // Ctrl+Enter (or Cmd+Enter) sends; Enter alone makes a new line
  message.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) composer.requestSubmit(); });
  const timeline = createTimeline();
  const seen = new Set();
  const previews = new Map();
  let current = null;
  let lastId = null;
  let stopped = false;
  let controller = null;

  replace(main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/sessions' }, '← Sessions')),
    h('section', { class: 'panel' },
      h('div', { class: 'panel-head row' }, h('div', { class: 'title-row' }, h('h1', { class: 'mono' }, id), status), streamState),
      details,
      h('h2', { class: 'sub' }, 'Usage'), usage),
    h('section', { class: 'panel' },
      h('div', { class: 'panel-head' }, h('h2', {}, 'Events')),
      empty, scroller, composer));

  function showSession(s) {
    current = s;
    replace(status, sessionBadge(s.status));
    const sandbox = s.paddock_sandbox_id;
    const rows = [
      ['Agent', `${s.agent?.name || s.agent?.id || '—'}${s.agent?.version ? ` (version ${s.agent.version})` : ''}`],
      ['Environment', s.environment_id],
      ['Sandbox', sandbox ? h('a', { class: 'mono', href: `#/sandboxes/${encodeURIComponent(sandbox)}`, id: 'session-sandbox' }, sandbox) : 'none yet (made on the first tool call)'],
      ['Title', s.title || '—'],
      ['Created', when(s.created_at)],
      ['Updated', when(s.updated_at)],
    ];
    replace(details, rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));
    showUsage(s.usage, s.stats);
    const ended = s.status === 'terminated';
    message.disabled = ended;
    send.disabled = ended;
    interrupt.disabled = s.status !== 'running';
    if (ended) message.placeholder = 'The session has terminated.';
  }

  function showUsage(u, stats) {
    if (!u) return;
    const cacheWrite = (u.cache_creation?.ephemeral_5m_input_tokens ?? 0) + (u.cache_creation?.ephemeral_1h_input_tokens ?? 0);
    const cost = u.list_cost?.amount !== undefined ? `$${(Number(u.list_cost.amount) / 100).toFixed(2)} (list price)` : 'unknown';
    const rows = [
      ['Input tokens', u.input_tokens ?? 0], ['Output tokens', u.output_tokens ?? 0],
      ['Cache reads', u.cache_read_input_tokens ?? 0], ['Cache writes', cacheWrite],
      ['Active', `${Number(stats?.active_seconds ?? u.active_seconds ?? 0).toFixed(1)} s`], ['Cost', cost],
    ];
    replace(usage, rows.map(([k, v]) => [h('dt', {}, k), h('dd', { dataset: { usage: k } }, String(v))]));
  }

  function atBottom() {
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
  }

  function add(node) {
    const stick = atBottom();
    list.append(node);
    empty.hidden = true;
    if (stick) scroller.scrollTop = scroller.scrollHeight;
  }

  function onEvent(event) {
    if (!event || !event.type) return;
    if (event.type === 'event_start') {
      const e = event.event || {};
      if (e.type !== 'agent.message' || !e.id || seen.has(e.id)) return;
      const text = h('pre', { class: 'block msg' });
      const node = h('li', { class: 'ev ev-agent ev-preview', dataset: { type: 'preview', id: e.id } },
        h('div', { class: 'ev-meta' }, h('span', { class: 'ev-time muted small' }, 'now'), h('span', { class: 'ev-label' }, 'Agent (writing…)')),
        h('div', { class: 'ev-body' }, text));
      previews.set(e.id, { node, text });
      add(node);
      return;
    }
    if (event.type === 'event_delta') {
      const preview = previews.get(event.event_id);
      const piece = event.delta?.content?.text;
      if (preview && typeof piece === 'string') {
        const stick = atBottom();
        preview.text.append(piece);
        if (stick) scroller.scrollTop = scroller.scrollHeight;
      }
      return;
    }
    if (!event.id || seen.has(event.id)) return;
    seen.add(event.id);
    lastId = event.id;
    const node = timeline.render(event);
    const preview = previews.get(event.id);
    if (preview) {
      preview.node.replaceWith(node);
      previews.delete(event.id);
    } else {
      add(node);
    }
    if (event.type === 'span.model_request_end' && event.is_error) dropPreviews();
    if (event.type === 'session.usage' && event.usage) showUsage(event.usage, null);
    if (event.type.startsWith('session.status_') || event.type === 'session.updated') refreshSession();
  }

  /** A request that ended without its message leaves its previews unfinished: they go. */
  function dropPreviews() {
    for (const { node } of previews.values()) node.remove();
    previews.clear();
  }

  async function refreshSession() {
    try {
      const s = await resources.session(id);
      if (!stopped) showSession(s);
    } catch (err) {
      if (!stopped) fail(err);
    }
  }

  async function load() {
    try {
      showSession(await resources.session(id));
      const events = await resources.sessionEvents(id);
      if (stopped) return;
      events.forEach(onEvent);
      scroller.scrollTop = scroller.scrollHeight;
    } catch (err) {
      fail(err);
      streamState.textContent = 'not connected';
      return;
    }
    followLive();
  }

  /** Follows the stream from the last event seen; reconnects after a drop until the page closes. */
  async function followLive() {
    while (!stopped) {
      controller = new AbortController();
      const resumeFrom = lastId;
      try {
        await follow(`/v1/sessions/${encodeURIComponent(id)}/events/stream`, { after_id: resumeFrom, event_deltas: 'agent.message' },
          (e) => { if (!stopped) onEvent({ ...(e.data || {}), type: e.data?.type || e.type }); }, controller.signal,
          async () => {
            streamState.textContent = '● live';
            streamState.className = 'live-dot small';
            // opened without a cursor: what was written before the stream opened is in the list, not the stream
            if (!resumeFrom) (await resources.sessionEvents(id)).forEach(onEvent);
          });
      } catch (err) {
        if (stopped) return;
        if (err.status === 401 || err.status === 404) return fail(err);
      }
      if (stopped) return;
      streamState.textContent = 'reconnecting…';
      streamState.className = 'muted small';
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  }

  async function sendMessage(event) {
    event.preventDefault();
    const text = message.value.trim();
    if (!text) return;
    send.disabled = true;
    try {
      await resources.sendMessage(id, text);
      message.value = '';
    } catch (err) {
      fail(err);
    } finally {
      send.disabled = current?.status === 'terminated';
    }
  }

  async function interruptTurn() {
    interrupt.disabled = true;
    try {
      await resources.interrupt(id);
      toast('Interrupt sent', 'ok');
    } catch (err) {
      fail(err);
      interrupt.disabled = false;
    }
  }

  load();
  return () => {
    stopped = true;
    if (controller) controller.abort();
  };
}
