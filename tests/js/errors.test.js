// Bad input and bad values: the right code, the byte offset or the element
// path, a message a person can act on -- and nothing leaked in the WASM heap.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';

import { Ext, ScratchpackError, contract, createScratchpack, decode, decodeStream, encode } from '../../js/index.js';

let sp;
before(async () => { sp = await createScratchpack(); });
after(() => sp.close());

const fails = (fn, code, extra = {}) => assert.throws(fn, (e) => {
  assert.ok(e instanceof ScratchpackError, `not a ScratchpackError: ${e}`);
  assert.equal(e.code, code, e.message);
  for (const [k, v] of Object.entries(extra)) assert.equal(e[k], v, `${k} in "${e.message}"`);
  return true;
});

describe('decoding bad input', () => {
  test('every truncation of a valid message is TRUNCATED at or before where it ends', () => {
    const bytes = sp.encode({ a: [1, 300, 70000, 2 ** 40, -5, 1.5], s: 'hé'.repeat(20), b: Uint8Array.of(1, 2),
      t: new Date(1500), m: new Map([[1, 2]]), n: null });
    for (let n = 0; n < bytes.length; n++) {
      assert.throws(() => decode(bytes.subarray(0, n)), (e) => e.code === 'TRUNCATED' && e.offset <= n && e.offset >= 0);
    }
  });

  test('0xc1 is MALFORMED at its offset', () => {
    fails(() => decode(Uint8Array.of(0xc1)), 'MALFORMED', { offset: 0 });
    fails(() => decode(Uint8Array.of(0x93, 1, 2, 0xc1)), 'MALFORMED', { offset: 3 });
    fails(() => decode(Uint8Array.of(0x81, 0xc1, 1)), 'MALFORMED', { offset: 1 });
  });

  test('nesting past the depth limit is DEPTH_LIMIT, however deep the input goes', () => {
    const deep = (n) => new Uint8Array(n + 1).fill(0x91, 0, n);
    assert.equal(decode(deep(500)).length, 1);
    fails(() => decode(deep(501)), 'DEPTH_LIMIT', { offset: 500 });
    fails(() => decode(deep(1000000)), 'DEPTH_LIMIT', { offset: 500 });
    fails(() => decode(deep(20), { maxDepth: 10 }), 'DEPTH_LIMIT', { offset: 10 });
  });

  test('huge length claims fail before anything is allocated', () => {
    const claims = [
      [0xdd, 0xff, 0xff, 0xff, 0xff], [0xdf, 0xff, 0xff, 0xff, 0xff], [0xdb, 0xff, 0xff, 0xff, 0xff],
      [0xc6, 0xff, 0xff, 0xff, 0xff], [0xc9, 0xff, 0xff, 0xff, 0xff, 1], [0xdc, 0xff, 0xff, 1, 2],
      [0xde, 0, 3, 1, 2, 3, 4, 5],
    ];
    for (const c of claims) fails(() => decode(Uint8Array.from(c)), 'TRUNCATED', { offset: 0 });
    fails(() => decode(Uint8Array.of(0x92, 0xdd, 0x7f, 0xff, 0xff, 0xff)), 'TRUNCATED', { offset: 1 });
  });

  test('lengths over the configured limits are LENGTH_LIMIT', () => {
    fails(() => decode(sp.encode([1, 2, 3]), { maxArrayLength: 2 }), 'LENGTH_LIMIT', { offset: 0 });
    fails(() => decode(sp.encode({ a: 1, b: 2 }), { maxMapLength: 1 }), 'LENGTH_LIMIT', { offset: 0 });
    fails(() => decode(sp.encode(['abc']), { maxStrLength: 2 }), 'LENGTH_LIMIT', { offset: 1 });
    fails(() => decode(sp.encode(Uint8Array.of(1, 2)), { maxBinLength: 1 }), 'LENGTH_LIMIT');
  });

  test('a timestamp ext -1 of the wrong length or with too many nanoseconds is MALFORMED', () => {
    fails(() => decode(Uint8Array.of(0xd5, 0xff, 0, 0)), 'MALFORMED', { offset: 0 });
    fails(() => decode(Uint8Array.of(0x91, 0xc7, 3, 0xff, 0, 0, 0)), 'MALFORMED', { offset: 1 });
    fails(() => decode(Uint8Array.of(0xd7, 0xff, 0xff, 0xff, 0xff, 0xfc, 0, 0, 0, 0)), 'MALFORMED');
  });

  test('bytes after the value are TRAILING_BYTES at the first extra byte', () => {
    fails(() => decode(Uint8Array.of(1, 2)), 'TRAILING_BYTES', { offset: 1 });
  });

  test('decode refuses what is not bytes and options it does not know', () => {
    fails(() => decode('abc'), 'INVALID_ARGUMENT');
    fails(() => decode(Uint8Array.of(1), { int64: 'float' }), 'INVALID_ARGUMENT');
    fails(() => decode(Uint8Array.of(1), { typedArrays: Array }), 'INVALID_ARGUMENT');
  });
});

describe('encoding bad values', () => {
  test('a function or symbol is UNSUPPORTED_TYPE with the path to it', () => {
    fails(() => sp.encode({ a: { b: [0, 1, () => 1] } }), 'UNSUPPORTED_TYPE', { path: '.a.b[2]' });
    fails(() => sp.encode([Symbol('s')]), 'UNSUPPORTED_TYPE', { path: '[0]' });
    fails(() => sp.encode({ 'odd key': new Set([1]) }), 'UNSUPPORTED_TYPE', { path: '["odd key"]' });
    fails(() => sp.encode(new Map([['k', new WeakMap()]])), 'UNSUPPORTED_TYPE', { path: '.get("k")' });
    fails(() => sp.encode(() => 1), 'UNSUPPORTED_TYPE', { path: '' });
  });

  test('a cyclic structure is CYCLE with the path where it meets its ancestor', () => {
    const a = { list: [1, { x: null }] };
    a.list[1].x = a;
    fails(() => sp.encode(a), 'CYCLE', { path: '.list[1].x' });
    const arr = [];
    arr.push(arr);
    fails(() => sp.encode(arr), 'CYCLE', { path: '[0]' });
  });

  test('a value that contains itself fails where it first meets itself: what is beside the cycle is read once or twice', () => {
    // Before, a cycle failed only at maxDepth, writing everything beside it
    // at each of 500 levels (a 10 MiB array beside it: 4 GiB, then NOMEM).
    // (A cycle back to the root is found one level down: twice.)
    let reads = 0;
    const o = { get beside() { reads++; return 'x'; } };
    o.self = o;
    fails(() => sp.encode(o), 'CYCLE', { path: '.self' });
    assert.equal(reads, 2);
    const m = new Map([['k', null]]);
    const holder = { get beside() { reads++; return 1; }, m };
    m.set('k', [holder]);
    reads = 0;
    fails(() => sp.encode([holder]), 'CYCLE', { path: '[0].m.get("k")[0]' });
    assert.equal(reads, 1);
    // The same object twice, not inside itself, is no cycle; nor a value an
    // encode in a getter writes again (its own message).
    const x = { a: 1 };
    assert.deepEqual(sp.decode(sp.encode({ p: x, q: [x, x] })), { p: x, q: [x, x] });
    const outer = { get inner() { return sp.encode(outer.data).length; }, data: [1, 2] };
    assert.deepEqual(sp.decode(sp.encode(outer)), { inner: 3, data: [1, 2] });
  });

  test('a cycle deeper than the instance\'s scan of ancestors is found as soon (a raised maxDepth)', async () => {
    const deep = await createScratchpack({ limits: { maxDepth: 5000 } });
    try {
      let reads = 0;
      const root = { get beside() { reads++; return 1; } };
      let at = root;
      for (let i = 0; i < 100; i++) at = at.n = {};
      at.back = root.n.n.n;
      assert.throws(() => deep.encode(root), (e) => e.code === 'CYCLE' && /the one at \.n\.n\.n\)/.test(e.message));
      assert.equal(reads, 1);
      let chain = [];
      for (let i = 0; i < 1000; i++) chain = [chain];
      assert.equal(deep.encode(chain).length, 1001);
    } finally {
      deep.close();
    }
  });

  test('a detached buffer (transferred away) is INVALID_ARGUMENT, to decode and to encode, never a TypeError or an empty bin', async () => {
    const ab = new ArrayBuffer(16);
    const u8 = new Uint8Array(ab), f64 = new Float64Array(ab), dv = new DataView(ab);
    structuredClone(ab, { transfer: [ab] });
    for (const input of [ab, u8, f64, dv]) {
      fails(() => decode(input), 'INVALID_ARGUMENT');
      fails(() => sp.decode(input), 'INVALID_ARGUMENT');
    }
    fails(() => encode(ab), 'INVALID_ARGUMENT');
    fails(() => sp.encode({ x: f64 }), 'INVALID_ARGUMENT', { path: '.x' });
    fails(() => sp.encode([u8]), 'INVALID_ARGUMENT', { path: '[0]' });
    fails(() => sp.encode({ d: [dv] }), 'INVALID_ARGUMENT', { path: '.d[0]' });
    await assert.rejects(sp.encodeToStream({ x: [u8] }, new Writable({ write(c, _, done) { done(); } })),
      { code: 'INVALID_ARGUMENT', path: '.x[0]' });
    const chunks = async function* () { yield Uint8Array.of(0x92, 1); yield u8; yield Uint8Array.of(2); };
    await assert.rejects(async () => { for await (const v of decodeStream(chunks())) assert.fail(`decoded ${v}`); }, { code: 'INVALID_ARGUMENT' });
    assert.equal(sp.encode(new Uint8Array(0)).length, 2);      // an empty array that was never detached is an empty bin
  });

  test('bytes detached anywhere else are refused too: an Ext\'s data, a contract\'s bin field, an extension\'s result, an encodeInto target', async () => {
    const gone = (v) => { structuredClone(v, { transfer: [v.buffer ?? v] }); return v; };
    fails(() => new Ext(5, gone(new Uint8Array(2))), 'INVALID_ARGUMENT');          // was an Ext of 0 bytes
    const ext = new Ext(5, Uint8Array.of(1, 2));
    gone(ext.data);
    fails(() => sp.encode([ext]), 'INVALID_ARGUMENT', { path: '[0]' });           // was c70005
    for (const compile of [true, false]) {
      const C = contract({ b: 'bin', more: ['bin'] }, { keys: 'name', compile });
      fails(() => C.encode({ b: gone(new Uint8Array(3)), more: [] }), 'INVALID_ARGUMENT', { path: '$.b' });      // was c400
      fails(() => C.encode({ b: gone(new ArrayBuffer(3)), more: [] }), 'INVALID_ARGUMENT', { path: '$.b' });     // was CALLBACK (a TypeError)
      fails(() => C.encode({ b: gone(new DataView(new ArrayBuffer(3))), more: [] }), 'INVALID_ARGUMENT', { path: '$.b' });
      fails(() => C.encode({ b: new Uint8Array(0), more: [gone(new Uint8Array(1))] }), 'INVALID_ARGUMENT', { path: '$.more[0]' });
      assert.deepEqual([...C.encode({ b: new Uint8Array(0), more: [] })], [0x82, 0xa1, 0x62, 0xc4, 0, 0xa4, 0x6d, 0x6f, 0x72, 0x65, 0x90]);
    }
    class Point { constructor(x) { this.x = x; } }
    const inst = await createScratchpack({ extensions: [{ type: 7, class: Point, encode: () => gone(new Uint8Array(4)), decode: (d) => new Point(d) }] });
    try {
      fails(() => inst.encode({ p: new Point(1) }), 'CALLBACK', { path: '.p' });    // was c70007: 4 bytes said, none written
    } finally {
      inst.close();
    }
    fails(() => sp.encodeInto(1, gone(new Uint8Array(64))), 'INVALID_ARGUMENT');   // was BUFFER_TOO_SMALL (0 bytes)
  });

  test('an encodeInto target a getter detaches or shrinks while the value is encoded: INVALID_ARGUMENT, or BUFFER_TOO_SMALL saying so', async () => {
    const packs = await createScratchpack({ compression: 'lz4blockarray' });
    try {
      for (const s of [sp, packs]) {
        let target = new Uint8Array(4096);
        const detaching = { get x() { structuredClone(target.buffer, { transfer: [target.buffer] }); return 'y'.repeat(100); } };
        fails(() => s.encodeInto([detaching, 'z'.repeat(100)], target), 'INVALID_ARGUMENT');   // was BUFFER_TOO_SMALL at offset 0
        const buffer = new ArrayBuffer(4096, { maxByteLength: 8192 });
        target = new Uint8Array(buffer);
        const shrinking = { get x() { buffer.resize(10); return 'y'.repeat(100); } };
        assert.throws(() => s.encodeInto([shrinking, 'z'.repeat(100)], target, 50),
          (e) => e.code === 'BUFFER_TOO_SMALL' && !/-\d/.test(e.message));   // was "the target has -40 bytes"
      }
    } finally {
      packs.close();
    }
  });

  test('threads with wasm: \'single\' names the build, not browsers', async () => {
    await assert.rejects(createScratchpack({ threads: 2, wasm: 'single' }),
      (e) => e.code === 'INVALID_ARGUMENT' && /wasm: 'single'/.test(e.message) && !/browser/.test(e.message));
  });

  test('an Ext whose fields were assigned after it was made is INVALID_ARGUMENT, not other bytes', () => {
    const changed = [
      (e) => { e.data = Uint8Array.of(9, 9, 9).buffer; },     // was written as ext 32 of 0 bytes
      (e) => { e.data = Uint16Array.of(0x0102, 0x0304); },    // each element mod 256
      (e) => { e.type = 300; },                               // type 44
      (e) => { e.type = -1; e.data = new Uint8Array(3); },    // a timestamp decode() refuses
    ];
    for (const change of changed) {
      const e = new Ext(3, Uint8Array.of(1, 2));
      change(e);
      fails(() => sp.encode({ e }), 'INVALID_ARGUMENT', { path: '.e' });
    }
    const fine = new Ext(3, Uint8Array.of(1, 2));
    fine.data = Uint8Array.of(7);
    assert.deepEqual([...sp.encode(fine)], [0xd4, 3, 7]);
  });

  test('legitimately deep values past the limit are DEPTH_LIMIT, not a stack overflow', () => {
    let v = 1;
    for (let i = 0; i < 600; i++) v = [v];
    fails(() => sp.encode(v), 'DEPTH_LIMIT');
    let w = 1;
    for (let i = 0; i < 500; i++) w = [w];
    assert.equal(sp.encode(w).length, 501);
  });

  test('a target too small for the message is BUFFER_TOO_SMALL with the size needed', () => {
    const v = { name: 'x'.repeat(100) };
    const need = sp.encode(v).length;
    fails(() => sp.encodeInto(v, new Uint8Array(need - 1)), 'BUFFER_TOO_SMALL');
    assert.throws(() => sp.encodeInto(v, new Uint8Array(10)), /needs at least/);
    assert.equal(sp.encodeInto(v, new Uint8Array(need)), need);
    fails(() => sp.encodeInto(1, new Uint8Array(4), 5), 'INVALID_ARGUMENT');
  });

  test('a message larger than maxMemory is NOMEM, says so, and leaks nothing', async () => {
    // bigMessage: Infinity keeps the message in linear memory (by default past 8 MiB it is JS memory's)
    const capped = await createScratchpack({ wasm: 'single', maxMemory: 64 * 1024 * 1024, bigMessage: Infinity });
    const huge = [1, new Uint8Array(100 * 1024 * 1024)];
    fails(() => capped.encode(huge), 'NOMEM');    // the pool keeps what it may cache
    const s0 = capped.stats();
    assert.throws(() => capped.encode(huge), /linear memory is [\d.]+ MiB of at most 64\.0 MiB \(maxMemory\)/);
    fails(() => capped.encodeView(huge), 'NOMEM');
    const s1 = capped.stats();
    assert.equal(s1.liveBytes, s0.liveBytes);
    assert.equal(s1.heap.used, s0.heap.used);
    assert.ok(s1.heap.size <= 64 * 1024 * 1024);
    assert.deepEqual(capped.decode(capped.encode([1, 2])), [1, 2]);
    capped.close();
  });
});

test('WASM heap use is the same after 100,000 failing decodes and encodes', () => {
  const bad = [Uint8Array.of(0xc1), Uint8Array.of(0x93, 1), Uint8Array.of(0xdd, 0xff, 0xff, 0xff, 0xff)];
  const big = 'y'.repeat(70000);                      // migrates out of the scratch before failing
  const values = [{ a: 1, f() {} }, [big, Symbol('late')], [1n << 70n]];
  for (let i = 0; i < 100; i++) {                      // warm the pools and free lists
    try { sp.encode(values[i % 3]); } catch { /* expected */ }
    try { sp.encodeView(values[i % 3]); } catch { /* expected */ }
  }
  const before = sp.stats();
  for (let i = 0; i < 100000; i++) {
    try { decode(bad[i % 3]); } catch { /* expected */ }
    try { sp.encode(values[i % 3]); } catch { /* expected */ }
    if (i % 10 === 0) try { sp.encodeView(values[i % 3]); } catch { /* expected */ }
  }
  const after = sp.stats();
  assert.equal(after.liveBytes, before.liveBytes);
  assert.equal(after.heap.used, before.heap.used);
  assert.equal(after.leases, 0);
});
