// The Paddock REST API as the console uses it. The key lives in sessionStorage (gone when the tab closes) and
// travels only in the x-api-key header, never in a URL.

const KEY = 'paddock.apiKey';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const session = {
  key: () => sessionStorage.getItem(KEY),
  signIn: (key) => sessionStorage.setItem(KEY, key),
  signOut: () => sessionStorage.removeItem(KEY),
};

export async function request(method, path, { query, json, body, accept = 'application/json', key } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null) url.searchParams.set(k, v);
  const headers = { Accept: accept };
  const apiKey = key ?? session.key();
  if (apiKey) headers['x-api-key'] = apiKey;
  let payload = body;
  if (json !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(json);
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/octet-stream';
  }
  let res;
  try {
    res = await fetch(url, { method, headers, body: payload, credentials: 'omit', cache: 'no-store' });
  } catch (e) {
    throw new ApiError(0, 'unreachable', 'Cannot reach the Paddock server. Is it still running?');
  }
  if (!res.ok) throw await toError(res);
  return res;
}

export async function toError(res) {
  try {
    const data = await res.json();
    if (data && data.error) return new ApiError(res.status, data.error.code || data.error.type, data.error.message || `HTTP ${res.status}`);
  } catch (e) { /* not our error shape */ }
  return new ApiError(res.status, `http_${res.status}`, `The server answered HTTP ${res.status}.`);
}

export async function json(method, path, opts) {
  const res = await request(method, path, opts);
  if (res.status === 204) return null;
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

const enc = encodeURIComponent;
const sbx = (id) => `/v1/sandboxes/${enc(id)}`;

export const api = {
  health: () => json('GET', '/v1/health'),
  checkKey: (key) => json('GET', '/v1/sandboxes', { query: { limit: 1 }, key }),
  sandboxes: () => json('GET', '/v1/sandboxes', { query: { limit: 200 } }),
  sandbox: (id) => json('GET', sbx(id)),
  create: (body) => json('POST', '/v1/sandboxes', { json: body }),
  remove: (id) => json('DELETE', sbx(id)),
  suspend: (id) => json('POST', `${sbx(id)}/suspend`),
  resume: (id) => json('POST', `${sbx(id)}/resume`),
  exec: (id, command, timeoutSeconds) => json('POST', `${sbx(id)}/exec`, { json: { command, timeout_seconds: timeoutSeconds } }),
  list: (id, path) => json('GET', `${sbx(id)}/files/list`, { query: { path } }),
  read: (id, path) => request('GET', `${sbx(id)}/files/content`, { query: { path }, accept: '*/*' }),
  write: (id, path, blob) => json('PUT', `${sbx(id)}/files/content`, { query: { path }, body: blob }),
  mkdir: (id, path) => json('POST', `${sbx(id)}/files/mkdir`, { query: { path } }),
  removeFile: (id, path, recursive) => json('DELETE', `${sbx(id)}/files`, { query: { path, recursive } }),
  execStream: (id, command, timeoutSeconds, onOutput, signal) => execStream(id, command, timeoutSeconds, onOutput, signal),
  browserAction: (id, action) => json('POST', `${sbx(id)}/browser/actions`, { json: action }),
  screencast: (id, quality, onEvent, signal) => screencast(id, quality, onEvent, signal),
  drivers: () => json('GET', '/v1/drivers'),
  runtimes: () => json('GET', '/v1/runtimes'),
  pairRuntime: () => json('POST', '/v1/runtimes/pairing_codes', { json: { kind: 'browser-vm' } }),
};

/**
 * Runs a command with its output streamed as Server-Sent Events (fetch + ReadableStream: EventSource cannot send
 * a POST body or the key header). {@code onOutput(stream, bytes)} gets each chunk of stdout or stderr as it
 * arrives; the promise answers the exit object. Aborting {@code signal} disconnects, which kills the command.
 */
async function execStream(id, command, timeoutSeconds, onOutput, signal) {
  const headers = { Accept: 'text/event-stream', 'Content-Type': 'application/json' };
  const apiKey = session.key();
  if (apiKey) headers['x-api-key'] = apiKey;
  let res;
  try {
    res = await fetch(new URL(`${sbx(id)}/exec`, window.location.origin), {
      method: 'POST', headers, body: JSON.stringify({ command, timeout_seconds: timeoutSeconds }),
      credentials: 'omit', cache: 'no-store', signal,
    });
  } catch (e) {
    if (e.name === 'AbortError') throw new ApiError(0, 'aborted', 'Stopped: the command was killed.');
    throw new ApiError(0, 'unreachable', 'Cannot reach the Paddock server. Is it still running?');
  }
  if (!res.ok) throw await toError(res);
  let exit;
  try {
    exit = await readEvents(res, (event) => {
      if (event.type === 'stdout' || event.type === 'stderr') {
        onOutput(event.type, base64Bytes(JSON.parse(event.data).data_base64 || ''));
      } else if (event.type === 'exit') {
        return JSON.parse(event.data);
      } else if (event.type === 'error') {
        const err = JSON.parse(event.data).error || {};
        throw new ApiError(500, err.code || err.type, err.message || 'The command failed on the server.');
      }
      return undefined;
    });
  } catch (e) {
    if (e.name === 'AbortError') throw new ApiError(0, 'aborted', 'Stopped: the command was killed.');
    throw e;
  }
  if (exit !== undefined) return exit;
  throw new ApiError(0, 'stream_ended', 'The server ended the output stream before the command finished.');
}

/**
 * Follows a browser sandbox's live view (Server-Sent Events over fetch). {@code onEvent(type, data)} gets each
 * frame/page/error event's parsed data; the promise settles when the server ends the cast (after its length) or
 * {@code signal} aborts it.
 */
async function screencast(id, quality, onEvent, signal) {
  const headers = { Accept: 'text/event-stream' };
  const apiKey = session.key();
  if (apiKey) headers['x-api-key'] = apiKey;
  const url = new URL(`${sbx(id)}/browser/screencast`, window.location.origin);
  url.searchParams.set('quality', String(quality));
  let res;
  try {
    res = await fetch(url, { headers, credentials: 'omit', cache: 'no-store', signal });
  } catch (e) {
    if (e.name === 'AbortError') return;
    throw new ApiError(0, 'unreachable', 'Cannot reach the Paddock server. Is it still running?');
  }
  if (!res.ok) throw await toError(res);
  try {
    await readEvents(res, (event) => {
      if (event.type === 'end') return true;
      onEvent(event.type, JSON.parse(event.data));
      return undefined;
    });
  } catch (e) {
    if (e.name !== 'AbortError') throw e;
  }
}

/**
 * Reads a Server-Sent Events response, handing each event ({type, data}) to {@code onEvent} until it returns
 * something other than undefined (then answered) or the stream ends (then undefined).
 */
export async function readEvents(res, onEvent) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return undefined;
      buffer += value.replace(/\r\n/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (!event) continue;
        const answer = onEvent(event);
        if (answer !== undefined) return answer;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** One SSE block: its event name and joined data lines; comments (keepalives) give null. */
function parseEvent(block) {
  let type = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
  }
  return data.length ? { type, data: data.join('\n') } : null;
}

export function base64Bytes(b64) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}
