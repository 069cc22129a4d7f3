// One classification of objects (js/classify.js) serves encode()'s walk and
// encodeToStream's: every kind of object -- in a small value written whole,
// and inside a big container the stream enters element by element -- comes
// out of both as the same bytes; the kinds are told apart in one order.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';

import { Ext, contract, createScratchpack } from '../../js/index.js';
import {
  ARRAY, BUFFER, CONTRACT, DATE, EXT, EXTENSION, MAP, OBJECT, OTHER, VIEW, binBytes, classifyObject,
} from '../../js/classify.js';
import { extensionTable } from '../../js/ext.js';
import { editDistance, suggest } from '../../js/suggest.js';

class Point { constructor(x, y) { this.x = x; this.y = y; } }
class Plain { constructor() { this.a = 1; this.b = 'two'; } }
class Rec { constructor(id) { this.id = id; } }
const point = { type: 7, class: Point, encode: (p) => Uint8Array.of(p.x, p.y), decode: (d) => new Point(d[0], d[1]) };
contract({ id: 'int32' }, { class: Rec });

let sp;
before(async () => { sp = await createScratchpack({ extensions: [point] }); });
after(() => sp.close());

// One of each kind, and the kinds a stream writes whole.
const kinds = () => [
  { a: 1 }, [1, 'x'], new Float64Array([0.5, 2]), new DataView(new ArrayBuffer(3)), Buffer.from('buf'),
  new Map([[1, 'one']]), new Date(1700000000123), new Ext(5, Uint8Array.of(9)), new ArrayBuffer(2),
  new SharedArrayBuffer(4), new Rec(42), new Point(3, 4), new Plain(), Object.assign(Object.create(null), { n: null }),
  new Number(7), new String('s'),
];

async function streamed(value) {
  const chunks = [];
  const w = new Writable({ write(c, _e, done) { chunks.push(c); done(); } });
  await sp.encodeToStream(value, w);
  return Buffer.concat(chunks);
}

test('encodeToStream writes every kind of object as encode() does, alone and inside big containers', async () => {
  for (const v of kinds()) assert.deepEqual(await streamed(v), Buffer.from(sp.encode(v)), String(v?.constructor?.name));
  const big = Array.from({ length: 300 }, (_, i) => kinds()[i % 16]);       // entered element by element
  assert.deepEqual(await streamed(big), Buffer.from(sp.encode(big)));
  const map = new Map(big.map((v, i) => [i, { v, more: kinds() }]));
  assert.deepEqual(await streamed(map), Buffer.from(sp.encode(map)));
});

test('classifyObject: a plain object first, then an extension, then the built-in kinds', () => {
  const exts = extensionTable([point]);
  const want = [OBJECT, ARRAY, VIEW, VIEW, VIEW, MAP, DATE, EXT, BUFFER, BUFFER, CONTRACT, EXTENSION, OTHER, OTHER,
    OTHER, OTHER];
  assert.deepEqual(kinds().map((v) => classifyObject(v, exts)), want);
  assert.equal(classifyObject(new Point(1, 2), null), OTHER);               // no table: no extension asked
  class Points extends Array {}
  assert.equal(classifyObject(new Points(), null), ARRAY);
});

test('binBytes views a bin value\'s bytes without copying them', () => {
  const ab = new ArrayBuffer(8), dv = new DataView(ab, 2, 4), u8 = new Uint8Array(ab);
  assert.equal(binBytes(u8), u8);
  const v = binBytes(dv);
  assert.equal(v.buffer, ab);
  assert.deepEqual([v.byteOffset, v.length], [2, 4]);
  assert.equal(binBytes(ab).buffer, ab);
});

test('suggest names a known option one or two edits away, and nothing further', () => {
  assert.equal(editDistance('trheads', 'threads'), 2);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('pool', 'pool'), 0);
  assert.equal(suggest('trheads', ['wasm', 'threads']), ' (did you mean threads?)');
  assert.equal(suggest('cachLimit', ['cacheLimit']), ' (did you mean cacheLimit?)');
  assert.equal(suggest('zzz', ['threads', 'pool']), '');
});

test('a Uint8Array is written as a bin straight away only where classifyObject calls it one', async () => {
  const plain = await createScratchpack({ threads: 0 });      // no extensions: the walk's short way for bins
  try {
    const bytes = Uint8Array.of(1, 2, 3);
    const hex = (v) => Buffer.from(plain.encode(v)).toString('hex');
    assert.equal(hex(bytes), 'c403010203');
    assert.equal(hex([bytes, { b: bytes }]), '92c40301020381a162c403010203');
    class Tagged extends Uint8Array {}
    assert.equal(hex(Tagged.of(4)), 'c40104');                                // a subclass: the long way, a bin all the same
    // An object or array whose own constructor property names Uint8Array is
    // not a typed array: a map (here refused for the function in it) and an array.
    assert.throws(() => plain.encode({ constructor: Uint8Array, a: 1 }),
      (e) => e.code === 'UNSUPPORTED_TYPE' && /\.constructor/.test(e.message));
    assert.equal(hex(Object.assign([1, 2], { constructor: Uint8Array })), '920102');
    const target = new Uint8Array(16);
    assert.equal(plain.encodeInto(Object.assign([7], { constructor: Uint8Array }), target), 2);
    assert.deepEqual(target.subarray(0, 2), Uint8Array.of(0x91, 7));
  } finally {
    plain.close();
  }
  // With extensions, the extension's class is still asked first.
  class Pair extends Uint8Array {}
  const pair = { type: 9, class: Pair, encode: (p) => Uint8Array.of(p[0] + p[1]), decode: (d) => Pair.of(d[0], 0) };
  const withExt = await createScratchpack({ threads: 0, extensions: [pair] });
  try {
    assert.equal(Buffer.from(withExt.encode(Pair.of(2, 3))).toString('hex'), 'd40905');
    assert.equal(Buffer.from(withExt.encode(Uint8Array.of(2, 3))).toString('hex'), 'c4020203');
  } finally {
    withExt.close();
  }
});
