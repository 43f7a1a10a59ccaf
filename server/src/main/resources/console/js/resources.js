// The API calls of the console's agent, network, checkpoint, process, usage and key pages, and one way to follow
// a Server-Sent Events stream with the key header (EventSource cannot send it).
import { ApiError, json, request, readEvents, toError, session } from './api.js';

const enc = encodeURIComponent;
const sbx = (id) => `/v1/sandboxes/${enc(id)}`;
const ses = (id) => `/v1/sessions/${enc(id)}`;

/** Every page of a Managed Agents list (cursor `page` / `next_page`), up to {@code max} items. */
async function allPages(path, query = {}, max = 1000) {
  const out = [];
  let page;
  do {
    const answer = await json('GET', path, { query: { ...query, limit: 100, page } });
    out.push(...(answer?.data || []));
    page = answer?.next_page || undefined;
  } while (page && out.length < max);
  return out;
}

export const resources = {
  agents: () => allPages('/v1/agents', {}, 200),
  environments: () => allPages('/v1/environments', {}, 200),
  sessions: () => allPages('/v1/sessions', {}, 200),
  session: (id) => json('GET', ses(id)),
  sessionEvents: (id) => allPages(`${ses(id)}/events`, {}, 100000),
  sendMessage: (id, text) => json('POST', `${ses(id)}/events`, { json: { events: [{ type: 'user.message', content: [{ type: 'text', text }] }] } }),
  interrupt: (id) => json('POST', `${ses(id)}/events`, { json: { events: [{ type: 'user.interrupt' }] } }),

  egress: (id, afterId) => json('GET', `${sbx(id)}/egress`, { query: { limit: 1000, after_id: afterId } }),
  secrets: () => json('GET', '/v1/secrets'),
  createSecret: (name, value) => json('POST', '/v1/secrets', { json: { name, value } }),
  deleteSecret: (id) => json('DELETE', `/v1/secrets/${enc(id)}`),

  checkpoints: (id) => json('GET', `${sbx(id)}/checkpoints`, { query: { limit: 100 } }),
  createCheckpoint: (id, type) => json('POST', `${sbx(id)}/checkpoints`, { json: { type } }),
  restoreCheckpoint: (id, cp) => json('POST', `${sbx(id)}/checkpoints/${enc(cp)}/restore`),
  deleteCheckpoint: (id, cp) => json('DELETE', `${sbx(id)}/checkpoints/${enc(cp)}`),

  processes: (id) => json('GET', `${sbx(id)}/processes`),
  startProcess: (id, command) => json('POST', `${sbx(id)}/processes`, { json: { command } }),
  processLogs: async (id, pid, offset) => {
    const res = await request('GET', `${sbx(id)}/processes/${enc(pid)}/logs`, { query: { offset, limit: 65536 }, accept: '*/*' });
    return new Uint8Array(await res.arrayBuffer());
  },
  signalProcess: (id, pid, signal) => json('POST', `${sbx(id)}/processes/${enc(pid)}/signal`, { json: { signal } }),

  usage: () => json('GET', '/v1/usage'),
  keys: () => json('GET', '/v1/api_keys'),
  createKey: (name, admin, tenantId) => json('POST', '/v1/api_keys', { json: { name, admin, tenant_id: tenantId } }),
  revokeKey: (id) => json('DELETE', `/v1/api_keys/${enc(id)}`),
};

/**
 * Follows a GET stream of Server-Sent Events: {@code onEvent({type, id, data})} gets each event with its data parsed.
 * {@code onOpen()} is called once the server accepted the stream. Settles when the server ends it or
 * {@code signal} aborts it (then quietly).
 */
export async function follow(path, query, onEvent, signal, onOpen = () => {}) {
  const headers = { Accept: 'text/event-stream' };
  const apiKey = session.key();
  if (apiKey) headers['x-api-key'] = apiKey;
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null) url.searchParams.set(k, v);
  let res;
  try {
    res = await fetch(url, { headers, credentials: 'omit', cache: 'no-store', signal });
  } catch (e) {
    if (e.name === 'AbortError') return;
    throw new ApiError(0, 'unreachable', 'Cannot reach the Paddock server. Is it still running?');
  }
  if (!res.ok) throw await toError(res);
  await onOpen();
  try {
    await readEvents(res, (event) => {
      let data = null;
      try { data = JSON.parse(event.data); } catch (e) { data = null; }
      return onEvent({ type: event.type, data }) === false ? true : undefined;
    });
  } catch (e) {
    if (e.name !== 'AbortError') throw e;
  }
}
