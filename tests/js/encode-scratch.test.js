// encode()'s JS scratch (js/sinks.js ScratchSink): a message that fits it
// calls no C; a bigger one moves once into a C entry and goes on there.
// Either way the bytes are those encodeInto writes, errors keep their paths,
// nested encodes get scratches of their own, and nothing stays held.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';

let sp;
before(async () => { sp = await createScratchpack({ threads: 0 }); });
after(() => sp.close());

const target = new Uint8Array(4 << 20);
const viaInto = (s, v) => target.slice(0, s.encodeInto(v, target, 0));

test('messages on both sides of the JS scratch give the bytes encodeInto writes', () => {
  const sizes = [0, 1, 100, 16 * 1024 - 10, 16 * 1024 - 3, 16 * 1024, 16 * 1024 + 1, 70000, 300000];
  for (const n of sizes) {
    for (const v of [
      'a'.repeat(n),                                        // one long string
      ['x'.repeat(n), 1, 'é'.repeat(n >> 2), { k: 2.5 }],   // reservations before and after the edge
      Array.from({ length: n >> 2 }, (_, i) => i * 37),     // many small writes across it
    ]) {
      const got = sp.encode(v);
      assert.deepEqual(got, viaInto(sp, v), `n = ${n}`);
      assert.deepEqual(decode(got), v);
    }
  }
});

test('a typed array in a small message goes through C and lands in order', () => {
  const v = { before: 'b', ints: Int32Array.from({ length: 300 }, (_, i) => i - 150), after: [1, 2] };
  const got = sp.encode(v);
  assert.deepEqual(got, viaInto(sp, v));
  assert.deepEqual(decode(got, { typedArrays: Int32Array }).ints, v.ints);
});

test('a getter that encodes gets its own scratch, before and after the outer one migrates', () => {
  const inner = { n: 1, s: 'inner' };
  const want = sp.encode(inner);
  for (const pad of [10, 40000]) {
    const seen = [];
    const v = { head: 'h'.repeat(pad), get nested() { const b = sp.encode(inner); seen.push(b); return b; }, tail: 't'.repeat(pad) };
    const got = sp.encode(v);
    assert.deepEqual(seen[0], want);
    assert.deepEqual(decode(got), { head: v.head, nested: want, tail: v.tail });
  }
});

test('a failure after the migration keeps its path, and the next encodes are whole', () => {
  const bad = { big: 'z'.repeat(50000), list: [1, 2, () => 0] };
  assert.throws(() => sp.encode(bad), (e) => e.code === 'UNSUPPORTED_TYPE' && e.path === '.list[2]');
  assert.throws(() => sp.encode({ small: [() => 0] }), (e) => e.code === 'UNSUPPORTED_TYPE' && e.path === '.small[0]');
  const used = sp.stats().heap.used;
  for (let i = 0; i < 200; i++) assert.throws(() => sp.encode(bad));
  assert.equal(sp.stats().heap.used, used);              // every C entry the failures took was ended
  assert.deepEqual(decode(sp.encode({ ok: 'z'.repeat(50000) })), { ok: 'z'.repeat(50000) });
  assert.deepEqual(decode(sp.encode({ ok: 1 })), { ok: 1 });
});

test('a message that fits the JS scratch asks nothing of C; a bigger one uses C\'s scratch as before', () => {
  sp.encode({ warm: 'z'.repeat(40000) });
  const s0 = sp.stats();
  for (let i = 0; i < 100; i++) sp.encode({ Id: i, Name: 'hello' });
  const s1 = sp.stats();
  assert.equal(s1.alloc.allocCalls, s0.alloc.allocCalls);
  for (let i = 0; i < 10; i++) sp.encode({ s: 'z'.repeat(40000) });   // past 16 KiB: C's scratch, no rent
  assert.equal(sp.stats().sequences.rents, s1.sequences.rents);
  // Past C's scratch: a sequence. (Many short strings: one body past 16 KiB
  // would go on in JS memory instead, as encode()'s result is a JS array.)
  sp.encode(Array.from({ length: 20000 }, (_, i) => `x${i}`));
  assert.ok(sp.stats().sequences.rents > s1.sequences.rents);
});

test('a scratch smaller than the JS one bounds it (scratchSize 8: every message migrates at once)', async () => {
  const small = await createScratchpack({ threads: 0, scratchSize: 8 });
  try {
    for (const v of [{ a: 1 }, { s: 'q'.repeat(5000), n: [1, 2, 3] }]) assert.deepEqual(small.encode(v), viaInto(sp, v));
    assert.ok(small.stats().sequences.rents >= 1);
  } finally {
    small.close();
  }
});
