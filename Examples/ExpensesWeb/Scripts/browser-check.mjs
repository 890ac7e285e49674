// Drives the expenses page in headless Chromium as a person would: loads it, submits the add
// form with a bad amount (the page must say what is wrong), then with a good one (the expense
// must appear in the table), and saves a screenshot. Then adds a note crafted to break out of
// the page's attributes (a quote with a combining mark): it must show as text and run nothing.
// The spending chart's bars must carry the numbers of GET /api/spending/monthly, with heights
// proportional to them; a screenshot of the chart is saved beside the page's (NAME-chart.png).
// Last, live updates: an expense created through the JSON API of OTHER_URL (another instance on
// the same database; the same server if not given) must appear in the open page without a reload.
// With LIVE_COMMAND set, that expense comes from the shell command instead — a device that adds
// it and syncs (the sync scenario) — which finds its note in LIVE_NOTE.
//
//   node --experimental-websocket browser-check.mjs http://127.0.0.1:8080 screenshot.png [OTHER_URL]
//
// Talks to Chromium over its DevTools protocol (Scripts/headless-chromium.mjs); needs Debian's
// `chromium` and Node 20 or newer.
import { spawnSync } from 'node:child_process';
import { openChromium } from '../../../Scripts/headless-chromium.mjs';

const [base, screenshot, otherBase] = process.argv.slice(2);
if (!base || !screenshot) {
  console.error('usage: browser-check.mjs BASE_URL SCREENSHOT.png');
  process.exit(2);
}
const note = `Team coffee ${new Date().toISOString().slice(11, 19)}`;
const browser = await openChromium('expenses');
const { page, evaluate, fail, waitFor, load } = browser;

async function submit(amount, text = note) {
  await load(() => evaluate(`(() => {
    document.querySelector('#amount').value = ${JSON.stringify(amount)};
    document.querySelector('#note').value = ${JSON.stringify(text)};
    document.querySelector('#category').value = 'Food';
    document.querySelector('#add').requestSubmit();
  })()`));
}

await load(() => page('Page.navigate', { url: base }));
if (!(await evaluate(`document.querySelectorAll('#expenses tbody tr').length > 0`))) fail('the page shows no expense table');
const before = await evaluate(`document.querySelector('#total').textContent`);

await submit('-12');
const complaint = await evaluate(`document.querySelector('#amount-error')?.textContent ?? ''`);
if (!complaint.includes('not an amount')) fail(`a negative amount was not refused with a message (got "${complaint}")`);
if (await evaluate(`document.querySelector('#expenses').innerText.includes(${JSON.stringify(note)})`)) fail('the refused expense was listed');

await submit('4.20');
const row = await evaluate(`[...document.querySelectorAll('#expenses tbody tr')].map((r) => r.innerText).find((t) => t.includes(${JSON.stringify(note)})) ?? ''`);
if (!row.includes('4.20') || !row.includes('Food')) fail(`the added expense is not in the table (row: "${row}")`);
const after = await evaluate(`document.querySelector('#total').textContent`);
if (Math.abs(Number(after) - Number(before) - 4.2) > 0.001) fail(`the total went from ${before} to ${after}, not up by 4.20`);

await browser.screenshot(screenshot);
// The chart: every bar segment is a month's spending in a category, as the API computes it.
const months = await (await fetch(`${base}/api/spending/monthly`)).json();
const bars = await evaluate(`[...document.querySelectorAll('#chart g[data-month]')].flatMap((g) =>
  [...g.querySelectorAll('rect[data-amount]')].map((r) => ({ month: g.dataset.month, category: r.dataset.category,
    amount: Number(r.dataset.amount), height: r.getBBox().height })))`);
const expected = months.flatMap((m) => Object.entries(m.totals).map(([category, amount]) => ({ month: m.month, category, amount })));
if (months.length !== 12) fail(`GET /api/spending/monthly gave ${months.length} months, not 12`);
if (bars.length !== expected.length) fail(`the chart draws ${bars.length} bar segments; the API has ${expected.length} month and category totals`);
for (const want of expected) {
  const bar = bars.find((b) => b.month === want.month && b.category === want.category);
  if (!bar || Math.abs(bar.amount - want.amount) > 0.005) fail(`the chart's ${want.month} ${want.category} is ${bar?.amount}, the API says ${want.amount}`);
}
// Heights against the tallest bar's scale, within 1% or a hundredth of a pixel (SVG geometry is
// single precision: a bar of a few units beside one of thousands is a fraction of a pixel tall).
const tallest = bars.reduce((a, b) => (b.amount > a.amount ? b : a), bars[0] ?? { amount: 0, height: 0 });
const scale = tallest.height / tallest.amount;
const skewed = bars.filter((b) => Math.abs(b.height - b.amount * scale) > 0.01 * b.amount * scale + 0.01);
if (bars.length === 0 || skewed.length > 0) fail(`the bars' heights are not proportional to their amounts (${skewed.map((b) => `${b.month} ${b.category}: ${b.amount} drawn ${b.height} px`).join(', ')})`);
const box = await evaluate(`(() => { const r = document.querySelector('#chart').getBoundingClientRect(); return { x: r.x, y: r.y + scrollY, width: r.width, height: r.height }; })()`);
const chartShot = screenshot.replace(/(\.png)?$/, '-chart.png');
await browser.screenshot(chartShot, box);

const hostile = 'x"\u0301 autofocus onfocus=window.__xss=1 x="';
await submit('0.01', hostile);
if (await evaluate(`window.__xss !== undefined || document.querySelectorAll('[onfocus]').length > 0`)) fail('a crafted note added an attribute to the page and ran script');
if (!(await evaluate(`document.querySelector('#expenses').innerText.includes(${JSON.stringify(hostile)})`))) fail('the crafted note is not shown as text');

// Live: the page stays open (a marker set now survives only if it is not reloaded) while another
// instance stores an expense; the row must appear within 15 s.
const other = otherBase ?? base;
await waitFor(`document.body.dataset.live === 'open'`, 'the page never opened its event stream (GET /events)');
await evaluate(`window.__notReloaded = true`);
const command = process.env.LIVE_COMMAND;
const source = command ? 'a synced device' : other === base ? 'this server' : 'another server';
const liveNote = `Live from ${source} ${Date.now()}`;
if (command) {
  const run = spawnSync('sh', ['-c', command], { env: { ...process.env, LIVE_NOTE: liveNote }, encoding: 'utf8' });
  if (run.status !== 0) fail(`LIVE_COMMAND exited ${run.status}: ${run.stderr}`);
} else {
  const created = await fetch(`${other}/api/expenses`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ amount: 2.5, note: liveNote, category: 'Food' }),
  });
  if (created.status !== 201) fail(`POST ${other}/api/expenses answered ${created.status}`);
}
await waitFor(`document.querySelector('#expenses').innerText.includes(${JSON.stringify(liveNote)})`, async () => {
  const seen = await fetch(`${base}/api/expenses?search=${encodeURIComponent(liveNote)}`).then((r) => r.json()).catch(() => ({}));
  return `an expense stored through ${command ? 'LIVE_COMMAND' : other} did not appear in the open page (changes announced to it: ${await evaluate('document.body.dataset.changes')}, `
    + `reads ended: ${await evaluate('document.body.dataset.refreshes')}; ${base}/api/expenses lists it ${seen.count ?? '?'} time(s))`;
});
if (!(await evaluate(`window.__notReloaded === true`))) fail('the page was reloaded instead of updated');

console.log(`browser check passed: refused -12 ("${complaint.trim()}"), added "${note}" (${row.replace(/\s+/g, ' ').trim()}), total ${before} → ${after}; the chart's ${bars.length} bars match the API; a crafted note stayed text; "${liveNote}" appeared live; screenshots ${screenshot}, ${chartShot}`);
await browser.close();
process.exit(0);
