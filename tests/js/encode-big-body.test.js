// encode() of a message with a str or bin body bigger than its JS scratch
// (js/sinks.js ScratchSink.moveBody): the message goes on in a JS buffer
// of the exact size, so the body is copied once, into the result -- not
// into linear memory and out again. The bytes are those encodeInto writes,
// the result owns a buffer of exactly its size, and C's pools see nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';

const builds = [['pthread build', { threads: 0 }], ['single-threaded build', { wasm: 'single' }]];
const made = [];
before(async () => { for (const [, o] of builds) made.push(await createScratchpack(o)); });
after(() => { for (const sp of made) sp.close(); });

const bin = (n) => Uint8Array.from({ length: n }, (_, i) => (i * 131) & 0xff);
const target = new Uint8Array(4 << 20);
const viaInto = (sp, v) => target.slice(0, sp.encodeInto(v, target, 0));

// Bodies that end the message, bodies followed by more, ASCII and not, at
// the edges of the str16 / str32 and bin16 / bin32 headers.
const VALUES = [
  ['a bin that ends the message', [1, bin(100000)]],
  ['an ASCII string that ends it', [1, 'A'.repeat(100000)]],
  ['a bin, then more values', { data: bin(40000), id: 5, tags: ['x', 'y'], more: 'z'.repeat(30) }],
  ['an ASCII string, then more', ['q'.repeat(70000), 2.5, { k: 'v' }]],
  ['a string not all ASCII', ['é'.repeat(30000) + 'tail']],
  ['ASCII with one wide character at its end', ['w'.repeat(65534) + '\u{1F600}']],
  ['one wide character first: its UTF-8 fills as many bytes as the units', ['\u00e9' + 'a'.repeat(99999)]],
  ['a string of 65,535 ASCII units (str16\'s last)', 'b'.repeat(65535)],
  ['a string of 65,536 ASCII units (str32\'s first)', 'c'.repeat(65536)],
  ['a bin of 65,535 and one of 65,536 bytes', [bin(65535), bin(65536)]],
  ['two big bodies', ['d'.repeat(50000), bin(50000)]],
  ['a body just past the scratch', bin(16 * 1024 + 1)],
];

for (const [name, opts] of builds) {
  test(`${name}: big bodies give the bytes encodeInto writes, in a result of exactly its size`, () => {
    const sp = made[builds.findIndex(([n]) => n === name)];
    for (const [what, v] of VALUES) {
      const got = sp.encode(v);
      assert.deepEqual(got, viaInto(sp, v), what);
      assert.deepEqual(decode(got), v, what);
      assert.equal(Object.getPrototypeOf(got), Uint8Array.prototype, what);
      assert.equal(got.byteOffset, 0, what);
      assert.equal(got.buffer.byteLength, got.length, `${what}: its buffer holds more than the message`);
    }
    void opts;
  });

  test(`${name}: a big body does not pass through linear memory`, () => {
    const sp = made[builds.findIndex(([n]) => n === name)];
    const before = sp.stats();
    for (const [, v] of VALUES) sp.encode(v);
    const now = sp.stats();
    assert.equal(now.pool.rents, before.pool.rents, 'the array pool was rented from');
    assert.equal(now.sequences.rents, before.sequences.rents, 'a sequence was rented');
  });

  // A message that outgrew the scratch into C sends the next one into C
  // from its start (sp._beginScratch); a big body there still moves to JS
  // memory, as it does from the scratch. Before, it went into C's pooled
  // segments and was copied out again: bench:js's e.big (bin) encode()
  // after its encodeView job ran at a third of the peers' speed.
  test(`${name}: a big body right after a message that outgrew the scratch into C`, () => {
    const sp = made[builds.findIndex(([n]) => n === name)];
    const many = Array.from({ length: 5000 }, (_, i) => ({ i }));   // ~30 KB of small values: into C
    // Not 'two big bodies': in C its first body fits the entry's 64 KiB
    // scratch and is written there, and the second is then no longer most
    // of the message, so it stays in C (ScratchSink.bodyLeads).
    for (const [what, v] of VALUES.filter(([w]) => w !== 'two big bodies')) {
      sp.encode(many);
      const before = sp.stats();
      const got = sp.encode(v);
      const now = sp.stats();
      assert.deepEqual(got, viaInto(sp, v), what);
      assert.equal(got.buffer.byteLength, got.length, `${what}: its buffer holds more than the message`);
      assert.equal(now.pool.rents, before.pool.rents, `${what}: the array pool was rented from`);
      assert.equal(now.sequences.rents, before.sequences.rents, `${what}: a sequence was rented`);
    }
  });

  // Found in review: a body behind more than itself in a C entry was asked
  // of C in one piece, and past the pool's 128 KiB buckets C reserved it
  // outside the pool (malloc) on every call.
  test(`${name}: a big body behind a bigger message in C is not reserved outside the pool`, () => {
    const sp = made[builds.findIndex(([n]) => n === name)];
    const rows = Array.from({ length: 40000 }, (_, i) => ({ i, s: 'r' + i }));    // ~590 KB: into C's segments
    for (const v of [{ rows, blob: bin(300000), tail: 1 }, { rows, text: 'u'.repeat(300000), tail: 1 }]) {
      sp.encode(v);
      const before = sp.stats().alloc;
      const got = sp.encode(v);
      const now = sp.stats().alloc;
      assert.equal(now.unpooledCalls, before.unpooledCalls, 'a reservation outside the pool');
      assert.deepEqual(got, viaInto(sp, v));
    }
  });

  test(`${name}: a big message of small values with a long string inside: the bytes encodeInto writes`, () => {
    const sp = made[builds.findIndex(([n]) => n === name)];
    const v = { rows: Array.from({ length: 20000 }, (_, i) => ({ i, s: 'r' + i })), text: 't'.repeat(40000), tail: [1, 2] };
    const got = sp.encode(v);
    assert.deepEqual(got, viaInto(sp, v));
    assert.deepEqual(decode(got), v);
  });
}

test('after a big body the next small message starts in the JS scratch again', () => {
  const sp = made[0];
  sp.encode([bin(200000)]);
  const before = sp.stats();
  for (let i = 0; i < 100; i++) assert.deepEqual(decode(sp.encode({ i, s: 'small' })), { i, s: 'small' });
  assert.equal(sp.stats().pool.rents, before.pool.rents);
  assert.equal(sp.stats().alloc.allocCalls, before.alloc.allocCalls, 'small messages called into C');
});

// The writer's one-piece bound is the JS scratch's alone: a C entry's sink
// (here: compression, which always writes through C) had a flag of the same
// name that read as a bound of 1 byte, and every long string was asked of C
// whole -- one segment of the string's size instead of pooled segments.
test('through a C entry a long string still goes into pooled segments', async () => {
  const sp = await createScratchpack({ threads: 0, compression: 'lz4block' });
  try {
    const v = 'x'.repeat(3 << 20);
    assert.equal(sp.decode(sp.encode(v)), v);
    const before = sp.stats().pool.rents;
    sp.encode(v);
    assert.ok(sp.stats().pool.rents - before > 10, `${sp.stats().pool.rents - before} rents for 3 MiB`);
  } finally {
    sp.close();
  }
});
