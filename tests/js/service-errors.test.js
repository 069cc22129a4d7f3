// Errors a service can handle (issue 20 item 8): every failure is a
// ScratchpackError with a code -- nesting deeper than the stack on every
// decode path, a value's own code throwing while it is encoded, a writable
// failing under encodeToStream, bad options, a bad Ext type -- with no
// offset of -1, a path of bounded length, a target encodeInto left as it
// was when it fails, and a lease that refuses to be read once released.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';

import { Ext, ScratchpackError, codes, createScratchpack, decode, decodeMultiple, decodeStream } from '../../js/index.js';

let sp, deep;
before(async () => {
  sp = await createScratchpack();
  deep = await createScratchpack({ limits: { maxDepth: 1e6 } });
});
after(() => { sp.close(); deep.close(); });

// A ScratchpackError with this code, whose offset is a byte offset or absent (never -1).
function isError(code, more = () => {}) {
  return (e) => {
    assert.ok(e instanceof ScratchpackError, `not a ScratchpackError: ${e?.stack ?? e}`);
    assert.equal(e.code, code, e.message);
    assert.ok(e.offset === undefined || (Number.isInteger(e.offset) && e.offset >= 0), `offset ${e.offset}`);
    more(e);
    return true;
  };
}

async function drain(iterable) {
  const out = [];
  for await (const v of iterable) out.push(v);
  return out;
}

// ---- (a) nesting deeper than the stack ------------------------------------

const DEPTH = 100000;
function nested(open, inner) {
  const b = new Uint8Array(open.length * DEPTH + inner.length);
  for (let i = 0; i < DEPTH; i++) b.set(open, i * open.length);
  b.set(inner, open.length * DEPTH);
  return b;
}
const deepArrays = nested([0x91], [0xc0]);
const deepMaps = nested([0x81, 0xa1, 0x6b], [0x01]);
const deepInts = nested([0x91], [0x92, 0x01, 0x02]);
const LIMIT = { maxDepth: 1e6 };

describe(`(a) nesting ${DEPTH} deep with maxDepth 1e6: DEPTH_LIMIT on every decode path`, () => {
  const depthError = isError(codes.DEPTH_LIMIT, (e) => {
    assert.ok(e.offset > 0 && e.offset < DEPTH * 3, `offset ${e.offset}`);
    assert.match(e.message, /nesting deeper than this host's stack/);
  });

  for (const [name, bytes] of [['arrays', deepArrays], ['maps', deepMaps]]) {
    test(`${name}: decode, decodeMultiple, an instance's decode`, () => {
      assert.throws(() => decode(bytes, LIMIT), depthError);
      assert.throws(() => [...decodeMultiple(bytes, LIMIT)], depthError);
      assert.throws(() => deep.decode(bytes), depthError);
      assert.throws(() => sp.decode(bytes, LIMIT), depthError);
      assert.throws(() => [...deep.decodeMultiple(bytes)], depthError);
      assert.deepEqual(decode(Uint8Array.of(0x92, 1, 2)), [1, 2]);   // and the decoder goes on
    });

    test(`${name}: decodeStream in one chunk, in two, in 4 KiB chunks`, async () => {
      const cuts = (size) => Array.from({ length: Math.ceil(bytes.length / size) },
        (_, i) => bytes.subarray(i * size, (i + 1) * size));
      for (const chunks of [[bytes], [bytes.subarray(0, 1000), bytes.subarray(1000)], cuts(4096)]) {
        await assert.rejects(drain(decodeStream(chunks, LIMIT)), depthError);
        await assert.rejects(drain(deep.decodeStream(chunks)), depthError);
      }
    });
  }

  test('typed arrays read by C at the bottom (typedArrays: Int32Array)', () => {
    assert.throws(() => deep.decode(deepInts, { typedArrays: Int32Array }), depthError);
    assert.throws(() => deep.decode(deepInts, { typedArrays: 'auto' }), depthError);
    assert.deepEqual(deep.decode(Uint8Array.of(0x91, 0x92, 1, 2), { typedArrays: Int32Array }), [Int32Array.of(1, 2)]);
  });

  test('a compressed message whose plain message is that deep', () => {
    // Lz4Block: ext 99 { int32 plain length, one LZ4 block (literals only here) }.
    const block = lz4Literals(deepArrays);
    const msg = new Uint8Array(11 + block.length);
    const dv = new DataView(msg.buffer);
    msg[0] = 0xc9;
    dv.setUint32(1, 5 + block.length);
    msg[5] = 99;
    msg[6] = 0xd2;
    dv.setInt32(7, deepArrays.length);
    msg.set(block, 11);
    // (an error inside a compressed message names the compressed message's offset: 0)
    assert.throws(() => decode(msg, LIMIT), isError(codes.DEPTH_LIMIT, (e) => assert.equal(e.offset, 0)));
    assert.throws(() => deep.decode(msg), isError(codes.DEPTH_LIMIT, (e) => assert.match(e.message, /stack/)));
    const shallow = Uint8Array.of(0xc7, 9, 99, 0xd2, 0, 0, 0, 3, 0x30, 0x92, 1, 2);
    assert.deepEqual(decode(shallow), [1, 2]);       // the same framing, a plain message that decodes
  });

  test('encoding that deep is DEPTH_LIMIT too', () => {
    let v = null;
    for (let i = 0; i < DEPTH; i++) v = [v];
    assert.throws(() => deep.encode(v), isError(codes.DEPTH_LIMIT));
  });
});

// An LZ4 block that is all literals.
function lz4Literals(plain) {
  const n = plain.length;
  const ext = [];
  if (n >= 15) {
    let r = n - 15;
    while (r >= 255) { ext.push(255); r -= 255; }
    ext.push(r);
  }
  const out = new Uint8Array(1 + ext.length + n);
  out[0] = Math.min(n, 15) << 4;
  out.set(ext, 1);
  out.set(plain, 1 + ext.length);
  return out;
}

// ---- (b) the value's own code and the writable fail ------------------------

describe('(b) a throwing getter and a failing writable: the package error with code, path, cause', () => {
  const boom = new Error('getter says no');
  const value = () => ({ id: 7, items: [1, 2, { name: 'x', get price() { throw boom; } }] });
  const getterError = isError(codes.CALLBACK, (e) => {
    assert.equal(e.path, '.items[2].price');
    assert.equal(e.cause, boom);
    assert.match(e.message, /getter says no/);
  });

  test('encode, encodeView, encodeInto, encodeAsync', async () => {
    assert.throws(() => sp.encode(value()), getterError);
    assert.throws(() => sp.encodeView(value()), getterError);
    assert.throws(() => sp.encodeInto(value(), new Uint8Array(100)), getterError);
    await assert.rejects(sp.encodeAsync(value()), getterError);
  });

  test('encodeToStream', async () => {
    const sink = new Writable({ write(c, e, cb) { cb(); } });
    await assert.rejects(sp.encodeToStream(value(), sink), getterError);
  });

  test('at the root: a Proxy whose trap throws', () => {
    const trap = new Error('trap');
    const p = new Proxy({}, { ownKeys() { throw trap; } });
    assert.throws(() => sp.encode(p), isError(codes.CALLBACK, (e) => {
      assert.equal(e.path, '');
      assert.equal(e.cause, trap);
    }));
  });

  const big = () => ({ rows: Array.from({ length: 5000 }, (_, i) => ({ i, s: 'x'.repeat(40) })) });

  test('a Node Writable whose write fails: SINK, its error the cause', async () => {
    const disk = new Error('disk full');
    const w = new Writable({ write(c, e, cb) { cb(disk); } });
    w.on('error', () => {});
    await assert.rejects(sp.encodeToStream(big(), w), isError(codes.SINK, (e) => {
      assert.equal(e.cause, disk);
      assert.equal(typeof e.path, 'string');
      assert.ok(e.offset > 0, `offset ${e.offset}`);
      assert.match(e.message, /disk full/);
    }));
  });

  test('a WHATWG WritableStream whose write rejects: SINK', async () => {
    const net = new Error('connection reset');
    const ws = new WritableStream({ write() { throw net; } });
    await assert.rejects(sp.encodeToStream(big(), ws), isError(codes.SINK, (e) => assert.equal(e.cause, net)));
    const ws2 = new WritableStream({ write() { throw net; } });
    await assert.rejects(sp.encodeToStream({ small: 1 }, ws2), isError(codes.SINK, (e) => {
      assert.equal(e.cause, net);
      assert.equal(e.path, '');
    }));
  });

  test('under compression too', async () => {
    const p = await createScratchpack({ compression: 'lz4block' });
    try {
      const disk = new Error('disk full');
      const w = new Writable({ write(c, e, cb) { cb(disk); } });
      w.on('error', () => {});
      await assert.rejects(p.encodeToStream(big(), w), isError(codes.SINK, (e) => assert.equal(e.cause, disk)));
    } finally {
      p.close();
    }
  });
});

// ---- (c) option errors, (d) Ext ----------------------------------------------

describe('(c, d) bad options and a bad Ext type are INVALID_ARGUMENT', () => {
  test('encodeAsync options', async () => {
    for (const v of [{ a: 1 }, Int32Array.of(1, 2, 3)]) {
      for (const o of [{ signal: 'x' }, { signal: {} }, { signal: 5 }, 'x', { sigal: new AbortController().signal }])
        await assert.rejects(sp.encodeAsync(v, o), isError(codes.INVALID_ARGUMENT), JSON.stringify(o));
      assert.ok((await sp.encodeAsync(v, { signal: new AbortController().signal })).length > 0);
      assert.ok((await sp.encodeAsync(v, {})).length > 0);
      assert.ok((await sp.encodeAsync(v)).length > 0);
    }
  });

  test('new Ext with a type outside -128..127 or data that is not bytes', () => {
    for (const t of [200, -129, 1.5, '1', NaN])
      assert.throws(() => new Ext(t, Uint8Array.of(1)), isError(codes.INVALID_ARGUMENT));
    for (const d of [5n, 'ab', undefined, null, { length: 2 ** 40 }, {}, { 0: 1, length: 1 }, new Map(),
      [256], [-1], [1.5], [1, '2'], [1, , 2]])                           // eslint-disable-line no-sparse-arrays
      assert.throws(() => new Ext(1, d), isError(codes.INVALID_ARGUMENT), String(d));
    assert.deepEqual(new Ext(-128, [1, 2]).data, Uint8Array.of(1, 2));
  });

  test('new Ext takes the bytes a view covers, and copies what is not a Uint8Array', () => {
    const whole = Uint8Array.of(1, 2, 3, 4, 5);
    assert.deepEqual(new Ext(1, new DataView(whole.buffer, 1, 2)).data, Uint8Array.of(2, 3));
    const u16 = new Uint16Array(whole.buffer.slice(0, 4));
    assert.deepEqual(new Ext(1, u16).data, Uint8Array.of(1, 2, 3, 4));           // memory order, all 4 bytes
    const buf = whole.buffer.slice(0);
    const e = new Ext(1, buf);
    new Uint8Array(buf)[0] = 9;
    assert.deepEqual(e.data, whole, 'a copy of the ArrayBuffer');
    assert.equal(new Ext(1, whole).data, whole, 'a Uint8Array is kept');
    const gone = new ArrayBuffer(8), g16 = new Uint16Array(gone), gdv = new DataView(gone);
    structuredClone(gone, { transfer: [gone] });
    for (const d of [gone, g16, gdv]) assert.throws(() => new Ext(1, d), isError(codes.INVALID_ARGUMENT, (e) => assert.match(e.message, /detached/)));
  });
});

// ---- (e) offsets and paths -------------------------------------------------------

describe('(e) encode errors: no offset of -1, short paths', () => {
  test('JS errors have no offset; C errors the output offset reached', () => {
    assert.throws(() => sp.encode({ a: [1, () => 1] }), isError(codes.UNSUPPORTED_TYPE, (e) => {
      assert.equal(e.offset, undefined);
      assert.doesNotMatch(e.message, /-1/);
    }));
    assert.throws(() => sp.encode({ big: 2n ** 70n }), isError(codes.VALUE_RANGE, (e) => assert.equal(e.offset, undefined)));
  });

  test('a DEPTH_LIMIT path is cut to about 200 characters', () => {
    let v = 1;
    for (let i = 0; i < 600; i++) v = [v];
    for (const f of [() => sp.encode(v), () => sp.encodeInto(v, new Uint8Array(10000)), () => sp.encodeView(v)]) {
      assert.throws(f, isError(codes.DEPTH_LIMIT, (e) => {
        assert.ok(e.path.length <= 230, `path of ${e.path.length} characters`);
        assert.match(e.path, /^\[0\]\[0\].*…\(\d+ steps\)….*\[0\]$/);
        assert.ok(e.message.length < 400, `message of ${e.message.length} characters`);
      }));
    }
  });

  test('deep objects too, through encodeToStream', async () => {
    let v = { end: 1 };
    for (let i = 0; i < 600; i++) v = { next: v, pad: Array.from({ length: 70 }, (_, k) => k) };
    const sink = new Writable({ write(c, e, cb) { cb(); } });
    await assert.rejects(sp.encodeToStream(v, sink), isError(codes.DEPTH_LIMIT, (e) => {
      assert.ok(e.path.length <= 230, `path of ${e.path.length} characters`);
    }));
  });
});

// ---- (f) a failed encodeInto leaves its target as it was ----------------------

describe('(f) encodeInto: a failure leaves the target untouched', () => {
  const records = Array.from({ length: 50 }, (_, i) => ({ id: i, name: `user-${i}`, tags: ['a', 'b'] }));
  const values = [
    ['records', records],
    ['a long string', { s: 'é'.repeat(50000) }],
    ['an Int32Array (written by C)', { pad: 'x'.repeat(100), a: Int32Array.from({ length: 5000 }, (_, i) => i * 1000) }],
    ['a bin', [1, new Uint8Array(3000).fill(7)]],
    ['many small', Array.from({ length: 3000 }, (_, i) => i)],
    ['a Float64Array', Float64Array.from({ length: 100 }, (_, i) => i / 3)],
  ];

  const pattern = (n) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + 5) & 255);

  for (const [name, v] of values) {
    test(`${name}: one byte short, at offsets 0 and 17`, () => {
      const n = sp.encode(v).length;
      for (const offset of [0, 17]) {
        for (const short of [1, 2, Math.floor(n / 2), n]) {
          const t = pattern(offset + n - short);
          assert.throws(() => sp.encodeInto(v, t, offset), isError(codes.BUFFER_TOO_SMALL));
          assert.deepEqual(t, pattern(t.length), `${name}: the target changed (${short} short, offset ${offset})`);
        }
        const t = pattern(offset + n);
        assert.equal(sp.encodeInto(v, t, offset), n);
        assert.deepEqual(t.subarray(offset), sp.encode(v));
        assert.deepEqual(t.subarray(0, offset), pattern(offset));
      }
    });
  }

  test('any error part way leaves it too', () => {
    const t = pattern(100000);
    const bad = [
      [...records, () => 1],
      { s: 'y'.repeat(5000), get boom() { throw new Error('no'); } },
      [Int32Array.of(1, 2, 3), 'z'.repeat(300), Symbol('s')],
    ];
    for (const v of bad) {
      assert.throws(() => sp.encodeInto(v, t), (e) => e instanceof ScratchpackError);
      assert.deepEqual(t, pattern(t.length));
    }
  });
});

// ---- (g) a released lease ---------------------------------------------------------

describe('(g) a lease read after release() throws RELEASED', () => {
  test('bytes after release(), after a detached release, after dispose', () => {
    const a = sp.encodeView({ a: 1 });
    assert.deepEqual(a.bytes, sp.encode({ a: 1 }));
    a.release();
    assert.equal(a.live, false);
    assert.throws(() => a.bytes, isError(codes.RELEASED));

    const b = sp.encodeView([1, 2, 3]);
    const { release } = b;
    release();
    assert.throws(() => b.bytes, isError(codes.RELEASED));

    const c = sp.encodeView('x');
    c[typeof Symbol.dispose === 'symbol' ? Symbol.dispose : Symbol.for('Symbol.dispose')]();
    assert.throws(() => c.bytes, isError(codes.RELEASED));
    c.release();                                 // still idempotent
  });
});
