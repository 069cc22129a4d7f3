// The generated contract code's local-cursor paths (contract-compile.js:
// encode runs reserved at their worst case, decode's inline forms) against
// the closures (contract-interp.js), which write and read one primitive at
// a time: for random values, valid or not, and for damaged, truncated and
// limit-breaking messages, both give the same bytes, the same values, or
// the same error (code, offset, path). Plus what only a run can meet: an
// array that changes between the run's passes over it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { contract, createScratchpack, decode, encode, encodeInto } from '../../js/index.js';
import { rng } from './helpers.js';

const FIELDS = {
  b: 'bool', i8: 'int8', u8: 'uint8', i16: 'int16', u16: 'uint16', i32: 'int32', u32: 'uint32',
  f32: 'float32', f64: 'float64', s: 'string', ns: 'string?', ni: 'int16?',
  ss: ['string'], ii: ['int8'], ff: ['float64'], nss: ['string?'], bb: ['bool'],
  any: 'any',                                  // not a run's type: splits the fields into two runs
  s2: 'string', u2: 'uint32',
};
// Explicit indices with gaps (nil), and a field past a gap.
const GAPPED = { a: { type: 'uint8', key: 1 }, t: { type: 'string', key: 4 }, l: { type: ['int32'], key: 5 } };
// Fewer than 16 fields: a fix header, which the generated decoder reads inline.
const SMALL = { id: 'uint32', name: 'string', score: 'float64', tags: ['string'] };

const FORMS = [
  ['index', FIELDS, { keys: 'index' }],
  ['name', FIELDS, { keys: 'name' }],
  ['gaps', GAPPED, { keys: 'index' }],
  ['small index', SMALL, { keys: 'index' }],
  ['small name', SMALL, { keys: 'name' }],
];
const pair = (fields, o) => [contract(fields, { ...o, compile: true }), contract(fields, { ...o, compile: false })];

// The outcome of fn: ['ok', value] or ['err', code, offset, path].
function outcome(fn) {
  try {
    return ['ok', fn()];
  } catch (e) {
    if (!e.code) throw e;                      // a raw error is a failure in itself
    return ['err', e.code, e.offset, e.path];
  }
}

// Text around the runs' limits: lengths 0..100 (31/32: the str 8 header,
// 80/81: the longest string a run takes), ASCII, 2- and 3-byte characters,
// pairs and lone surrogates.
function text(next) {
  const n = next() < 0.3 ? [0, 1, 15, 16, 17, 31, 32, 80, 81][Math.floor(next() * 9)] : Math.floor(next() * 100);
  let s = '';
  while (s.length < n) {
    const r = next();
    s += r < 0.8 ? String.fromCharCode(32 + Math.floor(next() * 95))
      : r < 0.88 ? 'é' : r < 0.94 ? '한' : r < 0.97 ? '😀' : '\ud800';
  }
  return s.slice(0, n);
}

// A value for a field of type t: valid mostly, of another type or range sometimes.
function valueOf(t, next) {
  if (next() < 0.04) return [null, undefined, 'x', 3.5, -1, 2 ** 40, true, [], {}][Math.floor(next() * 9)];
  if (Array.isArray(t)) {
    const n = next() < 0.2 ? [0, 15, 16, 17, 40][Math.floor(next() * 5)] : Math.floor(next() * 6);
    return Array.from({ length: n }, () => valueOf(t[0], next));
  }
  if (typeof t === 'object') return valueOf(t.type, next);
  if (t.endsWith('?') && next() < 0.3) return next() < 0.5 ? null : undefined;
  switch (t.replace('?', '')) {
    case 'bool': return next() < 0.5;
    case 'int8': return Math.floor(next() * 256) - 128;
    case 'uint8': return Math.floor(next() * 256);
    case 'int16': return Math.floor(next() * 65536) - 32768;
    case 'uint16': return Math.floor(next() * 65536);
    case 'int32': return next() < 0.5 ? Math.floor(next() * 200) - 100 : (Math.floor(next() * 2 ** 32) | 0);
    case 'uint32': return next() < 0.5 ? Math.floor(next() * 300) : Math.floor(next() * 2 ** 32);
    case 'float32': return Math.fround(next() * 1000 - 500);
    case 'float64': return next() < 0.2 ? Math.floor(next() * 100) : next() * 1e6 - 5e5;
    case 'string': return text(next);
    case 'any': return next() < 0.5 ? [1, 'a', { k: null }] : 'plain';
    default: throw new Error(t);
  }
}

const record = (fields, next) => Object.fromEntries(Object.entries(fields).map(([k, t]) => [k, valueOf(t, next)]));

test('encode: a run writes the bytes, or fails with the error, the closures give (random records, valid or not)', async () => {
  const sp = await createScratchpack();
  try {
    for (const [form, fields, o] of FORMS) {
      const [G, I] = pair(fields, o);
      const next = rng(41);
      let ok = 0, failed = 0;
      for (let i = 0; i < 1500; i++) {
        const v = record(fields, next);
        const want = outcome(() => I.encode(v));
        assert.deepEqual(outcome(() => G.encode(v)), want, `${form} #${i}`);
        // a list of them through an instance (the JS scratch, its segments) and into a tight target
        const list = [v, v, v];
        const wantList = outcome(() => I.array().encode(list));
        assert.deepEqual(outcome(() => sp.encode(list, { contract: G.array() })), wantList, `${form} #${i} listed`);
        if (want[0] === 'ok') {
          ok++;
          const target = new Uint8Array(wantList[1].length);
          assert.equal(sp.encodeInto(list, target, { contract: G.array() }), target.length);
          assert.deepEqual(target, wantList[1]);
        } else {
          failed++;
        }
      }
      assert.ok(ok > 300 && failed > 300, `${form}: ${ok} encoded, ${failed} failed (both kinds must be tried)`);
    }
    // The level of an array in a run is checked as W.deeper checks it.
    const shallow = await createScratchpack({ limits: { maxDepth: 1 } });
    try {
      const [G, I] = pair(FIELDS, { keys: 'index' });
      const v = {
        b: true, i8: -3, u8: 200, i16: -300, u16: 60000, i32: -70000, u32: 70000, f32: 1.5, f64: 0.25, s: 'run',
        ns: null, ni: 5, ss: ['a'], ii: [], ff: [], nss: [], bb: [], any: 'plain', s2: '', u2: 0,
      };
      const want = outcome(() => shallow.encode(v, { contract: I }));
      assert.deepEqual([want[1], want[3]], ['DEPTH_LIMIT', '$.ss']);
      assert.deepEqual(outcome(() => shallow.encode(v, { contract: G })), want);
    } finally {
      shallow.close();
    }
  } finally {
    sp.close();
  }
});

test('decode: the inline forms read what the closures read, and fail where they fail', () => {
  for (const [form, fields, o] of FORMS) {
    const [G, I] = pair(fields, o);
    const next = rng(43);
    const limits = [undefined, { maxStrLength: 3 }, { maxArrayLength: 2 }, { maxDepth: 1 }, { maxDepth: 2 }, { maxStrLength: 16, maxArrayLength: 15 }];
    let tried = 0;
    for (let i = 0; i < 400; i++) {
      let v;
      do { v = record(fields, next); } while (outcome(() => I.encode(v))[0] !== 'ok');
      const bytes = I.encode(v);
      const cases = [bytes, bytes.subarray(0, Math.floor(next() * bytes.length))];
      for (let k = 0; k < 3; k++) {
        const m = bytes.slice();
        m[Math.floor(next() * m.length)] = Math.floor(next() * 256);
        cases.push(m);
      }
      // the generic encoder's form of the same record: other int and float widths, keys in another order
      const generic = encode(Object.fromEntries(Object.entries(v).reverse()));
      if (o.keys === 'name') cases.push(generic);
      for (const c of cases) {
        for (const opts of limits) {
          const want = outcome(() => I.decode(c, opts));
          assert.deepEqual(outcome(() => G.decode(c, opts)), want, `${form} #${i} ${JSON.stringify(opts)}`);
          tried++;
        }
      }
    }
    assert.ok(tried > 8000);
  }
});

test('decode: a list through decode(), at an offset and under limits reads and fails as the closures do', () => {
  for (const [form, fields, o] of FORMS) {
    const [G, I] = pair(fields, o);
    const next = rng(47);
    const list = [];
    while (list.length < 50) {
      const v = record(fields, next);
      if (outcome(() => I.encode(v))[0] === 'ok') list.push(v);
    }
    const bytes = I.array().encode(list);
    const shifted = new Uint8Array(bytes.length + 7);
    shifted.set(bytes, 7);
    const want = I.array().decode(bytes);
    assert.deepEqual(G.array().decode(shifted.subarray(7)), want, form);
    assert.deepEqual(decode(bytes, { contract: G.array() }), want, form);
    // maxDepth 1: the records' level; 2: their arrays'
    for (const opts of [{ maxDepth: 1 }, { maxDepth: 2 }, { maxArrayLength: 3 }, { maxArrayLength: 30 }, { maxMapLength: 3 }]) {
      const got = outcome(() => G.array().decode(bytes, opts));
      assert.deepEqual(got, outcome(() => I.array().decode(bytes, opts)), `${form} ${JSON.stringify(opts)}`);
    }
  }
});

test('encode: a run that finds an array changed since it sized it writes what the array holds then', () => {
  const R = contract({ id: 'uint8', tags: ['string'] }, { keys: 'index' });
  // Sized (more than 16 elements: the run counts their bytes first) with
  // short strings, then read long ones: the run must not write past what it
  // reserved, and the message holds the long ones.
  // (Up to 16 elements it reads each once, as it writes.)
  for (const n of [3, 20]) {
    let reads = 0;
    const long = 'x'.repeat(79);
    const tags = new Proxy(Array.from({ length: n }, () => 'ab'), {
      get(t, k) { return k === '1' ? (++reads > 1 ? long : 'ab') : Reflect.get(t, k); },
    });
    const want = Array.from({ length: n }, (_, i) => (i === 1 && n > 16 ? long : 'ab'));
    assert.deepEqual(R.decode(R.encode({ id: 7, tags })), { id: 7, tags: want }, `${n} elements`);
    assert.equal(reads, n > 16 ? 3 : 1, `${n} elements: reads of the changing one`);
  }
  // An element that stops being a string: the error of the element, with its path.
  let reads = 0;
  const turning = new Proxy(Array.from({ length: 20 }, () => 'ab'), {
    get(t, k) { return k === '2' && ++reads > 1 ? 42 : Reflect.get(t, k); },
  });
  assert.throws(() => R.encode({ id: 1, tags: turning }), (e) => e.code === 'TYPE' && e.path === '$.tags[2]');
});

test('encode: an array of 16 elements (a 3-byte header) in a run ending where the buffer ends writes every byte', async () => {
  const sp = await createScratchpack();
  for (const compile of [true, false]) {
    const R = contract({ blob: 'bin', a: ['bool'], b: 'bool', c: 'bool' }, { keys: 'index', compile });
    for (const n of [14, 15, 16, 17, 18]) {
      for (let len = 4060; len < 4100; len++) {
        const v = { blob: new Uint8Array(len).fill(7), a: Array.from({ length: n }, (_, i) => i % 3 === 0), b: false, c: true };
        const want = contract({ blob: 'bin', a: ['bool'], b: 'bool', c: 'bool' }, { keys: 'index', compile: false }).encode(v);
        const at = `compile ${compile}, ${n} bools after ${len} bytes`;
        assert.deepEqual(R.encode(v), want, `${at}: encode`);
        assert.deepEqual(sp.encode(v, { contract: R }), want, `${at}: sp.encode`);
        const target = new Uint8Array(want.length);
        assert.equal(sp.encodeInto(v, target, 0, { contract: R }), want.length, `${at}: encodeInto`);
        assert.deepEqual(target, want, `${at}: encodeInto's bytes`);
      }
    }
  }
  sp.close();
});

test('encode: a run keeps to what it asked for each array, however the array grows while it is written', () => {
  // The array is sized at 3 bools and holds 4 when written: with the bool
  // after it, one byte more than the run reserved. The run must give up
  // (the slow way writes what the array holds then), not write past it.
  // (Only generated code reads the length twice: the closures read it once.)
  for (const compile of [true]) {
    const R = contract({ a: ['bool'], b: 'bool' }, { keys: 'index', compile });
    let lengths = 0;
    const a = new Proxy([true, true, true, true], {
      get(t, k) { return k === 'length' ? (++lengths === 1 ? 3 : 4) : Reflect.get(t, k); },
    });
    const want = Uint8Array.of(0x92, 0x94, 0xc3, 0xc3, 0xc3, 0xc3, 0xc2);
    assert.deepEqual(R.encode({ a, b: false }), want, `compile ${compile}: Rec.encode`);
    lengths = 0;
    assert.deepEqual(encode({ a, b: false }, { contract: R }), want, `compile ${compile}: encode`);
    // A target of what the run asked for: the message does not fit.
    lengths = 0;
    const small = new Uint8Array(6);
    assert.throws(() => encodeInto({ a, b: false }, small, 0, { contract: R }),
      (e) => e.code === 'BUFFER_TOO_SMALL', `compile ${compile}: encodeInto 6 bytes`);
    lengths = 0;
    const exact = new Uint8Array(7);
    assert.equal(encodeInto({ a, b: false }, exact, 0, { contract: R }), 7, `compile ${compile}: encodeInto 7 bytes`);
    assert.deepEqual(exact, want, `compile ${compile}: encodeInto's bytes`);
  }
});

test('encode: generated code and closures read every field before they write, so getters see and fail the same', () => {
  for (const keys of ['index', 'name']) {
    const [C, I] = pair({ a: 'uint8', b: 'string', s: ['uint8'] }, { keys });
    // A getter that throws wins over an earlier field of the wrong type.
    const bad = { a: 'not a number', get b() { throw new Error('b failed'); }, s: [] };
    assert.deepEqual(outcome(() => C.encode(bad)), ['err', 'CALLBACK', undefined, '$.b'], `${keys}: generated`);
    assert.deepEqual(outcome(() => I.encode(bad)), outcome(() => C.encode(bad)), `${keys}: closures`);
    // A getter that changes a field read before it: both write what was read.
    const mk = () => { const v = { a: 1, get b() { v.a = 2; v.s = [9, 9]; return 'x'; }, s: [9] }; return v; };
    assert.deepEqual(I.encode(mk()), C.encode(mk()), `${keys}: bytes`);
    assert.deepEqual(C.decode(C.encode(mk())), { a: 1, b: 'x', s: [9, 9] }, `${keys}: values (s is read after b)`);
  }
});
