// Round trips of every supported type at its format boundaries, and the
// exact bytes of the smallest forms.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';

import { Ext, contract, createScratchpack, decode } from '../../js/index.js';
import { hex, intBoundaries, rng, randomValue, strLengths } from './helpers.js';

let sp;
before(async () => { sp = await createScratchpack(); });
after(() => sp.close());

const round = (v, opts) => sp.decode(sp.encode(v), opts);

describe('scalars', () => {
  test('nil, booleans and undefined encode to their one-byte forms', () => {
    assert.equal(hex(sp.encode(null)), 'c0');
    assert.equal(hex(sp.encode(undefined)), 'c0');
    assert.equal(hex(sp.encode(false)), 'c2');
    assert.equal(hex(sp.encode(true)), 'c3');
    assert.equal(round(undefined), null);
  });

  test('integers take the smallest form at every boundary', () => {
    const want = {
      0: '00', 127: '7f', 128: 'cc80', 255: 'ccff', 256: 'cd0100', 65535: 'cdffff',
      65536: 'ce00010000', 4294967295: 'ceffffffff', 4294967296: 'cf0000000100000000',
      [-1]: 'ff', [-32]: 'e0', [-33]: 'd0df', [-128]: 'd080', [-129]: 'd1ff7f',
      [-32768]: 'd18000', [-32769]: 'd2ffff7fff', [-(2 ** 31)]: 'd280000000',
      [-(2 ** 31) - 1]: 'd3ffffffff7fffffff',
    };
    for (const [n, bytes] of Object.entries(want)) assert.equal(hex(sp.encode(Number(n))), bytes, n);
  });

  test('every boundary integer decodes back to the same number', () => {
    for (const n of intBoundaries) assert.equal(round(n), n);
    assert.equal(round(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
    assert.equal(round(Number.MIN_SAFE_INTEGER), Number.MIN_SAFE_INTEGER);
  });

  test('non-integers, -0 and integers past 2^53 are float64', () => {
    assert.equal(hex(sp.encode(1.5)), 'cb3ff8000000000000');
    assert.ok(Object.is(round(-0), -0));
    assert.equal(round(2 ** 60), 2 ** 60);
    assert.equal(sp.encode(2 ** 60)[0], 0xcb);
    for (const x of [Math.PI, -1e-300, 1e308, Infinity, -Infinity]) assert.equal(round(x), x);
    assert.ok(Number.isNaN(round(NaN)));
  });

  test('float32 input decodes to the nearest double', () => {
    assert.equal(decode(Uint8Array.of(0xca, 0x3f, 0xc0, 0, 0)), 1.5);
  });

  test('BigInts use the 64-bit forms and come back as BigInt when int64 is bigint', () => {
    assert.equal(hex(sp.encode(5n)), 'cf0000000000000005');
    assert.equal(hex(sp.encode(-5n)), 'd3fffffffffffffffb');
    for (const b of [0n, 2n ** 64n - 1n, -(2n ** 63n), 2n ** 63n, 123456789012345678n])
      assert.equal(round(b, { int64: 'bigint' }), b);
  });

  test('int64 auto gives numbers when safe and BigInt otherwise', () => {
    assert.equal(round(5n), 5);
    assert.equal(round(2n ** 60n), 2n ** 60n);
    assert.equal(round(-(2n ** 60n)), -(2n ** 60n));
    assert.equal(round(2n ** 60n, { int64: 'number' }), 2 ** 60);
    assert.equal(round(2n ** 60n, { int64: 'string' }), '1152921504606846976');
  });

  test('a boxed BigInt is its value, as a boxed number is (it was an empty map)', () => {
    assert.deepEqual([...sp.encode(Object(5n))], [...sp.encode(5n)]);
    assert.deepEqual([...sp.encode([Object(-3n)])], [...sp.encode([-3n])]);
  });

  test('BigInts outside 64 bits are a VALUE_RANGE error', () => {
    assert.throws(() => sp.encode([2n ** 64n]), { code: 'VALUE_RANGE', path: '[0]' });
    assert.throws(() => sp.encode(-(2n ** 63n) - 1n), { code: 'VALUE_RANGE' });
  });
});

describe('strings', () => {
  test('headers are the smallest at every length boundary', () => {
    const heads = { 0: 'a0', 31: 'bf', 32: 'd920', 255: 'd9ff', 256: 'da0100', 65535: 'daffff', 65536: 'db00010000' };
    for (const n of strLengths) {
      const b = sp.encode('x'.repeat(n));
      if (heads[n]) assert.equal(hex(b.subarray(0, heads[n].length / 2)), heads[n], `length ${n}`);
      assert.equal(round('x'.repeat(n)), 'x'.repeat(n));
    }
  });

  test('multi-byte text whose UTF-8 outgrows the guessed header moves the body forward', () => {
    for (const n of [10, 11, 31, 85, 86, 100, 21845, 21846, 30000]) {
      const s = '한'.repeat(n);
      const b = sp.encode(s);
      assert.equal(round(s), s);
      const len = 3 * n;
      const head = len < 32 ? 1 : len < 256 ? 2 : len < 65536 ? 3 : 5;
      assert.equal(b.length, head + len, `length ${n}`);
    }
  });

  test('short strings with a non-ASCII unit at any position are exact UTF-8, generic and through a contract', () => {
    // The short-string writer takes ASCII four units at a time: a wide unit
    // at each offset of each group, and lengths around the groups' ends.
    const Str = contract({ s: 'string' }, { keys: 'index' });
    const utf8 = new TextEncoder();
    for (const wide of ['\u00e9', '\u4e00', '\ud83d\ude00', '\ud800']) {
      for (let n = 0; n <= 13; n++) {
        for (let at = 0; at <= n; at++) {
          const s = 'abcdefghijklm'.slice(0, at) + wide + 'nopqrstuvwxyz'.slice(0, n - at);
          const body = utf8.encode(s);
          const head = body.length < 32 ? [0xa0 | body.length] : [0xd9, body.length];
          assert.deepEqual([...sp.encode(s)], [...head, ...body], JSON.stringify(s));
          assert.deepEqual([...Str.encode({ s })], [0x91, ...head, ...body], JSON.stringify(s));
        }
      }
    }
  });

  test('surrogate pairs round trip and lone surrogates become U+FFFD', () => {
    for (const s of ['😀', 'a😀b', '😀'.repeat(40), '😀'.repeat(10000)]) assert.equal(round(s), s);
    assert.equal(round('a\ud800b'), 'a\ufffdb');
    assert.equal(round('\udc00'.repeat(50)), '\ufffd'.repeat(50));
  });

  test('a string of 100,000 characters is written in chunks and decodes whole', () => {
    const s = 'A'.repeat(100000);
    const b = sp.encode({ s });
    assert.equal(b.length, 1 + 2 + 5 + 100000);
    assert.equal(decode(b).s, s);
    const k = '가'.repeat(70000);
    assert.equal(round(k), k);
  });
});

describe('binary and ext', () => {
  test('Uint8Array, Buffer, ArrayBuffer and DataView become bin with the smallest header', () => {
    assert.equal(hex(sp.encode(Uint8Array.of(1, 2))), 'c4020102');
    assert.equal(hex(sp.encode(Buffer.from([3]))), 'c40103');
    assert.equal(hex(sp.encode(new Uint8Array(4).buffer)), 'c40400000000');
    assert.equal(hex(sp.encode(new DataView(Uint8Array.of(9, 8).buffer))), 'c4020908');
    for (const n of [0, 255, 256, 65535, 65536, 200000]) {
      const b = Uint8Array.from({ length: n }, (_, i) => i & 255);
      assert.deepEqual(round(b), b);
    }
  });

  test('bin decodes to a copy by default and to a view of the input on request', () => {
    const bytes = sp.encode(Uint8Array.of(7, 7));
    const copy = decode(bytes);
    const view = decode(bytes, { binary: 'view' });
    bytes[2] = 1;
    assert.deepEqual([...copy], [7, 7]);
    assert.deepEqual([...view], [1, 7]);
  });

  test('Ext values keep their type and bytes in every ext form', () => {
    for (const n of [1, 2, 4, 8, 16, 0, 3, 255, 256, 65536]) {
      const e = new Ext(42, Uint8Array.from({ length: n }, (_, i) => i));
      const back = round(e);
      assert.ok(back instanceof Ext);
      assert.equal(back.type, 42);
      assert.deepEqual(back.data, e.data);
    }
    assert.equal(hex(sp.encode(new Ext(-5, Uint8Array.of(1)))), 'd4fb01');
  });

  test('Dates use the 32-, 64- and 96-bit timestamp forms', () => {
    assert.equal(hex(sp.encode(new Date(1000))), 'd6ff00000001');
    assert.equal(sp.encode(new Date(1500)).length, 10);
    assert.equal(sp.encode(new Date(-1)).length, 15);
    assert.equal(sp.encode(new Date(2 ** 34 * 1000)).length, 15);
    for (const t of [0, 1000, 1500, -1, -86400000 * 365 * 500, 2 ** 34 * 1000 + 7, 8.64e15, -8.64e15]) {
      assert.equal(round(new Date(t)).getTime(), t);
    }
  });

  test('an invalid Date is a VALUE_RANGE error', () => {
    assert.throws(() => sp.encode({ when: new Date(NaN) }), { code: 'VALUE_RANGE', path: '.when' });
  });
});

describe('containers', () => {
  test('arrays and maps take fix, 16- and 32-bit headers', () => {
    for (const n of [0, 15, 16, 65535, 65536]) {
      const a = Array.from({ length: n }, (_, i) => i & 63);
      assert.deepEqual(round(a), a);
      const o = Object.fromEntries(a.slice(0, Math.min(n, 70000)).map((_, i) => [`k${i}`, i]));
      assert.deepEqual(round(o), o);
    }
    assert.equal(hex(sp.encode({ Id: 1, Name: 'hello' })), '82a2496401a44e616d65a568656c6c6f');
    assert.equal(hex(sp.encode([1, 'hello'])), '9201a568656c6c6f');
  });

  test('a Map keeps any keys and decodes to a Map when a key is not a string', () => {
    const m = new Map([[1, 'a'], ['b', [2]], [null, true]]);
    assert.deepEqual(round(m), m);
    assert.deepEqual(round(new Map([['x', 1]])), { x: 1 });
    assert.deepEqual(round(new Map([['x', 1]]), { maps: 'map' }), new Map([['x', 1]]));
    assert.deepEqual(round({ 1: 'a' }, { maps: 'map' }), new Map([['1', 'a']]));
  });

  test('a __proto__ key becomes an own property, never the prototype', () => {
    const bytes = Uint8Array.of(0x81, 0xa9, ...Buffer.from('__proto__'), 0x81, 0xa1, 0x78, 0x01);
    const o = decode(bytes);
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.deepEqual(Object.keys(o), ['__proto__']);
    assert.equal(({}).x, undefined);
  });

  test('class instances encode their own enumerable properties; boxed primitives their value', () => {
    class Point { constructor() { this.x = 1; this.y = 2; } get sum() { return 3; } }
    assert.deepEqual(round(new Point()), { x: 1, y: 2 });
    assert.deepEqual(round(Object.assign(Object.create(null), { a: 1 })), { a: 1 });
    assert.equal(round(new String('s')), 's');
  });

  test('sparse array holes encode as nil', () => {
    assert.deepEqual(round([1, , 3]), [1, null, 3]); // eslint-disable-line no-sparse-arrays
  });
});

describe('typed arrays as standard MessagePack arrays', () => {
  const kinds = [
    [Int8Array, [-128, -33, -32, 0, 127]],
    [Uint8ClampedArray, [0, 127, 128, 255]],
    [Int16Array, [-32768, -129, 0, 255, 32767]],
    [Uint16Array, [0, 255, 256, 65535]],
    [Int32Array, [-(2 ** 31), -32769, -33, 0, 65536, 2 ** 31 - 1]],
    [Uint32Array, [0, 65535, 65536, 2 ** 32 - 1]],
    [Float32Array, [1.5, -0.25, 3.4e38]],
    [Float64Array, [Math.PI, -1e300, 0.1]],
  ];

  test('every numeric kind encodes like the same values in an Array (floats keep their width)', () => {
    for (const [Ctor, values] of kinds) {
      const ta = Ctor.from(values);
      const bytes = sp.encode(ta);
      if (Ctor === Float32Array) {
        assert.equal(bytes[1], 0xca);
        assert.equal(bytes.length, 1 + 5 * values.length);
      } else if (Ctor !== Float64Array) {
        assert.equal(hex(bytes), hex(sp.encode([...ta])), Ctor.name);
      }
      assert.deepEqual(decode(bytes), [...ta], Ctor.name);
    }
  });

  test('a Float16Array (where the host has one) is the float32 array of its values, not a bin of its bytes', { skip: typeof Float16Array !== 'function' && 'no Float16Array here' }, async () => {
    const h = new Float16Array([1.5, -2, 65504, 0.0999755859375]);
    const want = sp.encode(Float32Array.from(h));
    assert.deepEqual(sp.encode(h), want);
    assert.deepEqual(sp.encode({ h }), sp.encode({ h: Float32Array.from(h) }));
    assert.deepEqual(sp.decode(want), [...h]);
    const chunks = [];
    await sp.encodeToStream({ big: new Float16Array(100000).fill(0.5) }, new Writable({ write(c, _, done) { chunks.push(Uint8Array.from(c)); done(); } }));
    assert.deepEqual(sp.decode(Buffer.concat(chunks)).big.length, 100000);
  });

  test('BigInt64Array and BigUint64Array encode each element in its smallest form', () => {
    const a = BigInt64Array.of(-(2n ** 63n), -1n, 0n, 2n ** 63n - 1n);
    assert.equal(hex(sp.encode(a)), '94d38000000000000000ff00cf7fffffffffffffff');
    assert.deepEqual(round(a), [-(2n ** 63n), -1, 0, 2n ** 63n - 1n]);
    assert.deepEqual(round(a, { typedArrays: BigInt64Array }), a);
    const u = BigUint64Array.of(0n, 2n ** 64n - 1n);
    assert.deepEqual(round(u, { typedArrays: BigUint64Array }), u);
  });

  test('decode returns the requested typed array, or the smallest fitting one with auto', () => {
    for (const [Ctor, values] of kinds) {
      const ta = Ctor.from(values);
      const back = round(ta, { typedArrays: Ctor });
      assert.equal(back.constructor, Ctor);
      assert.deepEqual([...back], [...ta]);
    }
    assert.equal(round(Int16Array.of(1, -2), { typedArrays: 'auto' }).constructor, Int32Array);
    assert.equal(round(Uint32Array.of(2 ** 32 - 1), { typedArrays: 'auto' }).constructor, Uint32Array);
    assert.equal(round(Float32Array.of(1.5), { typedArrays: 'auto' }).constructor, Float32Array);
    assert.equal(round([1, 2.5], { typedArrays: 'auto' }).constructor, Float64Array);
  });

  test('arrays that are not all numbers, or do not fit, stay Arrays', () => {
    assert.deepEqual(round([1, 'a'], { typedArrays: 'auto' }), [1, 'a']);
    assert.deepEqual(round([1, 300], { typedArrays: Int8Array }), [1, 300]);
    assert.deepEqual(round([1.5], { typedArrays: Int32Array }), [1.5]);
    assert.deepEqual(round([], { typedArrays: 'auto' }), []);
    // A Float32Array rounds nothing: a float64 or an integer it cannot hold exactly keeps the array plain.
    assert.deepEqual(round([16777217, 0.5], { typedArrays: Float32Array }), [16777217, 0.5]);
    assert.deepEqual(round([0.1], { typedArrays: Float32Array }), [0.1]);
    assert.deepEqual(round(new Array(300).fill(16777217), { typedArrays: Float32Array }), new Array(300).fill(16777217));
    const exact = round([16777216, 0.5, NaN, -0], { typedArrays: Float32Array });
    assert.equal(exact.constructor, Float32Array);
    assert.deepEqual([...exact], [16777216, 0.5, NaN, -0]);
  });

  test('30,000 int32 values round trip through the bulk path in both directions', () => {
    const ints = Int32Array.from({ length: 30000 }, (_, i) => i);
    const bytes = sp.encode(ints);
    assert.equal(bytes.length, 89619);
    assert.deepEqual(decode(bytes, { typedArrays: Int32Array }), ints);
    const mixed = Int32Array.from({ length: 9999 }, (_, i) => (i * 2654435761) | 0);
    assert.deepEqual(round(mixed, { typedArrays: Int32Array }), mixed);
  });

  test('typed arrays nested in objects and sub-views encode only their own elements', () => {
    const base = Int32Array.from({ length: 10 }, (_, i) => i * 1000);
    const v = { a: base.subarray(2, 5), b: [new Float64Array(base.buffer, 8, 2)] };
    assert.deepEqual(round(v), { a: [2000, 3000, 4000], b: [[...new Float64Array(base.buffer, 8, 2)]] });
  });
});

test('a few thousand generated values round trip unchanged', () => {
  const next = rng(1);
  for (let i = 0; i < 3000; i++) {
    const v = randomValue(next, 0, { bigint: true, dates: true });
    assert.deepEqual(round(v, { int64: 'auto' }), normalizeSafe(v));
  }
});

function normalizeSafe(v) {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v ? Number(v) : v;
  if (Array.isArray(v)) return v.map(normalizeSafe);
  if (v instanceof Uint8Array || v instanceof Date) return v;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalizeSafe(x)]));
  return v;
}

test('an instance decodes big integer arrays through C and gets what the JS decoder gets', () => {
  for (const C of [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array]) {
    const big = C === BigInt64Array || C === BigUint64Array;
    const a = C.from({ length: 5000 }, (_, i) => (big ? BigInt(i * 977) : (i * 7919) % 120));
    const bytes = sp.encode({ a, tail: 'after' });
    const viaC = sp.decode(bytes, { typedArrays: C });
    assert.equal(viaC.a.constructor, C);
    assert.deepEqual(viaC, decode(bytes, { typedArrays: C }));
    assert.equal(viaC.tail, 'after');
  }
  const wide = sp.encode(Int32Array.from({ length: 1000 }, (_, i) => i * 1000));
  assert.ok(Array.isArray(sp.decode(wide, { typedArrays: Int16Array })));      // does not fit: stays an Array
  const cut = sp.encode(Int32Array.from({ length: 1000 }, (_, i) => i)).subarray(0, 2000);
  assert.throws(() => sp.decode(cut, { typedArrays: Int32Array }), { code: 'TRUNCATED' });
});
