// cdp.mjs -- a small Chrome DevTools Protocol driver for the dashboard's
// browser tests: Debian's chromium started headless, spoken to over
// --remote-debugging-pipe (JSON messages separated by NUL on fds 3 and 4),
// so it needs no WebSocket and no npm package.  It records every console
// error, uncaught exception, failed request and 4xx/5xx answer, which a
// test treats as failures.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-dev-shm-usage', '--hide-scrollbars', '--mute-audio',
  '--remote-debugging-pipe'];

// Debian's chromium, or its headless shell; IRCG_CHROMIUM overrides.
export function findChromium() {
  return process.env.IRCG_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-headless-shell']
    .find((p) => existsSync(p));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Browser {
  static async launch(exe, { width = 1280, height = 900 } = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'ircg-chromium-'));
    const proc = spawn(exe, [...CHROMIUM_FLAGS, `--user-data-dir=${dir}`,
      `--window-size=${width},${height}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    const b = new Browser(proc, dir);
    proc.stderr.on('data', (d) => { b.stderr += d; });
    await b.attach(width, height);
    return b;
  }

  constructor(proc, dir) {
    this.proc = proc;
    this.dir = dir;
    this.stderr = '';
    this.nextId = 1;
    this.pending = new Map();
    this.problems = [];   // console errors, exceptions, failed requests
    this.allowed = [];    // predicates of problems a caller expects
    this.buf = '';
    this.out = proc.stdio[3];
    proc.stdio[4].setEncoding('utf8');
    proc.stdio[4].on('data', (d) => this.receive(d));
    proc.on('exit', (code) => {
      for (const { reject } of this.pending.values()) reject(new Error(`chromium exited (${code}): ${this.stderr.slice(-500)}`));
      this.pending.clear();
    });
  }

  receive(data) {
    this.buf += data;
    let cut;
    while ((cut = this.buf.indexOf('\0')) >= 0) {
      const msg = JSON.parse(this.buf.slice(0, cut));
      this.buf = this.buf.slice(cut + 1);
      if (msg.id && this.pending.has(msg.id)) {
        const { resolve, reject, method } = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
        else resolve(msg.result);
      } else if (msg.method) {
        this.onEvent(msg.method, msg.params || {});
      }
    }
  }

  send(method, params = {}, sessionId = this.session) {
    const id = this.nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.out.write(`${JSON.stringify(msg)}\0`);
    });
  }

  problem(kind, text) {
    if (this.allowed.some((f) => f(kind, text))) return;
    this.problems.push(`${kind}: ${text}`);
  }

  onEvent(method, p) {
    if (method === 'Runtime.exceptionThrown') {
      const d = p.exceptionDetails;
      this.problem('exception', `${d.exception?.description || d.text} at ${d.url || ''}:${d.lineNumber}`);
    } else if (method === 'Runtime.consoleAPICalled' && ['error', 'assert'].includes(p.type)) {
      this.problem('console', p.args.map((a) => a.value ?? a.description).join(' '));
    } else if (method === 'Log.entryAdded' && p.entry.level === 'error') {
      this.problem('log', `${p.entry.text} ${p.entry.url || ''}`);
    } else if (method === 'Network.loadingFailed' && !p.canceled) {
      this.problem('request', `${p.errorText} (${p.type}) ${this.urls?.get(p.requestId) || ''}`);
    } else if (method === 'Network.requestWillBeSent') {
      (this.urls ??= new Map()).set(p.requestId, `${p.request.method} ${p.request.url}`);
    } else if (method === 'Network.responseReceived' && p.response.status >= 400) {
      this.problem('response', `${p.response.status} ${this.urls?.get(p.requestId) || p.response.url}`);
    }
  }

  async attach(width, height) {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' }, null);
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true }, null);
    this.session = sessionId;
    for (const d of ['Page', 'Runtime', 'Log', 'Network']) await this.send(`${d}.enable`);
    await this.send('Emulation.setDeviceMetricsOverride',
      { width, height, deviceScaleFactor: 1, mobile: false });
  }

  async goto(url) {
    await this.send('Page.navigate', { url });
    await this.waitFor('document.readyState === "complete"');
  }

  // The value of an expression in the page (promises awaited).
  async eval(expr) {
    const r = await this.send('Runtime.evaluate', { expression: expr, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`eval ${expr}: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
    return r.result.value;
  }

  async waitFor(expr, timeoutMs = 15000, what = expr) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await this.eval(expr).catch(() => undefined);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  }

  // A real mouse click in the middle of the element.
  async click(selector) {
    const box = await this.waitFor(`(() => { const e = document.querySelector(${JSON.stringify(selector)});
      if (!e || e.disabled) return null; e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();
      return r.width ? {x: r.x + r.width / 2, y: r.y + r.height / 2} : null; })()`, 15000, `a clickable ${selector}`);
    for (const type of ['mousePressed', 'mouseReleased']) {
      await this.send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 });
    }
  }

  async select(selector, value) {
    await this.eval(`(() => { const e = document.querySelector(${JSON.stringify(selector)});
      e.value = ${JSON.stringify(value)}; e.dispatchEvent(new Event('change', {bubbles: true})); })()`);
  }

  // Replaces an input's text as typing would (input events).
  async type(selector, text) {
    await this.eval(`(() => { const e = document.querySelector(${JSON.stringify(selector)}); e.focus(); e.select(); })()`);
    await this.send('Input.insertText', { text });
  }

  async screenshot() {
    const { data } = await this.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: false });
    return Buffer.from(data, 'base64');
  }

  async close() {
    try { await Promise.race([this.send('Browser.close', {}, null), sleep(3000)]); } catch { /* gone */ }
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
    await new Promise((r) => (this.proc.exitCode !== null ? r() : this.proc.on('exit', r)));
    // chromium's helper processes may still be writing its profile
    try { rmSync(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }); } catch { /* left in tmp */ }
  }
}

// The end of every browser test: main(browser) in a fresh headless
// chromium; any exception, console error or failed request fails it.
// Exits 0 passed, 1 failed, 77 (skipped) without a browser.
export async function runTest(main) {
  const exe = findChromium();
  if (!exe) {
    console.log('skip: no chromium (make deps installs Debian\'s chromium)');
    process.exit(77);
  }
  const b = await Browser.launch(exe);
  let failed = false;
  try {
    await main(b);
  } catch (err) {
    console.log(`FAIL: ${err.message}`);
    failed = true;
  }
  if (b.problems.length) {
    console.log(`FAIL: the page reported ${b.problems.length} problem(s):`);
    for (const p of b.problems) console.log(`    ${p}`);
    failed = true;
  }
  await b.close();
  console.log(failed ? 'browser test failed' : 'browser test passed');
  process.exit(failed ? 1 : 0);
}
