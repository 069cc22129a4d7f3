// The JS package (js/) in Chromium: loaded as an ES module from a
// cross-origin-isolated origin it takes the pthread build; without
// isolation, the single-threaded one. Checks the browser-only paths: the
// module fetches its .wasm, text goes in and out of shared memory although
// Chromium's TextEncoder.encodeInto/TextDecoder refuse shared views, a
// pthread encodes off the main thread, and the streams work with the
// browser's own (WritableStream, a Blob's ReadableStream; no setImmediate).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { startBrowser } from './harness.mjs';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

// Serves /js/ and /dist/ of the repository, and a blank page at /.
function serve(isolated) {
  const server = createServer(async (req, res) => {
    const headers = { 'Cache-Control': 'no-store' };
    if (isolated) Object.assign(headers, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') return res.writeHead(200, { ...headers, 'Content-Type': 'text/html' }).end('<!doctype html><title>sp</title>');
    const file = resolve(root, `.${decodeURIComponent(path)}`);
    if (!/^\/(js|dist)\//.test(path) || !file.startsWith(root + sep)) return res.writeHead(404, headers).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { ...headers, 'Content-Type': types[extname(file)] || 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404, headers).end();
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ url: `http://127.0.0.1:${server.address().port}/`, server })));
}

let browser;
const servers = [];
before(async () => { browser = await startBrowser(); });
after(async () => {
  await browser?.stop();
  for (const s of servers) s.close();
});

async function run(isolated, fn) {
  const s = await serve(isolated);
  servers.push(s.server);
  const page = await browser.ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(s.url);
  const result = await page.evaluate(fn);
  await page.close();
  assert.deepEqual(errors, []);
  return result;
}

test('cross-origin isolated, the package takes the pthread build and round trips text through shared memory', async () => {
  const r = await run(true, async () => {
    const { createScratchpack, decode } = await import('/js/index.js');
    const sp = await createScratchpack({ threads: 1 });
    const text = `${'한국어 텍스트 '.repeat(20)}😀`;
    const value = { text, long: 'é'.repeat(30000), n: [1, 2.5, -3], when: new Date(1500) };
    const bytes = sp.encode(value);
    const shared = new Uint8Array(new SharedArrayBuffer(bytes.length + 4));
    const n = sp.encodeInto(value, shared, 4);
    const lease = sp.encodeView(value);
    const fromView = decode(lease.bytes);                 // text decoded out of shared memory
    lease.release();
    const async = await sp.encodeAsync(Int32Array.from({ length: 100000 }, (_, i) => i));
    const out = {
      isolated: crossOriginIsolated, threaded: sp.threaded,
      intoSame: n === bytes.length && shared.slice(4).every((b, i) => b === bytes[i]),
      viewText: fromView.text === text && fromView.long === value.long,
      when: decode(bytes).when.getTime(),
      async: decode(async, { typedArrays: Int32Array }).length,
      kernel: sp.stats().kernel,
    };
    sp.close();
    return out;
  });
  assert.deepEqual(r, { isolated: true, threaded: true, intoSame: true, viewText: true, when: 1500, async: 100000, kernel: 'simd128' });
});

test('without isolation the package falls back to the single-threaded build', async () => {
  const r = await run(false, async () => {
    const { createScratchpack, decode } = await import('/js/index.js');
    const sp = await createScratchpack();
    const v = { a: 'hello', b: Float64Array.of(0.5, 1.5) };
    const out = { isolated: crossOriginIsolated, threaded: sp.threaded, back: decode(sp.encode(v)) };
    let refused = '';
    try { await createScratchpack({ threads: 2 }); } catch (e) { refused = e.code; }
    out.refused = refused;
    sp.close();
    return out;
  });
  assert.deepEqual(r, { isolated: false, threaded: false, back: { a: 'hello', b: [0.5, 1.5] }, refused: 'INVALID_ARGUMENT' });
});

test('streams in the browser: encodeToStream into a WritableStream, decodeStream over a fetch body, queued encodeAsync', async () => {
  const r = await run(true, async () => {
    const { createScratchpack, decodeStream } = await import('/js/index.js');
    const sp = await createScratchpack({ threads: 1 });
    const rows = Array.from({ length: 20000 }, (_, i) => ({ id: i, name: `row ${i}` }));
    const chunks = [];
    const ws = new WritableStream({ write(c) { chunks.push(c); return new Promise((ok) => setTimeout(ok, 0)); } },
      new CountQueuingStrategy({ highWaterMark: 2 }));
    const n = await sp.encodeToStream(rows, ws);
    const body = new Blob([...chunks, sp.encode('end')]).stream();   // a ReadableStream, in the browser's chunks
    const back = [];
    for await (const v of decodeStream(body)) back.push(v);
    const calls = await Promise.allSettled(Array.from({ length: 200 }, () => sp.encodeAsync(new Float64Array(50000))));
    const out = {
      chunks: chunks.length > 5, bytes: n === chunks.reduce((a, c) => a + c.length, 0),
      rows: back.length === 2 && back[0].length === 20000 && back[0][19999].name === 'row 19999', end: back[1],
      queued: calls.every((c) => c.status === 'fulfilled' && c.value.length === 450003),
    };
    sp.close();
    return out;
  });
  assert.deepEqual(r, { chunks: true, bytes: true, rows: true, end: 'end', queued: true });
});

test('the module-level entries in the browser: NOT_READY before ready(), then encode works; encodeToStream waits by itself', async () => {
  const r = await run(false, async () => {
    const { decode, encode, encodeInto, encodeToStream, ready } = await import('/js/index.js');
    let before = '';
    try { encode(1); } catch (e) { before = e.code; }
    const chunks = [];
    const streamed = await encodeToStream({ s: 'streamed' }, new WritableStream({ write(c) { chunks.push(c); } }));
    await ready();
    const target = new Uint8Array(16);
    const n = encodeInto([1, 'two'], target);
    return {
      before, streamed: decode(new Uint8Array(await new Blob(chunks).arrayBuffer())).s, n: streamed > 0 && n,
      back: decode(encode({ hello: 'page', t: Int32Array.of(1, 2) })), into: decode(target.subarray(0, n)),
    };
  });
  assert.deepEqual(r, { before: 'NOT_READY', streamed: 'streamed', n: 6, back: { hello: 'page', t: [1, 2] }, into: [1, 'two'] });
});
