// loading.test.mjs -- what one load of the page costs: every request its
// document and workers (the page's worker and the module's pthread workers)
// make is counted through playwright; no URL is fetched twice in a load,
// the first load makes at most 21 requests, and every file is served with
// a validator (ETag, `no-cache`) so that the next load is answered 304
// without a body. blob: URLs are counted apart: they are the module's
// in-memory copies the pthread workers start from, no request to a server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goHash, ready, useBrowser } from './harness.mjs';

const MAX_REQUESTS = 21;

const env = useBrowser();

// Every http request of one load of the page (the document's, its workers')
// with its response headers, in order.
async function load() {
  const seen = [];
  const onRequest = (r) => { if (/^https?:/.test(r.url())) seen.push(r); };
  env.browser.ctx.on('request', onRequest);
  const page = await env.browser.ctx.newPage();
  try {
    await page.goto(env.server.url);
    await ready(page);
  } finally {
    env.browser.ctx.off('request', onRequest);
  }
  const out = [];
  for (const r of seen) {
    const res = await r.response();
    out.push({ url: r.url().replace(env.server.url, '/'), status: res?.status(), headers: res ? await res.allHeaders() : {} });
  }
  await page.close();
  return out;
}

test('one load fetches each file once, at most 21 requests, each with a validator', async () => {
  const reqs = await load();
  const urls = reqs.map((r) => r.url);
  const twice = urls.filter((u, i) => urls.indexOf(u) !== i);
  assert.deepEqual([...new Set(twice)], [], 'fetched more than once in one load');
  assert.ok(urls.length <= MAX_REQUESTS, `${urls.length} requests: ${urls.join(' ')}`);
  for (const u of ['/', '/app.js', '/worker.js', '/dist-web/scratchpack-flows.mjs', '/dist-web/scratchpack-flows.wasm']) {
    assert.ok(urls.includes(u), `${u} was not loaded (${urls.join(' ')})`);
  }
  for (const r of reqs) {
    assert.equal(r.status, 200, r.url);
    assert.match(r.headers.etag || '', /^"[^"]+"$/, `${r.url}: no ETag`);
    assert.equal(r.headers['cache-control'], 'no-cache', r.url);
  }
});

test('a file that did not change is answered 304 with no body; a changed tag gets the file', async () => {
  const reqs = await load();
  for (const r of reqs) {
    const url = new URL(r.url.slice(1), env.server.url);
    const same = await fetch(url, { headers: { 'If-None-Match': r.headers.etag } });
    assert.equal(same.status, 304, r.url);
    assert.equal((await same.arrayBuffer()).byteLength, 0, r.url);
    const other = await fetch(url, { headers: { 'If-None-Match': '"not-this-one"' } });
    assert.equal(other.status, 200, r.url);
    assert.equal(other.headers.get('etag'), r.headers.etag, r.url);
    await other.arrayBuffer();
  }
});

test('opening the fan-out and switching its cases fetches its recorded files once', async () => {
  const seen = [];
  const onRequest = (r) => { if (/^https?:/.test(r.url())) seen.push(r.url().replace(env.server.url, '/')); };
  env.browser.ctx.on('request', onRequest);
  const page = await env.browser.ctx.newPage();
  try {
    await page.goto(`${env.server.url}?recorded#flow=fanout&case=shared`);
    await ready(page);
    for (const c of ['lockfree', 'nopool', 'shared']) {
      await goHash(page, `#flow=fanout&case=${c}`);
    }
  } finally {
    env.browser.ctx.off('request', onRequest);
  }
  const twice = seen.filter((u, i) => seen.indexOf(u) !== i);
  assert.deepEqual([...new Set(twice)], [], 'fetched more than once');
  assert.ok(seen.includes('/recorded/fanout.json') && seen.includes('/recorded/pools-native.json'), seen.join(' '));
  await page.close();
});
