// Bytes whose class says a length they do not have: a Uint8Array or
// DataView subclass whose getters overstate or understate, a Proxy. The
// encoders write the bytes that are there (read through the built-in
// getters, js/typed.js), never a header of one length over a body of
// another with old stage or linear-memory bytes in the gap; encodeInto
// writes into the target's real memory, or refuses before touching it;
// decode reads the input's real bytes. Every failure is a ScratchpackError
// with a code, never a raw TypeError or RangeError.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';

import { Ext, ScratchpackError, contract, createScratchpack, decode } from '../../js/index.js';

let sp, withExt;
class Blob { constructor(bytes) { this.bytes = bytes; } }
before(async () => {
  sp = await createScratchpack({ threads: 0 });
  withExt = await createScratchpack({ threads: 0, extensions: [{ type: 9, class: Blob, encode: (b) => b.bytes, decode: (d) => new Blob(d) }] });
});
after(() => { sp.close(); withExt.close(); });

const says = (Base, n) => class extends Base { get length() { return n; } get byteLength() { return n; } };

// Old bytes in the stage and in linear memory, that a gap would show.
function dirty() {
  const secret = 'SECRET-'.repeat(2000);
  sp.encodeInto(secret, new Uint8Array(20000));
  sp.encode(secret);
  withExt.encodeInto(secret, new Uint8Array(20000));
  withExt.encode(secret);
}

function filled(Class, n) {
  const v = new Class(n);
  for (let i = 0; i < n; i++) v[i] = (i * 7 + 1) & 0xff;
  return v;
}
const plain = (v) => Uint8Array.from({ length: Uint8Array.prototype.__lookupGetter__('length').call(v) }, (_, i) => v[i]);

async function streamed(s, value) {
  const parts = [];
  await s.encodeToStream(value, new Writable({ write(c, _e, cb) { parts.push(c); cb(); } }));
  return new Uint8Array(Buffer.concat(parts));
}

// Every encode entry of instance s gives the bytes of the plain value.
async function allEntries(s, value, plainValue, at) {
  const want = s.encode(plainValue);
  assert.deepEqual(s.encode(value), want, `${at}: encode()`);
  const lease = s.encodeView(value);
  assert.deepEqual(new Uint8Array(lease.bytes), want, `${at}: encodeView()`);
  lease.release();
  const target = new Uint8Array(want.length + 100).fill(0xee);
  const n = s.encodeInto(value, target);
  assert.deepEqual(target.subarray(0, n), want, `${at}: encodeInto()`);
  assert.deepEqual(await s.encodeAsync(value), want, `${at}: encodeAsync()`);
  assert.deepEqual(await streamed(s, value), want, `${at}: encodeToStream()`);
}

test('a Uint8Array subclass that overstates or understates its length is written as the bytes it has', async () => {
  dirty();
  for (const [real, claimed] of [[4, 40], [40, 4], [100, 1000], [2000, 10], [1500, 3000], [70000, 200000], [70000, 5]]) {
    const v = filled(says(Uint8Array, claimed), real);
    for (const s of [sp, withExt]) {
      await allEntries(s, v, plain(v), `${real} bytes saying ${claimed}${s === withExt ? ' (extensions)' : ''}`);
      await allEntries(s, [1, v, 'after'], [1, plain(v), 'after'], `[1, ${real} bytes saying ${claimed}, 'after']`);
    }
  }
});

test('a DataView subclass and a Buffer subclass that misstate their length are written as the bytes they have', async () => {
  dirty();
  const bytes = filled(Uint8Array, 3000);
  const LongView = class extends DataView { get byteLength() { return 5000; } };
  const ShortView = class extends DataView { get byteLength() { return 3; } get byteOffset() { return 1; } };
  const LongBuffer = says(Buffer, 9000);
  const lb = new LongBuffer(bytes.buffer, 0, 3000);
  for (const v of [new LongView(bytes.buffer), new ShortView(bytes.buffer), lb])
    await allEntries(sp, [v], [bytes], v.constructor.name);
});

test('an Ext, an extension and a contract bin field whose bytes misstate their length are written as the bytes they have', async () => {
  dirty();
  for (const [real, claimed] of [[40, 400], [3000, 10], [3000, 6000]]) {
    const v = filled(says(Uint8Array, claimed), real), want = plain(v), at = `${real} bytes saying ${claimed}`;
    const ext = new Ext(5, want);
    ext.data = v;                                   // (a field may be assigned after the Ext is made)
    await allEntries(sp, [ext], [new Ext(5, want)], `${at}: Ext`);
    await allEntries(withExt, [new Blob(v)], [new Blob(want)], `${at}: extension`);
    for (const compile of [true, false]) {
      const C = contract({ id: 'int32', blob: 'bin' }, { keys: 'index', compile });
      assert.deepEqual(C.encode({ id: 1, blob: v }), C.encode({ id: 1, blob: want }), `${at}: contract, compile ${compile}`);
      assert.deepEqual(sp.encode({ id: 1, blob: v }, { contract: C }), C.encode({ id: 1, blob: want }), `${at}: sp.encode with a contract`);
    }
  }
});

test('a detached Uint8Array subclass that says it has bytes is INVALID_ARGUMENT, not a TypeError', () => {
  const v = new (says(Uint8Array, 64))(64);
  structuredClone(v.buffer, { transfer: [v.buffer] });
  for (const f of [() => sp.encode(v), () => sp.encodeInto([v], new Uint8Array(100)), () => sp.encode(new Ext(1, v))])
    assert.throws(f, (e) => e instanceof ScratchpackError && e.code === 'INVALID_ARGUMENT' && /detached/.test(e.message));
});

test('encodeInto writes into the real memory of a target subclass that misstates its length', () => {
  const value = [1, filled(Uint8Array, 3000), 'end'], want = sp.encode(value);
  const roomy = new (says(Uint8Array, 100000))(want.length + 10);
  assert.equal(sp.encodeInto(value, roomy), want.length);
  assert.deepEqual(plain(roomy).subarray(0, want.length), want);
  const cramped = new (says(Uint8Array, 100000))(want.length - 1);
  assert.throws(() => sp.encodeInto(value, cramped), (e) => e.code === 'BUFFER_TOO_SMALL' && e.offset === want.length - 1);
  assert.ok(plain(cramped).every((b) => b === 0), 'a target too small is untouched');
  const modest = new (says(Uint8Array, 5))(want.length);
  assert.equal(sp.encodeInto(value, modest), want.length, 'a target that understates has the room it really has');
  assert.deepEqual(plain(modest), want);
  const offset = new (says(Uint8Array, 100000))(want.length + 4);
  assert.equal(sp.encodeInto(value, offset, 4), want.length);
  assert.throws(() => sp.encodeInto(value, offset, want.length + 5), (e) => e.code === 'INVALID_ARGUMENT');
});

test('encodeInto refuses a Proxy, a DataView or another typed array as its target with INVALID_ARGUMENT, untouched', () => {
  const t = new Uint8Array(64);
  for (const target of [new Proxy(t, {}), new DataView(t.buffer), new Int8Array(t.buffer), new Uint8ClampedArray(t.buffer)])
    assert.throws(() => sp.encodeInto([1, 2], target), (e) => e instanceof ScratchpackError && e.code === 'INVALID_ARGUMENT');
  assert.ok(t.every((b) => b === 0));
});

test('an Ext over a Proxy of a Uint8Array is INVALID_ARGUMENT naming it, not a TypeError', () => {
  const proxied = new Proxy(new Uint8Array(2), {});
  assert.throws(() => new Ext(5, proxied), (e) => e instanceof ScratchpackError && e.code === 'INVALID_ARGUMENT' && /a Proxy/.test(e.message));
  const ext = new Ext(5, Uint8Array.of(1));
  ext.data = proxied;
  assert.throws(() => sp.encode([ext]), (e) => e.code === 'INVALID_ARGUMENT' && /a Proxy/.test(e.message) && e.path === '[0]');
});

test('decode reads the real bytes of an input whose class misstates its length', () => {
  const m = sp.encode(['hello', 1, 2]);
  for (const claimed of [m.length + 20, 3, 1 << 20]) {
    const v = new (says(Uint8Array, claimed))(m.length);
    v.set(m);
    assert.deepEqual(decode(v), ['hello', 1, 2], `claims ${claimed}`);
    assert.deepEqual(sp.decode(v), ['hello', 1, 2], `claims ${claimed}: sp.decode`);
  }
  const view = new (class extends DataView { get byteLength() { return 1 << 20; } })(m.buffer, m.byteOffset, m.length);
  assert.deepEqual(decode(view), ['hello', 1, 2], 'a DataView subclass');
  assert.throws(() => decode(new Proxy(m, {})), (e) => e instanceof ScratchpackError && e.code === 'INVALID_ARGUMENT');
});

test('encodeInto refuses to write text into a plain target whose own length property overstates it, untouched', () => {
  // Such a target is otherwise taken at its word (docs/errors.md), but text
  // written straight into it would stop at its real end without a word.
  const values = [[1, '\u00e9'.repeat(100)], { a: '\u00e9'.repeat(3000) }, [1, 'x'.repeat(5000), new Uint8Array(3000).fill(5)]];
  for (const v of values) {
    const t = new Uint8Array(50).fill(7);
    Object.defineProperty(t, 'length', { value: 100000 });
    assert.throws(() => sp.encodeInto(v, t), (e) => e instanceof ScratchpackError && (e.code === 'INVALID_ARGUMENT' || e.code === 'CALLBACK'));
    assert.ok(t.every((x) => x === 7), 'the target was written');
  }
  const deferred = new Uint8Array(50).fill(7);
  Object.defineProperty(deferred, 'length', { value: 100000 });
  assert.throws(() => sp.encodeInto({ a: '\u00e9'.repeat(3000) }, deferred), (e) => e.code === 'INVALID_ARGUMENT' && /own property/.test(e.message));
});
