// The boundary between JS and C: every size and count is checked in JS
// before it reaches C (a JS number past 2^32 wraps in the i32 conversion:
// 2^32 + 8 arrives as 8), options are range-checked and unknown names
// refused, C refuses pool sizes whose tables would wrap, and a heap that
// is full is NOMEM, never the caller's BUFFER_TOO_SMALL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';
import { Heap, HeapSink } from '../../js/sinks.js';

const MiB = 1 << 20;
let sp;
before(async () => { sp = await createScratchpack({ threads: 1 }); });
after(() => sp.close());

const invalid = (re) => (e) => e.code === 'INVALID_ARGUMENT' && re.test(e.message);

// Replaces the module's exports that take sizes with spies recording their calls.
function spy(m, names) {
  const calls = Object.fromEntries(names.map((n) => [n, []]));
  const real = {};
  for (const n of names) {
    real[n] = m[n];
    m[n] = (...args) => { calls[n].push(args); return real[n](...args); };
  }
  return { calls, restore() { for (const n of names) m[n] = real[n]; } };
}
const SIZED = ['_sp_wasm_alloc', '_sp_wasm_reserve', '_sp_wasm_write_array', '_sp_wasm_encode_array',
  '_sp_wasm_read_array'];

describe('options', () => {
  test('an unknown option name is INVALID_ARGUMENT naming it (and what was meant)', async () => {
    await assert.rejects(createScratchpack({ trheads: 2 }), invalid(/unknown option 'trheads' \(did you mean threads\?\)/));
    await assert.rejects(createScratchpack({ pool: { kind: 'bucket', perBuckets: 4 } }),
      invalid(/unknown pool option 'perBuckets'/));
    await assert.rejects(createScratchpack({ limits: { maxDeep: 3 } }), invalid(/unknown limit 'maxDeep'/));
    assert.throws(() => sp.decode(Uint8Array.of(1), { typedArray: Int32Array }), invalid(/unknown decode option 'typedArray'/));
    assert.throws(() => decode(Uint8Array.of(1), { maxDepht: 3 }), invalid(/unknown decode option 'maxDepht'/));
  });

  test('an explicit undefined decode option is INVALID_ARGUMENT naming it, as the README says', () => {
    for (const k of ['extensions', 'contract', 'maps', 'maxDepth'])
      assert.throws(() => decode(Uint8Array.of(1), { [k]: undefined }), invalid(new RegExp(`decode option '${k}' is undefined`)));
    assert.equal(decode(Uint8Array.of(1), { extensions: null }), 1);
  });

  test("an instance's own decode hooks are not options a caller can name", () => {
    const ints = sp.encode(Array.from({ length: 300 }, (_, i) => i));
    for (const name of ['bulkRead', 'inflate'])
      for (const value of ['x', () => null]) {
        assert.throws(() => sp.decode(ints, { [name]: value, typedArrays: Int32Array }), invalid(new RegExp(`unknown decode option '${name}'`)));
        assert.throws(() => decode(ints, { [name]: value }), invalid(new RegExp(`unknown decode option '${name}'`)));
      }
    assert.deepEqual(sp.decode(ints, { typedArrays: Int32Array }), Int32Array.from({ length: 300 }, (_, i) => i));
  });

  test('pool sizes are range-checked, with the limit in the message', async () => {
    const cases = [
      [{ kind: 'bucket', perBucket: 2 ** 30 + 1000 }, /perBucket must be an integer in 1\.\.65536/],
      [{ kind: 'bucket', perBucket: 2 ** 32 + 5 }, /perBucket/],                    // would wrap to 5
      [{ kind: 'lockfree', perBucket: 0 }, /perBucket/],
      [{ kind: 'bucket', maxLength: 2 ** 32 + 4096 }, /maxLength must be an integer in 1\.\.1073741824/],
      [{ kind: 'shared', partitions: 1024, perPartition: 2 ** 20 }, /perPartition must be an integer in 0\.\.65536/],
      [{ kind: 'shared', partitions: 1024, perPartition: 2048 }, /partitions x pool\.perPartition must be at most 1048576/],
      [{ kind: 'shared', partitions: 1025 }, /partitions/],
      [{ sequences: 2 ** 32 + 1 }, /sequences must be an integer in 0\.\.65536/],
      [{ kind: 'bucket', perBucket: 1.5 }, /perBucket/],
    ];
    for (const [pool, re] of cases) await assert.rejects(createScratchpack({ pool }), invalid(re), JSON.stringify(pool));
  });

  test('maxMemory and cacheLimit are range-checked', async () => {
    await assert.rejects(createScratchpack({ maxMemory: 2 ** 32 + 65536 }), invalid(/maxMemory must be an integer in 16777216\.\.4294901760/));
    await assert.rejects(createScratchpack({ maxMemory: 8 * MiB }), invalid(/maxMemory/));
    await assert.rejects(createScratchpack({ maxMemory: 1e10 + 0.5 }), invalid(/maxMemory/));
    await assert.rejects(createScratchpack({ cacheLimit: -1 }), invalid(/cacheLimit/));
    await assert.rejects(createScratchpack({ cacheLimit: 2 ** 32 }), invalid(/cacheLimit/));
    const odd = await createScratchpack({ wasm: 'single', maxMemory: 20 * MiB + 12345 });
    assert.equal(odd.stats().heap.max, 20 * MiB);             // whole 64 KiB pages
    odd.close();
  });
});

describe('sizes reaching C', () => {
  // 2^29 + 1 doubles are 4 GiB + 8 bytes: not a size C can take (nor memory hold).
  const huge = () => new Float64Array(2 ** 29 + 1);           // lazily zeroed: costs no RSS

  test('a typed array too big for memory is NOMEM before anything is staged', () => {
    const s = spy(sp._m, SIZED);
    try {
      assert.throws(() => sp.encode([1, huge()]), (e) => e.code === 'NOMEM' && /an array of 536870913 elements needs 4831838222 bytes/.test(e.message) && e.path === '[1]');
      assert.throws(() => sp.encodeView(huge()), { code: 'NOMEM' });
      for (const n of SIZED) assert.equal(s.calls[n].length, 0, n);
    } finally { s.restore(); }
  });

  test('encodeInto: a typed array that cannot fit the target is BUFFER_TOO_SMALL before C sees it', () => {
    const s = spy(sp._m, SIZED);
    try {
      assert.throws(() => sp.encodeInto(huge(), new Uint8Array(100)), (e) => e.code === 'BUFFER_TOO_SMALL' && e.offset === 100);
      for (const n of SIZED) assert.equal(s.calls[n].length, 0, n);
    } finally { s.restore(); }
  });

  test('encodeAsync: staging more than memory holds is NOMEM before any allocation', async () => {
    const s = spy(sp._m, [...SIZED, '_sp_wasm_task_new']);
    try {
      await assert.rejects(sp.encodeAsync(huge()), { code: 'NOMEM' });
      for (const n of Object.keys(s.calls)) assert.equal(s.calls[n].length, 0, n);
    } finally { s.restore(); }
  });

  test('the heap\'s own calls refuse wrapped sizes: staging, blocks, reservations, bulk reads', () => {
    const heap = new Heap(sp._m);
    const sink = new HeapSink(heap, sp._m._sp_wasm_job_new());
    const s = spy(sp._m, SIZED);
    try {
      assert.throws(() => heap.reserve(2 ** 32 + 8), { code: 'NOMEM' });
      assert.throws(() => heap.alloc(2 ** 32, 'a block'), /a block needs 4294967296 bytes/);
      assert.throws(() => heap.alloc(-1, 'a block'), { code: 'NOMEM' });
      sink.beginArray(65536);
      assert.throws(() => sink.more(2 ** 32 + 16), { code: 'NOMEM' });
      // A decode asking C for 2^30 int32s (4 GiB out) falls back to the JS decoder.
      assert.equal(sp._readTyped(Uint8Array.of(0xdd, 0x40, 0, 0, 0, 1, 2, 3), 0, 2 ** 30, Int32Array), null);
      for (const n of SIZED) assert.equal(s.calls[n].length, 0, n);
      sink.release();
    } finally { s.restore(); }
  });

  test('C refuses pool sizes whose count x size wraps on wasm32, and the heap stays sound', async () => {
    const c = await createScratchpack({ wasm: 'single' });
    const m = c._m;
    assert.equal(m._sp_wasm_configure(0, 80 * 1024, 2 ** 30 + 1000, 0, 0), 2);     // SP_E_INVALID_ARGUMENT
    assert.equal(m._sp_wasm_configure(1, 1024, 2 ** 20, 0, 0), 2);
    assert.equal(m._sp_wasm_configure(2, 80 * 1024, 2 ** 24 + 1, 0, 0), 2);
    assert.equal(m._sp_wasm_configure(0, 80 * 1024, 100, 2 ** 30 + 1, 0), 2);       // idle sequences
    const v = { list: Array.from({ length: 20000 }, (_, i) => `item ${i}`) };
    assert.deepEqual(decode(c.encode(v)), v);
    c.close();
  });
});

describe('NOMEM is never BUFFER_TOO_SMALL', () => {
  test('after a big encode filled the heap, encodeInto a target exactly big enough succeeds', async () => {
    const c = await createScratchpack({ wasm: 'single', maxMemory: 64 * MiB });
    const f64 = new Float64Array(5e6).map((_, i) => i * 0.5);   // 45 MB: the heap grows to its cap
    const want = c.encode(f64);
    const t = new Uint8Array(want.length);
    assert.equal(c.encodeInto(f64, t), want.length);
    assert.ok(Buffer.compare(t, want) === 0);
    const small = Float64Array.of(1, 2, 3);
    assert.equal(c.encodeInto(small, new Uint8Array(28)), 28);
    c.close();
  });

  test('with the heap full of live leases, encodeInto is NOMEM (naming them), not BUFFER_TOO_SMALL', async () => {
    // (pthread build: a single-threaded build's leases hold no linear memory)
    const c = await createScratchpack({ wasm: 'threads', maxMemory: 32 * MiB });
    const leases = [];
    for (const size of [MiB, 64 * 1024, 4096]) {              // fill every gap, caches given back
      const block = { b: new Uint8Array(size - 64) };
      for (;;) {
        try { leases.push(c.encodeView(block)); } catch (e) { assert.equal(e.code, 'NOMEM'); break; }
      }
      c.trim();
    }
    const f64 = new Float64Array(200000);
    const t = new Uint8Array(1800005);                         // exactly the message's size
    assert.throws(() => c.encodeInto(f64, t), (e) => e.code === 'NOMEM' &&
      new RegExp(`${leases.length} leases are live`).test(e.message));
    for (const l of leases) l.release();
    assert.equal(c.encodeInto(f64, t), t.length);
    c.close();
  });
});
