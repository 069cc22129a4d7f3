// A typed array whose subclass (or own property) says it is longer than it
// is: a numeric array is written with its real elements, read through the
// built-in getters (js/typed.js plainNumeric), never with bytes C finds past
// them in linear memory -- in encode(), encodeInto() and encodeAsync().
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';

let sp;
before(async () => { sp = await createScratchpack({ threads: 0 }); });
after(() => sp.close());

class LongInt32 extends Int32Array { get length() { return 64; } }
class LongFloat64 extends Float64Array { get length() { return 5000; } get byteLength() { return 40000; } }

function liars() {
  const own = new Int16Array([7, 8, 9]);
  Object.defineProperty(own, 'length', { get: () => 1000 });
  return [[new LongInt32(4), [0, 0, 0, 0]], [LongFloat64.from([1.5, 2.5]), [1.5, 2.5]], [own, [7, 8, 9]]];
}

test('a numeric array that overstates its length is written with its real elements only', async () => {
  // Old bytes in linear memory first, so that reading past the elements would show.
  sp.encodeInto(new Int32Array(4000).fill(0x42424242), new Uint8Array(30000));
  sp.encode(new Float64Array(8000).fill(4.25));
  for (const [v, want] of liars()) {
    assert.deepEqual(decode(sp.encode(v)), want, 'encode()');
    const target = new Uint8Array(100000);
    const n = sp.encodeInto(v, target);
    assert.deepEqual(decode(target.subarray(0, n)), want, 'encodeInto()');
    assert.deepEqual(decode(await sp.encodeAsync(v)), want, 'encodeAsync()');
    assert.deepEqual(decode(sp.encode([v, 'after'])), [want, 'after'], 'inside an array');
  }
});

test('a numeric array whose constructor property says another kind is written as what it is', () => {
  const f = new Float64Array([0.5, -1.25]);
  Object.defineProperty(f, 'constructor', { value: Int32Array });
  assert.deepEqual(decode(sp.encode(f)), [0.5, -1.25]);
});
