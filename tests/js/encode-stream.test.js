// encodeToStream streams: the message reaches the writable while it is
// encoded, segment by segment, honouring back-pressure, with the same bytes
// as encode(), for Node Writables and WHATWG WritableStreams; errors carry
// the path and the writable keeps the prefix. The 2,000,000-record RSS
// figure runs in a child process (tests/js/stream-rss-child.mjs).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

import { createScratchpack, decode } from '../../js/index.js';
import { randomValue, rng } from './helpers.js';

const run = promisify(execFile);

let sp;
before(async () => { sp = await createScratchpack(); });
after(() => sp.close());

const records = (n, from = 0) => Array.from({ length: n }, (_, k) => {
  const i = from + k;
  return { id: i, name: `name-${String(i).padStart(11, '0')}`, score: i / 7, tags: ['a', 'bb', 'ccc'] };
});

// A Node Writable that records what it gets and when; 'slow' finishes each write later.
function nodeSink({ highWaterMark = 16384, slow = false, onWrite = () => {} } = {}) {
  const chunks = [];
  const w = new Writable({
    highWaterMark,
    write(chunk, _enc, done) {
      chunks.push(chunk);
      onWrite(chunk);
      if (slow) setTimeout(done, 1); else setImmediate(done);
    },
  });
  return { w, chunks, bytes: () => Buffer.concat(chunks) };
}

// A Node sink that also records the most WASM held above its level now, and the biggest chunk.
function watchedSink() {
  const before = sp.stats().heap.used;
  const seen = { most: 0, biggest: 0 };
  const sink = nodeSink({
    onWrite(c) {
      seen.most = Math.max(seen.most, sp.stats().heap.used - before);
      seen.biggest = Math.max(seen.biggest, c.length);
    },
  });
  return { ...sink, seen };
}

// A WHATWG WritableStream whose sink is slow and records what it gets.
function whatwgSink(highWaterMark = 2) {
  const chunks = [];
  const ws = new WritableStream({
    write(c) {
      chunks.push(c);
      return new Promise((resolve) => setTimeout(resolve, 1));
    },
  }, new CountQueuingStrategy({ highWaterMark }));
  return { ws, chunks, bytes: () => Buffer.concat(chunks) };
}

describe('encodeToStream writes the bytes encode() writes', () => {
  const next = rng(1234);
  const values = [
    null, 7, 'short', 'x'.repeat(300000), new Uint8Array(200000).fill(9), Float64Array.from({ length: 50000 }, (_, i) => i / 3),
    records(20000),
    { meta: { n: 3 }, data: records(5000), tail: 'end' },
    { result: { items: Array.from({ length: 3000 }, (_, i) => [i, `v${i}`, { deep: [i, [i]] }]) } },
    new Map(Array.from({ length: 2000 }, (_, i) => [i % 2 ? `k${i}` : i, records(2, i)])),
    Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key${i}`, i % 7 ? i : 'seven'.repeat(i % 50)])),
    Array.from({ length: 100 }, () => randomValue(next, 0, { bigint: true, maps: true, dates: true })),
    [[], {}, new Map(), [[[]]], Array.from({ length: 70 }, () => [])],
  ];

  test('into a Node Writable with back-pressure', async () => {
    for (const v of values) {
      const { w, bytes } = nodeSink({ highWaterMark: 1024 });
      const n = await sp.encodeToStream(v, w);
      const want = sp.encode(v);
      assert.equal(n, want.length);
      assert.deepEqual(bytes(), Buffer.from(want));
    }
  });

  test('into a WHATWG WritableStream', async () => {
    for (const v of values.slice(0, 9)) {
      const { ws, bytes } = whatwgSink();
      const n = await sp.encodeToStream(v, ws);
      const want = sp.encode(v);
      assert.equal(n, want.length);
      assert.deepEqual(bytes(), Buffer.from(want));
    }
  });
});

describe('segments go out while the message is encoded', () => {
  test('the writable gets segment-sized chunks and WASM holds no more than a few segments', async () => {
    const v = { data: records(200000) };                      // about 12 MB
    const { w, chunks, seen } = watchedSink();
    const n = await sp.encodeToStream(v, w);
    assert.ok(n > 10e6);
    assert.ok(chunks.length > 100, `${chunks.length} chunks`);
    assert.ok(seen.biggest <= 256 * 1024, `the biggest chunk has ${seen.biggest} bytes`);
    // Encoded whole first, the message itself would sit in WASM: 12 MB.
    assert.ok(seen.most < 1 << 20, `WASM held ${seen.most} bytes more while writing`);
  });

  test('a big bin or str is written in slices: WASM holds a slice, not the value', async () => {
    const emoji = '😀'.repeat(70000);                        // pairs across every slice boundary
    const text = `${'한'.repeat(200000)}${emoji}x${'\ud800'}${'a'.repeat(1500000)}`;   // a lone surrogate too
    const bin = new Uint8Array(40 << 20).map((_, i) => i * 7);
    const values = [bin, { text }, [1, new DataView(bin.buffer, 3, 3 << 20), bin.buffer.slice(0, 2 << 20), 'z'.repeat(3 << 20)]];
    for (const v of values) {
      const { w, bytes, seen } = watchedSink();
      await sp.encodeToStream(v, w);
      assert.deepEqual(bytes(), Buffer.from(sp.encode(v)));
      assert.ok(seen.most < 1 << 20, `WASM held ${seen.most} bytes more while writing`);
      assert.ok(seen.biggest <= 512 * 1024, `the biggest chunk has ${seen.biggest} bytes`);
    }
  });

  test('Node: write() is never called while the stream waits for drain', async () => {
    let early = 0, writes = 0;
    const { w } = nodeSink({ highWaterMark: 4096, slow: true });
    const write = w.write.bind(w);
    w.write = (chunk, ...rest) => {
      writes++;
      if (w.writableNeedDrain) early++;
      return write(chunk, ...rest);
    };
    await sp.encodeToStream(records(60000), w);
    assert.ok(writes > 50);
    assert.equal(early, 0);
  });

  test('WHATWG: no more chunks are queued than the stream\'s high-water mark allows', async () => {
    const { ws } = whatwgSink(2);
    let queued = 0, most = 0;
    const getWriter = ws.getWriter.bind(ws);
    ws.getWriter = () => {
      const wr = getWriter();
      const write = wr.write.bind(wr);
      wr.write = (c) => {
        most = Math.max(most, ++queued);
        return write(c).finally(() => queued--);
      };
      return wr;
    };
    await sp.encodeToStream(records(60000), ws);
    assert.ok(most >= 1 && most <= 3, `${most} chunks queued at once`);
  });
});

describe('errors mid-stream', () => {
  test('a bad element rejects with its path; the writable holds a prefix of the message', async () => {
    const good = records(30000);
    const bad = good.slice();
    bad[25000] = { ...bad[25000], f: () => 1 };
    const { w, bytes } = nodeSink();
    await assert.rejects(sp.encodeToStream({ data: bad }, w), { code: 'UNSUPPORTED_TYPE', path: '.data[25000].f' });
    const prefix = bytes();
    assert.ok(prefix.length > 0);
    assert.deepEqual(prefix, Buffer.from(sp.encode({ data: good }).subarray(0, prefix.length)));
  });

  test('paths through Maps and objects written entry by entry', async () => {
    const m = new Map(Array.from({ length: 300 }, (_, i) => [`k${i}`, records(2, i)]));
    m.set('k150', [1, Symbol('s')]);
    await assert.rejects(sp.encodeToStream({ m }, nodeSink().w), { code: 'UNSUPPORTED_TYPE', path: '.m.get("k150")[1]' });
    const o = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i]));
    o['odd key'] = new Set();
    await assert.rejects(sp.encodeToStream([o], nodeSink().w), { code: 'UNSUPPORTED_TYPE', path: '[0]["odd key"]' });
  });

  test('a big container that holds itself is a CYCLE; depth is limited as encode limits it', async () => {
    const a = records(100);
    a.push(a);
    await assert.rejects(sp.encodeToStream({ a }, nodeSink().w), { code: 'CYCLE', path: '.a[100]' });
    assert.throws(() => sp.encode({ a }), { code: 'CYCLE', path: '.a[100]' });
    const shallow = await createScratchpack({ limits: { maxDepth: 3 } });
    const nums = () => Array.from({ length: 100 }, (_, i) => i);   // big enough to be entered
    const deep = [nums(), [nums(), [nums()]]];                        // 4 levels
    assert.throws(() => shallow.encode(deep), { code: 'DEPTH_LIMIT', path: '[1][1][0]' });
    await assert.rejects(shallow.encodeToStream(deep, nodeSink().w), { code: 'DEPTH_LIMIT', path: '[1][1][0]' });
    const fits = [nums(), [nums(), nums()]];
    const { w, bytes } = nodeSink();
    await shallow.encodeToStream(fits, w);
    assert.deepEqual(bytes(), Buffer.from(shallow.encode(fits)));
    shallow.close();
  });

  test('a stream that fails or closes mid-way rejects, and the instance goes on working', async () => {
    let n = 0;
    const failing = new Writable({ write(_c, _e, done) { if (++n === 5) done(new Error('disk full')); else done(); } });
    failing.on('error', () => {});
    await assert.rejects(sp.encodeToStream(records(50000), failing), /disk full/);
    let m = 0;
    const closing = new Writable({ write(_c, _e, done) { if (++m === 5) this.destroy(); else setImmediate(done); } });
    await assert.rejects(sp.encodeToStream(records(50000), closing), { code: 'CANCELLED' });
    const ws = new WritableStream({ write() { throw new Error('no room'); } });
    await assert.rejects(sp.encodeToStream(records(50000), ws), /no room/);
    const { w, bytes } = nodeSink();
    await sp.encodeToStream({ ok: 1 }, w);
    assert.deepEqual(decode(bytes()), { ok: 1 });
  });

  test('close() while a stream waits on the writable rejects it with CANCELLED', async () => {
    const c = await createScratchpack();
    const { w } = nodeSink({ slow: true });
    const p = c.encodeToStream(records(50000), w);
    setTimeout(() => c.close(), 20);
    await assert.rejects(p, { code: 'CANCELLED' });
  });

  test('a writable that fails, with no error listener of its own, rejects the call and does not crash the process', async () => {
    const failing = new Writable({ write(_c, _e, done) { done(new Error('disk full')); } });
    await assert.rejects(sp.encodeToStream(records(5000), failing), (e) => e.code === 'SINK' && /disk full/.test(e.cause.message));
    // Node emits the stream's 'error' on a later tick: an unhandled one would end this test file.
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(failing.destroyed);
  });

  test('a Node writable: the call resolves once every chunk is written, and a failure of the last ones rejects it', async () => {
    // A small message is one chunk, accepted at once: its failure comes after write() returned true.
    const late = new Writable({ write(_c, _e, done) { setTimeout(() => done(new Error('disk gone')), 10); } });
    await assert.rejects(sp.encodeToStream([1, 2, 3], late), (e) => e.code === 'SINK' && e.cause.message === 'disk gone');
    const dir = await import('node:fs').then((fs) => fs.mkdtempSync('/tmp/sp-stream-'));
    const { createWriteStream, rmSync } = await import('node:fs');
    try {
      const nowhere = createWriteStream(`${dir}/no/such/dir/x.msgpack`);      // fails to open, after the write
      await assert.rejects(sp.encodeToStream({ rows: [1, 2, 3] }, nowhere), (e) => e.code === 'SINK' && e.cause.code === 'ENOENT');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    let written = 0;
    const slow = new Writable({ highWaterMark: 1 << 20, write(c, _e, done) { setTimeout(() => { written += c.length; done(); }, 5); } });
    const n = await sp.encodeToStream({ a: 'x'.repeat(100000), b: records(100) }, slow);
    assert.equal(written, n, 'every chunk written when the call resolves');
    await new Promise((r) => setTimeout(r, 20));           // and no late 'error' ends this file
  });

  test('a writable that never calls back (duck-typed) or is corked resolves once its chunks are accepted', async () => {
    const { EventEmitter } = await import('node:events');
    const got = [];
    class Duck extends EventEmitter { write(c) { got.push(c); return true; } }   // write(chunk): boolean, as index.d.ts allows
    assert.equal(await sp.encodeToStream({ a: 1 }, new Duck()), 4);
    assert.deepEqual(decode(Buffer.concat(got)), { a: 1 });
    const { w, bytes } = nodeSink();
    w.cork();
    const n = await sp.encodeToStream({ b: 'x'.repeat(1000) }, w);        // Node calls back only after uncork()
    w.uncork();
    await new Promise((r) => setImmediate(r));
    assert.equal(bytes().length, n);
  });

  test('a writable closed before the call is CANCELLED, WHATWG as Node', async () => {
    const ws = new WritableStream({ write() {} });
    const w = ws.getWriter();
    await w.close();
    w.releaseLock();
    await assert.rejects(sp.encodeToStream([1, 2], ws), { code: 'CANCELLED' });
    const ended = new Writable({ write(_c, _e, done) { done(); } });
    ended.end();
    await assert.rejects(sp.encodeToStream([1, 2], ended), { code: 'CANCELLED' });
  });

  test('close() stops a stream whose writable never drains: CANCELLED at once (Node and WHATWG)', async () => {
    const c = await createScratchpack();
    const stuck = new Writable({ highWaterMark: 1024, write() {} });   // never calls back
    const p = c.encodeToStream(records(20000), stuck);
    const ws = new WritableStream({ write: () => new Promise(() => {}) }, { highWaterMark: 1 });
    const q = c.encodeToStream(records(20000), ws);
    setTimeout(() => c.close(), 20);
    await assert.rejects(p, { code: 'CANCELLED' });
    await assert.rejects(q, { code: 'CANCELLED' });
  });

  test('a Map that loses entries while it waits is refused, not written short', async () => {
    const m = new Map(Array.from({ length: 40000 }, (_, i) => [i, `value ${i}`]));
    const { w } = nodeSink({ slow: true, onWrite: () => { for (const k of [...m.keys()].slice(-5000)) m.delete(k); } });
    await assert.rejects(sp.encodeToStream(m, w), { code: 'INVALID_ARGUMENT' });
  });
});

test('2,000,000 records into a slow Writable grow RSS by less than 96 MiB', { timeout: 240000 }, async () => {
  const script = new URL('./stream-rss-child.mjs', import.meta.url).pathname;
  // The young generation at Node 20's and 22's 16 MiB semi-spaces: Node 24's
  // V8 lets them grow further (+40 MiB of RSS here, the same with any encoder),
  // and the bound is about what the stream holds, not that policy.
  const { stdout } = await run(process.execPath, ['--expose-gc', '--max-semi-space-size=16', script, '2000000'],
    { timeout: 230000, maxBuffer: 1 << 20 });
  const r = JSON.parse(stdout);
  console.log(`# encodeToStream, 2,000,000 records (${r.bytes} bytes, ${r.chunks} chunks): RSS +${r.growthMiB} MiB`);
  assert.equal(r.bytes, r.expected);
  assert.ok(r.growthMiB < 96, `RSS grew by ${r.growthMiB} MiB`);
});
