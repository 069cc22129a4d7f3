// encodeInto's direct path for a short array that ends with a bin or a
// string of 32 units or more (js/flat-into.js: [id, bytes], [kind, id,
// payload], [id, text]): the same bytes as
// encode() for every element it takes or sends back to the walk, the same
// errors, BUFFER_TOO_SMALL with the target untouched, a body that views
// the target itself, shared targets, getters and Proxies read in the
// walk's order, bodies read when the message is complete (a resized or
// transferred one refused, the target untouched), maxDepth, an array the
// walk writes as a map, and an encodeInto nested in a getter.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';

let sp;
before(async () => { sp = await createScratchpack({ threads: 0 }); });
after(() => sp.close());

const bin = (n, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

// Every integer format's edges, and what the path sends back to the walk.
const INTS = [0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31)];
const WALKS = [2 ** 32, -(2 ** 31) - 1, 2 ** 53, 0.5, -0, NaN, Infinity, 'text', '', {}, [], [1], 1n, new Date(0),
  new Uint8Array(0), new Int32Array(2), new DataView(new ArrayBuffer(3)), new (class extends Uint8Array {})(3)];
const BINS = [bin(1), bin(31), bin(32), bin(255), bin(256), bin(1023), bin(1024), bin(65535), bin(65536), bin(70000),
  Buffer.from(bin(3000, 9))];
const SCALARS = [...INTS, null, undefined, true, false];

// A deterministic stream of choices (a test that fails, fails again).
let seed = 12345;
function pick(a) {                                    // xorshift32
  seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
  return a[(seed >>> 0) % a.length];
}

function arrays() {
  const out = [];
  for (let k = 0; k < 3000; k++) {
    const n = 1 + (k % 10);                          // (9 and 10: longer than the path takes)
    const a = Array.from({ length: n - 1 }, () => pick(k % 3 === 0 ? [...SCALARS, ...WALKS, ...BINS] : [...SCALARS, ...BINS]));
    a.push(pick(k % 7 === 0 ? [...WALKS, 5] : BINS));
    out.push(a);
  }
  return out;
}

function sameAsEncode(a, at) {
  const want = sp.encode(a);
  for (const offset of [0, 3]) {
    const target = new Uint8Array(offset + want.length + 4).fill(0xee);
    assert.equal(sp.encodeInto(a, target, offset), want.length, `${at}: length`);
    assert.deepEqual(target.subarray(offset, offset + want.length), want, `${at}: bytes`);
    assert.ok(target.subarray(0, offset).every((b) => b === 0xee) && target.subarray(offset + want.length).every((b) => b === 0xee),
      `${at}: nothing written outside the message`);
    const small = new Uint8Array(offset + want.length - 1).fill(0xee);
    assert.throws(() => sp.encodeInto(a, small, offset), (e) => e.code === 'BUFFER_TOO_SMALL' && e.offset === small.length, `${at}: too small`);
    assert.ok(small.every((b) => b === 0xee), `${at}: a target too small is untouched`);
  }
}

test('short arrays ending with a bin: encode()\'s bytes, whatever the elements, at any offset; too small by one is refused untouched', () => {
  arrays().forEach((a, i) => sameAsEncode(a, `array ${i} (${a.length} elements)`));
});

test('an element the walk refuses gives the walk\'s error, path and all', () => {
  for (const [a, code, path] of [
    [[Symbol('s'), bin(10)], 'UNSUPPORTED_TYPE', '[0]'],
    [[() => 1, 2, bin(10)], 'UNSUPPORTED_TYPE', '[0]'],
    [[1, new Uint8Array(structuredClone(new ArrayBuffer(4), { transfer: [] })), new WeakMap(), bin(10)], 'UNSUPPORTED_TYPE', '[2]'],
  ]) {
    assert.throws(() => sp.encodeInto(a, new Uint8Array(100)), (e) => e.code === code && e.path === path);
    assert.throws(() => sp.encode(a), (e) => e.code === code && e.path === path);
  }
  const gone = new Uint8Array(8);
  structuredClone(gone.buffer, { transfer: [gone.buffer] });
  assert.throws(() => sp.encodeInto([1, gone], new Uint8Array(100)), (e) => e.code === 'INVALID_ARGUMENT' && /detached/.test(e.message));
});

test('a body that views the target itself, alone or beside another, plain or shared memory', () => {
  for (const Buf of [ArrayBuffer, SharedArrayBuffer]) {
    for (const n of [40, 3000, 9000]) {
      const target = new Uint8Array(new Buf(3 * n + 100));
      for (let i = 0; i < target.length; i++) target[i] = (i * 7) & 0xff;
      for (const [what, make] of [
        ['one body', (t) => [1, t.subarray(0, n)]],
        ['one body past where it goes', (t) => [7, t.subarray(50, 50 + n)]],
        ['two bodies', (t) => [t.subarray(n, 2 * n), 2, t.subarray(0, n)]],
      ]) {
        const copy = new Uint8Array(target);         // what encode() sees: the same bytes, elsewhere
        const want = sp.encode(make(copy));
        const k = sp.encodeInto(make(target), target);
        assert.deepEqual(target.subarray(0, k), want, `${Buf.name}, ${n} bytes, ${what}`);
        target.set(copy);
      }
    }
  }
});

// Strings last: headers that widen once the UTF-8 is known (str 8 to 16,
// str 16 to 32), pairs, lone surrogates, and the short ones the walk takes.
const TEXTS = ['a'.repeat(32), '\u00e9'.repeat(32), '\u4e2d'.repeat(100), 'x'.repeat(255), 'x'.repeat(256),
  '\u{1F600}'.repeat(40), 'lone \ud800 surrogate and more than thirty-two units', 'k'.repeat(65535) + '\u00e9',
  '\u4e2d'.repeat(21846), 'a'.repeat(31), 'short'];

test('short arrays ending with a string: encode()\'s bytes in a roomy target and in tight ones, shared or not, at any offset', () => {
  const shared = new Uint8Array(new SharedArrayBuffer(300000));
  for (let k = 0; k < 400; k++) {
    const a = Array.from({ length: k % 5 }, () => pick(k % 4 === 0 ? [...SCALARS, ...BINS, 'mid', 'm'.repeat(40)] : [...SCALARS, bin(40)]));
    a.push(pick(TEXTS));
    const at = `array ${k} (${a.length} elements, a string of ${a[a.length - 1].length} units last)`;
    sameAsEncode(a, at);
    const want = sp.encode(a);
    for (const offset of [0, 5]) {
      const roomy = new Uint8Array(offset + 3 * want.length + 64).fill(0xee);
      assert.equal(sp.encodeInto(a, roomy, offset), want.length, `${at}: length, roomy`);
      assert.deepEqual(roomy.subarray(offset, offset + want.length), want, `${at}: bytes, roomy`);
      assert.ok(roomy.subarray(0, offset).every((x) => x === 0xee) && roomy.subarray(offset + want.length).every((x) => x === 0xee),
        `${at}: nothing written outside the message, roomy`);
    }
    assert.deepEqual(shared.subarray(1, 1 + sp.encodeInto(a, shared, 1)), want, `${at}: shared`);
  }
});

test('into shared memory, small and big bodies', () => {
  const target = new Uint8Array(new SharedArrayBuffer(200000));
  for (const a of [[1, bin(100)], [1, bin(4096)], [1, 2, bin(100000)], [bin(5000), bin(6000)]]) {
    const want = sp.encode(a);
    assert.deepEqual(target.subarray(0, sp.encodeInto(a, target)), want);
  }
});

test('getters and Proxies: read as the walk reads them, the bytes encode()\'s', () => {
  let reads = 0;
  const withGetter = [1, 2, bin(2000)];
  Object.defineProperty(withGetter, 0, { get: () => { reads++; return 300; }, enumerable: true });
  sameAsEncode(withGetter, 'a getter on an index');
  reads = 0;
  sp.encodeInto(withGetter, new Uint8Array(3000));
  assert.equal(reads, 1, 'each element read once when the path takes the array');

  const last = [1, null];
  Object.defineProperty(last, 1, { get: () => { reads++; return bin(1500); } });
  reads = 0;
  const into = new Uint8Array(3000);
  assert.deepEqual(decode(into.subarray(0, sp.encodeInto(last, into))), [1, bin(1500)]);
  assert.equal(reads, 2, 'the last element read once to choose the path, once in its turn (docs/errors.md)');

  // Read in the walk's order: what a getter changes before an element is read is what is written.
  const replaced = [0, Uint8Array.of(1)];
  Object.defineProperty(replaced, 0, { get() { replaced[1] = Uint8Array.of(2, 2); return 5; } });
  sameAsEncode(replaced, 'a getter on [0] that replaces the last bin');
  const shortened = [0, Uint8Array.of(1)];
  Object.defineProperty(shortened, 0, { get() { shortened.length = 1; return 5; }, configurable: true });
  const t1 = new Uint8Array(16);
  assert.deepEqual(t1.subarray(0, sp.encodeInto(shortened, t1)), Uint8Array.of(0x92, 5, 0xc0), 'a getter that shortens the array: a hole is nil');

  const proxied = new Proxy([5, -7, bin(3000)], {});
  sameAsEncode(proxied, 'a Proxy of an array');

  const throwing = [1, 2, bin(100)];
  const boom = new Error('boom');
  Object.defineProperty(throwing, 1, { get: () => { throw boom; } });
  for (const f of [() => sp.encodeInto(throwing, new Uint8Array(300)), () => sp.encode(throwing)])
    assert.throws(f, (e) => e.code === 'CALLBACK' && e.path === '[1]' && e.cause === boom);

  // A getter that grows the array: the length read before any element counts, as in the walk.
  const growing = [0, bin(1200)];
  Object.defineProperty(growing, 0, { get() { if (growing.length < 4) growing.push(9); return 4; } });
  const t = new Uint8Array(3000), k = sp.encodeInto(growing, t);
  assert.deepEqual(decode(t.subarray(0, k)), [4, bin(1200)]);
});

test('bodies are read when the message is complete: one a later getter resizes or transfers is INVALID_ARGUMENT, the target untouched', () => {
  for (const n of [3, 40, 2048]) {
    const ab = new ArrayBuffer(n, { maxByteLength: 4096 });
    new Uint8Array(ab).fill(3);
    const resized = [new Uint8Array(ab), 0, bin(2)];
    Object.defineProperty(resized, 1, { get() { ab.resize(1); return 5; } });
    const gone = new Uint8Array(n).fill(4);
    const moved = [gone, 0, bin(2)];
    Object.defineProperty(moved, 1, { get() { structuredClone(gone.buffer, { transfer: [gone.buffer] }); return 5; } });
    for (const a of [resized, moved]) {
      const target = new Uint8Array(5000).fill(0xee);
      assert.throws(() => sp.encodeInto(a, target), (e) => e.code === 'INVALID_ARGUMENT' && /has \d+ now/.test(e.message), `${n} bytes`);
      assert.ok(target.every((b) => b === 0xee), `${n} bytes: the target untouched`);
    }
  }
  // A getter that changes a body's bytes (not its length) changes what is written, as for the walk's long bodies.
  const b0 = Uint8Array.of(1, 2, 3);
  const a = [b0, 0, Uint8Array.of(4)];
  Object.defineProperty(a, 1, { get() { b0[0] = 99; return 1; } });
  const target = new Uint8Array(32);
  assert.deepEqual(decode(target.subarray(0, sp.encodeInto(a, target))), [Uint8Array.of(99, 2, 3), 1, Uint8Array.of(4)]);
});

test('a short body that views the target just before where it goes: encode()\'s bytes', () => {
  for (const n of [1, 10, 31, 32, 100]) {
    const target = new Uint8Array(300);
    for (let i = 0; i < target.length; i++) target[i] = i & 0xff;
    const want = sp.encode([new Uint8Array(target.subarray(0, n))]);
    assert.deepEqual(target.subarray(0, sp.encodeInto([target.subarray(0, n)], target)), want, `${n} bytes`);
  }
});

test('what only the walk knows: a throwing read, maxDepth 1, an array written as a map', async () => {
  const boom = new Error('boom');
  const throwingLast = [1, null];
  Object.defineProperty(throwingLast, 1, { get() { throw boom; } });
  const lengthTrap = new Proxy([1, bin(4)], { get: (t, k) => { if (k === 'length') throw boom; return t[k]; } });
  const { proxy: revoked, revoke } = Proxy.revocable([1, bin(4)], {});
  revoke();
  for (const [what, v] of [['a getter on the last index', throwingLast], ['a length trap', lengthTrap], ['a revoked Proxy', revoked]]) {
    let want;
    try { sp.encode(v); } catch (e) { want = e; }
    assert.throws(() => sp.encodeInto(v, new Uint8Array(100)),
      (e) => e.code === want.code && e.path === want.path && e.message === want.message, what);
  }
  const shallow = await createScratchpack({ threads: 0, limits: { maxDepth: 1 } });
  try {
    assert.throws(() => shallow.encodeInto([1, bin(3)], new Uint8Array(100)), (e) => e.code === 'DEPTH_LIMIT' && e.path === '[1]');
  } finally {
    shallow.close();
  }
  const asMap = [1, bin(1)];
  Object.setPrototypeOf(asMap, Object.prototype);
  const own = [1, bin(1)];
  Object.defineProperty(own, 'constructor', { value: Object });
  for (const a of [asMap, own]) sameAsEncode(a, 'an array whose constructor is Object (written as a map)');
});

test('an encodeInto nested in a getter of one this path is reading: both right', () => {
  const inner = new Uint8Array(100);
  let innerLength = 0;
  const outer = [0, bin(1500, 3)];
  Object.defineProperty(outer, 0, { get: () => { innerLength = sp.encodeInto([42, bin(20, 5)], inner); return 17; } });
  const target = new Uint8Array(2000), n = sp.encodeInto(outer, target);
  assert.deepEqual(decode(target.subarray(0, n)), [17, bin(1500, 3)]);
  assert.deepEqual(decode(inner.subarray(0, innerLength)), [42, bin(20, 5)]);
});
