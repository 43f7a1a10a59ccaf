// One session event as a timeline entry. Whatever the model or a tool wrote goes in as text (through h() and
// fold()), never as markup, and nothing in it becomes a link.
import { h } from './dom.js';
import { fold, jsonText, time } from './parts.js';

const TOOL_USES = new Set(['agent.tool_use', 'agent.mcp_tool_use', 'agent.custom_tool_use']);
const TOOL_RESULTS = new Set(['agent.tool_result', 'agent.mcp_tool_result', 'user.tool_result', 'user.custom_tool_result']);

/** The text of content blocks; blocks that are not text are named, not shown. */
export function contentText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (b && b.type === 'text' ? String(b.text ?? '') : `[${b?.type || 'block'}]`)).join('\n');
}

/** Builds timeline entries; remembers tool calls so a result can name the tool it answers. */
export function createTimeline() {
  const toolNames = new Map();

  function entry(event, kind, label, ...body) {
    return h('li', { class: `ev ev-${kind}`, dataset: { type: event.type, id: event.id || '' } },
      h('div', { class: 'ev-meta' }, h('span', { class: 'ev-time muted small' }, time(event.processed_at)), h('span', { class: 'ev-label' }, label)),
      h('div', { class: 'ev-body' }, body));
  }

  function render(event) {
    const type = String(event.type || 'unknown');
    if (type === 'user.message') return entry(event, 'user', 'User', fold(contentText(event.content), { cls: 'msg' }));
    if (type === 'agent.message') return entry(event, 'agent', 'Agent', fold(contentText(event.content), { cls: 'msg' }));
    if (type === 'agent.thinking') return entry(event, 'quiet', 'Thinking', fold(contentText(event.content)));
    if (TOOL_USES.has(type)) {
      toolNames.set(event.id, event.name);
      const input = event.input || {};
      const command = typeof input.command === 'string' ? input.command : null;
      return entry(event, 'tool', `Tool call · ${event.name || '?'}`,
        command !== null ? fold(command, { cls: 'cmd' }) : null,
        command !== null && Object.keys(input).length === 1 ? null : fold(jsonText(input)));
    }
    if (TOOL_RESULTS.has(type)) {
      const callId = event.tool_use_id || event.custom_tool_use_id || event.mcp_tool_use_id;
      const name = toolNames.get(callId) || callId || 'tool';
      const failed = event.is_error === true;
      return entry(event, failed ? 'tool-error' : 'tool-result', `${failed ? 'Tool error' : 'Tool output'} · ${name}`,
        fold(contentText(event.content), { cls: failed ? 'out-err' : 'out' }));
    }
    if (type === 'session.error') {
      const e = event.error || {};
      const retry = e.retry_status?.type ? ` (${e.retry_status.type})` : '';
      return entry(event, 'error', `Error · ${e.type || 'unknown'}${retry}`, fold(e.message || jsonText(e), { cls: 'out-err' }));
    }
    if (type === 'user.interrupt') return entry(event, 'interrupt', 'Interrupted by the user');
    if (type === 'user.tool_confirmation') return entry(event, 'user', `Tool confirmation · ${event.result || ''}`, event.deny_message ? fold(event.deny_message) : null);
    if (type.startsWith('session.status_')) {
      const status = type.slice('session.status_'.length);
      const reason = event.stop_reason?.type ? ` · ${event.stop_reason.type}` : '';
      const details = event.stop_details ? fold(jsonText(event.stop_details)) : null;
      return entry(event, 'status', `Status: ${status}${reason}`, details);
    }
    if (type === 'span.model_request_start') return entry(event, 'quiet', 'Model request');
    if (type === 'span.model_request_end') {
      const u = event.model_usage || {};
      const tokens = u.input_tokens !== undefined ? ` · ${u.input_tokens} in / ${u.output_tokens} out` : '';
      return entry(event, event.is_error ? 'error' : 'quiet', event.is_error ? 'Model request ended without an answer' : `Model answered${tokens}`);
    }
    return entry(event, 'other', type, fold(jsonText(event)));
  }

  return { render };
}
