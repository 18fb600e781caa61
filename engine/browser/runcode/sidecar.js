'use strict';
// The browser_run_code sidecar of w365. It runs inside bubblewrap: no file
// system but a scratch /tmp and its own code, no network but the loopback of
// its own namespace. The host's DevTools proxy is a Unix socket bound in at
// $W365_CDP_SOCKET; Playwright speaks WebSocket over TCP, so a forwarder on
// this namespace's loopback joins the two.
//
// Requests arrive one JSON object a line on stdin:
//   {"id": 1, "code": "return await page.title()", "targetId": "...", "timeoutMs": 5000}
// and each gets a line on stdout when its code starts (the host's clock for the
// timeout runs from there, so that code that never yields is stopped on time):
//   {"id": 1, "started": true}
// then one line with its result:
//   {"id": 1, "ok": true, "json": "\"Title\""} or
//   {"id": 1, "ok": false, "error": {"name": "Error", "message": "...", "code": "TIMEOUT"}}

const net = require('net');
const readline = require('readline');
const { chromium } = require('playwright-core');

const socketPath = process.env.W365_CDP_SOCKET;
const AsyncFunction = (async () => {}).constructor;

function forwarder() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer(c => {
      const u = net.connect(socketPath);
      const end = () => { c.destroy(); u.destroy(); };
      c.pipe(u); u.pipe(c);
      c.on('error', end); u.on('error', end); c.on('close', end); u.on('close', end);
    });
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv.address().port));
  });
}

let browserPromise = null;
function browser() {
  if (!browserPromise) {
    browserPromise = (async () => {
      const port = await forwarder();
      const b = await chromium.connectOverCDP(`ws://127.0.0.1:${port}/devtools/browser/w365`, { timeout: 30000 });
      b.on('disconnected', () => { browserPromise = null; });
      return b;
    })();
    browserPromise.catch(() => { browserPromise = null; });
  }
  return browserPromise;
}

const targetIds = new WeakMap();
async function targetIdOf(page) {
  if (targetIds.has(page)) return targetIds.get(page);
  const s = await page.context().newCDPSession(page);
  try {
    const { targetInfo } = await s.send('Target.getTargetInfo');
    targetIds.set(page, targetInfo.targetId);
    return targetInfo.targetId;
  } finally {
    await s.detach().catch(() => {});
  }
}

// pageFor is the Playwright page of the session's active tab.
async function pageFor(targetId) {
  const b = await browser();
  for (let i = 0; i < 40; i++) {
    for (const ctx of b.contexts()) {
      for (const p of ctx.pages()) {
        if (await targetIdOf(p).catch(() => '') === targetId) return p;
      }
    }
    await new Promise(r => setTimeout(r, 50));
  }
  throw Object.assign(new Error('the active tab is not visible to Playwright'), { w365: 'UNAVAILABLE' });
}

class NotSerialisable extends Error {}

function serialise(v) {
  if (v === undefined) return 'null';
  const t = typeof v;
  if (t === 'function' || t === 'symbol' || t === 'bigint') {
    throw new NotSerialisable(`the code returned a ${t}, which is not JSON-serialisable`);
  }
  let s;
  try {
    s = JSON.stringify(v);
  } catch (e) {
    throw new NotSerialisable(`the returned value is not JSON-serialisable: ${e.message}`);
  }
  if (s === undefined) throw new NotSerialisable('the returned value is not JSON-serialisable');
  return s;
}

function errorOf(e) {
  if (e instanceof NotSerialisable) return { name: 'TypeError', message: e.message, code: 'NOT_SERIALISABLE' };
  const name = (e && e.name) || 'Error';
  const message = String((e && e.message) || e);
  let code = 'THROWN';
  if (e && e.w365) code = e.w365;
  else if (name === 'TimeoutError') code = 'PLAYWRIGHT_TIMEOUT';
  return { name, message: message.slice(0, 4000), stack: String((e && e.stack) || '').split('\n').slice(0, 8).join('\n'), code };
}

// compile takes a function body, or a function expression (Playwright MCP's
// async (page) => {...}), which is then called with the page.
function compile(code) {
  const src = code.trim();
  if (/^(async\s+)?(function\b|\(?\s*[A-Za-z_$][\w$]*\s*\)?\s*=>|\(\s*\)\s*=>)/.test(src)) {
    try {
      const f = new AsyncFunction(`return (${src}\n);`);
      return async page => {
        const g = await f();
        return typeof g === 'function' ? g(page) : g;
      };
    } catch {}
  }
  return new AsyncFunction('page', code);
}

async function run(req) {
  let fn;
  try {
    fn = compile(req.code);
  } catch (e) {
    return { ok: false, error: { ...errorOf(e), code: 'SYNTAX' } };
  }
  const page = await pageFor(req.targetId);
  page.setDefaultTimeout(req.timeoutMs);
  page.setDefaultNavigationTimeout(req.timeoutMs);
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`the code did not finish within ${req.timeoutMs} ms`), { w365: 'TIMEOUT', name: 'TimeoutError' })), req.timeoutMs);
  });
  reply({ id: req.id, started: true });
  try {
    const value = await Promise.race([fn(page), timeout]);
    return { ok: true, json: serialise(value) };
  } finally {
    clearTimeout(timer);
  }
}

function reply(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', line => {
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    return;
  }
  run(req).then(
    r => reply({ id: req.id, ...r }),
    e => reply({ id: req.id, ok: false, error: errorOf(e) }));
});
rl.on('close', () => process.exit(0));
reply({ id: 0, ok: true, json: '"ready"' });
