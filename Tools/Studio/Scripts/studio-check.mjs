// Drives the studio in headless Chromium as a person would, against one store, and keeps a
// screenshot of each main view. SPEC (JSON) says what the store holds, as the app's own tools
// report it, so the pages are compared with the store:
//
//   { "entities": ["Category", "Expense"],            every entity the schema picture draws
//     "relationships": ["Category.expenses", "Expense.category"],   every relationship it draws a line for
//     "filter": { "entity": "Expense", "property": "note", "op": "contains", "value": "coffee", "total": 1 },
//     "paging": { "entity": "Expense", "sort": "amount", "total": 6 },
//     "follow": { "entity": "Category", "property": "name", "value": "Food", "relationship": "expenses", "total": 2 },
//     "live": { "entity": "Expense", "command": "expenses add 9.99 --note 'Live'", "text": "Live" },
//     "screenshots": "folder" }                       schema.png, rows.png, row.png, history.png, statistics.png
//
//   node --experimental-websocket studio-check.mjs 'http://127.0.0.1:4040/?token=…' SPEC.json
//
// Checks: the schema picture draws every entity and relationship; clicking an entity opens its
// rows; the filter form returns the rows whose values match, as many as the store holds; pages
// of 2 rows in a column's order add up to every row once, in order; a relationship followed from
// a row lands on the related rows and back on the row; an edit is refused (403) by a studio
// started without --allow-edits; a save by another process (the live command) appears in the
// open page without a reload.
import { spawnSync } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openChromium } from '../../../Scripts/headless-chromium.mjs';

const [start, specFile] = process.argv.slice(2);
if (!start || !specFile) {
  console.error('usage: studio-check.mjs STUDIO_URL SPEC.json');
  process.exit(2);
}
const spec = JSON.parse(readFileSync(specFile, 'utf8'));
const origin = new URL(start).origin;
const browser = await openChromium('studio');
const { page, evaluate, fail, waitFor, load } = browser;
const go = (path) => load(() => page('Page.navigate', { url: path.startsWith('http') ? path : origin + path }));
const text = (selector) => evaluate(`document.querySelector(${JSON.stringify(selector)})?.innerText ?? ''`);
const shots = spec.screenshots;
if (shots) mkdirSync(shots, { recursive: true });
const shot = async (name) => { if (shots) await browser.screenshot(join(shots, `${name}.png`)); };
const report = [];

// The token in the address becomes a cookie; the page lands on the schema.
await go(start);
if (!(await evaluate(`location.pathname === '/schema'`))) fail(`the studio's URL led to ${await evaluate('location.href')}, not /schema`);
const drawn = await evaluate(`[...document.querySelectorAll('#diagram svg a[data-entity]')].map((a) => a.dataset.entity)`);
const missing = spec.entities.filter((name) => !drawn.includes(name));
if (missing.length > 0) fail(`the schema picture lacks ${missing.join(', ')} (it draws ${drawn.join(', ')})`);
// A line draws a relationship and its inverse.
const lines = await evaluate(`[...document.querySelectorAll('#diagram svg g[data-relationship]')].flatMap((g) => [g.dataset.relationship, g.dataset.inverse].filter(Boolean))`);
const undrawn = spec.relationships.filter((name) => !lines.includes(name));
if (undrawn.length > 0) fail(`the schema picture draws no line for ${undrawn.join(', ')} (it draws ${lines.join(', ')})`);
report.push(`schema: ${drawn.length} entities, ${spec.relationships.length} relationships`);
await shot('schema');

// Clicking an entity's box opens its rows; the filter form runs the condition in the store.
const filter = spec.filter;
await load(() => evaluate(`document.querySelector('#diagram svg a[data-entity=${JSON.stringify(filter.entity)}]').dispatchEvent(new MouseEvent('click', { bubbles: true }))`));
if (!(await evaluate(`location.pathname === ${JSON.stringify(`/entity/${filter.entity}`)}`))) fail(`clicking ${filter.entity} led to ${await evaluate('location.pathname')}`);
await shot('rows');
await load(() => evaluate(`(() => {
  const row = document.querySelectorAll('form.filters .condition');
  const last = row[row.length - 1];
  last.querySelector('[name=fp]').value = ${JSON.stringify(filter.property)};
  last.querySelector('[name=fo]').value = ${JSON.stringify(filter.op)};
  last.querySelector('[name=fv]').value = ${JSON.stringify(filter.value)};
  document.querySelector('form.filters').requestSubmit();
})()`));
const filtered = Number(await evaluate(`document.querySelector('#total')?.dataset.total`));
if (filtered !== filter.total) fail(`${filter.entity} where ${filter.property} ${filter.op} "${filter.value}": the studio finds ${filtered} rows, the store holds ${filter.total} (${await text('main')})`);
if (filter.op === 'contains') {
  const column = await evaluate(`[...document.querySelectorAll('#rows thead th')].findIndex((th) => th.querySelector('[data-sort=${JSON.stringify(filter.property)}]'))`);
  const values = await evaluate(`[...document.querySelectorAll('#rows tbody tr')].map((tr) => tr.children[${column}].innerText)`);
  const stray = values.filter((value) => !value.toLowerCase().includes(filter.value.toLowerCase()));
  if (values.length !== filter.total || stray.length > 0) fail(`the filtered rows show ${JSON.stringify(values)}`);
}
report.push(`filter: ${filtered} ${filter.entity} rows`);

// Pages of two rows in a column's order: every row once, in order, as many as the store holds.
const paging = spec.paging;
const seen = [];
let next = `/entity/${paging.entity}?sort=${encodeURIComponent(paging.sort)}&limit=2`;
for (let pages = 0; next && pages < 1000; pages += 1) {
  await go(next);
  seen.push(...await evaluate(`[...document.querySelectorAll('#rows tbody tr')].map((tr) => tr.dataset.key)`));
  next = await evaluate(`document.querySelector('a[rel=next]')?.getAttribute('href') ?? null`);
}
const total = Number(await evaluate(`document.querySelector('#total')?.dataset.total`));
if (seen.length !== paging.total || new Set(seen).size !== seen.length || total !== paging.total) {
  fail(`paging ${paging.entity} by ${paging.sort} two at a time gave ${seen.length} rows (${new Set(seen).size} different), total ${total}; the store holds ${paging.total}`);
}
report.push(`paging: ${seen.length} ${paging.entity} rows in ${Math.ceil(seen.length / 2)} pages`);

// A relationship followed from a row, and back.
const follow = spec.follow;
await go(`/entity/${follow.entity}?fp=${encodeURIComponent(follow.property)}&fo=equals&fv=${encodeURIComponent(follow.value)}`);
const ownerKey = await evaluate(`document.querySelector('#rows tbody tr')?.dataset.key`);
if (!ownerKey) fail(`no ${follow.entity} whose ${follow.property} is ${follow.value}`);
await load(() => evaluate(`document.querySelector('#rows tbody tr a').click()`));
await load(() => evaluate(`document.querySelector('#row tr[data-relationship=${JSON.stringify(follow.relationship)}] a').click()`));
// A to-many (or a to-one the other row keeps) lands on a list of rows; a to-one on the row.
const listed = await evaluate(`document.querySelector('#rows') !== null`);
const related = listed ? Number(await evaluate(`document.querySelector('#total')?.dataset.total`)) : 1;
if (related !== follow.total) fail(`${follow.entity} ${ownerKey}'s ${follow.relationship} leads to ${related} rows; the store holds ${follow.total}`);
if (listed) await load(() => evaluate(`document.querySelector('#rows tbody tr a').click()`));
await shot('row');
const back = await evaluate(`[...document.querySelectorAll('#row a')].find((a) => a.getAttribute('href') === ${JSON.stringify(`/entity/${follow.entity}/${ownerKey}`)})?.getAttribute('href') ?? null`);
if (!back) fail(`the related row's page has no link back to ${follow.entity} ${ownerKey}`);
await load(() => evaluate(`[...document.querySelectorAll('#row a')].find((a) => a.getAttribute('href') === ${JSON.stringify(back)}).click()`));
if (!(await evaluate(`location.pathname === ${JSON.stringify(back)} && document.querySelector('h1').innerText.includes(${JSON.stringify(ownerKey)})`))) fail(`following the link back landed on ${await evaluate('location.pathname')}`);
report.push(`follow: ${follow.entity} ${ownerKey} → ${related} ${follow.relationship} → back`);

// Edits need --allow-edits.
const refused = await evaluate(`fetch(${JSON.stringify(`${back}/edit`)}, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'property=x&value=y' }).then(async (r) => [r.status, await r.text()])`);
if (refused[0] !== 403 || !refused[1].includes('read-only')) fail(`an edit to a read-only studio answered ${refused[0]}`);
report.push('edit refused: 403');

// Live: the rows page stays open (a marker set now survives only without a reload) while
// another process saves; its row appears.
const live = spec.live;
if (live) {
  await go(`/entity/${live.entity}?limit=1000`);
  await waitFor(`document.getElementById('live').classList.contains('on')`, 'the page never opened its event stream (GET /events)');
  await evaluate(`window.__notReloaded = true`);
  const run = spawnSync('sh', ['-c', live.command], { encoding: 'utf8' });
  if (run.status !== 0) fail(`the live command exited ${run.status}: ${run.stderr}`);
  await waitFor(`document.querySelector('main').innerText.includes(${JSON.stringify(live.text)})`,
    async () => `"${live.text}", saved by another process, did not appear in the open page (updates: ${await evaluate(`document.getElementById('live').dataset.updates ?? 0`)})`);
  if (!(await evaluate(`window.__notReloaded === true`))) fail('the page was reloaded instead of updated');
  report.push(`live: "${live.text}" appeared`);
}

// History and statistics last, with the live save among them.
await go('/history');
await shot('history');
await go('/statistics');
await shot('statistics');

console.log(`studio check passed: ${report.join('; ')}${shots ? `; screenshots in ${shots}` : ''}`);
await browser.close();
process.exit(0);
