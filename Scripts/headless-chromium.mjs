// Headless Chromium driven over its DevTools protocol, for the browser checks of the web app
// (Examples/ExpensesWeb/Scripts/browser-check.mjs) and the studio (Tools/Studio/Scripts/studio-check.mjs).
// Needs Debian's `chromium` (or CHROMIUM naming another binary) and Node 20 or newer run with
// --experimental-websocket.
//
//   const browser = await openChromium('studio');
//   await browser.load(() => browser.page('Page.navigate', { url }));
//   if (!(await browser.evaluate('document.title'))) browser.fail('no title');
//   await browser.close();
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function openChromium(name, { width = 1280, height = 900, timeout = 60_000 } = {}) {
  const profile = mkdtempSync(join(tmpdir(), `${name}-chromium-`));
  const chromium = spawn(process.env.CHROMIUM ?? 'chromium', [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--hide-scrollbars',
    '--remote-debugging-port=0', `--user-data-dir=${profile}`, `--window-size=${width},${height}`, 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });

  function fail(message) {
    console.error(`${name} browser check failed: ${message}`);
    chromium.kill('SIGKILL');
    rmSync(profile, { recursive: true, force: true });
    process.exit(1);
  }
  setTimeout(() => fail(`timed out after ${timeout / 1000} s`), timeout).unref();

  const endpoint = await new Promise((resolve, reject) => {
    let seen = '';
    chromium.stderr.on('data', (chunk) => {
      seen += chunk;
      const match = seen.match(/DevTools listening on (ws:\/\/\S+)/);
      if (match) resolve(match[1]);
    });
    chromium.on('exit', (code) => reject(new Error(`chromium exited (${code}): ${seen}`)));
  }).catch((error) => fail(error.message));

  const socket = new WebSocket(endpoint);
  await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
  let nextId = 1;
  const pending = new Map();
  const waiters = [];
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    if (message.id && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      message.error ? reject(new Error(JSON.stringify(message.error))) : resolve(message.result);
    } else if (message.method) {
      for (const waiter of waiters.filter((w) => w.method === message.method)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message.params);
      }
    }
  });
  function send(method, params = {}, sessionId) {
    const id = nextId++;
    socket.send(JSON.stringify({ id, method, params, sessionId }));
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  }
  const event = (method) => new Promise((resolve) => waiters.push({ method, resolve }));

  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const page = (method, params) => send(method, params, sessionId);
  const evaluate = async (expression) => (await page('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })).result.value;
  await page('Page.enable');
  await page('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });

  return {
    page,
    evaluate,
    fail,
    // Waits (up to 15 s, checking every 100 ms) for `expression` to hold in the page.
    async waitFor(expression, failure) {
      const deadline = Date.now() + 15_000;
      while (!(await evaluate(expression))) {
        if (Date.now() > deadline) fail(typeof failure === 'function' ? await failure() : failure);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    // Runs `action` (a navigation, a submit) and waits for the page it leads to.
    async load(action) {
      const loaded = event('Page.loadEventFired');
      await action();
      await loaded;
    },
    // The page as a PNG; `clip` (x, y, width, height) for a part of it.
    async screenshot(file, clip) {
      const { data } = await page('Page.captureScreenshot', clip
        ? { format: 'png', clip: { ...clip, scale: 1 }, captureBeyondViewport: true }
        : { format: 'png', captureBeyondViewport: false });
      writeFileSync(file, Buffer.from(data, 'base64'));
    },
    async close() {
      socket.close();
      const exited = new Promise((resolve) => chromium.once('exit', resolve));
      chromium.kill('SIGTERM');
      await exited;
      // Chromium's helper processes may still be writing the profile for a moment; a temporary
      // folder left behind is not a failure of the check.
      try { rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }); } catch { /* left for the system */ }
    },
  };
}
