// dotnet-figures.test.mjs -- the page's three-entries table (x-compare)
// shows the real MessagePack-CSharp's recorded figures (bench/dotnet-peer.json,
// served as /recorded/dotnet-peer.json) in a column of its own, beside the
// document's and scratchpack's: the values are the file's, whatever they
// are (a changed file shows changed values), and without a recording the
// column is not drawn. Reads no timing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { openPage, useBrowser } from './harness.mjs';

const recorded = JSON.parse(readFileSync(new URL('../../bench/dotnet-peer.json', import.meta.url), 'utf8'));
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const HASH = '#flow=compare&case=stream&step=measured-big';

const env = useBrowser();

async function table(page) {
  return page.evaluate(() => {
    const t = document.querySelector('table.compare');
    return { head: [...t.querySelectorAll('thead th')].map((th) => th.textContent),
      rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)) };
  });
}

// The column the recording gives: its head (the run that measured it: date,
// .NET runtime, OS, cores), and one cell per entry.
function expected(rec) {
  const by = Object.fromEntries(rec.compare.map((c) => [c.entry, c]));
  return { head: `MessagePack-CSharp ${rec.messagePack}, measured (recorded ${rec.date.slice(0, 10)}; ${rec.dotnet}, ${rec.os}, ${rec.cores} cores)`,
    cells: ['byte[]', 'IBufferWriter', 'Stream'].map((e) => `${fmt(by[e].small)} B / ${fmt(by[e].big)} B`) };
}

test('the recording holds the x-compare rows of the page\'s objects', () => {
  assert.deepEqual(recorded.compare.map((c) => [c.entry, c.smallLength, c.bigLength]),
    [['byte[]', 17, 100007], ['IBufferWriter', 17, 100007], ['Stream', 17, 100007]]);
  assert.match(recorded.messagePack, /^3\.1\.\d+$/);
});

test('the table shows MessagePack-CSharp, measured, beside the document and scratchpack', async () => {
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded${HASH}`);
  try {
    const { head, rows } = await table(page);
    const want = expected(recorded);
    assert.deepEqual(head.slice(3), ['scratchpack, counted as .NET counts', 'the document says (.NET)', want.head]);
    // The page is cross-origin isolated here: its worker runs the pthreads build.
    assert.match(head[1], /^scratchpack in this browser \(the pthreads build\): small/);
    assert.match(head[2], /^scratchpack in this browser \(the pthreads build\): big/);
    assert.deepEqual(rows.map((r) => r.at(-1)), want.cells);
    assert.match(rows[0][4], /^48 B \/ 100,032 B/, 'the document\'s column is still there, before it');
    assert.match(await page.textContent('#why'), new RegExp(`MessagePack-CSharp ${recorded.messagePack.replace(/\./g, '\\.')} itself allocated ${fmt(recorded.compare[2].big)} B per call`));
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test('the values come from the file: a changed recording shows changed values, a missing one no column', async () => {
  const changed = { ...recorded, messagePack: '3.1.99', date: '2001-02-03T00:00:00Z',
    compare: recorded.compare.map((c, i) => ({ ...c, small: 1000 + i, big: 2_000_000 + i })) };
  const route = (body) => (r) => (body === null ? r.fulfill({ status: 404, body: '' })
    : r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) }));
  await env.browser.ctx.route('**/recorded/dotnet-peer.json', route(changed));
  try {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded${HASH}`);
    const { head, rows } = await table(page);
    assert.equal(head.at(-1), `MessagePack-CSharp 3.1.99, measured (recorded 2001-02-03; ${recorded.dotnet}, ${recorded.os}, ${recorded.cores} cores)`);
    assert.deepEqual(rows.map((r) => r.at(-1)), ['1,000 B / 2,000,000 B', '1,001 B / 2,000,001 B', '1,002 B / 2,000,002 B']);
    await page.close();
    await env.browser.ctx.unroute('**/recorded/dotnet-peer.json');
    await env.browser.ctx.route('**/recorded/dotnet-peer.json', route(null));
    const none = await openPage(env.browser.ctx, `${env.server.url}?recorded${HASH}`);
    const t = await table(none);
    assert.equal(t.head.length, 5);
    assert.equal(t.head.at(-1), 'the document says (.NET)');
    assert.ok(t.rows.every((r) => r.length === 5));
    await none.close();
  } finally {
    await env.browser.ctx.unroute('**/recorded/dotnet-peer.json');
  }
});

// MessagePack-CSharp's big object (400,064 B against the document's
// 100,032 B) comes with the reason docs/dotnet.md gives for it; figures the
// documents do not explain say that the reason is not established.
test('a note under the table says why MessagePack-CSharp allocates 400,064 B for the big object, as docs/dotnet.md does', async () => {
  const docs = readFileSync(new URL('../../docs/dotnet.md', import.meta.url), 'utf8');
  assert.match(docs, /400,064 B/);
  assert.match(docs, /= 300,008/, 'docs/dotnet.md still gives the string reservation as the reason');
  assert.deepEqual(recorded.compare.map((c) => c.big), [400064, 0, 300032], 'the recording holds the figures the docs explain');
  const page = await openPage(env.browser.ctx, `${env.server.url}?recorded${HASH}`);
  try {
    const note = page.locator('.table-note');
    assert.equal(await note.count(), 1);
    assert.equal(await note.isVisible(), true);
    const text = await note.textContent();
    for (const want of [/400,064 B/, /100,032 B/, /Write\(string\)/, /\(100,000 \+ 1\) × 3 \+ 5 = 300,008/, /128 KiB/, /300,032/, /byte\[\] payload/]) {
      assert.match(text, want);
    }
    assert.doesNotMatch(text, /not established/);
  } finally {
    await page.close();
  }
});

test('figures the documents do not explain get a note that says the reason is not established', async () => {
  const changed = { ...recorded, compare: recorded.compare.map((c) => ({ ...c, big: c.big + 8 })) };
  await env.browser.ctx.route('**/recorded/dotnet-peer.json', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(changed) }));
  try {
    const page = await openPage(env.browser.ctx, `${env.server.url}?recorded${HASH}`);
    const text = await page.textContent('.table-note');
    assert.match(text, /the reason is not established/);
    assert.doesNotMatch(text, /300,008/);
    await page.close();
  } finally {
    await env.browser.ctx.unroute('**/recorded/dotnet-peer.json');
  }
});
