// Extension types: user classes written as ext values through their
// encode, read back through their decode, on every encode entry and decode
// path; the option's checks; what the user's failures become.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';

import { Ext, createScratchpack, decode, decodeMultiple, decodeStream } from '../../js/index.js';
import { hex } from './helpers.js';

class Point {
  constructor(x, y) { this.x = x; this.y = y; }
}
class Point3 extends Point {
  constructor(x, y, z) { super(x, y); this.z = z; }
}
class Tag {
  constructor(name) { this.name = name; }
}

const point = { type: 7, class: Point, encode: (p) => Uint8Array.of(p.x, p.y), decode: (d) => new Point(d[0], d[1]) };
const tag = {
  type: 0, class: Tag,
  encode: (t) => new TextEncoder().encode(t.name),
  decode: (d) => new Tag(new TextDecoder().decode(d)),
};
const extensions = [point, tag];

let sp;
before(async () => { sp = await createScratchpack({ extensions }); });
after(() => sp.close());

const codeOf = (fn) => { try { fn(); } catch (e) { return e; } assert.fail('did not throw'); };

describe('encoding a registered class', () => {
  test('a Point is fixext 2 of type 7', () => {
    assert.equal(hex(sp.encode(new Point(1, 2))), 'd50701 02'.replace(' ', ''));
  });

  test('ext forms follow the data length (fixext 1, ext 8)', () => {
    assert.equal(hex(sp.encode(new Tag('a'))), 'd40061');
    assert.equal(hex(sp.encode(new Tag('abc'))), 'c7030061626' + '3');
    assert.equal(hex(sp.encode(new Tag(''))), 'c70000');
  });

  test('nested in arrays, objects and Maps', () => {
    const v = [new Point(1, 2), { at: new Point(3, 4), tags: [new Tag('x')] }, new Map([[new Tag('k'), new Point(5, 6)]])];
    const bytes = sp.encode(v);
    assert.equal(hex(bytes),
      '93' + 'd5070102' + '82a2' + '6174' + 'd5070304' + 'a4' + '74616773' + '91d40078' +
      '81' + 'd4006b' + 'd5070506');
    assert.deepEqual(sp.decode(bytes), v);
    assert.ok(sp.decode(bytes)[1].at instanceof Point);
  });

  test('every entry writes the same bytes', async () => {
    const v = { p: new Point(9, 8), list: Array.from({ length: 200 }, (_, i) => new Point(i, 255 - i)) };
    const want = hex(sp.encode(v));
    const lease = sp.encodeView(v);
    assert.equal(hex(lease.bytes), want);
    lease.release();
    const target = new Uint8Array(2048);
    const n = sp.encodeInto(v, target, 3);
    assert.equal(hex(target.subarray(3, 3 + n)), want);
    const chunks = [];
    await sp.encodeToStream(v, new Writable({ write(c, _e, cb) { chunks.push(c); cb(); } }));
    assert.equal(Buffer.concat(chunks).toString('hex'), want);
    assert.equal(hex(await sp.encodeAsync(v)), want);
  });

  test('encodeToStream writes a big array of Points element by element', async () => {
    const v = Array.from({ length: 5000 }, (_, i) => new Point(i & 255, (i >> 8) & 255));
    const chunks = [];
    await sp.encodeToStream(v, new Writable({ highWaterMark: 1024, write(c, _e, cb) { chunks.push(c); cb(); } }));
    assert.equal(Buffer.concat(chunks).toString('hex'), hex(sp.encode(v)));
    assert.deepEqual(sp.decode(Buffer.concat(chunks)), v);
  });

  test('a subclass is written by its nearest registered ancestor; its own entry wins', async () => {
    assert.equal(hex(sp.encode(new Point3(1, 2, 3))), 'd5070102');
    const p3 = { type: 8, class: Point3, encode: (p) => Uint8Array.of(p.x, p.y, p.z), decode: (d) => new Point3(...d) };
    const both = await createScratchpack({ extensions: [point, p3] });
    try {
      assert.equal(hex(both.encode([new Point3(1, 2, 3), new Point(1, 2)])), '92c703080102 03'.replace(' ', '') + 'd5070102');
    } finally {
      both.close();
    }
  });

  test('an instance without extensions is still a map of its own properties', async () => {
    const plain = await createScratchpack();
    try {
      assert.deepEqual(plain.decode(plain.encode(new Point(1, 2))), { x: 1, y: 2 });
    } finally {
      plain.close();
    }
  });

  test('an extension may wrap a typed array subclass; encodeAsync then encodes it here', async () => {
    class Vec extends Float32Array {}
    const vec = { type: 9, class: Vec, encode: (v) => new Uint8Array(v.buffer.slice(0)), decode: (d) => new Vec(d.buffer) };
    const s = await createScratchpack({ extensions: [vec] });
    try {
      const v = Vec.of(1.5, 2.5);
      const bytes = await s.encodeAsync(v);
      assert.equal(hex(bytes.subarray(0, 2)), 'd709');
      const back = s.decode(bytes);
      assert.ok(back instanceof Vec);
      assert.deepEqual([...back], [1.5, 2.5]);
    } finally {
      s.close();
    }
  });

  test("an encode that calls encode itself (a Point's bytes made by scratchpack)", async () => {
    let inner;
    const nested = {
      type: 3, class: Point,
      encode: (p) => inner.encode([p.x, p.y, 'x'.repeat(300)]),
      decode: (d) => { const [x, y] = inner.decode(d); return new Point(x, y); },
    };
    inner = await createScratchpack({ extensions: [nested] });
    try {
      const v = [new Point(1, 2), 'after', new Point(3, 4)];
      assert.deepEqual(inner.decode(inner.encode(v)), v);
    } finally {
      inner.close();
    }
  });
});

describe('failures of the user encode', () => {
  test('a result that is not a Uint8Array is CALLBACK with the path', async () => {
    const s = await createScratchpack({ extensions: [{ ...point, encode: () => [1, 2] }] });
    try {
      const e = codeOf(() => s.encode({ shapes: [0, new Point(1, 2)] }));
      assert.equal(e.code, 'CALLBACK');
      assert.equal(e.path, '.shapes[1]');
      assert.match(e.message, /extension 7 \(Point\) encode returned an Array, not a Uint8Array at \.shapes\[1\]/);
      const root = codeOf(() => s.encode(new Point(1, 2)));
      assert.equal(root.code, 'CALLBACK');
      assert.equal(root.path, '');
    } finally {
      s.close();
    }
  });

  test('a throw is CALLBACK with the path and the error as cause, on every entry', async () => {
    const boom = new Error('no coordinates');
    const s = await createScratchpack({ extensions: [{ ...point, encode: () => { throw boom; } }] });
    try {
      const v = new Map([['p', new Point(1, 2)]]);
      for (const e of [codeOf(() => s.encode(v)), codeOf(() => s.encodeInto(v, new Uint8Array(64))),
        codeOf(() => s.encodeView(v)), await s.encodeAsync(v).then(() => null, (x) => x),
        await s.encodeToStream(v, new Writable({ write(_c, _e, cb) { cb(); } })).then(() => null, (x) => x)]) {
        assert.equal(e.code, 'CALLBACK');
        assert.equal(e.path, '.get("p")');
        assert.equal(e.cause, boom);
        assert.match(e.message, /no coordinates/);
      }
      assert.equal(hex(s.encode([1, 2])), '920102');      // the instance works on
    } finally {
      s.close();
    }
  });
});

describe('decoding registered types', () => {
  const bytes = Uint8Array.of(0x92, 0xd5, 7, 1, 2, 0xd4, 0, 0x61);
  const want = [new Point(1, 2), new Tag('a')];

  test('the standalone decode, decodeMultiple and the instance take the option', () => {
    assert.deepEqual(decode(bytes, { extensions }), want);
    assert.ok(decode(bytes, { extensions })[0] instanceof Point);
    assert.deepEqual([...decodeMultiple(Buffer.concat([bytes, bytes]), { extensions })], [want, want]);
    assert.deepEqual([...sp.decodeMultiple(Buffer.concat([bytes, bytes]))], [want, want]);
    assert.deepEqual(sp.decode(bytes), want);
  });

  test('decodeStream, with messages split anywhere', async () => {
    const all = Buffer.concat([bytes, bytes, bytes]);
    for (let cut = 1; cut < all.length; cut++) {
      const chunks = [all.subarray(0, cut), all.subarray(cut)];
      const got = [];
      for await (const v of decodeStream(chunks, { extensions })) got.push(v);
      assert.deepEqual(got, [want, want, want], `cut at ${cut}`);
      const viaSp = [];
      for await (const v of sp.decodeStream(chunks)) viaSp.push(v);
      assert.deepEqual(viaSp, [want, want, want]);
    }
  });

  test('without the option, or for other types, an Ext as before', () => {
    assert.deepEqual(decode(bytes), [new Ext(7, [1, 2]), new Ext(0, [0x61])]);
    assert.deepEqual(sp.decode(Uint8Array.of(0xd5, 8, 1, 2)), new Ext(8, [1, 2]));
    assert.deepEqual(sp.decode(Uint8Array.of(0xd5, 0xf9, 1, 2)), new Ext(-7, [1, 2]));
    assert.deepEqual(sp.decode(bytes, { extensions: [] }), [new Ext(7, [1, 2]), new Ext(0, [0x61])]);
  });

  test('a per-call option replaces the instance\'s extensions; other options keep them', () => {
    const other = { type: 7, class: Tag, encode: () => new Uint8Array(0), decode: () => 'seven' };
    assert.deepEqual(sp.decode(bytes, { extensions: [other] }), ['seven', new Ext(0, [0x61])]);
    assert.deepEqual(sp.decode(bytes, { maxDepth: 3 }), want);
  });

  test('the data is a copy, or a view of the input with binary: view', () => {
    let seen;
    const keep = [{ ...point, decode: (d) => { seen = d; return 0; } }];
    decode(bytes, { extensions: keep });
    assert.notEqual(seen.buffer, bytes.buffer);
    decode(bytes, { extensions: keep, binary: 'view' });
    assert.equal(seen.buffer, bytes.buffer);
    assert.equal(seen.byteOffset, 3);
  });

  test('a decode that decodes in turn leaves the outer decode where it was', () => {
    const inner = Uint8Array.of(0x93, 1, 2, 3);
    const nest = [{ ...point, decode: () => decode(inner) }];
    assert.deepEqual(decode(Uint8Array.of(0x93, 0xd5, 7, 0, 0, 0xd5, 7, 0, 0, 0xa1, 0x7a), { extensions: nest }),
      [[1, 2, 3], [1, 2, 3], 'z']);
  });

  test('a throw in decode is CALLBACK at the ext\'s offset with the error as cause', async () => {
    const boom = new RangeError('bad point');
    const ext = [{ ...point, decode: () => { throw boom; } }];
    const e = codeOf(() => decode(bytes, { extensions: ext }));
    assert.equal(e.code, 'CALLBACK');
    assert.equal(e.offset, 1);
    assert.equal(e.cause, boom);
    assert.match(e.message, /extension 7 \(Point\) decode threw: bad point \(at byte 1\)/);
    const s = await (async () => {
      try {
        for await (const v of decodeStream([bytes, bytes.subarray(0, 3), bytes.subarray(3)], { extensions: ext })) void v;
      } catch (x) { return x; }
      return null;
    })();
    assert.equal(s.code, 'CALLBACK');
    assert.equal(s.offset, 1);
  });
});

describe('the option is checked', () => {
  const check = (ext, pattern) => {
    const e = codeOf(() => decode(Uint8Array.of(0xc0), { extensions: ext }));
    assert.equal(e.code, 'INVALID_ARGUMENT');
    assert.match(e.message, pattern);
  };

  test('types: integers 0..127; -1 is the timestamp, other negatives are MessagePack\'s', () => {
    check([{ ...point, type: -1 }], /extensions\[0\]\.type -1 is the timestamp/);
    check([{ ...point, type: -2 }], /0\.\.127 \(-128\.\.-1 are reserved by MessagePack\), not -2/);
    check([{ ...point, type: 128 }], /not 128/);
    check([{ ...point, type: 1.5 }], /not 1.5/);
    check([{ ...point, type: '7' }], /not 7/);
  });

  test('class, encode and decode must be functions; Object is refused', () => {
    check([{ ...point, class: {} }], /extensions\[0\]\.class must be a class/);
    check([{ ...point, class: Object }], /cannot be Object/);
    check([tag, { ...point, encode: null }], /extensions\[1\]\.encode must be a function/);
    check([{ ...point, decode: 'x' }], /extensions\[0\]\.decode must be a function/);
    check([{ ...point, kind: 1 }], /unknown field 'kind'/);
    check([null], /extensions\[0\] must be an object/);
    check({ 7: point }, /extensions must be an array/);
  });

  test('duplicate types or classes name both entries', () => {
    check([point, tag, { ...tag, class: Point3, type: 7 }], /extensions\[2\] and extensions\[0\] both have type 7/);
    check([point, { ...point, type: 9 }], /extensions\[1\] and extensions\[0\] both have class Point/);
  });

  test('createScratchpack checks it before loading, per-call options too', async () => {
    await assert.rejects(createScratchpack({ extensions: [{ ...point, type: 200 }] }), { code: 'INVALID_ARGUMENT' });
    await assert.rejects(createScratchpack({ extension: [point] }), /did you mean extensions\?/);
    assert.throws(() => sp.decode(bytesOf(), { extensions: [{ ...point, class: 3 }] }), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => decodeStream([], { extensions: 'x' }), { code: 'INVALID_ARGUMENT' });
  });
});

const bytesOf = () => Uint8Array.of(0xc0);

describe('types 98 and 99 meet the LZ4 layouts', () => {
  class Blob99 { constructor(b) { this.b = b; } }
  const ext99 = { type: 99, class: Blob99, encode: (v) => Uint8Array.of(v.b), decode: (d) => new Blob99(d[0]) };

  test('at the top of a message an ext 99 is taken for Lz4Block unless decompress is false', () => {
    const bytes = Uint8Array.of(0xd4, 99, 5);                    // fixext 1, type 99: no d2 length
    assert.equal(codeOf(() => decode(bytes, { extensions: [ext99] })).code, 'MALFORMED');
    const v = decode(bytes, { extensions: [ext99], decompress: false });
    assert.ok(v instanceof Blob99 && v.b === 5);
  });

  test('inside a message an ext 99 is the extension\'s', () => {
    const v = decode(Uint8Array.of(0x92, 0x01, 0xd4, 99, 5), { extensions: [ext99] });
    assert.ok(v[1] instanceof Blob99 && v[1].b === 5);
  });
});

test('a timestamp outside what a Date holds decodes as Ext(-1) with its bytes, and encodes back to them', () => {
  // 96-bit bodies: nanoseconds 0, seconds 2^44 and -2^44 (a Date holds about ±2^38 s).
  for (const body of ['00000000' + '0000100000000000', '00000000' + 'fffff00000000000']) {
    const bytes = Uint8Array.from(Buffer.from(`c70cff${body}`, 'hex'));
    const v = decode(bytes);
    assert.ok(v instanceof Ext && v.type === -1, hex(bytes));
    assert.equal(hex(sp.encode(v)), hex(bytes));
  }
  assert.ok(decode(Uint8Array.from(Buffer.from('d6ff00000001', 'hex'))) instanceof Date);
});

test('new Ext(-1, data) takes only a valid timestamp body (what decode would read back)', () => {
  for (const bad of [[1, 2, 3], new Array(16).fill(0), [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0], [0x3b, 0x9a, 0xca, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]])
    assert.throws(() => new Ext(-1, bad), { code: 'INVALID_ARGUMENT' }, String(bad));
  assert.deepEqual(decode(sp.encode(new Ext(-1, [0, 0, 0, 1]))), new Date(1000));
});
