// encodeInto with big bin and ext bodies (js/sink-target.js defer): a body
// of 1 KiB or more is not staged but copied from the value straight into the
// target when the message is complete. The bytes are encode()'s wherever the
// bodies sit, a target too small by one byte is refused and left untouched,
// and an exact fit at any offset is written whole.
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { after, before, test } from 'node:test';

import { Ext, createScratchpack, decode } from '../../js/index.js';

let sp;
before(async () => { sp = await createScratchpack({ threads: 0 }); });
after(() => sp.close());

const bin = (n, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

const VALUES = [
  ['one body that ends the message', [1, bin(100000)]],
  ['a body at the very start', bin(8192)],
  ['bodies before, between and after other values',
    { a: bin(5000, 2), b: 'x', c: [bin(4096, 3), bin(4095, 4), 'y'.repeat(300)], d: bin(70000, 5), e: 2.5 }],
  ['two bodies in a row', [bin(4096, 6), bin(4097, 7)]],
  ['an ext body', [new Ext(7, bin(6000, 8)), 'after']],
  ['one body between staged runs of more than 32 bytes',
    { ['k'.repeat(40)]: 'v'.repeat(30), b: bin(6000, 13), t: 'tail of more than thirty-two bytes' }],
  ['bodies just under the bound (staged as before)', [bin(1023, 9), bin(100, 10)]],
  ['bodies at the bound and one past it', [bin(1024, 14), 'x', bin(1025, 15)]],
  ['many bodies to a message (a list of deferred bodies longer than most)',
    Array.from({ length: 600 }, (_, i) => [i, bin(1024 + (i % 5), i)])],
  ['a long ASCII string (written once, straight into the target)', [1, 'A'.repeat(100000)]],
  ['long strings not all ASCII: two-byte, a pair at the end, a lone surrogate',
    ['\u00e9'.repeat(70000), 'x', 'a'.repeat(65535) + '\u{1F600}', 'b'.repeat(70000) + '\ud800']],
  ['strings of 65,536 units (deferred) and 65,535 (staged)', ['c'.repeat(65536), 'd'.repeat(65535)]],
  ['a long string among bodies and small values', { s: 'q'.repeat(80000), b: bin(5000, 12), t: 'tail', w: '\u4e2d'.repeat(66000) }],
];

test('encodeInto gives encode()\'s bytes with big bodies anywhere, at any offset', () => {
  for (const [what, v] of VALUES) {
    const want = sp.encode(v);
    for (const offset of [0, 3]) {
      const target = new Uint8Array(offset + want.length + 5).fill(0xee);
      const n = sp.encodeInto(v, target, offset);
      assert.equal(n, want.length, what);
      assert.deepEqual(target.subarray(offset, offset + n), want, `${what}, offset ${offset}`);
      assert.ok(target.subarray(0, offset).every((x) => x === 0xee), `${what}: bytes before the offset`);
      assert.ok(target.subarray(offset + n).every((x) => x === 0xee), `${what}: bytes after the message`);
      assert.deepEqual(decode(target.subarray(offset, offset + n)), decode(want), what);
    }
  }
});

test('a target one byte short is BUFFER_TOO_SMALL and left untouched; an exact fit is written whole', () => {
  for (const [what, v] of VALUES) {
    const want = sp.encode(v);
    const short = new Uint8Array(want.length - 1).fill(0xaa);
    assert.throws(() => sp.encodeInto(v, short), (e) => e.code === 'BUFFER_TOO_SMALL', what);
    assert.ok(short.every((x) => x === 0xaa), `${what}: the short target was written`);
    const exact = new Uint8Array(want.length);
    assert.equal(sp.encodeInto(v, exact), want.length, what);
    assert.deepEqual(exact, want, what);
  }
});

test('after a failure part way, the next encodeInto holds no body of the failed one', () => {
  const v = [bin(50000, 11), () => 'not encodable'];
  const target = new Uint8Array(100000).fill(0x55);
  assert.throws(() => sp.encodeInto(v, target), (e) => e.code === 'UNSUPPORTED_TYPE');
  assert.ok(target.every((x) => x === 0x55), 'a failed encodeInto wrote into the target');
  const n = sp.encodeInto([1, 2], target);
  assert.deepEqual(decode(target.subarray(0, n)), [1, 2]);
});

test('the bodies of a finished encodeInto are not held by the instance', async () => {
  const gc = collector();
  let body = bin(40000, 3);
  const ref = new WeakRef(body);
  const target = new Uint8Array(100000);
  sp.encodeInto([body, bin(5000, 4)], target);
  body = null;
  for (let i = 0; i < 50 && ref.deref() !== undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));   // (a WeakRef holds its target to the end of the job)
    gc();
  }
  assert.equal(ref.deref(), undefined, 'a body encoded by the last encodeInto is still reachable');
});

test('a message of many bodies, then one of fewer: the second holds none of the first\'s', () => {
  // The list of deferred bodies is kept between calls; a shorter message
  // must read only its own slots of it.
  const many = Array.from({ length: 40 }, (_, i) => bin(2000, i));
  const target = new Uint8Array(100000);
  const n1 = sp.encodeInto(many, target);
  assert.deepEqual(target.subarray(0, n1), sp.encode(many));
  const few = [bin(3000, 77), 'end'];
  const n2 = sp.encodeInto(few, target);
  assert.deepEqual(target.subarray(0, n2), sp.encode(few));
});

test('the bodies of a finished encodeInto of many bodies are not held by the kept list', async () => {
  const gc = collector();
  let bodies = Array.from({ length: 100 }, (_, i) => bin(1500, i));
  const refs = bodies.map((b) => new WeakRef(b));
  sp.encodeInto(bodies, new Uint8Array(200000));
  bodies = null;
  for (let i = 0; i < 50 && refs.some((r) => r.deref() !== undefined); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
  assert.equal(refs.filter((r) => r.deref() !== undefined).length, 0, 'bodies of the last encodeInto are still reachable');
});

test('a body whose buffer a later getter resizes or transfers is refused, the target as it was', () => {
  // The body is read when the message is complete; its header was written
  // with the length it had when the walk met it.
  const changes = {
    shrunk: (ab) => ab.resize(10),
    grown: (ab) => ab.resize(ab.maxByteLength),
    transferred: (ab) => structuredClone(ab, { transfer: [ab] }),
  };
  for (const [how, change] of Object.entries(changes)) {
    for (const n of [1024, 5000, 70000]) {
      const ab = new ArrayBuffer(n, { maxByteLength: 2 * n });
      const body = new Uint8Array(ab).fill(7);          // tracks the buffer's length
      const getter = { get x() { change(ab); return 1; } };
      for (const v of [[body, getter], { b: body, g: getter, t: bin(3000, 2) }]) {   // one body; two
        if (ab.detached !== true) ab.resize(n);
        const target = new Uint8Array(4 * n + 4000).fill(0xee);
        assert.throws(() => sp.encodeInto(v, target, 1), (e) => e.code === 'INVALID_ARGUMENT' && /resized or transferred/.test(e.message),
          `${how}, ${n} bytes`);
        assert.ok(target.every((x) => x === 0xee), `${how}, ${n} bytes: the target was written`);
        if (how === 'transferred') break;
      }
    }
  }
  const n = sp.encodeInto([1, bin(2000, 3)], new Uint8Array(3000));   // the next call is whole
  assert.equal(n, 2 + 3 + 2000);
});

test('an extension that returns a view of a buffer it reuses gets each value\'s own bytes', async () => {
  // Its output is copied when it returns (a later call in the same message
  // overwrites the buffer), not deferred to the finish as a value's bin is.
  class Blob { constructor(seed, n) { this.seed = seed; this.n = n; } }
  const reused = new Uint8Array(100000);
  const extensions = [{ type: 5, class: Blob, encode: (b) => reused.fill(b.seed, 0, b.n).subarray(0, b.n), decode: (d) => d }];
  const withExt = await createScratchpack({ threads: 0, extensions });
  try {
    for (const n of [1024, 5000, 70000]) {
      const v = [new Blob(1, n), { b: new Blob(2, n) }, new Blob(3, n)];
      const want = withExt.encode(v);
      const target = new Uint8Array(want.length + 7);
      const len = withExt.encodeInto(v, target, 7);
      assert.deepEqual(target.subarray(7, 7 + len), want, `${n} bytes`);
      assert.deepEqual(decode(target.subarray(7, 7 + len), { extensions }).map((x) => (x.b ?? x)[0]), [1, 2, 3]);
    }
  } finally {
    withExt.close();
  }
});

test('a body that views the target itself gives encode()\'s bytes, in plain and shared memory', () => {
  // finish() writes the message's first bytes before it copies a body: a
  // body over the target's own memory is staged, not read from there late.
  for (const Buf of [ArrayBuffer, SharedArrayBuffer]) {
    for (const [len, from, offset] of [[1024, 0, 0], [5000, 3, 0], [70000, 0, 2], [200000, 17, 5]]) {
      const target = new Uint8Array(new Buf(len + 1700));
      const one = [target.subarray(from, from + len), 'x'];
      const two = [Buffer.from(target.buffer, from + 1, len - 1), 'x', target.subarray(from, from + 1500)];   // (a Buffer's slice is a view)
      for (const [what, value] of [['one body', one], ['two bodies', two]]) {
        for (let i = 0; i < target.length; i++) target[i] = (i * 7) & 0xff;
        const want = sp.encode(value).slice();
        const n = sp.encodeInto(value, target, offset);
        assert.equal(n, want.length);
        assert.ok(Buffer.from(target.buffer, offset, n).equals(want), `${Buf.name}, ${what}, ${len} bytes from ${from}, offset ${offset}`);
      }
    }
  }
});

// global.gc, without the test runner needing --expose-gc.
function collector() {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

test('a SharedArrayBuffer target gets encode()\'s bytes at every offset modulo 8, bodies and stage alike', () => {
  // Long copies into shared memory go by copyBytes (sink.js) when the
  // target's and the source's offsets disagree modulo 8: every case here.
  const values = [...VALUES.map(([, v]) => v), Array.from({ length: 400 }, (_, i) => ({ i, s: `v${i}` }))];
  for (const v of values) {
    const want = sp.encode(v);
    for (let offset = 0; offset < 8; offset++) {
      const target = new Uint8Array(new SharedArrayBuffer(offset + want.length + 3)).fill(0xee);
      assert.equal(sp.encodeInto(v, target, offset), want.length);
      assert.ok(Buffer.from(target.buffer, offset, want.length).equals(want), `offset ${offset}`);
      assert.equal(target[offset - 1] ?? 0xee, 0xee);
      assert.deepEqual([...target.subarray(offset + want.length)], [0xee, 0xee, 0xee]);
    }
  }
});
