// The walk's objects without garbage (issue 20, item 6): writer.js takes an
// object's keys on a stack it reuses instead of an Object.keys array per
// object, and writes fractional numbers where it reads them. Bytes per call
// are measured by bench/js-garbage.mjs (a figure, so not here); this checks
// what can be checked exactly: no Object.keys call per object (a hook the
// test installs), and that the keys written are still Object.keys's --
// own, enumerable, in its order, taken before any value is read -- when
// getters delete or add keys, encode again, or throw, for objects with
// inherited keys, without a prototype, or with thousands of keys.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';

let sp;
before(async () => { sp = await createScratchpack({ threads: 0 }); });
after(() => sp.close());

const record = (i) => ({ id: i, name: `n${i}`, score: i + 0.5, tags: ['a', 'b'], geo: { lat: 1.25, lng: -2.5 },
  items: [{ sku: 'x', qty: 1, price: 9.99 }, { sku: 'y', qty: 2, price: 0.1 }] });

test('encode and encodeInto call Object.keys for no object', () => {
  const target = new Uint8Array(4096);
  const keys = Object.keys;
  let calls = 0;
  Object.keys = function counted(o) { calls++; return keys(o); };
  let bytes, n;
  try {
    bytes = sp.encode(record(1));
    n = sp.encodeInto(record(2), target);
  } finally {
    Object.keys = keys;
  }
  assert.equal(calls, 0);
  assert.deepEqual(decode(bytes), record(1));
  assert.deepEqual(decode(target.subarray(0, n)), record(2));
});

test('fractions, NaN, infinities and -0 in objects and arrays are written as float 64', () => {
  const v = { a: 0.5, b: NaN, c: -Infinity, d: -0, e: 2 ** 53 + 2, f: [1.5, NaN, Infinity, -0, 3, -1e300] };
  const back = decode(sp.encode(v));
  assert.ok(Object.is(back.d, -0) && Object.is(back.f[3], -0));
  assert.deepEqual(back, v);
});

test('the keys are Object.keys\'s, taken before any value: getters that delete or add keys change nothing', () => {
  const o = { a: 1, get b() { delete this.c; this.z = 9; return 2; }, c: 3, d: 4 };
  assert.deepEqual([...sp.encode(o)], [...sp.encode({ a: 1, b: 2, c: undefined, d: 4 })]);
  const target = new Uint8Array(64);
  const o2 = { a: 1, get b() { delete this.c; this.z = 9; return 2; }, c: 3, d: 4 };
  const n = sp.encodeInto(o2, target);
  assert.deepEqual(decode(target.subarray(0, n)), { a: 1, b: 2, c: null, d: 4 });
});

test('own enumerable keys only, in Object.keys order; no prototype; a class instance', () => {
  const proto = { inherited: 1 };
  const o = Object.create(proto);
  o.b = 1; o[2] = 'two'; o.a = 3; o[1] = 'one';
  Object.defineProperty(o, 'hidden', { value: 5, enumerable: false });
  const bytes = sp.encode(o);
  assert.deepEqual(Object.keys(decode(bytes)), Object.keys(o));
  assert.deepEqual(decode(bytes), { 1: 'one', 2: 'two', b: 1, a: 3 });
  const bare = Object.create(null);
  bare.x = 1; bare.hasOwnProperty = 2;
  assert.deepEqual(decode(sp.encode(bare)), { x: 1, hasOwnProperty: 2 });
  class P { constructor() { this.q = 1; } get r() { return 2; } }
  assert.deepEqual(decode(sp.encode([new P(), { s: new P() }])), [{ q: 1 }, { s: { q: 1 } }]);
});

test('an encode inside a getter and a throwing getter leave the outer walk\'s keys intact', () => {
  const inner = { x: 1, y: { z: 2 } };
  const o = { a: 1, get b() { return decode(sp.encode(inner)); }, c: { d: 3, e: [4, { f: 5 }] } };
  assert.deepEqual(decode(sp.encode(o)), { a: 1, b: inner, c: { d: 3, e: [4, { f: 5 }] } });
  const bad = { a: { b: 1, get c() { throw new Error('no'); }, d: 2 } };
  assert.throws(() => sp.encode(bad), /no/);
  assert.deepEqual(decode(sp.encode({ after: { the: 'error' }, k: 1 })), { after: { the: 'error' }, k: 1 });
});

test('an object with 10,000 keys beside nested ones', () => {
  const big = {};
  for (let i = 0; i < 10000; i++) big[`k${i}`] = i % 3 ? { n: i } : i + 0.5;
  const v = { before: { x: 1 }, big, after: [{ y: 2 }] };
  assert.deepEqual(decode(sp.encode(v)), v);
  assert.deepEqual(decode(sp.encode({ small: 1 })), { small: 1 });
});

// The copy from encodeInto's stage into the target needs a view of the
// stage as long as the message; a new one per call was the only object an
// encodeInto of integer records left. Views are kept by length.
test('encodeInto into a reused target makes no new view of its stage for a length it has seen', () => {
  const target = new Uint8Array(8192);
  const sub = Uint8Array.prototype.subarray;
  let calls = 0;
  Uint8Array.prototype.subarray = function counted(...a) { calls++; return sub.apply(this, a); };
  let n1, n2;
  try {
    n1 = sp.encodeInto(record(10), target);        // a length first seen: one view
    calls = 0;
    n2 = sp.encodeInto(record(11), target, 7);     // the same length again
  } finally {
    Uint8Array.prototype.subarray = sub;
  }
  assert.equal(n2, n1);
  assert.equal(calls, 0);
  assert.deepEqual(decode(target.subarray(7, 7 + n2)), record(11));
});

test('encodeInto copies the right bytes whatever the lengths before it, also after its stage grew and shrank', () => {
  const target = new Uint8Array(1 << 20);
  const values = [record(1), 'x'.repeat(50), record(123456), { big: 'y'.repeat(9000) }, record(2), 'x'.repeat(50),
    { big: 'z'.repeat(300000) }, record(3), 'w'.repeat(50), [1, 2, 3]];
  for (let round = 0; round < 3; round++) {
    for (const v of values) {
      target.fill(0xee);
      const n = sp.encodeInto(v, target, 5);
      assert.deepEqual(target.subarray(5, 5 + n), sp.encode(v));
      assert.equal(target[4], 0xee);
      assert.equal(target[5 + n], 0xee);
    }
  }
});
