// Maps read through learnt shapes (decoder.js): once the same keys come in
// the same order often enough, an object literal generated for them builds
// the object and the next key's bytes are compared, not read -- and none of
// it may change a result, an error, a limit or what the decoder keeps after
// a call. Tiny strings (8 bytes or less) come from a cache that must never
// hand out another string's text. The reference for every result is
// @msgpack/msgpack's decoder, which shares none of this code.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { decode as peerDecode } from '@msgpack/msgpack';

import { decodeDefaults } from '../../js/decode-options.js';
import { decodeFrom, forgetShapes, shapeStats, tinySlot } from '../../js/decoder.js';
import { decode, encode } from '../../js/index.js';
import { rng, str } from './helpers.js';

const utf8 = (s) => new TextEncoder().encode(s);
const nodeUtf8 = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
const LEARNT = 40;                      // decodes that make any shape compiled (it takes 16)

const tags = ['red', 'green', 'blue', 'black', 'white'];
const records = Array.from({ length: 50 }, (_, i) => ({
  id: i, name: `user-${String(i * 7919).padStart(11, '0')}`, score: i * 1.25 + 0.1,
  tags: [tags[i % 5], tags[(i + 1) % 5]],
}));

// A map written by hand: entries are [key token bytes, value bytes].
const map = (entries) => Uint8Array.from([0x80 | entries.length, ...entries.flat(2)]);
const fix = (k) => [...str(utf8(k))];
const str8 = (k) => [0xd9, utf8(k).length, ...utf8(k)];

test('records decode as @msgpack/msgpack decodes them, the first time and once their shape is compiled', () => {
  forgetShapes();
  const bytes = encode(records);
  const want = peerDecode(bytes);
  const seen = [];
  for (let i = 0; i < LEARNT; i++) {
    const got = decode(bytes);
    assert.deepEqual(got, want, `decode ${i}`);
    assert.deepEqual(Object.keys(got[7]), ['id', 'name', 'score', 'tags']);
    assert.equal(Object.getPrototypeOf(got[7]), Object.prototype);
    seen.push(got);
  }
  assert.ok(shapeStats().literals >= 1, 'the records\' shape was compiled');
  seen[LEARNT - 1][0].id = -1;                                   // each decode makes its own objects
  seen[LEARNT - 1][0].tags.push('x');
  assert.deepEqual(seen[LEARNT - 2][0], want[0]);
  assert.deepEqual(decode(bytes), want);
});

test('records and tiny strings read the same from a view at any offset into a bigger buffer', () => {
  // Key tokens and tiny strings are read as words: by bytes until the call
  // has a DataView of the input (a float makes it), then through it -- and
  // it must start where the view starts, not where its buffer does.
  // Records without a float read every word by bytes.
  for (const bytes of [encode(records), encode(records.map((r) => ({ ...r, score: r.id })))]) {
    forgetShapes();
    const want = peerDecode(bytes);
    for (const offset of [1, 2, 3, 5, 8]) {
      const buffer = new ArrayBuffer(offset + bytes.length + 7);
      new Uint8Array(buffer).fill(0xa5);                           // what lies around the view is other bytes
      const view = new Uint8Array(buffer, offset, bytes.length);
      view.set(bytes);
      for (let i = 0; i < LEARNT; i++) {
        assert.deepEqual(decode(view), want, `offset ${offset}, decode ${i}`);
        assert.deepEqual(decode(Buffer.from(buffer, offset, bytes.length)), want);
        assert.deepEqual(decode(new DataView(buffer, offset, bytes.length)), want);
      }
    }
  }
});

test('a key other than the one predicted, anywhere in the map and in any header form, is read as itself', () => {
  forgetShapes();
  const base = [[fix('id'), [1]], [fix('name'), fix('n')], [fix('score'), [2]], [fix('tags'), [0x90]]];
  const long = [[fix('a-sixteen-byte-k'), [1]], [fix('nine-byte'), [2]], [fix('k'), [3]]];
  for (let i = 0; i < LEARNT; i++) { decode(map(base)); decode(map(long)); }
  const variants = [
    base.map((e, i) => (i === 0 ? [fix('ie'), e[1]] : e)),                  // the first key differs
    base.map((e, i) => (i === 1 ? [fix('nbme'), e[1]] : e)),                // a middle one, same length
    base.map((e, i) => (i === 3 ? [fix('tagz'), e[1]] : e)),                // the last one
    base.map((e, i) => (i === 2 ? [fix('scores'), e[1]] : e)),              // a longer key with the same start
    base.map((e, i) => (i === 2 ? [fix('scor'), e[1]] : e)),                // a shorter one
    base.map((e, i) => (i === 1 ? [str8('name'), e[1]] : e)),               // the same key as a str 8
    [...base, [fix('extra'), [9]]],                                         // one more key
    base.slice(0, 3),                                                       // one fewer
    [base[1], base[0], base[2], base[3]],                                   // two swapped
    long.map((e, i) => (i === 0 ? [fix('a-sixteen-byte-K'), e[1]] : e)),    // differs in its 16th byte
    long.map((e, i) => (i === 1 ? [fix('nine-bytf'), e[1]] : e)),           // in its 9th
    long.map((e, i) => (i === 0 ? [fix('a-sixteen-byte-k-and-more'), e[1]] : e)),   // past the key cache
  ];
  for (let round = 0; round < 3; round++) {
    for (const v of variants) {
      const b = map(v);
      assert.deepEqual(decode(b), peerDecode(b), Buffer.from(b).toString('hex'));
      assert.deepEqual(Object.keys(decode(b)), Object.keys(peerDecode(b)));
    }
  }
  // The learnt maps still decode right after all that.
  assert.deepEqual(decode(map(base)), { id: 1, name: 'n', score: 2, tags: [] });
});

test('a learnt shape cut short or over a limit fails as on a fresh decoder: same code, offset and message', () => {
  const whole = encode([{ id: 1, name: 'x', tags: 'red' }, { id: 2, name: 'y', tags: 'blue' }]);
  const failure = (b, o) => {
    try { decode(b, o); } catch (e) { return `${e.code} ${e.offset} ${e.message}`; }
    return 'no error';
  };
  for (let cut = 0; cut < whole.length; cut++) {
    const part = whole.subarray(0, cut);
    forgetShapes();
    const fresh = failure(part);
    for (let i = 0; i < LEARNT; i++) decode(whole);
    assert.equal(failure(part), fresh, `cut at ${cut}`);
  }
  for (let i = 0; i < LEARNT; i++) decode(whole);
  assert.equal(failure(whole, { maxStrLength: 3 }).split(' ')[0], 'LENGTH_LIMIT');   // 'name' is 4 bytes
  assert.equal(failure(whole, { maxStrLength: 3 }).split(' ')[1], '6');                 // its header
  assert.equal(failure(whole, { maxMapLength: 2 }).split(' ')[0], 'LENGTH_LIMIT');
  assert.deepEqual(decode(whole, { maxStrLength: 4 }), peerDecode(whole));
});

test('__proto__, repeated and integer-like keys in a shape seen many times', () => {
  const proto = map([[fix('a'), [1]], [fix('__proto__'), [...map([[fix('x'), [1]]])]]]);
  const twice = map([[fix('a'), [1]], [fix('b'), [2]], [fix('a'), [3]]]);
  const ints = map([[fix('b'), [1]], [fix('1'), [2]], [fix('0'), [3]]]);
  for (let i = 0; i < LEARNT; i++) {
    const o = decode(proto);
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(o, '__proto__').value, { x: 1 });
    assert.equal(o.x, undefined);
    const t = decode(twice);
    assert.deepEqual(Object.entries(t), [['a', 3], ['b', 2]]);   // as assigning them in order does
    assert.deepEqual(Object.entries(decode(ints)), [['0', 3], ['1', 2], ['b', 1]]);
  }
});

test('a non-string key after a learnt prefix: a Map under maps: auto, a property under maps: object', () => {
  const strKeys = map([[fix('a'), [1]], [fix('b'), [2]]]);
  const intKey = map([[fix('a'), [1]], [[7], [2]]]);
  for (let i = 0; i < LEARNT; i++) decode(strKeys);
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(decode(intKey), new Map([['a', 1], [7, 2]]));
    assert.deepEqual(decode(intKey, { maps: 'object' }), { a: 1, 7: 2 });
    assert.deepEqual(decode(strKeys), { a: 1, b: 2 });
  }
});

test('an extension decoded inside a map decodes maps of its own without disturbing the outer one', () => {
  class P { constructor(o) { this.o = o; } }
  const ext = { type: 9, class: P, encode: () => new Uint8Array(0), decode: (b) => new P(decode(b)) };
  const inner = map([[fix('x'), [1]], [fix('y'), [2]]]);
  const outer = map([[fix('p'), [0xc7, inner.length, 9, ...inner]], [fix('q'), [3]], [fix('r'), fix('s')]]);
  for (let i = 0; i < LEARNT; i++) {
    const o = decode(outer, { extensions: [ext] });
    assert.deepEqual(Object.keys(o), ['p', 'q', 'r']);
    assert.deepEqual(o.p.o, { x: 1, y: 2 });
    assert.equal(o.q, 3);
    assert.equal(o.r, 's');
  }
});

test('an extension whose decode returns a string, as a map key, runs every time', () => {
  let calls = 0;
  const ext = { type: 4, class: class K {}, encode: () => new Uint8Array(0), decode: () => { calls++; return 'k'; } };
  const b = map([[[0xd4, 4, 0], [1]], [fix('z'), [2]]]);
  for (let i = 0; i < LEARNT; i++) assert.deepEqual(decode(b, { extensions: [ext] }), { k: 1, z: 2 });
  assert.equal(calls, LEARNT);
});

test('without generated code (a page whose CSP forbids eval) maps are read key by key, with the same results', () => {
  const script = `
    import { decode, encode } from './js/index.js';
    import { shapeStats } from './js/decoder.js';
    let threw = false;
    try { new Function('return 1'); } catch { threw = true; }
    const v = ${JSON.stringify(records)};
    const b = encode(v);
    for (let i = 0; i < 40; i++) if (JSON.stringify(decode(b)) !== JSON.stringify(v)) throw new Error('differs');
    console.log(JSON.stringify({ threw, literals: shapeStats().literals }));`;
  const r = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script],
    { cwd: new URL('../..', import.meta.url), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { threw: true, literals: 0 });
});

test('maps used as dictionaries keep the shape tree bounded, and a record shape learnt after them still compiles', () => {
  forgetShapes();
  const next = rng(41);
  for (let i = 0; i < 6000; i++) {
    const o = {};
    for (let k = 0; k < 5; k++) o[`u${Math.floor(next() * 1e9)}`] = k;
    assert.deepEqual(decode(encode(o)), o);
    if (i % 500 === 0) assert.ok(shapeStats().nodes <= 4096, `${shapeStats().nodes} nodes`);
  }
  assert.ok(shapeStats().nodes <= 4096);
  const bytes = encode(records);
  for (let i = 0; i < LEARNT; i++) assert.deepEqual(decode(bytes), records);
  assert.ok(shapeStats().literals >= 1, 'no literal for the records after the dictionaries');
});

test('no value of a decode is held by the decoder once the call returns', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const bytes = encode({ a: { big: new Uint8Array(1 << 20) }, b: 1 });
  for (let i = 0; i < LEARNT; i++) decode(bytes);
  let out = decode(bytes);
  const ref = new WeakRef(out.a);
  out = null;
  for (let i = 0; i < 50 && ref.deref() !== undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
  assert.equal(ref.deref(), undefined, 'a decoded value outlives its call');
});

test('tiny strings: every length to 8 bytes, at the end of the input or not, any bytes, more than the cache holds', () => {
  forgetShapes();
  const next = rng(42);
  const bodies = [];
  for (let n = 0; n <= 9; n++) {
    bodies.push(utf8('abcdefghi'.slice(0, n)), utf8('가나다'.slice(0, Math.ceil(n / 3))));
    for (let i = 0; i < 30; i++) bodies.push(Uint8Array.from({ length: n }, () => Math.floor(next() * 256)));
  }
  for (let round = 0; round < 3; round++) {
    for (const b of bodies) {
      const want = nodeUtf8(b);
      assert.equal(decode(str(b)), want, `alone: ${Buffer.from(b).toString('hex')}`);
      const inArray = Uint8Array.from([0x92, ...str(b), 0xcb, 0, 0, 0, 0, 0, 0, 0, 0]);   // 9 bytes follow it
      assert.deepEqual(decode(inArray), [want, 0], `followed: ${Buffer.from(b).toString('hex')}`);
    }
  }
  // Strings that share a slot, and far more than the cache holds, twice over.
  const many = Array.from({ length: 20000 }, (_, i) => (i * 2654435761 >>> 0).toString(36).slice(0, 1 + (i % 8)));
  const bytes = encode(many);
  for (let round = 0; round < 3; round++) assert.deepEqual(decode(bytes), many);
  const few = Array.from({ length: 20000 }, (_, i) => tags[i % 5] + (i % 3));   // values that repeat
  assert.deepEqual(decode(encode(few)), few);
});

test('tiny strings that share a slot and differ only in length (trailing zero bytes) keep their own text', () => {
  // 'abcd' and 'abcd\0' have the same words; only the length tells them apart.
  const next = rng(43);
  const pairs = [];
  for (let tries = 0; tries < 200000 && pairs.length < 8; tries++) {
    const b = Array.from({ length: 4 }, () => 0x21 + Math.floor(next() * 94));
    const w0 = (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3];
    for (let n = 5; n <= 8; n++) if (tinySlot(w0, 0, 4) === tinySlot(w0, 0, n)) pairs.push([b, n]);
  }
  assert.ok(pairs.length >= 4, `only ${pairs.length} pairs found`);
  for (const [b, n] of pairs) {
    const short = String.fromCharCode(...b), long = short + '\0'.repeat(n - 4);
    const both = encode([short, long, short, long, short, long, 0, 0, 0, 0, 0, 0, 0, 0]);
    for (let i = 0; i < 3; i++) assert.deepEqual(decode(both).slice(0, 6), [short, long, short, long, short, long]);
  }
});

test('long keys make no shapes: the decoder holds no key longer than 16 bytes, and a huge key decodes every time', () => {
  forgetShapes();
  const long = 'k'.repeat(17), huge = '\u0001'.repeat(300000);    // (a literal's source would be 6x that)
  for (let i = 0; i < LEARNT; i++) {
    assert.deepEqual(decode(encode({ [long]: i, b: 1 })), { [long]: i, b: 1 });
    assert.deepEqual(decode(encode({ a: 1, [huge]: 2 })), { a: 1, [huge]: 2 });
  }
  assert.equal(shapeStats().literals, 0);
  assert.equal(shapeStats().nodes, 2, 'only the root and the node of key a');
});

test('names Object.prototype also has, or has been given, become own properties on every path', () => {
  // In a child: it changes Object.prototype. A setter and a frozen
  // 'constructor' must not change what a map decodes to, learnt or not.
  const script = `
    import { decode, encode } from './js/index.js';
    let calls = 0;
    Object.defineProperty(Object.prototype, 'tagx', { set() { calls++; }, configurable: true });
    Object.freeze(Object.prototype);
    const b = encode([{ id: 1, tagx: 2 }, { id: 1, constructor: 3 }, { id: 1, toString: 4 }]);
    const out = [];
    for (let i = 0; i < 40; i++) {
      const [a, c, t] = decode(b);
      out.push(Object.hasOwn(a, 'tagx') && a.tagx === 2 && Object.hasOwn(c, 'constructor') && c.constructor === 3 &&
        t.toString === 4 && Object.getPrototypeOf(c) === Object.prototype);
    }
    console.log(JSON.stringify({ calls, all: out.every(Boolean), n: out.length }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script],
    { cwd: new URL('../..', import.meta.url), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { calls: 0, all: true, n: 40 });
});

test('maps: object names a non-string key where it is read: __proto__ as a key of another type is a property', () => {
  // {["__proto__"]: {admin: true}} with the key as an array of one str.
  const b = Uint8Array.from([0x81, 0x91, ...fix('__proto__'), 0x81, ...fix('admin'), 0xc3]);
  for (let i = 0; i < LEARNT; i++) {
    const o = decode(b, { maps: 'object' });
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.equal(o.admin, undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(o, '__proto__').value, { admin: true });
  }
  // A key with no String() (its toString is data) is named as any object is,
  // and the rest of the map is read: a message cut short is TRUNCATED (it was
  // a raw TypeError at that key).
  const cut = Uint8Array.from([0x82, 0x81, ...fix('toString'), 1, 1, 0xa1]);
  assert.throws(() => decode(cut, { maps: 'object' }), { name: 'ScratchpackError', code: 'TRUNCATED' });
});

test('a learnt key token is the decoder\'s own copy: input memory changed after a decode changes nothing', () => {
  forgetShapes();
  const buf = Buffer.from(encode({ ab: 1, cd: 2 }));
  for (let i = 0; i < LEARNT; i++) assert.deepEqual(decodeFrom(buf, 0, decodeDefaults), { ab: 1, cd: 2 });
  buf.set(utf8('xy'), 6);                             // the second key's bytes: 'cd' -> 'xy'
  assert.deepEqual(decodeFrom(buf, 0, decodeDefaults), { ab: 1, xy: 2 });
  assert.deepEqual(decode(encode({ ab: 1, cd: 2 })), { ab: 1, cd: 2 });
});

test("maps: 'auto' that turns to a Map at a non-string key keeps the message's order (integer-like keys too)", () => {
  const enc = encode;
  for (const n of [3, 40]) {                     // a shaped map, and one of more keys than shapes take
    const m = new Map();
    for (let i = 0; i < n - 1; i++) m.set(i % 3 === 0 ? `k${i}` : String(i * 7), i);
    m.set(5, 'number key');
    const bytes = enc(m);
    const auto = decode(bytes), asMap = decode(bytes, { maps: 'map' });
    assert.ok(auto instanceof Map);
    assert.deepEqual([...auto.keys()], [...asMap.keys()], `${n} entries`);
    assert.deepEqual(enc(auto), bytes, `${n} entries: it encodes back to the same bytes`);
  }
});

// A map key that is itself a map with a 'toString' entry (data, not a
// method): maps: 'object' names it as any object, on the short path and
// the key-by-key one (past 32 entries), never a raw TypeError.
test("maps: 'object' names any key, also a map whose toString is data", () => {
  const key = [0x81, 0xa8, ...Buffer.from('toString'), 0x01];
  assert.deepEqual(decode(Uint8Array.of(0x81, ...key, 0x02), { maps: 'object' }), { '[object Object]': 2 });
  const long = [0xde, 0, 33, ...key, 0x02];
  for (let i = 0; i < 32; i++) long.push(0xa3, 0x6b, 0x30 + (i >> 3), 0x30 + (i & 7), i);
  const o = decode(Uint8Array.from(long), { maps: 'object' });
  assert.equal(o['[object Object]'], 2);
  assert.equal(Object.keys(o).length, 33);
  assert.ok(decode(Uint8Array.of(0x81, ...key, 0x02)) instanceof Map);      // 'auto': a Map, its key the object
});

// An extension may decode to undefined: as a map's first key it is a key
// like any other (it was taken for "no key read yet", and the map's first
// value was read as its key: TRUNCATED on a whole message).
test('a map key an extension decodes to undefined keeps the entries in step, under every maps option', () => {
  const ext = { type: 5, class: class Nothing {}, encode: () => new Uint8Array(1), decode: () => undefined };
  const short = Uint8Array.of(0x82, 0xd4, 0x05, 0x00, 0x01, 0xa1, 0x61, 0x02);
  for (const maps of ['auto', 'map']) {
    const m = decode(short, { extensions: [ext], maps });
    assert.deepEqual([...m], [[undefined, 1], ['a', 2]], maps);
  }
  assert.deepEqual(decode(short, { extensions: [ext], maps: 'object' }), { undefined: 1, a: 2 });
  const long = [0xde, 0, 33, 0xa1, 0x62, 0x00, 0xd4, 0x05, 0x00, 0x01];    // a string key first: the key-by-key path
  for (let i = 0; i < 31; i++) long.push(0xa3, 0x6b, 0x30 + (i >> 3), 0x30 + (i & 7), i);
  const m = decode(Uint8Array.from(long), { extensions: [ext] });
  assert.ok(m instanceof Map);
  assert.equal(m.size, 33);
  assert.equal(m.get(undefined), 1);
  assert.equal(m.get('k36'), 30);
});
