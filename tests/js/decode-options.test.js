// Decode options given as a new object on every call are checked once and
// remembered by their keys and values: every call still gets exactly the
// options it passed, whatever came before, and bad options still fail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';

import { createScratchpack, decode, encode } from '../../js/index.js';

const bytes = encode([Uint8Array.of(1, 2, 3), 2n ** 60n, { k: 1 }]);

const sets = [
  [{ binary: 'view' }, (v) => assert.equal(v[0].buffer, bytes.buffer)],
  [{ binary: 'copy' }, (v) => assert.notEqual(v[0].buffer, bytes.buffer)],
  [{ int64: 'bigint' }, (v) => assert.equal(v[1], 2n ** 60n)],
  [{ int64: 'string' }, (v) => assert.equal(v[1], (2n ** 60n).toString())],
  [{ int64: 'number', binary: 'view' }, (v) => { assert.equal(v[1], 2 ** 60); assert.equal(v[0].buffer, bytes.buffer); }],
  [{ binary: 'view', int64: 'number' }, (v) => { assert.equal(v[1], 2 ** 60); assert.equal(v[0].buffer, bytes.buffer); }],
  [{ maps: 'map' }, (v) => assert.ok(v[2] instanceof Map)],
  [{ maps: 'object', typedArrays: false }, (v) => assert.deepEqual(v[2], { k: 1 })],
];

test('each call gets the options it passed, in any order and past the memory of recent ones', () => {
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < sets.length; i++) {
      const [o, check] = sets[(i * (round + 3)) % sets.length];
      check(decode(bytes, { ...o }));
    }
  }
});

test('a bad option fails every time, also right after good ones of the same name', () => {
  decode(bytes, { binary: 'view' });
  for (let i = 0; i < 3; i++) {
    assert.throws(() => decode(bytes, { binary: 'views' }), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => decode(bytes, { binry: 'view' }), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => decode(bytes, { maxDepth: -1 }), { code: 'INVALID_ARGUMENT' });
  }
});

test('an extensions list changed in place between calls is read again', () => {
  class P { constructor(x) { this.x = x; } }
  const withExt = encode(new Uint8Array(0));   // (any message: the table is what is checked)
  const exts = [];
  const o = { extensions: exts };
  decode(withExt, o);
  exts.push({ type: 5, class: P, encode: (p) => Uint8Array.of(p.x), decode: (b) => new P(b[0]) });
  const five = Uint8Array.of(0xd4, 5, 9);      // fixext 1, type 5
  assert.deepEqual(decode(five, o), new P(9));
});

test('the options remembered for an instance do not keep it alive once it is closed', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  let sp = await createScratchpack({ wasm: 'single' });
  sp.decode(bytes, { binary: 'view' });
  const ref = new WeakRef(sp);
  sp.close();
  sp = null;
  for (let i = 0; i < 500 && ref.deref() !== undefined; i++) {   // (held for good: fails after ~10 s)
    await new Promise((resolve) => setTimeout(resolve, 20));
    gc();
  }
  assert.equal(ref.deref(), undefined, 'a closed instance is still reachable');
});

test('decode options that are not an object are INVALID_ARGUMENT (null is no options), on every decode entry', async () => {
  const { createScratchpack, decode, decodeMultiple, decodeStream } = await import('../../js/index.js');
  const sp = await createScratchpack();
  const b = Uint8Array.of(0x01);
  try {
    for (const o of [5, true, 'binary']) {
      for (const f of [() => decode(b, o), () => [...decodeMultiple(b, o)], () => decodeStream([b], o), () => sp.decode(b, o)])
        assert.throws(f, (e) => e.code === 'INVALID_ARGUMENT', String(o));
    }
    assert.equal(decode(b, null), 1);
  } finally {
    sp.close();
  }
});
