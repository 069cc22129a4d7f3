// What a lease costs and where a message lives. A pthread build's lease
// pins a block of linear memory of its message's size (small messages share
// pages through malloc; before, every lease kept a 32 KiB segment or the
// 64 KiB scratch, whatever its size); a single-threaded build's lease is an
// array of the message's size, so posting it to a worker moves only those
// bytes (before, a view of linear memory: postMessage cloned all of it); a
// message past bigMessage is written to JS memory and never grows linear
// memory (which cannot shrink). Byte counts come from stats() (malloc's
// bytes in use, linear memory's size): deterministic, no RSS, no timing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

import { createScratchpack, decode } from '../../js/index.js';

const KiB = 1024;
const same = (a, b) => a.length === b.length && Buffer.compare(a, b) === 0;

// Values whose messages take about n bytes: a map with a string, a bin and a list.
function sized(n, seed) {
  const bin = new Uint8Array(Math.max(0, n - 40)).map((_, i) => (i * 31 + seed) & 0xff);
  return { seed, name: `v${seed}`, bin, list: [seed, -seed, seed / 2] };
}

test('threads: a lease of an n-byte message pins at most n + 64 bytes of linear memory, small or big', async () => {
  const sp = await createScratchpack({ wasm: 'threads' });
  for (const n of [1, 30, 200, 1000, 16 * KiB + 7, 70 * KiB, 300 * KiB]) {
    const leases = [];
    sp.encodeView(sized(n, 0)).release();                   // scratch, segments: taken before the count
    const base = sp.stats().heap.used;
    let bytes = 0;
    const count = n < 1000 ? 2000 : 100;
    for (let i = 0; i < count; i++) {
      const lease = sp.encodeView(n === 1 ? i & 0x7f : sized(n, i));
      bytes += lease.bytes.length;
      leases.push(lease);
    }
    const s = sp.stats();
    assert.equal(s.leases, count);
    assert.equal(s.leaseBytes, bytes);
    const pinned = s.heap.used - base;
    assert.ok(pinned <= bytes + 64 * count, `n ${n}: ${count} leases of ${bytes} bytes pin ${pinned}`);
    for (const l of leases) l.release();
    assert.ok(sp.stats().heap.used - base <= 64 * KiB, `n ${n}: ${sp.stats().heap.used - base} left after release`);
  }
  sp.close();
});

for (const wasm of ['threads', 'single']) {
  test(`${wasm}: leases live beside encodes and releases and read their own message, every size`, async () => {
    const sp = await createScratchpack({ wasm, bigMessage: 256 * KiB });
    const sizes = [1, 20, 500, 16 * KiB - 3, 16 * KiB + 3, 64 * KiB + 1, 200 * KiB, 600 * KiB];
    const live = [];
    for (let i = 0; i < 400; i++) {
      const v = sized(sizes[i % sizes.length], i);
      const want = sp.encode(v);
      const lease = sp.encodeView(v);
      assert.ok(same(lease.bytes, want), `lease ${i}`);
      live.push({ lease, want, v });
      if (i % 3 === 0) live.splice((i * 7) % live.length, 1)[0].lease.release();
      sp.encode({ filler: i, s: 'x'.repeat(i * 37 % 3000) });
    }
    for (const { lease, want, v } of live) {
      assert.ok(same(lease.bytes, want));
      assert.deepEqual(decode(lease.bytes), v);
      lease.release();
    }
    assert.equal(sp.stats().leases, 0);
    sp.close();
  });
}

// What postMessage copies of a Uint8Array is its whole buffer.
async function posted(bytes) {
  const w = new Worker(`const { parentPort } = require('node:worker_threads');
    parentPort.on('message', (v) => parentPort.postMessage({ length: v.length, buffer: v.buffer.byteLength,
      first: v[0], last: v[v.length - 1] }));`, { eval: true });
  try {
    return await new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); w.postMessage(bytes); });
  } finally {
    await w.terminate();
  }
}

test('single: a lease posted to a worker sends the message\'s bytes and no more', async () => {
  const sp = await createScratchpack({ wasm: 'single' });
  for (const v of [{ id: 1, name: 'posted' }, sized(100 * KiB, 3)]) {
    const lease = sp.encodeView(v);
    const n = lease.bytes.length;
    assert.deepEqual(await posted(lease.bytes), { length: n, buffer: n, first: lease.bytes[0], last: lease.bytes[n - 1] });
    lease.release();
  }
  assert.ok(sp.stats().heap.size >= 16 * KiB * KiB);        // what was sent before: all of this
  sp.close();
});

// Every kind of big message, through encode, encodeView and encodeInto:
// the bytes of an instance that keeps it in linear memory, and linear
// memory not grown by it.
for (const wasm of ['threads', 'single']) {
  test(`${wasm}: a message past bigMessage does not grow linear memory, and its bytes are the same`, async () => {
    const ref = await createScratchpack({ wasm, bigMessage: Infinity });
    const sp = await createScratchpack({ wasm, bigMessage: 64 * KiB });
    const bin = new Uint8Array(3 << 20).map((_, i) => i * 7);
    const values = [
      bin,
      'abcdefgh'.repeat(300000),
      ['한국어 텍스트 '.repeat(100000), 1],
      new Float64Array(200000).map((_, i) => i / 3),
      Array.from({ length: 60000 }, (_, i) => ({ id: i, name: `n${i}` })),
      [new Uint8Array(60 * KiB), new Int32Array(100000).map((_, i) => i * 1000), 'tail'],   // crosses mid-way
    ];
    sp.encode({ warm: 'up' });
    const size0 = sp.stats().heap.size;
    for (const v of values) {
      const want = ref.encode(v);
      const got = sp.encode(v);
      assert.ok(same(got, want));
      assert.equal(got.buffer.byteLength, got.length);       // shrunk to the message
      const lease = sp.encodeView(v);
      assert.ok(same(lease.bytes, want));
      assert.equal(lease.bytes.buffer.byteLength, want.length);   // an array of its own
      lease.release();
      const t = new Uint8Array(want.length + 2);
      assert.equal(sp.encodeInto(v, t, 2), want.length);
      assert.ok(same(t.subarray(2), want));
      assert.ok(same(sp.encode({ small: 'after' }), ref.encode({ small: 'after' })));
    }
    assert.equal(sp.stats().heap.size, size0);
    assert.equal(sp.stats().leases, 0);
    ref.close();
    sp.close();
  });
}

test('bigMessage is range-checked', async () => {
  await assert.rejects(createScratchpack({ bigMessage: -1 }), { code: 'INVALID_ARGUMENT' });
  await assert.rejects(createScratchpack({ bigMessage: 2 ** 32 }), { code: 'INVALID_ARGUMENT' });
  await assert.rejects(createScratchpack({ bigMessage: 1.5 }), { code: 'INVALID_ARGUMENT' });
});
