// Copies that are copies (issue 20 item 2): by default every bin value (and
// every Ext's data, and the data a user's ext decode gets) is a plain
// Uint8Array that owns its bytes, whatever the input came in -- a Buffer
// (whose slice() is a view), a Uint8Array, an offset subarray, an
// ArrayBuffer -- and however decodeStream's chunks are cut; mutating the
// input afterwards changes nothing decoded. binary: 'view' is the zero-copy
// opt-in: the same plain Uint8Array type, viewing the input.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { Ext, createScratchpack, decode, decodeMultiple, decodeStream } from '../../js/index.js';
import { rng } from './helpers.js';

// ---- messages with bins in every place -------------------------------------

const bin8 = (bytes) => [0xc4, bytes.length, ...bytes];
const bin16 = (bytes) => [0xc5, bytes.length >> 8, bytes.length & 255, ...bytes];
const fixstr = (s) => [0xa0 | s.length, ...Buffer.from(s)];
const ext8 = (type, bytes) => [0xc7, bytes.length, type & 255, ...bytes];
const seq = (n, k) => Array.from({ length: n }, (_, i) => (i * 7 + k) & 255);

// An Lz4Block message (ext 99: int32 plain length, then one block of
// literals only) whose plain message is `plain` (under 15 bytes).
function lz4Block(plain) {
  const body = [0xd2, 0, 0, 0, plain.length, plain.length << 4, ...plain];
  return ext8(99, body);
}

const MESSAGES = [
  bin8([1, 2, 3]),                                                   // the case
  [0x83, ...fixstr('a'), ...bin8(seq(20, 1)),                         // a record
    ...fixstr('e'), ...ext8(5, seq(6, 2)),
    ...fixstr('l'), 0x92, ...bin8([]), ...bin16(seq(300, 3))],
  [0x81, 0x01, ...bin8(seq(9, 4))],                                   // a Map (int key)
  [0xd5, 0x07, 0xaa, 0xbb],                                           // fixext 2
  lz4Block(bin8(seq(10, 5))),                                         // compressed, a bin inside
];
const BYTES = Uint8Array.from(MESSAGES.flat());

/** The bins and ext datas in a decoded value, depth first. */
function binsOf(v, out = []) {
  if (v instanceof Ext) out.push(v.data);
  else if (v instanceof Uint8Array) out.push(v);
  else if (v instanceof Map) for (const [k, x] of v) { binsOf(k, out); binsOf(x, out); }
  else if (Array.isArray(v)) for (const x of v) binsOf(x, out);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) binsOf(x, out);
  return out;
}

const snapshot = (values) => binsOf(values).map((b) => Array.from(b));

// The reference: what each message holds, decoded from a private copy.
const EXPECTED = MESSAGES.map((m) => snapshot(decode(Uint8Array.from(m))));

function assertOwned(values, what) {
  const bins = binsOf(values);
  assert.ok(bins.length > 0, `${what}: no bins found`);
  for (const b of bins) {
    assert.equal(Object.getPrototypeOf(b), Uint8Array.prototype, `${what}: a ${b.constructor.name}, not a Uint8Array`);
    assert.ok(b.buffer instanceof ArrayBuffer, `${what}: not over an ArrayBuffer of its own`);
    assert.equal(b.byteOffset, 0, `${what}: not at the start of its own buffer`);
    assert.equal(b.buffer.byteLength, b.length, `${what}: its buffer holds more than its bytes`);
  }
}

// The input in each of the forms a caller has: [name, make(bytes) -> [input, scribble()]].
const FORMS = [
  ['Buffer', (b) => { const x = Buffer.from(b); return [x, () => x.fill(0xee)]; }],
  ['pooled Buffer', (b) => { const x = Buffer.allocUnsafe(b.length); x.set(b); return [x, () => x.fill(0xee)]; }],
  ['Uint8Array', (b) => { const x = Uint8Array.from(b); return [x, () => x.fill(0xee)]; }],
  ['offset subarray', (b) => {
    const big = new Uint8Array(b.length + 13).fill(0xc1);
    big.set(b, 7);
    return [big.subarray(7, 7 + b.length), () => big.fill(0xee)];
  }],
  ['offset Buffer subarray', (b) => {
    const big = Buffer.alloc(b.length + 9, 0xc1);
    big.set(b, 5);
    return [big.subarray(5, 5 + b.length), () => big.fill(0xee)];
  }],
  ['DataView', (b) => {
    const ab = new ArrayBuffer(b.length + 4);
    new Uint8Array(ab, 2).set(b);
    return [new DataView(ab, 2, b.length), () => new Uint8Array(ab).fill(0xee)];
  }],
  ['ArrayBuffer', (b) => { const x = Uint8Array.from(b); return [x.buffer, () => x.fill(0xee)]; }],
];

describe('decode: bins own their bytes whatever the input', () => {
  for (const [name, make] of FORMS) {
    test(name, () => {
      MESSAGES.forEach((m, i) => {
        const [input, scribble] = make(Uint8Array.from(m));
        const v = decode(input);
        assertOwned(v, `${name}, message ${i}`);
        scribble();
        assert.deepEqual(snapshot(v), EXPECTED[i], `${name}, message ${i}: changed with the input`);
      });
    });
  }

  test("the issue's case: decode(Buffer.from([0xc4, 3, 1, 2, 3]))", () => {
    const input = Buffer.from([0xc4, 3, 1, 2, 3]);
    const v = decode(input);
    assert.equal(Object.getPrototypeOf(v), Uint8Array.prototype);
    input[2] = 99;
    assert.deepEqual(Array.from(v), [1, 2, 3]);
  });

  test("a user's ext decode gets data of its own", () => {
    class Point { constructor(d) { this.d = d; } }
    const extensions = [{ type: 5, class: Point, encode: (p) => p.d, decode: (d) => new Point(d) }];
    for (const [name, make] of FORMS) {
      const [input, scribble] = make(Uint8Array.from(ext8(5, [4, 5, 6])));
      const p = decode(input, { extensions });
      assert.equal(Object.getPrototypeOf(p.d), Uint8Array.prototype, name);
      scribble();
      assert.deepEqual(Array.from(p.d), [4, 5, 6], name);
    }
  });
});

describe('decodeMultiple: the same', () => {
  for (const [name, make] of FORMS) {
    test(name, () => {
      const [input, scribble] = make(BYTES);
      const values = [...decodeMultiple(input)];
      assertOwned(values, name);
      scribble();
      assert.deepEqual(values.map(snapshot), EXPECTED, name);
    });
  }
});

// ---- decodeStream over many chunkings ----------------------------------------

// Chunks of bytes cut at cuts, each in the given form; a chunk is scribbled
// over as soon as the next one is asked for (a source that reuses its
// buffer), and all of them once the stream ends.
function chunked(bytes, cuts, make) {
  const scribbles = [];
  async function* gen() {
    let at = 0;
    for (const c of [...cuts, bytes.length]) {
      const [chunk, scribble] = make(bytes.slice(at, c));
      at = c;
      scribbles.push(scribble);
      yield chunk;
      scribble();
    }
  }
  return [gen(), () => { for (const s of scribbles) s(); }];
}

function chunkings() {
  const out = [['one chunk', []], ['1-byte chunks', Array.from({ length: BYTES.length - 1 }, (_, i) => i + 1)]];
  for (const size of [2, 3, 5, 7, 16, 64, 300]) {
    const cuts = [];
    for (let c = size; c < BYTES.length; c += size) cuts.push(c);
    out.push([`${size}-byte chunks`, cuts]);
  }
  const next = rng(20);
  for (let r = 0; r < 40; r++) {
    const cuts = new Set();
    const k = 1 + Math.floor(next() * 12);
    for (let i = 0; i < k; i++) cuts.add(1 + Math.floor(next() * (BYTES.length - 1)));
    out.push([`random split ${r}`, [...cuts].sort((a, b) => a - b)]);
  }
  return out;
}

describe('decodeStream: bins own their bytes whatever the chunks', () => {
  for (const [name, make] of FORMS.filter(([n]) => n !== 'DataView')) {
    test(`${name} chunks`, async () => {
      for (const [cutName, cuts] of chunkings()) {
        const [source, scribbleAll] = chunked(BYTES, cuts, make);
        const values = [];
        for await (const v of decodeStream(source)) values.push(v);
        assertOwned(values, `${name}, ${cutName}`);
        scribbleAll();
        assert.deepEqual(values.map(snapshot), EXPECTED, `${name}, ${cutName}`);
      }
    });
  }
});

describe("an instance's decode, decodeMultiple and decodeStream: the same", async () => {
  const sp = await createScratchpack();
  after(() => sp.close());
  for (const [name, make] of FORMS.filter(([n]) => n !== 'DataView')) {
    test(name, async () => {
      const [input, scribble] = make(BYTES);
      const multi = [...sp.decodeMultiple(input)];
      const one = sp.decode(make(Uint8Array.from(MESSAGES[1]))[0]);
      const [source, scribbleAll] = chunked(BYTES, [1, 2, 3, 50, 51, 400], make);
      const streamed = [];
      for await (const v of sp.decodeStream(source)) streamed.push(v);
      for (const v of [multi, [one], streamed]) assertOwned(v, name);
      scribble();
      scribbleAll();
      assert.deepEqual(multi.map(snapshot), EXPECTED);
      assert.deepEqual(streamed.map(snapshot), EXPECTED);
      assert.deepEqual(snapshot(one), EXPECTED[1]);
    });
  }
});

// ---- binary: 'view' stays the zero-copy opt-in -----------------------------

describe("binary: 'view'", () => {
  test('bins view the input, as plain Uint8Arrays whatever its type', () => {
    for (const [name, make] of FORMS) {
      const [input, scribble] = make(Uint8Array.from(MESSAGES[1]));
      const v = decode(input, { binary: 'view' });
      assert.equal(Object.getPrototypeOf(v.a), Uint8Array.prototype, name);
      assert.equal(v.a.buffer, input instanceof ArrayBuffer ? input : input.buffer, `${name}: not a view`);
      scribble();
      assert.deepEqual(Array.from(v.a), new Array(20).fill(0xee), `${name}: not a view`);
    }
  });

  test('decodeStream: views, plain Uint8Arrays from Buffer chunks too', async () => {
    const input = Buffer.from(BYTES);
    const values = [];
    for await (const v of decodeStream([input], { binary: 'view' })) values.push(v);
    for (const b of binsOf(values)) assert.equal(Object.getPrototypeOf(b), Uint8Array.prototype);
    assert.deepEqual(values.map(snapshot), EXPECTED);
    assert.equal(values[0].buffer, input.buffer, 'not a view');
  });
});
