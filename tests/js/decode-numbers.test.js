// Numeric arrays scanned into typed arrays (js/decode-numbers.js): every
// integer form, the 64-bit ones included, lands in the requested array or
// the array stays a plain one -- never a wrong value, never a moved cursor.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { decode, encode } from '../../js/index.js';

// [1, -1, 200, -100, 60000, -30000, 4e9, -2e9, 2^40 as uint 64, -2^40 as int 64]
const forms = Uint8Array.of(0x9a, 0x01, 0xff, 0xcc, 200, 0xd0, 0x9c, 0xcd, 0xea, 0x60, 0xd1, 0x8a, 0xd0,
  0xce, 0xee, 0x6b, 0x28, 0x00, 0xd2, 0x88, 0xca, 0x6c, 0x00,
  0xcf, 0, 0, 1, 0, 0, 0, 0, 0, 0xd3, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0);
const values = [1, -1, 200, -100, 60000, -30000, 4e9, -2e9, 2 ** 40, -(2 ** 40)];

test('every integer form into a BigInt64Array, and its values as numbers with auto', () => {
  assert.deepEqual(decode(forms, { typedArrays: BigInt64Array }), BigInt64Array.from(values.map(BigInt)));
  const auto = decode(forms, { typedArrays: 'auto' });
  assert.equal(auto.constructor, Float64Array);          // past 32 bits, still safe integers
  assert.deepEqual([...auto], values);
});

test('an array that does not fit the requested type stays a plain array with the same values', () => {
  assert.deepEqual(decode(forms, { typedArrays: BigUint64Array }), values);   // negatives
  assert.deepEqual(decode(forms, { typedArrays: Int32Array }), values);       // 64-bit forms
  const unsafe = Uint8Array.of(0x92, 0x01, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
  assert.deepEqual(decode(unsafe, { typedArrays: 'auto' }), [1, 2n ** 64n - 1n]);
  const float = Uint8Array.of(0x92, 0x01, 0xca, 0x3f, 0xc0, 0, 0);
  assert.deepEqual(decode(float, { typedArrays: BigInt64Array }), [1, 1.5]);
});

test('a scan cut short by the end of the input fails as TRUNCATED at the element, as a plain read does', () => {
  for (const typedArrays of ['auto', Int32Array, BigInt64Array, false]) {
    const cut = forms.subarray(0, 30);                    // inside the uint 64
    assert.throws(() => decode(cut, { typedArrays }), { code: 'TRUNCATED', offset: 23 }, String(typedArrays));
  }
});

test('a numeric array longer than the kept scan buffer decodes the same, into each type', () => {
  const n = 70000;                                      // past the 65,536 numbers kept between calls
  const ints = Array.from({ length: n }, (_, i) => i - 1000);
  const floats = Array.from({ length: n }, (_, i) => i / 8);
  const i32 = decode(encode(ints), { typedArrays: 'auto' });
  assert.equal(i32.constructor, Int32Array);
  assert.deepEqual([...i32], ints);
  const f64 = decode(encode(floats), { typedArrays: 'auto' });
  assert.equal(f64.constructor, Float64Array);
  assert.deepEqual([...f64], floats);
  const again = decode(encode(floats.slice(0, 10)), { typedArrays: 'auto' });   // a short one after: the kept buffer
  assert.deepEqual([...again], floats.slice(0, 10));
  assert.notEqual(again.buffer, f64.buffer);
});

test('integers in the 64-bit forms fill an integer array when they fit, in JS and in C alike, at any length', async () => {
  // Another encoder's int64 fields (Go, Java, .NET longs) write small values as cf/d3.
  const { createScratchpack } = await import('../../js/index.js');
  const sp = await createScratchpack();
  try {
    const int64 = (v) => { const b = new Uint8Array(9); b[0] = v < 0 ? 0xd3 : 0xcf; new DataView(b.buffer).setBigInt64(1, BigInt(v)); return [...b]; };
    const message = (n, last) => Uint8Array.from([0xdc, n >> 8, n & 255, ...Array.from({ length: n - 1 }, (_, i) => int64(i % 2 ? -i : i)).flat(), ...int64(last)]);
    for (const n of [3, 255, 256, 1000]) {
      for (const [ctor, fits, misfit] of [[Int32Array, -5, 2 ** 31], [Int16Array, 7, 40000], [Float64Array, 9, 2 ** 60]]) {
        const ok = message(n, fits), bad = message(n, misfit);
        const want = ctor.from({ length: n }, (_, i) => (i === n - 1 ? fits : i % 2 ? -i : i));
        assert.deepEqual(decode(ok, { typedArrays: ctor }), want, `decode, ${n} into ${ctor.name}`);
        assert.deepEqual(sp.decode(ok, { typedArrays: ctor }), want, `sp.decode, ${n} into ${ctor.name}`);
        assert.ok(Array.isArray(decode(bad, { typedArrays: ctor })), `decode, ${n}, ${misfit} does not fit ${ctor.name}`);
        assert.ok(Array.isArray(sp.decode(bad, { typedArrays: ctor })), `sp.decode, ${n}, ${misfit} does not fit ${ctor.name}`);
      }
    }
  } finally {
    sp.close();
  }
});
