// The tab's end of the runtime relay: one WebSocket to Paddock, versioned JSON frames validated strictly (the
// server is trusted less than nothing here too: a bad frame is logged and answered, never executed), heartbeats
// every heartbeat_seconds, and reconnects with backoff that keep the runtime identity (same token).

export const VERSION = 1;
const OPS = new Set(['bind', 'exec', 'kill', 'stat', 'list', 'read_file', 'write_file', 'mkdir', 'delete', 'clear', 'destroy']);
const REQUEST_ID = /^req_[0-9a-z]{26}$/;
const SANDBOX_ID = /^sbx_[0-9a-z]{26}$/;
const MAX_PENDING_BYTES = 80 * 1024 * 1024;

export function validateServerFrame(f) {
  if (!f || typeof f !== 'object' || Array.isArray(f)) return 'frame must be an object';
  if (f.v !== VERSION) return `unsupported frame version ${String(f.v).slice(0, 10)}`;
  switch (f.type) {
    case 'welcome': return typeof f.runtime_id === 'string' && Number.isInteger(f.heartbeat_seconds) ? null : 'bad welcome';
    case 'heartbeat': return null;
    case 'error': return typeof f.code === 'string' && typeof f.message === 'string' ? null : 'bad error frame';
    case 'sandbox.op.chunk':
      return REQUEST_ID.test(f.request_id) && Number.isInteger(f.seq) && f.seq >= 0 && typeof f.data === 'string' ? null : 'bad op chunk';
    case 'sandbox.op':
      if (!REQUEST_ID.test(f.request_id)) return 'bad request_id';
      if (!SANDBOX_ID.test(f.sandbox_id)) return 'bad sandbox_id';
      if (!OPS.has(f.op)) return `unknown op ${String(f.op).slice(0, 20)}`;
      if (!f.args || typeof f.args !== 'object' || Array.isArray(f.args)) return 'args must be an object';
      if (!Number.isInteger(f.timeout_seconds) || f.timeout_seconds < 1) return 'bad timeout_seconds';
      return null;
    default: return `unknown frame type ${String(f.type).slice(0, 30)}`;
  }
}

export function b64encode(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export function b64decode(text) {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

export class Relay {
  constructor({ token, hello, onOp, onState, log }) {
    this.token = token;
    this.hello = hello;
    this.onOp = onOp;
    this.onState = onState;
    this.log = log;
    this.socket = null;
    this.stopped = false;
    this.backoff = 500;
    this.heartbeat = null;
    this.chunks = new Map();
    this.pendingBytes = 0;
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  connect() {
    const url = new URL('/v1/runtimes/relay', window.location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('token', this.token);
    this.onState('connecting');
    const ws = new WebSocket(url);
    this.socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.backoff = 500;
      this.onState('online');
      this.send({ type: 'hello', ...this.hello() });
    };
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = (event) => {
      clearInterval(this.heartbeat);
      this.chunks.clear();
      this.pendingBytes = 0;
      if (this.socket !== ws) return;
      if (this.stopped) { this.onState('disconnected'); return; }
      if (event.code === 4401 || event.code === 4403) { this.refuse(); return; }
      if (event.code === 4410) {
        this.onState('refused', 'The sandbox of this tab moved to another sandbox tab of this browser; close this one.');
        return;
      }
      if (!opened) {
        // a refused upgrade (HTTP 401: the server restarted or revoked this runtime) reaches a page only as an
        // unexplained close: ask the server whether it still knows the token before trying again
        this.tokenKnown().then((known) => {
          if (this.socket !== ws || this.stopped) return;
          if (known === false) this.refuse(); else this.retry();
        });
        return;
      }
      this.retry();
    };
  }

  retry() {
    this.onState('reconnecting');
    setTimeout(() => { if (!this.stopped) this.connect(); }, this.backoff);
    this.backoff = Math.min(this.backoff * 2, 10000);
  }

  refuse() {
    this.stopped = true;
    this.onState('refused', 'Paddock no longer knows this sandbox tab: the server restarted, or the runtime was revoked. '
      + 'Open a new sandbox tab from the Paddock console (Runtimes, Browser VM, Open sandbox tab); this tab cannot reconnect.');
  }

  // true or false when the server answered; null when it could not be reached (then keep retrying)
  async tokenKnown() {
    try {
      const res = await fetch('/v1/runtimes/self', {
        method: 'GET', credentials: 'omit', cache: 'no-store',
        headers: { Authorization: `Bearer ${this.token}`, Accept: 'application/json' },
      });
      if (res.status === 401) return false;
      return res.ok ? true : null;
    } catch (e) {
      return null;
    }
  }

  stop() {
    this.stopped = true;
    clearInterval(this.heartbeat);
    if (this.socket) this.socket.close(1000, 'disconnected by the user');
  }

  send(frame) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ v: VERSION, ...frame }));
  }

  receive(text) {
    let f;
    try {
      f = JSON.parse(text);
    } catch (e) {
      this.log('error', 'the server sent a frame that is not JSON; ignored');
      return;
    }
    const problem = validateServerFrame(f);
    if (problem) {
      this.log('error', `refused a frame from the server: ${problem}`);
      if (f && REQUEST_ID.test(f.request_id) && f.type === 'sandbox.op') this.fail(f.request_id, 'malformed_op', problem);
      return;
    }
    switch (f.type) {
      case 'welcome':
        clearInterval(this.heartbeat);
        this.heartbeat = setInterval(() => this.send({ type: 'heartbeat' }), f.heartbeat_seconds * 1000);
        break;
      case 'heartbeat':
        break;
      case 'error':
        this.log('error', `server: ${f.code}: ${String(f.message).slice(0, 200)}`);
        break;
      case 'sandbox.op.chunk': {
        const data = b64decode(f.data);
        this.pendingBytes += data.length;
        if (this.pendingBytes > MAX_PENDING_BYTES) { this.log('error', 'too much pending op data; dropped'); this.chunks.clear(); this.pendingBytes = 0; return; }
        const list = this.chunks.get(f.request_id) || [];
        if (f.seq !== list.length) { this.log('error', 'op chunk out of order; dropped'); return; }
        list.push(data);
        this.chunks.set(f.request_id, list);
        break;
      }
      case 'sandbox.op': {
        const parts = this.chunks.get(f.request_id) || [];
        this.chunks.delete(f.request_id);
        let data = null;
        if (f.args.chunks !== undefined) {
          if (f.args.chunks !== parts.length) { this.fail(f.request_id, 'malformed_op', 'op data chunks are missing'); return; }
          const size = parts.reduce((n, p) => n + p.length, 0);
          this.pendingBytes -= size;
          data = new Uint8Array(size);
          let off = 0;
          for (const p of parts) { data.set(p, off); off += p.length; }
        }
        this.onOp(f, data);
        break;
      }
    }
  }

  fail(requestId, code, message) {
    this.send({ type: 'sandbox.result', request_id: requestId, ok: false, error: { code, message: String(message).slice(0, 900) } });
  }

  // Sends a result; bulk bytes (stdout/stderr/data) above the inline limit go first as ordered chunks.
  reply(requestId, fields, streams = {}) {
    const INLINE = 48 * 1024, CHUNK = 192 * 1024;
    let seq = 0;
    const inline = {};
    const small = Object.values(streams).reduce((n, b) => n + (b ? b.length : 0), 0) <= INLINE;
    for (const [stream, bytes] of Object.entries(streams)) {
      if (!bytes || bytes.length === 0) continue;
      if (small && stream !== 'data') { inline[stream] = b64encode(bytes); continue; }
      for (let off = 0; off < bytes.length; off += CHUNK) {
        this.send({ type: 'sandbox.result.chunk', request_id: requestId, stream, seq: seq++, data: b64encode(bytes.subarray(off, off + CHUNK)) });
      }
    }
    this.send({ type: 'sandbox.result', request_id: requestId, ok: true, chunks: seq, ...inline, ...fields });
  }
}
