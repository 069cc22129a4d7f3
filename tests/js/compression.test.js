// Compression as MessagePack-CSharp's Lz4Block (ext 99) and Lz4BlockArray
// (an array led by ext 98): every encode entry writes the documented layout
// through C's hub, byte for byte as C's own compressor makes each block;
// every decode path (the standalone decode, sp.decode, decodeMultiple,
// decodeStream) detects both at the top and decompresses them with the JS
// LZ4 decompressor (js/lz4.js), which also reads blocks made by the lz4
// command (liblz4) and by a naive encoder written here; corrupt input gives
// ScratchpackErrors with C's codes, never another exception.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';

import { LZ4_BAD_OFFSET, LZ4_TOO_LONG, LZ4_TRUNCATED, lz4DecompressInto } from '../../js/lz4.js';
import { Ext, ScratchpackError, codes, createScratchpack, decode, decodeMultiple, decodeStream }
  from '../../js/index.js';
import { randomValue, rng } from './helpers.js';

let plainSp, blockSp, arraySp;
before(async () => {
  [plainSp, blockSp, arraySp] = await Promise.all([
    createScratchpack(), createScratchpack({ compression: 'lz4block' }),
    createScratchpack({ compression: 'lz4blockarray' })]);
});
after(() => { plainSp.close(); blockSp.close(); arraySp.close(); });

const hex = (u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('hex');
const bytesOf = (h) => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ''), 'hex'));
const concat = (parts) => Uint8Array.from(Buffer.concat(parts.map((p) => Buffer.from(p))));

// ---- C's LZ4 through the WASM gate ------------------------------------------------

// C's LZ4 block of plain (the compressor every entry uses), through sp's module.
function cBlock(sp, plain) {
  const m = sp._m, heap = sp._heap;
  const bound = m._sp_wasm_lz4_bound(plain.length) >>> 0;
  const p = heap.alloc(plain.length + bound + 1, 'test');
  heap.u8.set(plain, p);
  const n = m._sp_wasm_lz4_compress(p, plain.length, p + plain.length, bound) >>> 0;
  heap.check(p + plain.length + bound);
  const out = heap.u8.slice(p + plain.length, p + plain.length + n);
  heap.free(p, plain.length + bound + 1);
  assert.ok(n > 0, 'C compressed the block');
  return out;
}

// ---- the documented layout, written and read here (no code shared with js/) ----------

// The smallest int form of a non-negative length (MessagePack-CSharp's Write(int)).
function uintBytes(v) {
  if (v <= 0x7f) return [v];
  if (v <= 0xff) return [0xcc, v];
  if (v <= 0xffff) return [0xcd, v >> 8, v & 0xff];
  return [0xce, v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
}
const be32 = (v) => [v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];

// ext(type, n) in its smallest form.
function extHead(type, n) {
  const fixed = { 1: 0xd4, 2: 0xd5, 4: 0xd6, 8: 0xd7, 16: 0xd8 }[n];
  if (fixed) return [fixed, type];
  if (n <= 0xff) return [0xc7, n, type];
  if (n <= 0xffff) return [0xc8, n >> 8, n & 0xff, type];
  return [0xc9, ...be32(n), type];
}

function arrayHead(n) {
  if (n < 16) return [0x90 | n];
  if (n <= 0xffff) return [0xdc, n >> 8, n & 0xff];
  return [0xdd, ...be32(n)];
}

// Lz4Block: ext(99, 5 + L) d2 <plain length> <block>.
const lz4BlockLayout = (plainLen, block) =>
  concat([extHead(99, 5 + block.length), [0xd2, ...be32(plainLen)], block]);

// Lz4BlockArray: array(N + 1) ext(98, lengths) <lengths> (c6 <u32 L> <block>) x N.
function lz4BlockArrayLayout(plains, blocks) {
  const lengths = plains.flatMap(uintBytes);
  return concat([arrayHead(plains.length + 1), extHead(98, lengths.length), lengths,
    ...blocks.flatMap((b) => [[0xc6, ...be32(b.length)], b])]);
}

// Reads an Lz4BlockArray as the layout draws it: the plain lengths and the
// blocks (every one must be a bin32, as MessagePack-CSharp writes them).
function readBlockArray(b) {
  let p = 0, n;
  if ((b[0] & 0xf0) === 0x90) { n = b[0] & 15; p = 1; }
  else if (b[0] === 0xdc) { n = (b[1] << 8) | b[2]; p = 3; }
  else assert.fail(`not an array: ${b[0].toString(16)}`);
  let len;
  if (b[p] >= 0xd4 && b[p] <= 0xd8) { len = 1 << (b[p] - 0xd4); p += 1; }
  else if (b[p] === 0xc7) { len = b[p + 1]; p += 2; }
  else if (b[p] === 0xc8) { len = (b[p + 1] << 8) | b[p + 2]; p += 3; }
  else assert.fail(`not an ext: ${b[p].toString(16)}`);
  assert.equal(b[p++], 98);
  const end = p + len, plains = [];
  while (p < end) {
    const c = b[p];
    if (c <= 0x7f) { plains.push(c); p += 1; }
    else if (c === 0xcc) { plains.push(b[p + 1]); p += 2; }
    else if (c === 0xcd) { plains.push((b[p + 1] << 8) | b[p + 2]); p += 3; }
    else if (c === 0xce) { plains.push(Buffer.from(b).readUInt32BE(p + 1)); p += 5; }
    else assert.fail(`a length in a form MessagePack-CSharp does not write: ${c.toString(16)}`);
  }
  assert.equal(plains.length, n - 1, 'one length per block');
  const blocks = [];
  for (let i = 0; i < n - 1; i++) {
    assert.equal(b[p], 0xc6, 'every block is a bin32');
    const k = Buffer.from(b).readUInt32BE(p + 1);
    blocks.push(b.subarray(p + 5, p + 5 + k));
    p += 5 + k;
  }
  assert.equal(p, b.length, 'nothing after the last block');
  return { plains, blocks };
}

// ---- values ---------------------------------------------------------------------------

const records = (n) => Array.from({ length: n }, (_, i) =>
  ({ id: i, name: `name-${String(i).padStart(8, '0')}`, score: i / 7, tags: ['a', 'bb', 'ccc'] }));
const next = rng(14);
const values = [
  new Uint8Array(62),                                   // 64 bytes: the threshold
  { a: 'x'.repeat(100), n: [1, 2, 3] },
  'the quick brown fox jumps over the lazy dog '.repeat(40),
  records(50),
  records(3000),                                        // ~200 KB: several segments
  Array.from({ length: 5000 }, (_, i) => i * 7919 % 100003),
  new Uint8Array(300000).map((_, i) => (i * 2654435761) >>> 24),   // does not compress
  Array.from({ length: 20 }, () => randomValue(next, 0, { dates: true })),
];

// ---- tests ------------------------------------------------------------------------------

describe('the layouts, byte for byte', () => {
  test('a message under 64 bytes is written as it is, in both modes', () => {
    const v = new Uint8Array(61);                       // bin8 of 61: 63 bytes
    const plain = plainSp.encode(v);
    assert.equal(plain.length, 63);
    assert.deepEqual(blockSp.encode(v), plain);
    assert.deepEqual(arraySp.encode(v), plain);
  });

  test('docs/compression.md\'s 64-byte message: c7 12 63 d2 00 00 00 40 + block, 92 d4 62 40 c6 00 00 00 0d + block', () => {
    // The message is c4 3e and 62 zeros. Its LZ4 block, by hand: token 3f (3
    // literals; match 15 + 4 + more), the literals c4 3e 00, offset 01 00, match
    // length byte 25 (15 + 37 + 4 = 56 bytes: 3 + 56 = 59), then token 50: the
    // last 5 bytes as literals (the format ends on 5 literals).
    const block = '3f c4 3e 00 01 00 25 50 00 00 00 00 00';
    const v = new Uint8Array(62);
    assert.equal(hex(blockSp.encode(v)), hex(bytesOf(`c7 12 63 d2 00 00 00 40 ${block}`)));
    assert.equal(hex(arraySp.encode(v)), hex(bytesOf(`92 d4 62 40 c6 00 00 00 0d ${block}`)));
    assert.deepEqual(cBlock(plainSp, plainSp.encode(v)), bytesOf(block));
  });

  test('Lz4Block: the documented layout around C\'s block of the whole plain message', () => {
    for (const v of values) {
      const plain = plainSp.encode(v), got = blockSp.encode(v);
      assert.equal(hex(got), hex(lz4BlockLayout(plain.length, cBlock(plainSp, plain))));
    }
  });

  test('Lz4BlockArray: the documented layout, a block per plain segment, each C\'s block of its slice', () => {
    for (const v of values) {
      const plain = plainSp.encode(v), got = arraySp.encode(v);
      const { plains, blocks } = readBlockArray(got);
      assert.equal(plains.reduce((a, b) => a + b, 0), plain.length);
      if (plain.length > 40000) assert.ok(plains.length >= 2, 'a long message has several blocks');
      for (const n of plains) assert.ok(n > 0 && n <= 65536);
      let at = 0;
      const want = plains.map((n) => cBlock(plainSp, plain.subarray(at, at += n)));
      assert.equal(hex(got), hex(lz4BlockArrayLayout(plains, want)));
      assert.deepEqual(blocks.map(hex), want.map(hex));
    }
  });
});

// Every encode entry's bytes for value on sp.
async function everyEntry(sp, v) {
  const out = { encode: sp.encode(v) };
  const lease = sp.encodeView(v);
  out.view = lease.bytes.slice();
  lease.release();
  const target = new Uint8Array(out.encode.length + 7);
  const n = sp.encodeInto(v, target, 7);
  out.into = target.slice(7, 7 + n);
  const chunks = [];
  const w = new Writable({ highWaterMark: 1024, write(c, _e, done) { chunks.push(c); setImmediate(done); } });
  const sent = await sp.encodeToStream(v, w);
  await new Promise((resolve) => w.end(resolve));
  out.stream = concat(chunks);
  assert.equal(sent, out.stream.length);
  out.async = await sp.encodeAsync(v);
  return out;
}

describe('every entry writes the same compressed message', () => {
  for (const mode of ['lz4block', 'lz4blockarray']) {
    test(`${mode}: encode, encodeView, encodeInto, encodeToStream, encodeAsync`, async () => {
      const sp = mode === 'lz4block' ? blockSp : arraySp;
      for (const v of [...values, new Float64Array(20000).map((_, i) => i / 4), new Int32Array(100000).fill(3)]) {
        const got = await everyEntry(sp, v);
        for (const k of ['view', 'into', 'stream'])
          assert.equal(hex(got[k]), hex(got.encode), `${k} writes what encode writes`);
        // encodeAsync writes a typed array with C's writer alone (a task), whose
        // plain segments, and so Lz4BlockArray's block boundaries, may differ
        // from the JS writer's; the plain message is the same.
        if (mode === 'lz4block' || !ArrayBuffer.isView(v) || v instanceof Uint8Array)
          assert.equal(hex(got.async), hex(got.encode), 'async writes what encode writes');
        else
          assert.deepEqual(readBlockArray(got.async).plains.reduce((a, b) => a + b, 0), plainSp.encode(v).length);
        assert.deepEqual(decode(got.async), decode(got.encode));
        assert.deepEqual(decode(got.encode), decode(plainSp.encode(v)));
      }
    });
  }

  test('encodeAsync of a typed array runs on a worker and compresses there', async () => {
    const sp = await createScratchpack({ compression: 'lz4blockarray', threads: 1 });
    try {
      const v = new Float64Array(50000).map((_, i) => Math.floor(i / 10));
      const bytes = await sp.encodeAsync(v);
      assert.equal(bytes[0] & 0xf0, 0x90);
      assert.deepEqual(decode(bytes), decode(plainSp.encode(v)));
      assert.ok(bytes.length < plainSp.encode(v).length / 4);
    } finally {
      sp.close();
    }
  });

  test('encodeInto: BUFFER_TOO_SMALL when the compressed message does not fit; the exact size fits', () => {
    const v = records(100), want = blockSp.encode(v);
    const t = new Uint8Array(want.length - 1);
    assert.throws(() => blockSp.encodeInto(v, t), { code: codes.BUFFER_TOO_SMALL });
    assert.equal(blockSp.encodeInto(v, new Uint8Array(want.length)), want.length);
  });

  test('a nested encode (from a getter) compresses its own message', () => {
    const inner = records(20);
    const outer = { get x() { return blockSp.encode(inner); }, pad: 'p'.repeat(200) };
    const bytes = blockSp.encode(outer);
    const back = decode(bytes);
    assert.deepEqual(decode(back.x), decode(plainSp.encode(inner)));
  });

  test('warm encodes keep C\'s memory flat', () => {
    const v = records(2000);
    for (let i = 0; i < 5; i++) { arraySp.encode(v); blockSp.encode(v); }
    const a = arraySp.stats().liveBytes, b = blockSp.stats().liveBytes;
    for (let i = 0; i < 20; i++) { arraySp.encode(v); blockSp.encode(v); }
    assert.equal(arraySp.stats().liveBytes, a);
    assert.equal(blockSp.stats().liveBytes, b);
  });

  test('options: an unknown compression is INVALID_ARGUMENT; none is the default', async () => {
    await assert.rejects(createScratchpack({ compression: 'lz4' }), { code: codes.INVALID_ARGUMENT, message: /lz4blockarray/ });
    await assert.rejects(createScratchpack({ compression: 2 }), { code: codes.INVALID_ARGUMENT });
    assert.equal(plainSp.compression, 'none');
    assert.equal(arraySp.compression, 'lz4blockarray');
  });
});

async function collect(it) {
  const out = [];
  for await (const v of it) out.push(v);
  return out;
}
async function* bytewise(bytes) {
  for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
}

describe('every decode path detects both layouts', () => {
  let msgs, want;
  before(() => {
    const vs = values.slice(0, 6);
    msgs = vs.flatMap((v) => [blockSp.encode(v), arraySp.encode(v), plainSp.encode(v)]);
    want = vs.flatMap((v) => { const d = decode(plainSp.encode(v)); return [d, d, d]; });
  });

  test('decode, sp.decode (C-made messages)', () => {
    msgs.forEach((m, i) => {
      assert.deepEqual(decode(m), want[i]);
      assert.deepEqual(plainSp.decode(m), want[i]);
    });
  });

  test('decodeMultiple and decodeStream: each message at the top of the stream', async () => {
    const all = concat(msgs);
    assert.deepEqual([...decodeMultiple(all)], want);
    assert.deepEqual([...plainSp.decodeMultiple(all)], want);
    assert.deepEqual(await collect(decodeStream([all])), want);
    assert.deepEqual(await collect(plainSp.decodeStream([all.subarray(0, 1000), all.subarray(1000)])), want);
  });

  test('decodeStream in 1-byte chunks', async () => {
    const small = concat(msgs.slice(0, 12));
    assert.deepEqual(await collect(decodeStream(bytewise(small))), want.slice(0, 12));
  });

  test('only the top: an ext 99 or ext-98-led array inside a message is a value', () => {
    const m = blockSp.encode(records(5));
    const nested = plainSp.encode([1, new Ext(99, m.subarray(3)), [new Ext(98, [0x40]), new Uint8Array(13)]]);
    const d = decode(nested);
    assert.equal(d[1].type, 99);
    assert.equal(d[2][0].type, 98);
    // A compressed message whose plain message is itself compressed: decompressed once.
    const twice = blockSp.encode(new Ext(99, m.subarray(3)));   // the ext's bytes, compressed again
    assert.ok(decode(twice) instanceof Ext);
  });

  test('an empty array led by nothing is not compressed, even when an ext 98 follows it', () => {
    const got = [...decodeMultiple(bytesOf('dc 00 00 d4 62 40'))];
    assert.deepEqual(got[0], []);
    assert.ok(got[1] instanceof Ext && got[1].type === 98);
  });

  test('value limits apply to the plain message, not to the blocks, in one chunk or many', async () => {
    const v = records(800), m = arraySp.encode(v);
    const opt = { maxBinLength: 100, maxExtLength: 10, maxArrayLength: 1000 };
    assert.ok(readBlockArray(m).blocks[0].length > 100);
    assert.deepEqual(decode(m, opt), decode(plainSp.encode(v)));
    assert.deepEqual(await collect(decodeStream(bytewise(m), opt)), [decode(m)]);
    const withBin = concat([plainSp.encode(1), blockSp.encode({ b: new Uint8Array(500) })]);
    assert.throws(() => [...decodeMultiple(withBin, opt)], { code: codes.LENGTH_LIMIT, offset: 1 });
    await assert.rejects(collect(decodeStream(bytewise(withBin), opt)), { code: codes.LENGTH_LIMIT, offset: 1 });
  });

  test('decompress: false gives ext 98/99 back as Ext values', async () => {
    const b = blockSp.encode(values[3]), a = arraySp.encode(values[3]);
    const e = decode(b, { decompress: false });
    assert.ok(e instanceof Ext && e.type === 99);
    assert.equal(e.data[0], 0xd2);
    const arr = plainSp.decode(a, { decompress: false });
    assert.ok(Array.isArray(arr) && arr[0] instanceof Ext && arr[0].type === 98 && arr[1] instanceof Uint8Array);
    assert.ok([...decodeMultiple(concat([b, a]), { decompress: false })][0] instanceof Ext);
    assert.ok((await collect(decodeStream([b], { decompress: false })))[0] instanceof Ext);
    assert.throws(() => decode(b, { decompress: 'no' }), { code: codes.INVALID_ARGUMENT });
  });

  test('binary: view gives views of the plain bytes, valid after the decode', () => {
    const v = { bin: new Uint8Array(500).fill(9), s: 'y'.repeat(100) };
    const d = decode(arraySp.encode(v), { binary: 'view' });
    assert.deepEqual(d.bin, v.bin);
  });
});

describe('blocks made by other compressors', () => {
  // A naive LZ4 encoder written here from the format (no end rules, any
  // offset, overlapping matches): structures C's compressor never makes.
  function naiveLz4(plain, r) {
    const out = [];
    let lit = 0, i = 0;
    const len = (n) => { while (n >= 255) { out.push(255); n -= 255; } out.push(n); };
    const emit = (from, to, off, m) => {
      const nl = to - from;
      out.push((Math.min(nl, 15) << 4) | (m === 0 ? 0 : Math.min(m - 4, 15)));
      if (nl >= 15) len(nl - 15);
      for (let k = from; k < to; k++) out.push(plain[k]);
      if (m === 0) return;
      out.push(off & 0xff, off >> 8);
      if (m - 4 >= 15) len(m - 4 - 15);
    };
    while (i < plain.length) {
      let best = 0, bestOff = 0;
      const window = Math.min(i, r() < 0.5 ? 40 : 2000);
      for (let off = 1; off <= window; off++) {
        let m = 0;
        while (i + m < plain.length && plain[i + m] === plain[i + m - off]) m++;
        if (m > best) { best = m; bestOff = off; }
      }
      if (best >= 4 && r() < 0.9) {
        const m = r() < 0.3 ? 4 + Math.floor(r() * (best - 3)) : best;   // sometimes shorter than it could be
        emit(lit, i, bestOff, m);
        i += m;
        lit = i;
      } else {
        i++;
      }
    }
    emit(lit, plain.length, 0, 0);
    return Uint8Array.from(out);
  }

  test('the naive encoder\'s blocks decode to their plain bytes, in both layouts', () => {
    const r = rng(7);
    for (const v of values.slice(0, 6)) {
      const plain = plainSp.encode(v);
      const block = naiveLz4(plain, r);
      assert.deepEqual(decode(lz4BlockLayout(plain.length, block)), decode(plain));
      const cut = Math.floor(plain.length / 3);
      const parts = [plain.subarray(0, cut), plain.subarray(cut)];
      assert.deepEqual(decode(lz4BlockArrayLayout(parts.map((p) => p.length), parts.map((p) => naiveLz4(p, r)))),
        decode(plain));
    }
    const runs = new Uint8Array(5000).map((_, i) => (i % 700 < 300 ? 7 : i % 5));
    const out = new Uint8Array(5000);
    const b = naiveLz4(runs, r);
    assert.equal(lz4DecompressInto(b, 0, b.length, out, 0, out.length), runs.length);
    assert.deepEqual(out, runs);
  });

  // Blocks from the lz4 command (liblz4), its default and high-compression
  // modes: the frame's one compressed block, taken out of the frame.
  function lz4Command(plain, level) {
    const frame = execFileSync('lz4', [level, '-B4', '-BI', '--no-frame-crc', '-c'], { input: plain, stdio: ['pipe', 'pipe', 'ignore'] });
    const flg = frame[4];
    let p = 4 + 2 + ((flg & 0x08) ? 8 : 0) + ((flg & 0x01) ? 4 : 0) + 1;
    const size = frame.readUInt32LE(p);
    assert.equal(size & 0x80000000, 0, 'a compressed block');
    return Uint8Array.from(frame.subarray(p + 4, p + 4 + size));
  }
  const hasLz4 = (() => { try { execFileSync('lz4', ['-V'], { stdio: 'ignore' }); return true; } catch { return false; } })();

  test('liblz4\'s blocks (the lz4 command, levels 1 and 12) decode to their plain bytes', { skip: !hasLz4 && 'no lz4 command' }, () => {
    for (const v of values.slice(1, 5)) {
      const plain = plainSp.encode(v);
      if (plain.length > 65536) continue;              // one frame block
      for (const level of ['-1', '-12']) {
        const block = lz4Command(plain, level);
        assert.deepEqual(decode(lz4BlockLayout(plain.length, block)), decode(plain));
        assert.deepEqual(decode(lz4BlockArrayLayout([plain.length], [block])), decode(plain));
        const out = new Uint8Array(plain.length);
        assert.equal(lz4DecompressInto(block, 0, block.length, out, 0, out.length), plain.length);
        assert.deepEqual(out, plain);
      }
    }
  });

  test('C\'s blocks of random, repetitive and text data, every length 0..300 and some long ones', () => {
    const r = rng(3);
    const kinds = [(n) => new Uint8Array(n).map(() => r() * 256), (n) => new Uint8Array(n).map((_, i) => i % 3),
      (n) => new Uint8Array(n).map(() => (r() < 0.9 ? 97 : 98 + Math.floor(r() * 4)))];
    const lengths = [...Array.from({ length: 301 }, (_, i) => i), 4096, 65536, 200000];
    for (const n of lengths) for (const make of kinds) {
      const plain = make(n), block = cBlock(plainSp, plain);
      const out = new Uint8Array(n);
      assert.equal(lz4DecompressInto(block, 0, block.length, out, 0, n), n);
      assert.deepEqual(out, plain);
    }
  });
});

describe('corrupt input: C\'s codes, offsets into the compressed input', () => {
  const block64 = '3f c4 3e 00 01 00 25 50 00 00 00 00 00';
  const msg = (head, block = block64) => bytesOf(`${head} ${block}`);
  const code = (b, opt) => {
    try { decode(b, opt); return 'OK'; } catch (e) { assert.ok(e instanceof ScratchpackError, String(e)); return e.code; }
  };

  test('Lz4Block cases, as C\'s test_compression.c', () => {
    assert.equal(code(msg('c7 12 63 d2 00 00 00 40')), 'OK');
    assert.equal(code(msg('c7 12 63 d2 ff 00 00 40')), codes.MALFORMED);        // negative length
    assert.equal(code(msg('c7 12 63 a4 00 00 00 40')), codes.MALFORMED);        // a str as the length
    assert.equal(code(msg('c7 12 63 d2 00 00 00 41')), codes.TRUNCATED);        // one byte more than the block holds
    assert.equal(code(msg('c7 12 63 d2 00 00 00 3f')), codes.MALFORMED);        // one byte less
    assert.equal(code(msg('c7 12 63 d2 7f 00 00 3f')), codes.LENGTH_LIMIT);     // 2 GiB
    assert.equal(code(msg('c7 12 63 d2 00 00 00 40'), { maxDecompressedLength: 63 }), codes.LENGTH_LIMIT);
    assert.equal(code(msg('c7 12 63 d2 00 00 00 40'), { maxDecompressedLength: 64 }), 'OK');
    assert.equal(code(msg('c7 12 63 d2 00 00 0d 40')), codes.MALFORMED);        // 3,392 from 13 bytes
    assert.equal(code(msg('c7 12 63 d2 00 00 00 40', '3f c4 3e 00 05 00 25 50 00 00 00 00 00')), codes.MALFORMED);
    assert.equal(code(bytesOf('c7 05 63 d2 00 00 00 40')), codes.MALFORMED);     // only the length
  });

  test('Lz4BlockArray cases, as C\'s test_compression.c', () => {
    assert.equal(code(msg('92 d4 62 40 c6 00 00 00 0d')), 'OK');
    assert.equal(code(msg('92 d5 62 40 00 c6 00 00 00 0d')), codes.MALFORMED);  // a length too few
    assert.equal(code(msg('93 d4 62 40 c6 00 00 00 0d')), codes.MALFORMED);     // two blocks, one length
    assert.equal(code(msg('92 d4 62 a0 c6 00 00 00 0d')), codes.MALFORMED);     // a str as a length
    assert.equal(code(msg('92 d4 62 40 db 00 00 00 0d')), codes.MALFORMED);     // a str as a block
    assert.equal(code(msg('92 c7 05 62 ce 7f ff ff ff c6 00 00 00 0d')), codes.LENGTH_LIMIT);
    assert.equal(code(msg('92 c7 03 62 cd 10 00 c6 00 00 00 0d')), codes.MALFORMED);   // 4,096 from 13
    assert.equal(code(msg('92 d4 62 41 c6 00 00 00 0d')), codes.TRUNCATED);     // one byte more
    assert.equal(code(msg('93 d5 62 40 40 c6 00 00 00 0d')), codes.TRUNCATED);  // the second block missing
    assert.equal(code(msg('92 d4 62 40 c4 0d')), 'OK');                         // bin8 is a bin too
    assert.equal(code(bytesOf('91 c7 00 62')), codes.TRUNCATED);                // no blocks: no value
  });

  test('maxDecompressedLength is an instance limit too', async () => {
    const sp = await createScratchpack({ limits: { maxDecompressedLength: 100 } });
    try {
      const m = blockSp.encode(records(10));
      assert.throws(() => sp.decode(m), { code: codes.LENGTH_LIMIT, offset: 0 });
      assert.deepEqual(sp.decode(m, { maxDecompressedLength: 1 << 20 }), decode(m));
      assert.throws(() => decode(m, { maxDecompressedLength: -1 }), { code: codes.INVALID_ARGUMENT });
    } finally {
      sp.close();
    }
  });

  test('every truncation is TRUNCATED; trailing bytes are TRAILING_BYTES at their offset', () => {
    for (const sp of [blockSp, arraySp]) {
      const m = sp.encode(records(30));
      for (let n = 1; n < m.length; n++) assert.equal(code(m.subarray(0, n)), codes.TRUNCATED, `cut at ${n}`);
      assert.throws(() => decode(concat([m, [1]])), { code: codes.TRAILING_BYTES, offset: m.length });
    }
  });

  test('an error inside the plain message names the compressed message\'s offset', () => {
    const plain = concat([plainSp.encode({ s: 'z'.repeat(80) }), [0xc1]]);   // 0xc1: never used
    const block = cBlock(plainSp, plain);
    const m = lz4BlockLayout(plain.length, block);
    assert.throws(() => decode(m), { code: codes.TRAILING_BYTES, offset: 0 });
    const bad = concat([[0x92, 0x01, 0xc1], new Uint8Array(80)]);
    const m2 = lz4BlockArrayLayout([bad.length], [cBlock(plainSp, bad)]);
    const two = concat([plainSp.encode(5), m2]);
    assert.throws(() => [...decodeMultiple(two)], (e) => e.code === codes.MALFORMED && e.offset === 1 &&
      /at byte 2 of the decompressed message \(at byte 1\)$/.test(e.message));
  });

  test('decodeStream: errors at absolute offsets, TRUNCATED at the end of the input', async () => {
    const good = blockSp.encode(records(20));
    const cutOff = good.subarray(0, good.length - 4);
    await assert.rejects(collect(decodeStream(bytewise(concat([good, cutOff])))),
      { code: codes.TRUNCATED });
    const limited = collect(decodeStream([concat([good, good])], { maxDecompressedLength: 10 }));
    await assert.rejects(limited, { code: codes.LENGTH_LIMIT, offset: 0 });
    const m = msg('92 c7 03 62 cd 10 00 c6 00 00 00 0d');
    await assert.rejects(collect(decodeStream(bytewise(concat([good, m])))),
      { code: codes.MALFORMED, offset: good.length + 7 });       // the block that cannot hold 4,096 bytes
  });

  test('random corruption: a ScratchpackError or a value, never another exception', async () => {
    const r = rng(1414);
    const seeds = [blockSp.encode(values[1]), arraySp.encode(values[1]), blockSp.encode(records(200)),
      arraySp.encode(records(800)), msg('92 d4 62 40 c6 00 00 00 0d'), msg('c7 12 63 d2 00 00 00 40')];
    let errors = 0, ok = 0, viaC = 0;
    const inflate = plainSp._inflate;                // count the blocks C decompressed
    plainSp._inflate = function (...args) {
      const r = inflate.apply(this, args);
      if (r !== null) viaC++;
      return r;
    };
    for (let i = 0; i < 4000; i++) {
      const b = Uint8Array.from(seeds[i % seeds.length]);
      const edits = 1 + Math.floor(r() * 4);
      let m = b;
      for (let k = 0; k < edits; k++) {
        const at = Math.floor(r() * m.length), what = r();
        if (what < 0.5) m[at] = Math.floor(r() * 256);
        else if (what < 0.7) m[at] ^= 1 << Math.floor(r() * 8);
        else if (what < 0.85) m = m.subarray(0, at);
        else m[at] = [0x00, 0xff, 0x7f, 0x80, 0xc6, 0xd2][Math.floor(r() * 6)];
      }
      const outcomes = [];
      for (const run of [() => decode(m), () => plainSp.decode(m), () => [...decodeMultiple(m)]]) {
        try { run(); ok++; outcomes.push('OK'); } catch (e) {
          if (!(e instanceof ScratchpackError)) throw new Error(`case ${i}: ${e}`, { cause: e });
          assert.ok(e.offset >= 0 && e.offset <= m.length, `case ${i}: offset ${e.offset} in ${m.length} bytes`);
          outcomes.push(`${e.code}@${e.offset}`);
          errors++;
        }
      }
      // sp.decode decompresses blocks of 4 KiB and more with C's decompressor,
      // decode with lz4.js: the same outcome, code and offset.
      assert.equal(outcomes[1], outcomes[0], `case ${i}: sp.decode and decode agree`);
      if (i % 40 === 0) {
        try { await collect(decodeStream(bytewise(m))); } catch (e) {
          if (!(e instanceof ScratchpackError)) throw new Error(`stream case ${i}: ${e}`, { cause: e });
        }
      }
    }
    assert.ok(errors > 1000 && ok > 10, `${errors} errors, ${ok} decoded`);
    delete plainSp._inflate;                          // (the wrapper changes nothing it decodes)
    assert.ok(viaC > 100, `${viaC} blocks went through C's decompressor`);
  });

  test('the LZ4 decompressor on random bytes: an index in range or a refusal, no exception', () => {
    const r = rng(5);
    const out = new Uint8Array(4096);
    const seen = new Set();
    for (let i = 0; i < 20000; i++) {
      const src = new Uint8Array(1 + Math.floor(r() * 64)).map(() => (r() < 0.3 ? 0xff : r() * 256));
      const cap = Math.floor(r() * out.length);
      const got = lz4DecompressInto(src, 0, src.length, out, 0, cap);
      assert.ok((got >= 0 && got <= cap) || [LZ4_TRUNCATED, LZ4_TOO_LONG, LZ4_BAD_OFFSET].includes(got));
      seen.add(got < 0 ? got : 'ok');
    }
    assert.equal(seen.size, 4, 'every outcome happened');
  });
});
