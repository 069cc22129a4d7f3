// A message past bigMessage is built in JS memory (sink-out.js): its result
// is an ArrayBuffer of fixed length like every other (fetch bodies refuse a
// resizable one on Node 20 and 22, structuredClone on all), and the
// messages after it start in the scratch again once one is small (the
// entry no longer starts every later message in a new JS buffer).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';

const fixed = (b) => b.buffer.resizable !== true && b.byteLength === b.length;

test('a message past bigMessage comes back in a fixed-length buffer, and later small ones in the pooled scratch', async () => {
  const sp = await createScratchpack({ bigMessage: 200000, results: 'pooled' });
  try {
    for (const big of ['x'.repeat(300000), Array.from({ length: 100000 }, (_, i) => i), [new Uint8Array(250000).fill(1)]]) {
      const b = sp.encode(big);
      assert.ok(b.length > 200000);
      assert.ok(fixed(b) && b.byteOffset === 0 && b.buffer.byteLength === b.length, 'the big result owns a fixed buffer of its size');
      assert.equal(structuredClone(b).length, b.length);
      assert.deepEqual(decode(b), big);
      const first = sp.encode({ a: 1 }), second = sp.encode({ b: 2 });
      assert.ok(first.buffer.resizable !== true && second.buffer.resizable !== true);
      assert.deepEqual([decode(first), decode(second)], [{ a: 1 }, { b: 2 }]);
      // The second small one is a view of the pooled array, as before the big one.
      assert.equal(second.buffer.byteLength, 32768, 'the message after a small one starts in the scratch');
      assert.equal(new Response(second).constructor.name, 'Response');
    }
    const lease = sp.encodeView('y'.repeat(300000));
    assert.ok(lease.bytes.buffer.resizable !== true);
    lease.release();
  } finally {
    sp.close();
  }
});

test('a message that fails after a big one sends the next back to the scratch too', async () => {
  const sp = await createScratchpack({ bigMessage: 200000, results: 'pooled' });
  try {
    sp.encode('x'.repeat(300000));
    assert.throws(() => sp.encode({ f() {} }), { code: 'UNSUPPORTED_TYPE' });
    const small = sp.encode({ a: 1 });
    assert.equal(small.buffer.byteLength, 32768, 'started in the pooled scratch, not in a new JS buffer');
  } finally {
    sp.close();
  }
});

test('a lease after a message past bigMessage is in shared linear memory, as every lease under bigMessage is', async () => {
  const sp = await createScratchpack({ threads: 1, bigMessage: 200000 });
  try {
    const sharedLease = (v) => {
      const l = sp.encodeView(v);
      const shared = l.bytes.buffer instanceof SharedArrayBuffer;
      assert.deepEqual(decode(l.bytes), v);
      l.release();
      return shared;
    };
    assert.equal(sharedLease({ a: 1 }), true, 'a lease in the threaded build');
    for (const big of ['x'.repeat(300000), Array.from({ length: 100000 }, (_, i) => i)]) {
      assert.ok(sp.encode(big).length > 200000);
      assert.equal(sharedLease({ a: 1 }), true, 'the lease right after a big encode()');
      assert.ok(sp.encodeView(big).bytes.length > 200000);
      assert.equal(sharedLease({ b: 2 }), true, 'the lease right after a big lease');
      assert.equal(sharedLease('y'.repeat(150000)), true, 'a lease under bigMessage after a big one');
    }
  } finally {
    sp.close();
  }
});

test('a lease past bigMessage is an array of its own wherever it was written: the JS scratch, C\'s scratch or segments', async () => {
  for (const big of [0, 1000, 20000]) {
    const sp = await createScratchpack({ threads: 1, bigMessage: big });
    try {
      // 35 B to 300 KB: in the 16 KiB JS scratch, in C's 64 KiB scratch, in pooled segments.
      for (const n of [10, 990, 1010, 5000, 19990, 20010, 40000, 300000]) {
        const v = 'z'.repeat(n);
        const l = sp.encodeView(v);
        const length = l.bytes.length;
        assert.equal(l.bytes.buffer instanceof SharedArrayBuffer, length <= big, `bigMessage ${big}, a lease of ${length} B`);
        assert.equal(decode(l.bytes), v);
        l.release();
      }
      assert.equal(sp.stats().leases, 0);
    } finally {
      sp.close();
    }
  }
});
