// Long strings through every entry (js/writer.js writeLongerString): a
// string whose worst case (3 bytes a unit) the span cannot reserve is
// written optimistically when it looks ASCII (its first, middle and last
// units), as one exact piece when it is past encode()'s onePiece, and
// otherwise written aside to learn its length (writeStagedString) -- or,
// past STAGED_TEXT_MAX units, counted. The guess only picks a path: text
// that fools it (ASCII at the three places it looks, wide elsewhere; wide
// at one end only) still gets the UTF-8 TextEncoder gives, wherever in the
// message the string falls and whatever follows it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';

let sp;
before(async () => { sp = await createScratchpack({ threads: 0 }); });
after(() => sp.close());

const utf8 = new TextEncoder();

// The MessagePack str for s: the smallest header, then TextEncoder's UTF-8
// (a lone surrogate becomes U+FFFD).
function str(s) {
  const body = utf8.encode(s), n = body.length;
  const head = n < 32 ? [0xa0 | n] : n < 0x100 ? [0xd9, n] : n < 0x10000 ? [0xda, n >>> 8, n & 0xff]
    : [0xdb, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  return [...head, ...body];
}

const bytesOf = (...parts) => Uint8Array.from(parts.flat());

// Text of n units of each kind the paths tell apart.
const KINDS = {
  ascii: (n) => 'a'.repeat(n),
  twoByte: (n) => '\u00e9'.repeat(n),
  threeByte: (n) => '\uac00'.repeat(n),
  pairs: (n) => '\u{1F600}'.repeat(n >> 1) + (n & 1 ? 'z' : ''),
  loneSurrogates: (n) => 'x' + '\ud800'.repeat(n - 2) + 'y',
  // ASCII where looksAscii reads (first, middle, last), wide everywhere else
  foolsTheGuess: (n) => Array.from({ length: n }, (_, i) => (i === 0 || i === n >>> 1 || i === n - 1 ? 'q' : '\u4e2d')).join(''),
  wideStartThenAscii: (n) => '\u00e9' + 'b'.repeat(n - 1),
  asciiThenWideEnd: (n) => 'c'.repeat(n - 1) + '\u20ac',
};

// Around the bounds: a third of the JS scratch at worst, the scratch, encode()'s onePiece.
const LENGTHS = [5461, 5462, 10000, 16375, 16376, 16384, 16385, 40000, 300000];

test('encode() gives TextEncoder\'s UTF-8 for long text of every kind, alone, after 10 KB and followed by more', () => {
  const before10k = 'p'.repeat(10000);
  for (const [kind, make] of Object.entries(KINDS)) {
    for (const n of LENGTHS) {
      const s = make(n), where = `${kind} of ${n} units`;
      assert.deepEqual(sp.encode(s), bytesOf(str(s)), `${where}, alone`);
      assert.deepEqual(sp.encode([1, s]), bytesOf([0x92, 1], str(s)), `${where}, ending [1, s]`);
      assert.deepEqual(sp.encode([before10k, s, 'tail', 7]), bytesOf([0x94], str(before10k), str(s), str('tail'), [7]),
        `${where}, after 10 KB and before more`);
    }
  }
});

test('encodeView and encodeInto give the same bytes as encode() for long text', async () => {
  const target = new Uint8Array(4 << 20);
  for (const [kind, make] of Object.entries(KINDS)) {
    for (const n of [5462, 16385, 40000]) {
      const v = ['head', make(n), { k: make(n >>> 1) }], want = sp.encode(v), where = `${kind} of ${n} units`;
      const lease = sp.encodeView(v);
      try { assert.deepEqual(new Uint8Array(lease.bytes), want, `${where}: encodeView`); } finally { lease.release(); }
      const len = sp.encodeInto(v, target, 3);
      assert.deepEqual(target.subarray(3, 3 + len), want, `${where}: encodeInto`);
      const exact = new Uint8Array(want.length);   // no room to defer the text: it goes through the stage
      sp.encodeInto(v, exact);
      assert.deepEqual(exact, want, `${where}: encodeInto, an exact target`);
      assert.deepEqual(decode(want), [v[0], v[1].toWellFormed(), { k: v[2].k.toWellFormed() }], `${where}: decodes`);
    }
  }
});

test('a string past the staged bound is counted and still exact', () => {
  const s = '\u00e9'.repeat((1 << 20) + 1);   // STAGED_TEXT_MAX + 1 units, not ASCII
  const out = sp.encode([s]);
  assert.equal(out.length, 1 + 5 + 2 * s.length);
  assert.deepEqual(out.subarray(0, 6), Uint8Array.of(0x91, 0xdb, 0, 0x20, 0, 2));
  assert.ok(out.subarray(6).every((b, i) => b === (i & 1 ? 0xa9 : 0xc3)));
});

test('a string written aside does not leak into the next message: each gets its own bytes', () => {
  const wide = '\uac00'.repeat(30000), short = '\u00e9'.repeat(6000);
  const a = sp.encode([wide]);
  const b = sp.encode([short, 'end']);
  assert.deepEqual(b, bytesOf([0x92], str(short), str('end')));
  assert.deepEqual(a, bytesOf([0x91], str(wide)));
});

test('two long wide strings staged in turn in encodeInto\'s exact target keep their own bytes', async () => {
  // The first one's worst case does not fit (3 bytes a unit, 2 taken), so
  // neither is deferred, and a new instance's stage is too small to take
  // it at its worst: each is written aside in the same staging array.
  const own = await createScratchpack({ threads: 0 });
  try {
    const v = ['\u00e9'.repeat(40000), '\u00f6'.repeat(17000)];
    const want = bytesOf([0x92], str(v[0]), str(v[1]));
    const exact = new Uint8Array(want.length);
    assert.equal(own.encodeInto(v, exact), want.length);
    assert.deepEqual(exact, want);
  } finally {
    own.close();
  }
});
