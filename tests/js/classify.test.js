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
