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

async function request(method, path, { query, json, body, accept = 'application/json', key } = {}) {
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

async function toError(res) {
  try {
    const data = await res.json();
    if (data && data.error) return new ApiError(res.status, data.error.code || data.error.type, data.error.message || `HTTP ${res.status}`);
  } catch (e) { /* not our error shape */ }
  return new ApiError(res.status, `http_${res.status}`, `The server answered HTTP ${res.status}.`);
}

async function json(method, path, opts) {
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
  drivers: () => json('GET', '/v1/drivers'),
};
