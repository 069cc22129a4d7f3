// encodeInto with long strings (js/sink-target.js deferText): a string of
// 2048 UTF-16 units or more is not staged but written by finish() as UTF-8
// straight into the target -- where the target holds it at its worst (3
// bytes a unit). Where it does not, the strings deferred so far are staged
// after all (stageTexts), or, if what came after them took the room, at
// finish() (finishTight). Whichever path a target's size leads to, the
// bytes are encode()'s, nothing outside the message is written, and a
// target too small is refused before anything goes into it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { Ext, createScratchpack, decode } from '../../js/index.js';

let sp;
before(async () => { sp = await createScratchpack({ threads: 0 }); });
after(() => sp.close());

const bin = (n, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 29 + seed) & 0xff);
const worstOf = (v) => sp.encode(v).length + 3 * textUnits(v) + 64;

function textUnits(v) {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.reduce((a, x) => a + textUnits(x), 0);
  if (v && typeof v === 'object' && !(v instanceof Uint8Array) && !(v instanceof Ext))
    return Object.entries(v).reduce((a, [k, x]) => a + k.length + textUnits(x), 0);
  return 0;
}

const VALUES = [
  ['strings just under and at the bound', ['a'.repeat(2047), 'b'.repeat(2048)]],
  ['two-byte and three-byte text, a pair split by nothing, a lone surrogate',
    ['\u00e9'.repeat(3000), '\u4e2d'.repeat(2500), 'p'.repeat(2100) + '\u{1F600}', 'q'.repeat(4000) + '\udc00']],
  ['str 16 text from units whose worst is a str 32: 21,845 and 21,846 units', ['\u4e2d'.repeat(21845), 'r'.repeat(21846)]],
  ['text whose UTF-8 passes 65,535 bytes from fewer units (its header widens to a str 32)',
    ['\u4e2d'.repeat(30000), 'x', '\u00e9'.repeat(40000), '\u4e2d'.repeat(65535)]],
  ['strings of 65,535 and 65,536 units', ['c'.repeat(65535), 'd'.repeat(65536)]],
  ['long strings among bin and ext bodies and small values',
    { s: 's'.repeat(5000), b: bin(6000, 3), t: 'tail', w: '\u4e2d'.repeat(3000), e: new Ext(5, bin(2000, 4)), n: [1, 2.5, null] }],
  ['many long strings (a list of deferred strings longer than most)',
    Array.from({ length: 300 }, (_, i) => (i % 7 === 0 ? '\u00e9' : 'k').repeat(2048 + i))],
  ['a long string as a map key', { ['K'.repeat(3000)]: 'v'.repeat(2500), z: 1 }],
];

// Target sizes from the exact message to past its worst: the first ones
// stage every long string, the middle ones defer the first few and stage
// the rest (or restage at finish), the last defer them all.
function targetSizes(v) {
  const exact = sp.encode(v).length, worst = worstOf(v);
  const sizes = new Set([exact, exact + 1, exact + 7, worst, worst + 100]);
  for (let k = 1; k < 12; k++) sizes.add(exact + Math.round(((worst - exact) * k) / 12));
  return [...sizes];
}

test('encodeInto gives encode()\'s bytes for long strings at every target size from exact to roomy, at any offset', () => {
  for (const [what, v] of VALUES) {
    const want = sp.encode(v);
    for (const size of targetSizes(v)) {
      for (const offset of [0, 5]) {
        const target = new Uint8Array(offset + size).fill(0xee);
        const n = sp.encodeInto(v, target, offset);
        const where = `${what}: target of ${size} at offset ${offset}`;
        assert.equal(n, want.length, where);
        assert.deepEqual(target.subarray(offset, offset + n), want, where);
        assert.ok(target.subarray(0, offset).every((x) => x === 0xee), `${where}: bytes before the offset`);
        assert.ok(target.subarray(offset + n).every((x) => x === 0xee), `${where}: bytes after the message`);
      }
    }
  }
});

test('one instance and one roomy target, message after message: each gets its own bytes', () => {
  const target = new Uint8Array(2 << 20);
  for (let round = 0; round < 3; round++) {
    for (const [what, v] of VALUES) {
      const want = sp.encode(v);
      const n = sp.encodeInto(v, target, round);
      assert.deepEqual(target.subarray(round, round + n), want, `${what}, round ${round}`);
    }
  }
});

test('a target one byte short is BUFFER_TOO_SMALL and left untouched, whatever the text takes', () => {
  for (const [what, v] of VALUES) {
    const want = sp.encode(v);
    const short = new Uint8Array(want.length - 1).fill(0xaa);
    assert.throws(() => sp.encodeInto(v, short), (e) => e.code === 'BUFFER_TOO_SMALL', what);
    assert.ok(short.every((x) => x === 0xaa), `${what}: the short target was written`);
  }
});

test('deferred text that a later body leaves no room for: written whole if it fits, refused untouched if not', () => {
  // The string is deferred (its worst fits when it comes); the bin after it
  // takes the room its worst needed, so finish() must learn what it takes.
  const v = ['\u4e2d'.repeat(3000), bin(6000, 9)];
  const want = sp.encode(v);
  assert.equal(want.length, 1 + 3 + 9000 + 3 + 6000);
  const exact = new Uint8Array(want.length).fill(0x11);
  assert.equal(sp.encodeInto(v, exact), want.length);
  assert.deepEqual(exact, want);
  for (const size of [want.length - 1, 9020]) {   // the least (a byte a unit) fits in both
    const short = new Uint8Array(size).fill(0x22);
    assert.throws(() => sp.encodeInto(v, short), (e) => e.code === 'BUFFER_TOO_SMALL' && e.message.includes(String(want.length)),
      `target of ${size}`);
    assert.ok(short.every((x) => x === 0x22), `target of ${size}: written before it was refused`);
  }
});

test('deferred text and short strings after it: the short ones take the room, the bytes are still encode()\'s', () => {
  const v = ['\u00e9'.repeat(5000), ...Array.from({ length: 40 }, (_, i) => 'w'.repeat(200 + i))];
  const want = sp.encode(v);
  // Its worst is 10,000 bytes past what it takes: any target under that
  // much past the message stages it at finish().
  for (const size of [want.length, want.length + 3, want.length + 6000, want.length + 9999, want.length + 10000]) {
    const target = new Uint8Array(size).fill(0x33);
    assert.equal(sp.encodeInto(v, target), want.length, `target of ${size}`);
    assert.deepEqual(target.subarray(0, want.length), want, `target of ${size}`);
  }
});

test('a getter that encodes into its own target while long text is deferred outside it', () => {
  const inner = new Uint8Array(100000);
  let innerLen = 0;
  const v = {
    first: 'f'.repeat(4000),
    get nested() { innerLen = sp.encodeInto(['n'.repeat(3000), '\u4e2d'.repeat(2100)], inner); return innerLen; },
    last: 'l'.repeat(2500),
  };
  const outer = new Uint8Array(100000);
  const n = sp.encodeInto(v, outer);
  assert.deepEqual(decode(outer.subarray(0, n)), { first: 'f'.repeat(4000), nested: innerLen, last: 'l'.repeat(2500) });
  assert.deepEqual(decode(inner.subarray(0, innerLen)), ['n'.repeat(3000), '\u4e2d'.repeat(2100)]);
});
