// Linear memory: it starts small and grows on demand in both builds, up to
// maxMemory; views made before growth stay valid (pthread build); a
// single-threaded build's lease is an array of its own; addresses above 2
// GiB work; what the pools and staging keep is capped, so the heap comes
// back after big messages, and trim() gives back everything cached. The
// tests that grow memory with one big message set bigMessage: Infinity (by
// default such a message is written to JS memory instead: big.test.js and
// big-message.test.js).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';

const MiB = 1 << 20;
const builds = ['threads', 'single'];

// n bytes with a pattern that catches misplaced or lost chunks.
function pattern(n, seed = 1) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i += 4093) b[i] = (i / 4093 + seed) & 0xff;
  b[n - 1] = 0x5a;
  return b;
}

const sameBytes = (a, b) => a.length === b.length && Buffer.compare(a, b) === 0;

for (const wasm of builds) {
  test(`${wasm}: memory starts small and grows on demand; heap.size is its size now`, async () => {
    const sp = await createScratchpack({ wasm, bigMessage: Infinity });
    const s0 = sp.stats();
    assert.ok(s0.heap.size <= 32 * MiB, `initial ${s0.heap.size}`);
    assert.equal(s0.heap.max, 2 ** 32 - 65536);              // the wasm32 limit by default
    const big = pattern(48 * MiB);
    const bytes = sp.encode([1, big]);
    const s1 = sp.stats();
    assert.ok(s1.heap.size > 48 * MiB && s1.heap.size > s0.heap.size);
    assert.equal(s1.heap.size, sp._m.spMemory.buffer.byteLength);
    const back = decode(bytes);
    assert.equal(back[0], 1);
    assert.ok(sameBytes(back[1], big));
    sp.close();
  });

  test(`${wasm}: maxMemory caps growth: past it NOMEM names the cap, and memory stays under it`, async () => {
    const sp = await createScratchpack({ wasm, maxMemory: 48 * MiB, bigMessage: Infinity });
    assert.equal(sp.stats().heap.max, 48 * MiB);
    assert.throws(() => sp.encode(pattern(64 * MiB)),
      (e) => e.code === 'NOMEM' && /of at most 48\.0 MiB \(maxMemory\)/.test(e.message));
    assert.ok(sp.stats().heap.size <= 48 * MiB);
    const ok = pattern(16 * MiB, 2);
    assert.ok(sameBytes(decode(sp.encode(ok)), ok));          // below the cap all is well
    assert.ok(sp.stats().heap.size <= 48 * MiB);
    sp.close();
  });
}

test('compressing, running out of memory is NOMEM naming the cap on every entry, not INTERNAL', async () => {
  // 12 MiB that do not compress: the plain message fits in 32 MiB, the
  // compressed copy beside it does not. C records that failure on its
  // output writer, which the package did not read.
  const bin = new Uint8Array(12 * MiB);
  for (let i = 0, x = 1; i < bin.length; i++) { x = (x * 1664525 + 1013904223) >>> 0; bin[i] = x >>> 24; }
  const nomem = (e) => e.code === 'NOMEM' && /of at most 32\.0 MiB \(maxMemory\)/.test(e.message);
  for (const compression of ['lz4block', 'lz4blockarray']) {
    const sp = await createScratchpack({ maxMemory: 32 * MiB, compression, bigMessage: Infinity });
    try {
      assert.throws(() => sp.encode(bin), nomem, `${compression}: encode`);
      assert.throws(() => sp.encodeView(bin), nomem, `${compression}: encodeView`);
      assert.throws(() => sp.encodeInto(bin, new Uint8Array(13 * MiB)), nomem, `${compression}: encodeInto`);
      await assert.rejects(sp.encodeToStream(bin, new Writable({ write(_c, _e, cb) { cb(); } })), nomem, `${compression}: encodeToStream`);
      const small = bin.subarray(0, MiB);
      assert.ok(sameBytes(decode(sp.encode(small)), small), `${compression}: still usable`);
    } finally {
      sp.close();
    }
  }
});

test('threads: a worker pthread\'s allocations honour the same cap', async () => {
  const sp = await createScratchpack({ wasm: 'threads', threads: 1, maxMemory: 64 * MiB });
  // 32 MiB staged here fits; the 36 MiB result the worker writes does not.
  await assert.rejects(sp.encodeAsync(new Float64Array(4 * MiB)), { code: 'NOMEM' });
  assert.ok(sp.stats().heap.size <= 64 * MiB);
  const small = await sp.encodeAsync(Float64Array.of(1.5, 2));
  assert.deepEqual(decode(small), [1.5, 2]);
  sp.close();
});

test('threads: a lease\'s view made before memory grew stays valid (shared memory keeps it)', async () => {
  const sp = await createScratchpack({ wasm: 'threads', bigMessage: Infinity });
  const lease = sp.encodeView({ id: 7, name: 'before growth' });
  const view = lease.bytes, copy = view.slice();
  const size0 = sp.stats().heap.size;
  sp.encode(pattern(40 * MiB));                               // grows memory
  assert.ok(sp.stats().heap.size > size0);
  assert.equal(lease.bytes, view);                            // the same view, still right
  assert.ok(view.buffer.byteLength < sp.stats().heap.size);   // over the old, shorter buffer
  assert.ok(sameBytes(view, copy));
  assert.deepEqual(decode(view), { id: 7, name: 'before growth' });
  lease.release();
  sp.close();
});

// (It was a view of linear memory: growth detached it, and posting it to a
// worker copied the whole memory.)
test('single: a lease is an array of the message\'s size: growth leaves it whole', async () => {
  const sp = await createScratchpack({ wasm: 'single', bigMessage: Infinity });
  const lease = sp.encodeView({ id: 8, name: 'before growth' });
  const view = lease.bytes, copy = view.slice();
  assert.equal(view.buffer.byteLength, view.length);
  const size0 = sp.stats().heap.size;
  sp.encode(pattern(40 * MiB));                               // grows memory
  assert.ok(sp.stats().heap.size > size0);
  assert.equal(lease.bytes, view);
  assert.ok(sameBytes(view, copy));
  lease.release();
  assert.throws(() => lease.bytes, { code: 'RELEASED' });     // let go
  sp.close();
});

for (const wasm of builds) {
  test(`${wasm}: an encode nested in a getter that grows memory leaves the outer message whole`, async () => {
    const sp = await createScratchpack({ wasm, bigMessage: Infinity });
    let inner;
    const outer = {
      a: 'x'.repeat(100),
      get b() { inner = sp.encode(pattern(40 * MiB)); return 'after the inner encode'; },
      c: [1, 2, 3],
      d: new Int32Array([5, 6, 7]),
    };
    const size0 = sp.stats().heap.size;
    const bytes = sp.encode(outer);
    assert.ok(sp.stats().heap.size > size0);
    assert.deepEqual(decode(bytes), { a: 'x'.repeat(100), b: 'after the inner encode', c: [1, 2, 3], d: [5, 6, 7] });
    assert.equal(inner.length, 40 * MiB + 5);
    const t = new Uint8Array(bytes.length);
    assert.equal(sp.encodeInto(outer, t), bytes.length);      // into a target too
    assert.ok(sameBytes(t, bytes));
    sp.close();
  });

  test(`${wasm}: every entry works with its memory above 2 GiB (pointers read as unsigned)`, async () => {
    const ref = await createScratchpack({ wasm });
    const sp = await createScratchpack({ wasm, threads: wasm === 'threads' ? 1 : 0 });
    // Held, never touched (so no RSS): two blocks, as sbrk grows by less than 2 GiB at a time.
    const hold = [sp._heap.alloc(1088 * MiB, 'holding'), sp._heap.alloc(1088 * MiB, 'holding')];
    const value = { id: 1, list: Array.from({ length: 5000 }, (_, i) => `item ${i}`),
      ints: Int32Array.from({ length: 3000 }, (_, i) => i * 1000 - 7), bin: pattern(300000) };
    const want = ref.encode(value);
    assert.ok(sameBytes(sp.encode(value), want));
    const lease = sp.encodeView(value);
    if (wasm === 'threads') assert.ok(lease.bytes.byteOffset > 2 ** 31, `view at ${lease.bytes.byteOffset}`);
    assert.ok(sameBytes(lease.bytes, want));
    const small = sp.encodeView([1, 'in the scratch']);
    assert.deepEqual(decode(small.bytes), [1, 'in the scratch']);
    small.release();
    lease.release();
    const t = new Uint8Array(want.length);
    assert.equal(sp.encodeInto(value, t), want.length);
    assert.ok(sameBytes(t, want));
    const ints = sp.encode(value.ints);
    assert.deepEqual(sp.decode(ints, { typedArrays: Int32Array }), value.ints);   // C's bulk reader
    const chunks = [];
    await sp.encodeToStream(value, new Writable({ write(c, _e, cb) { chunks.push(c); cb(); } }));
    assert.ok(sameBytes(Buffer.concat(chunks), want));
    assert.ok(sameBytes(await sp.encodeAsync(value.ints), ref.encode(value.ints)));
    const s = sp.stats();
    assert.ok(s.heap.used > 2 * 1024 * MiB && s.heap.size > 2 * 1024 * MiB);   // not wrapped negative
    assert.equal(s.kernel, 'simd128');
    for (const p of hold) sp._heap.free(p, 1088 * MiB);
    sp.close();
    ref.close();
  });
}

// What the heap keeps between calls once big messages have passed: the
// pool's arrays up to cacheLimit (4 MiB), a staging block up to 4 MiB,
// the scratch. (Before the caps, one encodeInto of 3e6 float64s kept 64 MB
// and a 60 MB encode left ~20 MB in the pools.)
test('after big messages heap.used is back within 16 MiB of its warm baseline, with no call', async () => {
  const sp = await createScratchpack({ threads: 1 });
  const warm = { id: 1, name: 'warm', list: [1, 2, 3], s: 'w'.repeat(70000) };
  for (let i = 0; i < 10; i++) { sp.encode(warm); sp.encodeView(warm).release(); }
  const base = sp.stats().heap.used;
  const strings = Array.from({ length: 200000 }, (_, i) => `string number ${i} `.repeat(15));   // ~60 MB
  sp.encode(strings);
  sp.encodeView(strings).release();
  const f64 = new Float64Array(3e6).map((_, i) => i / 3);
  const target = new Uint8Array(27000005);
  assert.equal(sp.encodeInto(f64, target), 27000005);
  await sp.encodeToStream(pattern(30 * MiB), new Writable({ write(_c, _e, cb) { cb(); } }));
  sp.decode(sp.encode(Int32Array.from({ length: 5e6 }, (_, i) => i)), { typedArrays: Int32Array });
  await sp.encodeAsync(f64);
  const s = sp.stats();
  assert.ok(s.heap.used - base < 16 * MiB, `heap.used ${s.heap.used} vs baseline ${base}`);
  assert.ok(s.pool.cachedBytes <= 4 * MiB, `pool keeps ${s.pool.cachedBytes}`);
  assert.ok(s.heap.staging <= 4 * MiB);
  sp.close();
});

test('trim() gives back everything cached and leaves live leases alone', async () => {
  const fresh = await createScratchpack({ wasm: 'single' });
  const sp = await createScratchpack({ wasm: 'single' });
  const lease = sp.encodeView({ keep: 'me', n: [1, 2, 3] });   // holds the scratch
  const copy = lease.bytes.slice();
  sp.encode(Array.from({ length: 100000 }, (_, i) => `s${i}`));
  sp.encodeInto(new Float64Array(500000), new Uint8Array(4500005));
  const before = sp.stats();
  assert.ok(before.pool.cachedBytes > 0 && before.heap.staging > 0);
  const freed = sp.trim();
  const after = sp.stats();
  assert.ok(freed >= before.pool.cachedBytes + before.heap.staging, `freed ${freed}`);
  assert.equal(after.pool.cachedBytes, 0);
  assert.equal(after.pool.cached, 0);
  assert.equal(after.sequences.idle, 0);
  assert.equal(after.heap.staging, 0);
  assert.ok(sameBytes(lease.bytes, copy));                      // the scratch under it was not freed
  assert.ok(after.heap.used - fresh.stats().heap.used < 256 * 1024,
    `after trim ${after.heap.used}, a fresh instance ${fresh.stats().heap.used}`);
  assert.deepEqual(decode(sp.encode({ after: 'trim' })), { after: 'trim' });
  assert.ok(sameBytes(lease.bytes, copy));
  lease.release();
  sp.trim();                                                    // now the scratch goes too
  assert.ok(sp.stats().heap.used <= fresh.stats().heap.used + 4096);
  sp.close();
  fresh.close();
});

test('cacheLimit bounds what the pool keeps: 0 keeps nothing, Infinity only the counts', async () => {
  const value = Array.from({ length: 300000 }, (_, i) => `string ${i} `.repeat(8));   // ~30 MB
  const none = await createScratchpack({ wasm: 'single', cacheLimit: 0 });
  none.encode(value);
  assert.equal(none.stats().pool.cachedBytes, 0);
  assert.ok(none.stats().pool.drops > 0);
  const all = await createScratchpack({ wasm: 'single', cacheLimit: Infinity });
  all.encode(value);
  assert.ok(all.stats().pool.cachedBytes > 8 * MiB, `${all.stats().pool.cachedBytes}`);   // 100 per bucket
  const some = await createScratchpack({ wasm: 'single', cacheLimit: MiB });
  some.encode(value);
  assert.ok(some.stats().pool.cachedBytes <= MiB && some.stats().pool.cachedBytes > 0);
  for (const sp of [none, all, some]) assert.deepEqual(decode(sp.encode(value)), value);
  none.close(); all.close(); some.close();
});

// Typed arrays over 256 KiB are staged and encoded a chunk at a time (the
// header from JS, each chunk's own header dropped): the bytes must be those
// of one C call over the whole array (encodeAsync's sp_to_array), for every
// kind, at every chunk and header boundary, through every entry.
test('typed arrays staged in chunks give the bytes of one C call, every kind and size', async () => {
  const sp = await createScratchpack({ wasm: 'single' });
  const ctors = [Int8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    Float32Array, Float64Array, BigInt64Array, BigUint64Array];
  for (const C of ctors) {
    const per = 256 * 1024 / C.BYTES_PER_ELEMENT;
    for (const n of [0, 15, 16, 65535, 65536, per - 1, per, per + 1, 2 * per + 17]) {
      const a = new C(n);
      for (let i = 0; i < n; i++) {
        const f = (Math.sin(i * 12.9898) * 43758.5453) % 1;
        if (C === BigInt64Array || C === BigUint64Array) a[i] = BigInt(Math.floor(Math.abs(f) * 2 ** 52)) * BigInt(i % 3 ? 1 : 2000);
        else if (C === Float32Array || C === Float64Array) a[i] = f * 1e6;
        else a[i] = Math.floor(f * 2 ** 33);                    // wraps: every integer form
      }
      const want = await sp.encodeAsync(a);
      const what = `${C.name}(${n})`;
      assert.ok(sameBytes(sp.encode(a), want), what);
      const t = new Uint8Array(want.length + 3);
      assert.equal(sp.encodeInto(a, t, 3), want.length, what);
      assert.ok(sameBytes(t.subarray(3), want), what);
      assert.throws(() => sp.encodeInto(a, new Uint8Array(want.length + 2), 3), { code: 'BUFFER_TOO_SMALL' });
      const lease = sp.encodeView([a]);
      assert.ok(sameBytes(lease.bytes.subarray(1), want), what);
      lease.release();
    }
  }
  assert.ok(sp.stats().heap.staging <= 1 << 20);
  sp.close();
});

test('encodeAsync\'s NOMEM says where memory stands, as encode()\'s does (threads 0 and 2)', async () => {
  for (const threads of [0, 2]) {
    const sp = await createScratchpack({ threads, maxMemory: 64 << 20, bigMessage: Infinity });
    try {
      const big = new Float64Array(7 << 20);      // 56 MiB: staged under the cap, not encoded
      await assert.rejects(sp.encodeAsync(big), (e) => e.code === 'NOMEM' &&
        /\(linear memory is [\d.]+ MiB of at most 64\.0 MiB \(maxMemory\)\)$/.test(e.message), `threads ${threads}`);
    } finally {
      sp.close();
    }
  }
});
