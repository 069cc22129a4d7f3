// Typed contracts (contract()): every field type in both key forms, explicit
// indices with nil gaps, evolution both ways, TYPE errors with paths,
// limits, classes, the entries' { contract } option, contract files -- each
// suite run twice: generated code, and the closures used where eval is
// refused, whose bytes and values must be the same.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { unpack } from 'msgpackr';

import { contract, createScratchpack, decode, decodeMultiple, decodeStream, encode, encodeInto } from '../../js/index.js';
import { rng } from './helpers.js';

const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');

let sp;
before(async () => { sp = await createScratchpack(); });
after(() => sp.close());

const fail = (fn, code, path) => {
  let err = null;
  try { fn(); } catch (e) { err = e; }
  assert.ok(err !== null, 'expected a throw');
  assert.equal(err.code, code, err.message);
  if (path !== undefined) {
    assert.equal(err.path, path, err.message);
    assert.ok(err.message.includes(path), err.message);
  }
  return err;
};

for (const compile of [true, false]) {
  const mode = compile ? 'generated' : 'closures';
  const C = (fields, o = {}) => contract(fields, { compile, ...o });

  describe(`contract (${mode})`, () => {
    const Point = C({ x: 'int32', y: 'int32' }, { keys: 'index', name: 'Point' });
    const all = {
      b: 'bool', i8: 'int8', u8: 'uint8', i16: 'int16', u16: 'uint16', i32: 'int32', u32: 'uint32',
      i64: 'int64', u64: 'uint64', f32: 'float32', f64: 'float64', s: 'string', bin: 'bin', ts: 'timestamp',
      any: 'any', pt: Point, arr: ['string'], pts: [Point], m: { map: ['string', 'uint16'] },
      im: { map: ['int32', 'string'] }, ti: 'int32[]', tf: 'float64[]', tb: 'int64[]', tu8: 'uint8[]',
      ns: 'string?', np: { type: Point, nullable: true }, nn: ['int8?'],
    };
    const value = {
      b: true, i8: -128, u8: 255, i16: -32768, u16: 65535, i32: -2147483648, u32: 4294967295,
      i64: -(2n ** 63n), u64: 2n ** 64n - 1n, f32: 1.5, f64: 0.1, s: '안녕 😀', bin: Uint8Array.of(0, 1, 255),
      ts: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)), any: { k: [1, 'two', null, { d: new Date(0) }] },
      pt: { x: 3, y: -4 }, arr: ['a', ''], pts: [{ x: 1, y: 2 }, { x: -1, y: -2 }],
      m: { a: 1, __proto__x: 2 }, im: new Map([[-5, 'neg'], [7, 'pos']]), ti: Int32Array.of(-1, 0, 100000),
      tf: Float64Array.of(0.5, -2), tb: BigInt64Array.of(-3n, 2n ** 40n), tu8: Uint8Array.of(0, 200),
      ns: null, np: null, nn: [1, null, -1],
    };

    for (const keys of ['index', 'name']) {
      test(`every type round trips (keys: ${keys})`, () => {
        const All = C(all, { keys });
        const bytes = All.encode(value);
        assert.deepEqual(All.decode(bytes), value);
        assert.deepEqual(sp.decode(bytes, { contract: All }), value);
        const generic = decode(bytes, { int64: 'bigint' });
        if (keys === 'index') {
          assert.ok(Array.isArray(generic) && generic.length === Object.keys(all).length);
          assert.deepEqual(generic[3], -32768);
        } else {
          assert.deepEqual(Object.keys(generic), Object.keys(all));
        }
      });
    }

    test('floats are written as float32/float64 even when integral; ints in their smallest form', () => {
      const R = C({ a: 'float64', b: 'float32', c: 'int64', d: 'uint32', e: 'int16' }, { keys: 'index' });
      assert.equal(hex(R.encode({ a: 1, b: 2, c: 5n, d: 300, e: -0 })),
        '95 cb 3f f0 00 00 00 00 00 00 ca 40 00 00 00 05 cd 01 2c 00');
      assert.equal(hex(R.encode({ a: 1, b: 2, c: -(2n ** 40n), d: 0, e: -1 })).slice(45, 48), 'd3 ');
    });

    test('explicit indices leave nil in the gaps; the map form uses the names or explicit keys', () => {
      const G = C({ a: { type: 'int8', key: 0 }, b: { type: 'string', key: 3 } }, { keys: 'index' });
      assert.equal(hex(G.encode({ a: 1, b: 'x' })), '94 01 c0 c0 a1 78');
      assert.deepEqual(G.decode(Uint8Array.of(0x94, 0x01, 0xc0, 0xc0, 0xa1, 0x78)), { a: 1, b: 'x' });
      const N = C({ id: { type: 'uint8', key: 'Id' }, n: 'string' }, { keys: 'name' });
      assert.equal(hex(N.encode({ id: 1, n: 'x' })), '82 a2 49 64 01 a1 6e a1 78');
      assert.deepEqual(N.decode(N.encode({ id: 1, n: 'x' })), { id: 1, n: 'x' });
    });

    for (const keys of ['index', 'name']) {
      test(`evolution: old readers read new data and new readers old data (keys: ${keys})`, () => {
        const V1 = C({ id: 'uint32', name: 'string' }, { keys });
        const V2 = C({ id: 'uint32', name: 'string', score: { type: 'float64', default: 0.5 },
          tags: { type: ['string'], default: ['t'] }, note: 'string?', pos: Point }, { keys });
        const v2 = { id: 1, name: 'n', score: 2, tags: ['a'], note: 'x', pos: { x: 1, y: 2 } };
        assert.deepEqual(V1.decode(V2.encode(v2)), { id: 1, name: 'n' });
        const old = V2.decode(V1.encode({ id: 1, name: 'n' }));
        // missing: a default is given, a nullable field is null (as its type says), any other undefined
        assert.deepEqual(old, { id: 1, name: 'n', score: 0.5, tags: ['t'], note: null, pos: undefined });
        const again = V2.decode(V1.encode({ id: 2, name: 'm' }));
        assert.notEqual(old.tags, again.tags, 'each value gets its own copy of an object default');
        // a field left out on encode takes its default; a missing one without default is TYPE
        assert.deepEqual(V2.decode(V2.encode({ id: 1, name: 'n', note: null, pos: { x: 0, y: 0 } })).tags, ['t']);
        fail(() => V2.encode({ id: 1, name: 'n', note: null }), 'TYPE', '$.pos');
      });
    }

    test('unknown keys (also non-string ones) are skipped with their values', () => {
      const R = C({ a: 'int8', b: 'string' }, { keys: 'name' });
      const bytes = sp.encode(new Map([['z', { deep: [1, 2, { x: 'y' }] }], [5, 'five'], ['b', 'B'], ['a', 3]]));
      assert.deepEqual(R.decode(bytes), { a: 3, b: 'B' });
    });

    test('wrong types fail with TYPE and the path, on encode and on decode', () => {
      const Item = C({ name: 'string', score: 'float64' }, { keys: 'name', name: 'Item' });
      const Order = C({ id: 'uint32', items: [Item] }, { keys: 'index', name: 'Order' });
      const items = [0, 1, 2, 3].map((i) => ({ name: `i${i}`, score: i }));
      items[3] = { name: 'bad', score: 'high' };
      fail(() => Order.encode({ id: 1, items }), 'TYPE', '$.items[3].score');
      fail(() => sp.encode({ id: 1, items }, { contract: Order }), 'TYPE', '$.items[3].score');
      const bytes = sp.encode([1, [0, 1, 2, 3].map((i) => ({ name: `i${i}`, score: i === 3 ? 'high' : i }))]);
      const e = fail(() => Order.decode(bytes), 'TYPE', '$.items[3].score');
      assert.equal(bytes[e.offset], 0xa4, 'the offset is the bad value\'s');
      fail(() => sp.decode(bytes, { contract: Order }), 'TYPE', '$.items[3].score');
      fail(() => Order.decode(sp.encode({ id: 1 })), 'TYPE', '$');
      fail(() => Order.encode(null), 'TYPE', '$');
      fail(() => Order.decode(sp.encode([-1, []])), 'OVERFLOW', '$.id');
      fail(() => Order.encode({ id: -1, items: [] }), 'VALUE_RANGE', '$.id');
      fail(() => Order.encode({ id: 1.5, items: [] }), 'TYPE', '$.id');
      fail(() => Order.decode(sp.encode([1, [null]])), 'TYPE', '$.items[0]');
      const T = C({ t: 'int8[]', u: 'uint64', d: 'timestamp', b: 'bin', k: 'bool' }, { keys: 'index' });
      const ok = { t: [1], u: 1n, d: new Date(0), b: new Uint8Array(0), k: false };
      fail(() => T.encode({ ...ok, t: [1, 300] }), 'VALUE_RANGE', '$.t[1]');
      fail(() => T.encode({ ...ok, t: [1, 'x'] }), 'TYPE', '$.t[1]');
      fail(() => T.encode({ ...ok, u: -1n }), 'VALUE_RANGE', '$.u');
      fail(() => T.encode({ ...ok, u: 'x' }), 'TYPE', '$.u');
      fail(() => T.encode({ ...ok, d: 5 }), 'TYPE', '$.d');
      fail(() => T.encode({ ...ok, b: 'x' }), 'TYPE', '$.b');
      fail(() => T.encode({ ...ok, k: 1 }), 'TYPE', '$.k');
      fail(() => T.decode(sp.encode([[1, 300], 1, new Date(0), new Uint8Array(0), false])), 'OVERFLOW', '$.t[1]');
      fail(() => T.decode(sp.encode([[1], -1, new Date(0), new Uint8Array(0), false])), 'OVERFLOW', '$.u');
      fail(() => T.decode(sp.encode([[1], 1, 5, new Uint8Array(0), false])), 'TYPE', '$.d');
      fail(() => T.decode(sp.encode([[1], 1, new Date(0), 'x', false])), 'TYPE', '$.b');
      fail(() => T.decode(sp.encode([[1], 1, new Date(0), new Uint8Array(0), 0])), 'TYPE', '$.k');
      fail(() => T.decode(Uint8Array.of(0x95, 0x91)), 'TRUNCATED');
    });

    test('limits apply: depth (a recursive contract), lengths, trailing bytes', () => {
      const { Node } = contract({ contracts: { Node: { keys: 'index', fields: { v: 'int32', kids: ['Node'] } } } },
        { compile });
      let deep = { v: 0, kids: [] };
      for (let i = 1; i < 200; i++) deep = { v: i, kids: [deep] };   // two levels each: 400
      const bytes = Node.encode(deep);
      assert.deepEqual(Node.decode(bytes), deep);
      fail(() => Node.decode(bytes, { maxDepth: 100 }), 'DEPTH_LIMIT');
      fail(() => sp.decode(bytes, { contract: Node, maxDepth: 100 }), 'DEPTH_LIMIT');
      let deeper = deep;
      for (let i = 0; i < 300; i++) deeper = { v: i, kids: [deeper] };
      fail(() => Node.encode(deeper), 'DEPTH_LIMIT');
      const loop = { v: 1, kids: [] };
      loop.kids.push(loop);
      fail(() => sp.encode(loop, { contract: Node }), 'CYCLE');
      const S = C({ s: 'string', a: ['int8'] }, { keys: 'index' });
      fail(() => S.decode(S.encode({ s: 'abcdef', a: [] }), { maxStrLength: 3 }), 'LENGTH_LIMIT');
      fail(() => S.decode(S.encode({ s: '', a: [1, 2, 3] }), { maxArrayLength: 2 }), 'LENGTH_LIMIT');
      fail(() => S.decode(Uint8Array.of(0x92, 0xa0, 0xdd, 0xff, 0xff, 0xff, 0xff)), 'TRUNCATED');
      fail(() => S.decode(Uint8Array.of(0x92, 0xa0, 0x90, 0x00)), 'TRAILING_BYTES');
    });

    test('int64 fields: BigInt by default, numbers with int64: number', () => {
      const B = C({ a: 'int64', b: 'uint64' }, { keys: 'index' });
      assert.deepEqual(B.decode(B.encode({ a: 5, b: 2n ** 63n })), { a: 5n, b: 2n ** 63n });
      const N = C({ a: 'int64', b: 'uint64' }, { keys: 'index', int64: 'number' });
      assert.deepEqual(N.decode(B.encode({ a: -7n, b: 9n })), { a: -7, b: 9 });
      fail(() => B.decode(sp.encode([2n ** 63n, 0])), 'OVERFLOW', '$.a');
    });

    test('a class: decoded into instances without running the constructor; instances encode through the contract anywhere', () => {
      let made = 0;
      class Vec { constructor(x, y) { made++; this.x = x; this.y = y; } len() { return Math.hypot(this.x, this.y); } }
      const V = C({ x: 'float64', y: 'float64' }, { keys: 'index', class: Vec });
      const v = V.decode(V.encode(new Vec(3, 4)));
      assert.ok(v instanceof Vec);
      assert.equal(v.len(), 5);
      assert.equal(made, 1, 'the constructor ran only for the value made here');
      const expected = hex(V.encode({ x: 1, y: 2 }));
      assert.equal(expected, '92 cb 3f f0 00 00 00 00 00 00 cb 40 00 00 00 00 00 00 00');
      // plain arrays, any values, maps, and the generic entries: the contract's bytes
      assert.equal(hex(sp.encode([new Vec(1, 2)])), `91 ${expected}`);
      assert.equal(hex(sp.encode({ a: new Vec(1, 2) })), `81 a1 61 ${expected}`);
      assert.equal(hex(sp.encode(new Map([[1, new Vec(1, 2)]]))), `81 01 ${expected}`);
      const Holder = C({ any: 'any', list: ['any'] }, { keys: 'index' });
      assert.equal(hex(Holder.encode({ any: new Vec(1, 2), list: [new Vec(1, 2)] })), `92 ${expected} 91 ${expected}`);
      assert.throws(() => C({ x: 'int8' }, { class: Vec }), { code: 'INVALID_ARGUMENT' });
    });

    test('the { contract } option on every entry writes the contract\'s bytes', async () => {
      const R = C({ id: 'uint32', name: 'string', score: 'float64', tags: ['string'] }, { keys: 'index' });
      const v = { id: 9, name: 'nine', score: 9.5, tags: ['x', 'y'] };
      const want = R.encode(v);
      assert.deepEqual(sp.encode(v, { contract: R }), want);
      assert.deepEqual(encode(v, { contract: R }), want);                       // the module-level entries
      assert.equal(encodeInto(v, new Uint8Array(100), 0, { contract: R }), want.length);
      const target = new Uint8Array(100);
      const n = sp.encodeInto(v, target, 3, { contract: R });
      assert.deepEqual(target.subarray(3, 3 + n), want);
      assert.equal(sp.encodeInto(v, target, { contract: R }), want.length);
      const lease = sp.encodeView(v, { contract: R });
      assert.deepEqual(new Uint8Array(lease.bytes), want);
      lease.release();
      assert.deepEqual(await sp.encodeAsync(v, { contract: R }), want);
      const chunks = [];
      const w = new Writable({ write(c, _e, cb) { chunks.push(c); cb(); } });
      assert.equal(await sp.encodeToStream(v, w, { contract: R }), want.length);
      assert.deepEqual(new Uint8Array(Buffer.concat(chunks)), want);
      assert.deepEqual(sp.decode(want, { contract: R }), v);
      assert.deepEqual(decode(want, { contract: R }), v);
      const two = new Uint8Array([...want, ...want]);
      assert.deepEqual([...decodeMultiple(two, { contract: R })], [v, v]);
      const got = [];
      for await (const x of decodeStream([two.subarray(0, 5), two.subarray(5)], { contract: R })) got.push(x);
      assert.deepEqual(got, [v, v]);
      for await (const x of sp.decodeStream([two], { contract: R })) assert.deepEqual(x, v);
      const big = { ...v, name: 'n'.repeat(100000) };      // past the JS scratch: C's writer
      assert.deepEqual(sp.decode(sp.encode(big, { contract: R }), { contract: R }), big);
      const roomy = new Uint8Array(400000), tight = new Uint8Array(R.encode(big).length);
      assert.deepEqual(roomy.subarray(0, sp.encodeInto(big, roomy, { contract: R })), R.encode(big));   // the long string written at finish
      assert.deepEqual(tight.subarray(0, sp.encodeInto(big, tight, { contract: R })), R.encode(big));   // staged: the target is tight
      assert.throws(() => sp.encode(v, { contract: {} }), { code: 'INVALID_ARGUMENT' });
      assert.throws(() => sp.encode(v, { contrat: R }), { code: 'INVALID_ARGUMENT' });
      const inherits = Object.create({ elsewhere: 1 }, { contract: { value: R, enumerable: true } });
      assert.deepEqual(sp.encode(v, inherits), R.encode(v));              // only own keys are options
      const z = await createScratchpack({ compression: 'lz4block' });
      try {
        const many = { ...v, tags: new Array(200).fill('same tag text') };
        assert.deepEqual(z.decode(z.encode(many, { contract: R }), { contract: R }), many);
      } finally {
        z.close();
      }
    });

    test('peers read the bytes: msgpackr unpacks the array and map forms', () => {
      const A = C({ id: 'uint32', name: 'string', tags: ['string'] }, { keys: 'index' });
      const M = C({ id: 'uint32', name: 'string', tags: ['string'] }, { keys: 'name' });
      const v = { id: 1, name: 'x', tags: ['a'] };
      assert.deepEqual(unpack(A.encode(v)), [1, 'x', ['a']]);
      assert.deepEqual(unpack(M.encode(v)), v);
    });

    test('a contract file: names refer to each other in any order; classes by name', () => {
      class Pt {}
      const doc = JSON.parse(`{ "contracts": {
        "Shape": { "keys": "name", "fields": { "at": "Pt", "path": ["Pt"], "label": "string?", "kind": { "type": "uint8", "default": 1 } } },
        "Pt": { "keys": "index", "fields": { "x": "int16", "y": { "type": "int16", "key": 2 } } } } }`);
      const { Shape, Pt: P } = contract(doc, { classes: { Pt }, compile });
      assert.equal(P.slots, 3);
      const s = { at: { x: 1, y: 2 }, path: [{ x: 3, y: 4 }], label: null, kind: 2 };
      const back = Shape.decode(Shape.encode(s));
      assert.ok(back.at instanceof Pt);
      assert.deepEqual(JSON.parse(JSON.stringify(back)), s);
      assert.equal(hex(P.encode({ x: 1, y: 2 })), '93 01 c0 02');
    });

    test('bad descriptions are INVALID_ARGUMENT naming the field', () => {
      const bad = (fields, o, re) => assert.throws(() => C(fields, o), (e) => e.code === 'INVALID_ARGUMENT' && re.test(e.message));
      bad({ a: 'int33' }, {}, /field a: unknown type 'int33'/);
      bad({ a: 'int8', b: { type: 'int8', key: 0 } }, { keys: 'index' }, /field b: key 0 is also field a's/);
      bad({ a: { type: 'int8', key: 'x' } }, { keys: 'index' }, /key must be an integer/);
      bad({ a: { type: 'int8', key: 70000 } }, { keys: 'index' }, /0\.\.65535/);
      bad({ a: { type: 'int8', default: 300 } }, {}, /field a: the default/);
      bad({ a: ['int8', 'int8'] }, {}, /one element/);
      bad({ a: 'int8' }, { keys: 'array' }, /keys must be/);
      bad({ a: 'int8' }, { kes: 'index' }, /unknown contract option 'kes'/);
      bad({}, {}, /no fields/);
      bad({ a: { map: ['float64', 'int8'] } }, {}, /map keys/);
    });

    test('messages name an unnamed contract once, and a named one by its name', () => {
      const msg = (f) => { try { f(); } catch (e) { return e.message; } return 'no error'; };
      assert.match(msg(() => C({ a: 'int33' }, {})), /^the contract, field a: unknown type/);
      assert.match(msg(() => C({ a: 'int8' }, { keys: 'x' })), /^the contract: keys must be/);
      assert.match(msg(() => C({ a: 'int33' }, { name: 'Order' })), /^contract Order, field a:/);
      class Item {}
      assert.match(msg(() => C({ a: 'int33' }, { class: Item })), /^contract Item, field a:/);
    });

    test('random values give the same bytes through generated code and closures, and round trip', () => {
      const fields = { a: 'int32', b: 'string?', c: ['float64'], d: { map: ['string', 'int8'] }, e: 'any' };
      const G = contract(fields, { compile: true, keys: 'index' });
      const I = contract(fields, { compile: false, keys: 'index' });
      assert.equal(G.compiled, true);
      assert.equal(I.compiled, false);
      const next = rng(23);
      for (let i = 0; i < 200; i++) {
        const v = {
          a: Math.floor((next() - 0.5) * 2 ** 32) | 0, b: next() < 0.3 ? null : 'x'.repeat(Math.floor(next() * 40)),
          c: Array.from({ length: Math.floor(next() * 5) }, () => next() * 1e6), d: { k: Math.floor(next() * 100) },
          e: next() < 0.5 ? [1, { z: 'q' }] : 'str',
        };
        const g = G.encode(v);
        assert.deepEqual(I.encode(v), g);
        assert.deepEqual(I.decode(g), v);
        assert.deepEqual(G.decode(g), v);
      }
    });
  });
}

test('a default reads back in the form decode gives the field (a missing field as a written one)', () => {
  const P = contract({ x: 'int8', y: 'int64' }, { name: 'P' });
  const fields = {
    u: { type: 'uint64', default: 5 }, m: { type: { map: ['string', 'uint64'] }, default: { a: 2 } },
    im: { type: { map: ['int32', 'int8'] }, default: { 1: 2, '-3': 4 } }, ta: { type: 'int32[]', default: [1, 2] },
    b: { type: 'bin', default: [1, 2] }, p: { type: P, default: { x: 1, y: 7 } }, l: { type: ['uint64'], default: [1] },
  };
  for (const int64 of ['bigint', 'number']) {
    const C = contract(fields, { int64 });
    const missing = C.decode(Uint8Array.of(0x80));
    const written = C.decode(C.encode(missing));
    assert.deepEqual(missing, written, int64);
    const big = int64 === 'bigint' ? (x) => BigInt(x) : (x) => x;
    assert.equal(missing.u, big(5));
    assert.deepEqual(missing.m, { a: big(2) });
    assert.deepEqual(missing.im, new Map([[1, 2], [-3, 4]]));
    assert.deepEqual(missing.ta, Int32Array.of(1, 2));
    assert.deepEqual(missing.b, Uint8Array.of(1, 2));
    assert.equal(typeof missing.p.y, 'bigint', 'a nested contract keeps its own int64');
    assert.deepEqual(missing.l, [big(1)]);
  }
  // The same from a contract file, which can only say numbers, arrays and objects.
  const { T } = contract({ contracts: { T: { keys: 'index', fields: { n: { type: 'int64', default: 3 }, q: { type: 'Q', default: { z: 2 } } } },
    Q: { fields: { z: 'uint64' } } } });
  assert.deepEqual(T.decode(Uint8Array.of(0x90)), { n: 3n, q: { z: 2n } });
  const bad = (f, o, re) => assert.throws(() => contract(f, o), (e) => e.code === 'INVALID_ARGUMENT' && re.test(e.message), Object.keys(f).join());
  bad({ x: { type: { map: ['string', 'int32'] }, default: [] } }, {}, /field x: the default is an Array, not a \{map/);
  bad({ x: { type: { map: ['int32', 'int32'] }, default: { a: 1 } } }, {}, /key a is not an int32/);
  bad({ x: { type: 'int64', default: 2n ** 60n } }, { int64: 'number' }, /beyond what a number holds/);
  bad({ x: { type: 'uint64', default: -1 } }, {}, /the default is a negative number, not a uint64|the default is .*not a uint64/);
  bad({ p: { type: P, default: { x: 'no' } } }, {}, /field p: the default is an Object that contract P does not write \(its field x is a string, not a int8\)/);
  // A nested contract's fields take the JSON forms a field's own default takes (bytes as an array, int64s as numbers).
  const { Outer } = contract({ contracts: { Blob: { keys: 'index', fields: { data: 'bin', nums: 'int64[]' } },
    Outer: { keys: 'index', fields: { inner: { type: 'Blob', default: { data: [1, 2, 3], nums: [1, 2] } } } } } });
  assert.deepEqual(Outer.decode(Uint8Array.of(0x90)), { inner: { data: Uint8Array.of(1, 2, 3), nums: BigInt64Array.of(1n, 2n) } });
  bad({ a: { type: 'int32[]', default: [1.5] } }, {}, /an array holding .*, not a int32\[\]/);
});

test("a nested contract's default reads back as written: its own defaults and nulls filled in, its class, fresh each time", () => {
  for (const compile of [true, false]) {
    class Pt {}
    const PC = contract({ x: 'int32', y: { type: 'int32', default: 7 }, t: 'string?' }, { class: Pt, compile });
    const C = contract({ p: { type: PC, default: { x: 1 } }, ps: { type: [PC], default: [{ x: 2 }] }, id: 'int32' }, { compile });
    const missing = C.decode(C.encode({ id: 1, p: undefined, ps: undefined }));
    const written = C.decode(C.encode({ id: 1, p: { x: 1 }, ps: [{ x: 2 }] }));
    assert.deepEqual(missing, written);
    assert.ok(missing.p instanceof Pt && missing.ps[0] instanceof Pt);
    assert.deepEqual({ ...missing.p }, { x: 1, y: 7, t: null });
    // A Buffer default is a Uint8Array of its own in each decode, as a written bin is.
    const B = contract({ b: { type: 'bin', default: Buffer.from([1, 2]) }, u: { type: 'uint8[]', default: Buffer.from([3]) } }, { compile });
    const first = B.decode(Uint8Array.of(0x80));
    assert.equal(first.b.constructor, Uint8Array);
    assert.equal(first.u.constructor, Uint8Array);
    first.b[0] = 9;
    first.u[0] = 9;
    assert.deepEqual(B.decode(Uint8Array.of(0x80)), { b: Uint8Array.of(1, 2), u: Uint8Array.of(3) });
  }
});

test('array(): a contract of T[], nested too, with paths through the elements', () => {
  const P = contract({ x: 'int8' }, { keys: 'index' });
  const L = P.array(), LL = L.array();
  assert.equal(P.array(), L);
  assert.deepEqual(LL.decode(LL.encode([[{ x: 1 }], [], [{ x: 2 }, { x: 3 }]])), [[{ x: 1 }], [], [{ x: 2 }, { x: 3 }]]);
  fail(() => LL.encode([[{ x: 1 }], [{ x: 'no' }]]), 'TYPE', '$[1][0].x');
  fail(() => LL.decode(LL.encode([[{ x: 1 }]]).map((b) => (b === 1 ? 0xc3 : b))), 'TYPE', '$[0][0].x');
});

test('map-form keys land right wherever the encoder\'s buffer ends (every offset of its last 8 bytes)', async () => {
  const K = contract({ id: 'uint32', abcdefg: 'string', abcdefghij: 'uint8' }, { keys: 'name' });
  const sp = await createScratchpack();
  try {
    for (let pad = 0; pad < 24; pad++) {
      const rows = Array.from({ length: 300 }, (_, i) => ({ id: i * 7, abcdefg: 'v'.repeat((i + pad) % 5), abcdefghij: i & 127 }));
      const want = encode(rows);                                   // the generic encoder: the same map, key for key
      assert.deepEqual(K.array().encode(rows), want, `pad ${pad}`);
      assert.deepEqual(sp.encode(rows, { contract: K.array() }), want, `pad ${pad}, through an instance`);
      const into = new Uint8Array(want.length);
      assert.equal(sp.encodeInto(rows, into, { contract: K.array() }), want.length);
      assert.deepEqual(into, want, `pad ${pad}, encodeInto`);
    }
  } finally {
    sp.close();
  }
});

// Found by a review of both modes side by side: each failed before its fix.
for (const compile of [true, false]) {
  const mode = compile ? 'generated' : 'closures';

  test(`${mode}: a field named __proto__ decodes as an own property and never sets the prototype`, () => {
    const R = contract({ ['__proto__']: 'string', x: 'uint8' }, { keys: 'name', compile });
    const d = R.decode(R.encode(JSON.parse('{"__proto__":"hello","x":1}')));
    assert.equal(Object.getPrototypeOf(d), Object.prototype);
    assert.deepEqual(Object.keys(d), ['__proto__', 'x']);
    assert.equal(Object.getOwnPropertyDescriptor(d, '__proto__').value, 'hello');
    const A = contract({ ['__proto__']: 'any', x: 'uint8' }, { keys: 'index', compile });
    const q = A.decode(encode([{ isAdmin: true }, 1]));
    assert.equal(q.isAdmin, undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(q, '__proto__').value, { isAdmin: true });
  });

  test(`${mode}: a class's setters run on decode; one that throws is CALLBACK at the field, a getter with no setter is refused up front`, () => {
    class Temp {
      set celsius(v) { if (v < -273) throw new RangeError('below absolute zero'); this._c = v; }
      get celsius() { return this._c; }
    }
    const T = contract({ celsius: 'float64' }, { keys: 'index', class: Temp, compile });
    assert.equal(T.decode(T.encode({ celsius: 21 }))._c, 21);
    const e = fail(() => T.decode(encode([-300])), 'CALLBACK', '$.celsius');
    assert.ok(e.cause instanceof RangeError);
    assert.equal(e.offset, 4);                       // the end of the object, whose fields are set once all are read
    class Rect { get w() { return 1; } }
    fail(() => contract({ w: 'uint8' }, { keys: 'index', class: Rect, compile }), 'INVALID_ARGUMENT');
    class Frozen {}
    Object.defineProperty(Frozen.prototype, 'id', { value: 0, writable: false });
    fail(() => contract({ id: 'uint8' }, { keys: 'index', class: Frozen, compile }), 'INVALID_ARGUMENT');
    // Refused classes were not bound: they encode as plain objects.
    assert.deepEqual(decode(encode(new Rect())), {});
  });

  test(`${mode}: a contract file that fails to load binds none of its classes, and may be loaded again`, () => {
    class A { constructor() { this.x = 1; } }
    const file = (t) => ({ contracts: { A: { keys: 'index', fields: { x: 'uint8' } }, B: { fields: { y: t } } } });
    fail(() => contract(file('no-such-type'), { classes: { A }, compile }), 'INVALID_ARGUMENT');
    assert.deepEqual(decode(encode(new A())), { x: 1 });      // a plain object, not { _: nil }
    const ok = contract(file('A'), { classes: { A }, compile });
    assert.deepEqual(encode(new A()), ok.A.encode({ x: 1 }));
    class C {}
    fail(() => contract({ contracts: { P: { fields: { a: 'bool' } }, Q: { fields: { b: 'bool' } } } },
      { classes: { P: C, Q: C }, compile }), 'INVALID_ARGUMENT');
    assert.deepEqual(decode(encode(Object.assign(new C(), { z: 1 }))), { z: 1 });
  });

  test(`${mode}: an object default is a fresh copy of the same classes`, () => {
    class P { constructor(x, y) { this.x = x; this.y = y; } len() { return Math.hypot(this.x, this.y); } }
    const PC = contract({ x: 'int32', y: 'int32' }, { keys: 'index', class: P, compile });
    const R = contract({ id: 'int32', at: { type: PC, default: new P(3, 4) }, when: { type: 'timestamp', default: new Date(5) },
      tags: { type: ['string'], default: ['a'] } }, { keys: 'index', compile });
    const a = R.decode(Uint8Array.of(0x91, 0x05)), b = R.decode(Uint8Array.of(0x91, 0x05));
    assert.ok(a.at instanceof P);
    assert.equal(a.at.len(), 5);
    assert.notEqual(a.at, b.at);
    assert.ok(a.when instanceof Date && a.when.getTime() === 5 && a.when !== b.when);
    assert.notEqual(a.tags, b.tags);
  });

  test(`${mode}: a cycle through a contract is CYCLE with the path from $, as its other errors`, () => {
    const N = contract({ contracts: { N: { keys: 'index', fields: { v: 'uint8', next: 'N?' } } } }, { compile }).N;
    const a = { v: 1, next: null };
    a.next = { v: 2, next: a };
    const e = fail(() => N.encode(a), 'CYCLE', '$.next.next');
    assert.match(e.message, /the one at the root/);
    fail(() => encode(a, { contract: N }), 'CYCLE', '$.next.next');
    // Found where the value first meets itself, not at maxDepth: its other fields are read once or twice, not 500 times.
    let reads = 0;
    const b = { get v() { reads++; return 1; }, next: null };
    b.next = b;
    fail(() => N.encode(b), 'CYCLE', '$.next');
    assert.ok(reads <= 2, `${reads} reads`);
  });

  test(`${mode}: the same value in a field and inside a later array's element is no cycle`, () => {
    // The array's level is not checked for cycles: it must not keep the
    // earlier field's value as if it were an ancestor.
    const c = contract({ contracts: {
      E: { keys: 'index', fields: { extra: 'any' } },
      S: { keys: 'index', fields: { first: 'any', list: ['E'], m: { map: ['string', 'E'] } } },
    } }, { compile });
    const x = { shared: 1 };
    const v = { first: x, list: [{ extra: x }, { extra: [x] }], m: { k: { extra: x } } };
    assert.deepEqual(decode(c.S.encode(v)), [x, [[x], [[x]]], { k: [x] }]);
    assert.deepEqual(decode(c.E.array().encode([{ extra: x }, { extra: [x, x] }])), [[x], [[x, x]]]);
  });

  test(`${mode}: 0xc1 where a field's value should be is MALFORMED, as decode() says, not TYPE`, () => {
    const R = contract({ a: 'int32', b: 'string', t: 'int16[]' }, { keys: 'index', compile });
    fail(() => R.decode(Uint8Array.of(0xc1)), 'MALFORMED');
    fail(() => R.decode(Uint8Array.of(0x93, 1, 0xc1, 0x90)), 'MALFORMED', '$.b');
    fail(() => R.decode(Uint8Array.of(0x93, 1, 0xa0, 0x91, 0xc1)), 'MALFORMED', '$.t[0]');
  });

  test(`${mode}: typed-array fields fail as [T] does: the element's path, VALUE_RANGE outside its range`, () => {
    const A = contract({ a: 'int32[]', b: 'uint64[]' }, { keys: 'index', compile });
    fail(() => A.decode(Uint8Array.of(0x92, 0x93, 1, 2, 0xa1, 0x61, 0x90)), 'TYPE', '$.a[2]');
    fail(() => A.decode(Uint8Array.of(0x92, 0x91, 0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x90)), 'OVERFLOW', '$.a[0]');
    fail(() => A.encode({ a: [1, 2, 2 ** 31], b: [] }), 'VALUE_RANGE', '$.a[2]');
    fail(() => A.encode({ a: [1.5], b: [] }), 'TYPE', '$.a[0]');
    fail(() => A.encode({ a: [], b: [-1n] }), 'VALUE_RANGE', '$.b[0]');
    fail(() => A.encode({ a: [], b: [2n ** 64n] }), 'VALUE_RANGE', '$.b[0]');
  });

  test(`${mode}: a float32 field refuses a finite number that would be written as an infinity (VALUE_RANGE), as an integer field refuses one past its range`, () => {
    const F = contract({ f: 'float32', fs: ['float32'], ta: 'float32[]', i: 'int32' }, { keys: 'index', compile });
    const ok = { f: 1, fs: [], ta: new Float32Array(0), i: 0 };
    fail(() => F.encode({ ...ok, f: 1e40 }), 'VALUE_RANGE', '$.f');                 // was written as ca 7f800000
    fail(() => F.encode({ ...ok, f: -(2 ** 128 - 2 ** 103) }), 'VALUE_RANGE', '$.f');  // the first that rounds to -infinity
    fail(() => F.encode({ ...ok, fs: [1, 1e39] }), 'VALUE_RANGE', '$.fs[1]');
    fail(() => F.encode({ ...ok, ta: [1, 1e39] }), 'VALUE_RANGE', '$.ta[1]');
    const largest = 2 ** 128 - 2 ** 103 - 2 ** 80;                                    // still rounds to float32's largest
    assert.deepEqual([...F.encode({ ...ok, f: largest }).subarray(1, 6)], [0xca, 0x7f, 0x7f, 0xff, 0xff]);
    for (const v of [Infinity, -Infinity, NaN]) assert.ok(Object.is(F.decode(F.encode({ ...ok, f: v, fs: [v] })).fs[0], v));
    assert.throws(() => F.encode({ ...ok, i: NaN }), (e) => e.code === 'TYPE' && /got NaN at \$\.i$/.test(e.message));
  });
}

test('a field wrapper\'s nullable is true or false; a float32 default past float\'s range is refused', () => {
  for (const nullable of ['no', 1, null]) {
    assert.throws(() => contract({ f: { type: 'int32', nullable } }), (e) => e.code === 'INVALID_ARGUMENT' && /nullable is true or false/.test(e.message));
    assert.throws(() => contract({ f: { type: [{ type: 'int32', nullable }] } }), (e) => e.code === 'INVALID_ARGUMENT' && /nullable is true or false/.test(e.message));
  }
  fail(() => contract({ f: { type: 'int32', nullable: false } }).encode({ f: null }), 'TYPE', '$.f');
  assert.deepEqual([...contract({ f: { type: 'int32', nullable: true } }).encode({ f: null })], [0x81, 0xa1, 0x66, 0xc0]);
  assert.throws(() => contract({ f: { type: 'float32', default: 1e40 } }),
    (e) => e.code === 'INVALID_ARGUMENT' && /field f: the default is 1e\+40, past float32's range/.test(e.message));
  assert.equal(contract({ f: { type: 'float32', default: -Infinity } }).decode(Uint8Array.of(0x80)).f, -Infinity);
});

test('options that are not an object are INVALID_ARGUMENT; a class contract is named after its class', () => {
  for (const o of [null, 5, 'index']) {
    fail(() => contract({ x: 'int8' }, o), 'INVALID_ARGUMENT');
    fail(() => contract({ contracts: { P: { fields: { x: 'int8' } } } }, o), 'INVALID_ARGUMENT');
  }
  class Pt {}
  const P = contract({ x: 'int8' }, { class: Pt });
  assert.equal(P.name, 'Pt');
  assert.match(fail(() => P.encode(1), 'TYPE').message, /expected a Pt object/);
  assert.equal(contract({ x: 'int8' }, { class: class Other {}, name: 'Given' }).name, 'Given');
});

test('fields named like Object.prototype members, a field named contracts, integer-like names, decode inside a setter', () => {
  for (const compile of [true, false]) {
    // A plain object without the field has none: not Object.prototype's toString or constructor.
    const A = contract({ id: 'uint8', toString: 'string?', constructor: { type: 'uint8', default: 5 }, valueOf: 'any' },
      { keys: 'index', compile });
    assert.deepEqual([...A.encode({ id: 1 })], [0x94, 1, 0xc0, 5, 0xc0]);
    assert.deepEqual(A.decode(A.encode({ id: 1, toString: 's', constructor: 6, valueOf: [1] })),
      { id: 1, toString: 's', constructor: 6, valueOf: [1] });
    const P = contract(Object.fromEntries([['id', 'uint8'], ['__proto__', 'string?']]), { keys: 'index', compile });
    assert.deepEqual([...P.encode({ id: 1 })], [0x92, 1, 0xc0]);
    // A field named contracts whose wrapper holds a contract is a field, not a contract file.
    const Item = contract({ sku: 'string' }, { name: 'Item', compile });
    const W = contract({ id: 'uint32', contracts: { type: Item, nullable: true } }, { keys: 'index', compile });
    assert.deepEqual(W.decode(W.encode({ id: 2, contracts: { sku: 'k' } })), { id: 2, contracts: { sku: 'k' } });
    // An integer-like name's place is not where it is written (JS lists it first): an explicit key is asked for.
    for (const fields of [{ name: 'string', 2: 'uint8' }, { name: 'string', 2: { type: 'uint8', key: 1 } }])
      assert.throws(() => contract(fields, { keys: 'index', compile }),
        (e) => e.code === 'INVALID_ARGUMENT' && /field 2: a field named like an integer needs every field to have an explicit key/.test(e.message));
    const K = contract({ name: { type: 'string', key: 0 }, 2: { type: 'uint8', key: 1 } }, { keys: 'index', compile });
    assert.deepEqual([...K.encode({ name: 'a', 2: 7 })], [0x92, 0xa1, 0x61, 7]);
    // A class's setter may decode another message: the outer decode goes on where it was.
    const Inner = contract({ q: 'string' }, { keys: 'index', compile });
    const inner = Inner.encode({ q: 'z'.repeat(40) });
    class S { set x(v) { this._x = v; this.len = Inner.decode(inner).q.length; } get x() { return this._x; } }
    const SC = contract({ a: 'int8', x: 'int32' }, { class: S, compile, keys: 'index' });
    const L = contract({ items: [SC], tail: 'string' }, { compile, keys: 'index' });
    const out = L.decode(L.encode({ items: [{ a: 1, x: 2 }, { a: 3, x: 4 }], tail: 'end' }));
    assert.equal(out.tail, 'end');
    assert.deepEqual(out.items.map((s) => [s.a, s.x, s.len]), [[1, 2, 40], [3, 4, 40]]);
  }
});
