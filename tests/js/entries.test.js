// The entries besides encode: encodeInto, encodeToStream, encodeAsync on a
// pthread, stats, close, and the single-threaded build.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

import { createScratchpack, decode } from '../../js/index.js';

const run = promisify(execFile);
const indexUrl = new URL('../../js/index.js', import.meta.url).href;

let sp;
before(async () => { sp = await createScratchpack({ threads: 2 }); });
after(() => sp.close());

describe('encodeInto', () => {
  test('writes at the offset and returns the byte count, exactly filling the target', () => {
    const v = { a: [1, 2, 3], s: 'hello', big: 'z'.repeat(1000) };
    const want = sp.encode(v);
    const t = new Uint8Array(want.length + 5).fill(0xee);
    assert.equal(sp.encodeInto(v, t, 5), want.length);
    assert.deepEqual(t.subarray(5), want);
    assert.deepEqual([...t.subarray(0, 5)], [0xee, 0xee, 0xee, 0xee, 0xee]);
  });

  test('typed arrays go through C and land in the target', () => {
    const v = { ints: Int32Array.from({ length: 5000 }, (_, i) => i * 3), f: Float32Array.of(0.5) };
    const want = sp.encode(v);
    const t = new Uint8Array(want.length);
    assert.equal(sp.encodeInto(v, t), want.length);
    assert.deepEqual(t, want);
  });

  test('long and near-the-end strings fit an exactly sized target and fail one byte short', () => {
    const texts = ['A'.repeat(20000), '한'.repeat(20000), `${'a'.repeat(16383)}😀${'b'.repeat(5000)}`,
      `${'x'.repeat(40)}é`, '😀'.repeat(9000), 'z'.repeat(70000)];
    for (const text of texts) {
      const v = [1, text, 2];
      const want = sp.encode(v);
      const t = new Uint8Array(want.length);
      assert.equal(sp.encodeInto(v, t), want.length);
      assert.deepEqual(t, want);
      assert.throws(() => sp.encodeInto(v, new Uint8Array(want.length - 1)), { code: 'BUFFER_TOO_SMALL' });
      const lease = sp.encodeView(v);
      assert.deepEqual(decode(lease.bytes), v);
      lease.release();
    }
  });

  test('a SharedArrayBuffer target is accepted and gets the same bytes', () => {
    const v = { text: '한국어 text '.repeat(30), n: 5 };
    const want = sp.encode(v);
    const t = new Uint8Array(new SharedArrayBuffer(want.length + 8));
    assert.equal(sp.encodeInto(v, t, 8), want.length);
    assert.deepEqual(Uint8Array.from(t.subarray(8)), want);
  });
});

describe('encodeToStream', () => {
  test('a Node Writable with back-pressure gets every segment in order', async () => {
    const chunks = [];
    const w = new Writable({
      highWaterMark: 1024,
      write(chunk, _enc, done) { chunks.push(chunk); setImmediate(done); },
    });
    const v = Array.from({ length: 30000 }, (_, i) => ({ i, s: `value ${i}` }));
    const n = await sp.encodeToStream(v, w);
    const all = Buffer.concat(chunks);
    assert.equal(n, all.length);
    assert.ok(chunks.length > 1);
    assert.deepEqual(decode(all), v);
  });

  test('a WHATWG WritableStream gets the message', async () => {
    const chunks = [];
    const ws = new WritableStream({ write(c) { chunks.push(c); } });
    const n = await sp.encodeToStream({ hello: 'stream' }, ws);
    assert.equal(n, chunks.reduce((a, c) => a + c.length, 0));
    assert.deepEqual(decode(Buffer.concat(chunks)), { hello: 'stream' });
  });

  test('a stream error rejects, and a bad value rejects before anything is written', async () => {
    const w = new Writable({ write(_c, _e, done) { done(new Error('disk full')); } });
    w.on('error', () => {});
    await assert.rejects(sp.encodeToStream([1], w), /disk full/);
    const chunks = [];
    const ok = new Writable({ write(c, _e, done) { chunks.push(c); done(); } });
    await assert.rejects(sp.encodeToStream([1, () => 2], ok), { code: 'UNSUPPORTED_TYPE', path: '[1]' });
    assert.equal(chunks.length, 0);
    await assert.rejects(sp.encodeToStream(1, {}), { code: 'INVALID_ARGUMENT' });
  });
});

describe('encodeAsync', () => {
  test('a large numeric array is encoded on a pthread to the same bytes', async () => {
    assert.equal(sp.threads, 2);
    const ints = Int32Array.from({ length: 1000000 }, (_, i) => (i * 2654435761) | 0);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const bytes = await sp.encodeAsync(ints);
    clearInterval(timer);
    assert.deepEqual(bytes, sp.encode(ints));
    assert.deepEqual(decode(bytes, { typedArrays: Int32Array }), ints);
  });

  test('several arrays at once all come back right', async () => {
    const arrays = [Float64Array, Uint16Array, Int8Array, BigInt64Array, Float32Array, Uint32Array].map(
      (C) => C.from({ length: 20000 }, (_, i) => (C === BigInt64Array ? BigInt(i) * 1000003n : i % 100)));
    const out = await Promise.all(arrays.map((a) => sp.encodeAsync(a)));
    out.forEach((b, i) => assert.deepEqual(b, sp.encode(arrays[i])));
  });

  test('other values are encoded here and still resolve', async () => {
    assert.deepEqual(decode(await sp.encodeAsync({ a: 1 })), { a: 1 });
    await assert.rejects(sp.encodeAsync({ f() {} }), { code: 'UNSUPPORTED_TYPE' });
  });

  test('an aborted signal rejects with CANCELLED', async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(sp.encodeAsync(new Float64Array(10), { signal: ac.signal }), { code: 'CANCELLED' });
    const ac2 = new AbortController();
    const p = sp.encodeAsync(new Float64Array(2000000), { signal: ac2.signal });
    ac2.abort();
    await assert.rejects(p, { code: 'CANCELLED' });
  });
});

test('stats report the C counters: a warm encode under the scratch allocates nothing in C', () => {
  sp.encode({ warm: 1 });
  const s0 = sp.stats();
  for (let i = 0; i < 100; i++) sp.encode({ Id: i, Name: 'hello' });
  const s1 = sp.stats();
  assert.equal(s1.alloc.allocCalls, s0.alloc.allocCalls);
  assert.equal(s1.pool.rents, s0.pool.rents);
  assert.equal(s1.kernel, 'simd128');
  assert.equal(s1.heap.size, sp._m.spMemory.buffer.byteLength);   // memory grows: its size now
  sp.encode(Array.from({ length: 20000 }, (_, i) => `x${i}`));   // past the scratch: a sequence is rented
  assert.ok(sp.stats().sequences.rents > s1.sequences.rents);
});

test('options are checked', async () => {
  await assert.rejects(createScratchpack({ threads: -1 }), { code: 'INVALID_ARGUMENT' });
  await assert.rejects(createScratchpack({ pool: 'arena' }), { code: 'INVALID_ARGUMENT' });
  await assert.rejects(createScratchpack({ pool: { kind: 'bucket', perBucket: 0 } }), { code: 'INVALID_ARGUMENT' });
  await assert.rejects(createScratchpack({ wasm: 'single', threads: 1 }), { code: 'INVALID_ARGUMENT' });
});

test('a small scratch over each pool kind still gives the same bytes, counted by that pool', async () => {
  const v = { Id: 1, Name: 'hello', list: Array.from({ length: 3000 }, (_, i) => i), s: 'q'.repeat(200000) };
  for (const pool of [{ kind: 'bucket', maxLength: 4096, perBucket: 4 }, 'shared', 'lockfree']) {
    const small = await createScratchpack({ scratchSize: 8, pool });
    assert.deepEqual(small.encode(v), sp.encode(v));
    const st = small.stats();
    assert.ok(st.sequences.rents >= 1 && st.pool.rents >= 1, JSON.stringify(pool));
    assert.equal(st.pool.rents, st.pool.returns);
    small.close();
  }
});

test('the single-threaded build encodes and decodes, with views of unshared memory', async () => {
  const st = await createScratchpack({ wasm: 'single' });
  assert.equal(st.threaded, false);
  const v = { a: [1, 'two', 3.5], t: Int16Array.of(1, -1) };
  assert.deepEqual(st.encode(v), sp.encode(v));
  const lease = st.encodeView(v);
  assert.equal(lease.bytes.buffer instanceof SharedArrayBuffer, false);
  lease.release();
  assert.deepEqual(await st.encodeAsync(Int32Array.of(1, 2)), sp.encode(Int32Array.of(1, 2)));
  st.close();
});

test('after close() calls fail with CLOSED and pending async encodes reject with CLOSED', async () => {
  const c = await createScratchpack({ threads: 1 });
  const pending = c.encodeAsync(new Float64Array(3000000));
  c.close();
  await assert.rejects(pending, { code: 'CLOSED' });
  assert.throws(() => c.encode(1), { code: 'CLOSED' });
});

describe('process exit', () => {
  const script = (body) => `import { createScratchpack } from ${JSON.stringify(indexUrl)};\n${body}`;
  const node = (body) => run(process.execPath, ['--input-type=module', '-e', script(body)], { timeout: 20000 });

  test('close() lets a process with worker threads exit', async () => {
    const { stdout } = await node(`const sp = await createScratchpack({ threads: 2 });
      const b = await sp.encodeAsync(new Int32Array(100000));
      console.log(b.length); sp.close();`);
    assert.equal(stdout.trim(), '100005');
  });

  test('a process that forgets close() still exits once idle', async () => {
    const { stdout } = await node(`const sp = await createScratchpack({ threads: 2 });
      console.log((await sp.encodeAsync(Int8Array.of(1, 2))).length);`);
    assert.equal(stdout.trim(), '3');
  });
});

