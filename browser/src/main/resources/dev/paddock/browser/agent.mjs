// Step-mode agent: one JSON request per line on a unix socket in the sandbox's private /tmp, one JSON response
// line back; the host reaches it only through exec of paddock-init's connect relay (its host-only channel). It owns one persistent
// Chromium context whose profile lives in the sandbox's private /tmp and dies with the sandbox.
import { createInterface } from 'node:readline';
import { connect, createServer } from 'node:net';
import { rmSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import { chromium, PROFILE_DIR } from '/tmp/paddock-browser/launch.mjs';

const DOWNLOADS = '/workspace/downloads';
const allowEvaluate = process.env.PADDOCK_BROWSER_EVALUATE === '1';
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
mkdirSync(PROFILE_DIR, { recursive: true });
const context = await chromium.launchPersistentContext(PROFILE_DIR, { acceptDownloads: true, viewport: { width: 1280, height: 800 } });
let page = context.pages()[0] || await context.newPage();
const watch = (p) => p.on('download', async d => {
  mkdirSync(DOWNLOADS, { recursive: true });
  await d.saveAs(DOWNLOADS + '/' + basename(d.suggestedFilename()).replace(/^\.+/, '_'));
});
context.pages().forEach(watch);
context.on('page', p => { watch(p); page = p; });

function target(r) {
  if (r.ref) return page.locator('aria-ref=' + r.ref);
  if (r.selector) return page.locator(r.selector);
  if (r.text) return page.getByText(r.text).first();
  throw new Error('this action needs "ref", "selector" or "text"');
}

// A navigation the egress proxy did not carry is an error, not a page: over plain http the proxy answers itself
// (403 refused, 502/504 could not reach) and marks its answer with X-Paddock-Egress; over https Chromium sees only a
// failed tunnel, so the proxy is asked once more, directly, what it makes of the host.
class NavigationError extends Error {
  constructor(code, host, message) { super(message); this.code = code; this.host = host; }
}
const PROXY = process.env.HTTP_PROXY ? new URL(process.env.HTTP_PROXY) : null;

async function navigate(r) {
  const url = new URL(r.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let response;
  try {
    response = await page.goto(r.url, { waitUntil: r.wait_until || 'load' });
  } catch (e) {
    const message = String(e && e.message || e);
    if (!/net::ERR_/.test(message)) throw e;
    await settle();
    if (/net::ERR_TUNNEL_CONNECTION_FAILED|net::ERR_PROXY_CONNECTION_FAILED/.test(message)) {
      const port = url.port || (url.protocol === 'https:' ? '443' : '80');
      const verdict = PROXY ? await askProxy(host, port) : { refused: true, text: 'this sandbox has no network access' };
      if (verdict) throw proxyError(verdict, host, r.url);
    }
    throw e;
  }
  const mark = response ? await response.headerValue('x-paddock-egress').catch(() => null) : null;
  if (mark === 'denied' || mark === 'error') {
    const text = (await response.text().catch(() => '')).replace(/^paddock egress proxy: /, '').trim().slice(0, 500);
    await settle(false);
    throw proxyError({ refused: mark === 'denied', text }, host, r.url);
  }
}

function proxyError(verdict, host, url) {
  return verdict.refused
    ? new NavigationError('navigation_refused', host, 'navigation to ' + url + ' refused by the sandbox\'s network policy: ' + verdict.text)
    : new NavigationError('navigation_failed', host, 'navigation to ' + url + ' failed at the egress proxy: ' + verdict.text);
}

// Leaves the tab on about:blank. After a network error Chromium commits its error page a moment after goto
// rejects; a navigation started before that commit is interrupted by it, so wait for it first.
async function settle(failed = true) {
  const until = Date.now() + 3000;
  while (failed && !page.url().startsWith('chrome-error:') && Date.now() < until) await new Promise(d => setTimeout(d, 25));
  for (let i = 0; i < 3; i++) {
    try { await page.goto('about:blank', { timeout: 5000 }); return; } catch { /* interrupted: try again */ }
  }
}

// CONNECT host:port to the sandbox's proxy; the answer's status line and X-Paddock-Egress mark say whether the
// policy refused the host (403 denied) or the proxy could not reach it. Null when the proxy would carry it.
function askProxy(host, port) {
  return new Promise(done => {
    const authority = (host.includes(':') ? '[' + host + ']' : host) + ':' + port;
    const s = connect(Number(PROXY.port || 80), PROXY.hostname);
    let answer = '';
    const finish = (v) => { s.destroy(); done(v); };
    const status = () => Number((answer.match(/^HTTP\/1\.[01] (\d{3})/) || [])[1]);
    s.setTimeout(5000, () => finish(null));
    s.on('error', () => finish(null));
    s.on('connect', () => s.write('CONNECT ' + authority + ' HTTP/1.1\r\nHost: ' + authority + '\r\n\r\n'));
    s.on('data', d => {
      answer += d.toString('latin1');
      if (answer.length > 16384 || (status() === 200 && answer.includes('\r\n\r\n'))) finish(null);
    });
    // a refusal is a short answer after which the proxy closes the connection
    s.on('end', () => {
      const end = answer.indexOf('\r\n\r\n');
      const mark = end < 0 ? '' : ((answer.slice(0, end).match(/\r\nx-paddock-egress:[ \t]*([a-z]+)/i) || [])[1] || '').toLowerCase();
      if (!mark) return finish(null);
      const text = answer.slice(end + 4).replace(/^paddock egress proxy: /, '').trim().slice(0, 500);
      finish({ refused: status() === 403 && mark === 'denied', text: text || 'HTTP ' + status() });
    });
  });
}

const actions = {
  navigate: r => navigate(r),
  click: r => target(r).click(),
  type: async r => { await target(r).fill(r.text ?? ''); if (r.submit) await target(r).press('Enter'); },
  press: r => (r.ref || r.selector ? target(r).press(r.key) : page.keyboard.press(r.key)),
  scroll: r => page.mouse.wheel(r.dx || 0, r.dy ?? 600),
  select: r => target(r).selectOption(r.values || r.value),
  hover: r => target(r).hover(),
  wait_for: r => (r.ref || r.selector || r.text ? target(r).waitFor({ state: r.state || 'visible' }) : page.waitForLoadState(r.state || 'load')),
  back: () => page.goBack(),
  forward: () => page.goForward(),
  tabs: async r => {
    const all = context.pages();
    if (r.op === 'switch' || r.op === 'close') {
      const p = all[r.index];
      if (!p) throw new Error('no tab at index ' + r.index);
      if (r.op === 'close') { await p.close(); page = context.pages().at(-1) || await context.newPage(); } else { page = p; await p.bringToFront(); }
    } else if (r.op === 'new') { page = await context.newPage(); }
    const now = context.pages();
    return { tabs: await Promise.all(now.map(async (p, i) => ({ index: i, url: p.url(), title: await p.title(), active: p === page }))) };
  },
  set_cookies: async r => { await context.addCookies(r.cookies || []); return {}; },
  screenshot: async r => ({ screenshot: (await page.screenshot({ fullPage: !!r.full_page })).toString('base64') }),
  // live view: the visible viewport as a small JPEG, cheap enough to poll a few times a second
  frame: async r => ({ frame: (await page.screenshot({ type: 'jpeg', quality: Math.min(90, Math.max(10, r.quality | 0 || 60)), animations: 'allow', caret: 'initial' })).toString('base64') }),
  snapshot: async () => ({ snapshot: await page.ariaSnapshot({ mode: 'ai' }) }),
  evaluate: async r => {
    if (!allowEvaluate) throw new Error('evaluate is not allowed for this sandbox');
    return { value: JSON.stringify(await page.evaluate(r.expression)) ?? null };
  },
};

async function handle(line) {
  let r;
  try { r = JSON.parse(line); } catch { return { id: null, ok: false, error: 'request is not JSON' }; }
  try {
    const fn = actions[r.action];
    if (!fn) throw new Error('unknown action ' + r.action);
    page.setDefaultTimeout(r.timeout_ms || 30000);
    page.setDefaultNavigationTimeout(r.timeout_ms || 30000);
    const extra = (await fn(r)) || {};
    const res = { id: r.id, ok: true, url: page.url(), title: await page.title().catch(() => ''), ...(extra.url ? {} : extra) };
    if (r.include_snapshot && !res.snapshot) res.snapshot = await page.ariaSnapshot({ mode: 'ai' });
    if (r.include_screenshot && !res.screenshot) res.screenshot = (await page.screenshot()).toString('base64');
    return res;
  } catch (e) {
    const failed = { id: r.id, ok: false, error: String(e && e.message || e).slice(0, 4000), url: page.url(), title: await page.title().catch(() => '') };
    if (e instanceof NavigationError) Object.assign(failed, { code: e.code, host: e.host });
    return failed;
  }
}

// Live view: a CDP screencast of the active tab, one JSON line per frame ({frame, url, title}), and a line with only
// {url, title} when those change without a repaint. It runs beside the action queue (it only watches) until the
// connection closes; the next frame is asked for once the last one was written, so a slow viewer slows the cast.
function screencast(conn, r) {
  const quality = Math.min(90, Math.max(10, r.quality | 0 || 60));
  let cdp = null, cast = null, closed = false, last = '';
  const send = (o) => new Promise(done => { if (closed) return done(); conn.write(JSON.stringify(o) + '\n', done); });
  // The title is read first and the url after it: a navigation commits its url before its document has a title, so a
  // title of the new page never goes out with the old page's url.
  const meta = async () => {
    const title = await page.title().catch(() => '');
    const now = JSON.stringify([page.url(), title]);
    if (now !== last) { last = now; const [url, title] = JSON.parse(now); await send({ url, title }); }
  };
  const follow = async () => {
    if (closed || cast === page) return;
    if (cdp) await cdp.detach().catch(() => {});
    cast = page;
    cdp = await context.newCDPSession(cast);
    cdp.on('Page.screencastFrame', async f => {
      const title = await cast.title().catch(() => '');
      await send({ frame: f.data, url: cast.url(), title });
      cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => {});
    });
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality, maxWidth: 1280, maxHeight: 800 });
  };
  const timer = setInterval(() => { follow().catch(() => {}); meta().catch(() => {}); }, 500);
  conn.on('close', () => { closed = true; clearInterval(timer); if (cdp) cdp.detach().catch(() => {}); });
  conn.on('error', () => {});
  follow().catch(e => send({ error: String(e && e.message || e).slice(0, 4000) }).then(() => conn.end()));
}

// One request at a time: actions on one page must not interleave.
let queue = Promise.resolve();
const SOCKET = '/tmp/paddock-browser/agent.sock';
rmSync(SOCKET, { force: true });
process.umask(0o077);
// allowHalfOpen: the relay ends its side once the request is sent, and the answer still has to go back
createServer({ allowHalfOpen: true }, conn => {
  const rl = createInterface({ input: conn });
  rl.once('line', line => {
    let r = null;
    try { r = JSON.parse(line); } catch { /* handle() answers it */ }
    if (r && r.action === 'screencast') return screencast(conn, r);
    queue = queue.then(async () => { conn.end(JSON.stringify(await handle(line)) + '\n'); });
  });
}).listen(SOCKET, () => process.stderr.write('paddock browser agent ready\n'));
