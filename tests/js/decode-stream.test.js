// Streaming decode: decodeStream yields the values of concatenated messages
// from a Node Readable, a WHATWG ReadableStream or an async iterable, each
// as soon as it is complete, with chunk boundaries anywhere, limits per
// message and errors at absolute offsets; decodeMultiple does the same over
// one buffer.
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { after, describe, test } from 'node:test';

import { decodeEnd } from '../../js/decoder.js';
import { createScratchpack, decode, decodeMultiple, decodeStream } from '../../js/index.js';
import { normalize, randomValue, rng } from './helpers.js';

const sp = await createScratchpack();
after(() => sp.close());

const concat = (parts) => Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));

async function collect(iterable) {
  const out = [];
  for await (const v of iterable) out.push(v);
  return out;
}

async function* pieces(bytes, cuts) {
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    yield bytes.subarray(at, c);
    at = c;
  }
}

async function* bytewise(bytes) {
  for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
}

// Messages with every kind of token, length field and body the framer steps over.
const next = rng(99);
const values = [
  0, -1, 127, -33, 255, 65535, 2 ** 32, -(2 ** 40), 1.5, Math.PI, null, true, false,
  '', 'a', 'é'.repeat(40), 'x'.repeat(300), 'y'.repeat(70000), new Uint8Array(0), new Uint8Array(300).fill(7),
  new Uint8Array(70000).fill(8), new Date(1700000000000), new Date(-5e12), new Date(1700000000123),
  [], {}, [[[[]]]], { a: { b: { c: [1, 2, { d: 'e' }] } } }, Array.from({ length: 20 }, (_, i) => i * 1000),
  Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])), new Map([[1, 'one'], [[2], 'two']]),
  2n ** 63n - 1n, -(2n ** 63n),
  ...Array.from({ length: 30 }, () => randomValue(next, 0, { bigint: true, maps: true, dates: true })),
];
const messages = values.map((v) => sp.encode(v));
const stream = concat(messages);
const starts = messages.reduce((a, m) => [...a, a.at(-1) + m.length], [0]).slice(0, -1);
const want = values.map((v) => normalize(decode(sp.encode(v))));

describe('decodeStream yields every value, chunk boundaries anywhere', () => {
  test('1,000 messages in 1-byte chunks', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => (i % 3 ? { i, s: 'x'.repeat(i % 70), a: [i, -i, i / 3] } : i));
    const bytes = concat(many.map((v) => sp.encode(v)));
    assert.deepEqual(await collect(decodeStream(bytewise(bytes))), many);
  });

  test('every message kind, cut at every offset into two chunks', async () => {
    const kept = messages.map((m, i) => i).filter((i) => messages[i].length < 400);   // the 70 KB ones: below
    const small = concat(kept.map((i) => messages[i]));
    const expected = kept.map((i) => want[i]);
    assert.ok(kept.length > 50);
    for (let cut = 0; cut <= small.length; cut++)
      assert.deepEqual((await collect(decodeStream(pieces(small, [cut])))).map(normalize), expected, `cut at ${cut}`);
  });

  test('the long str, bin and array messages, cut inside their headers and at their ends', async () => {
    for (let i = 0; i < messages.length; i++) {
      if (messages[i].length < 400) continue;
      const bytes = concat([messages[0], messages[i], messages[1]]);
      const from = messages[0].length, to = from + messages[i].length;
      for (const cut of [...Array.from({ length: 8 }, (_, k) => from + k), ...Array.from({ length: 8 }, (_, k) => to - k)])
        assert.deepEqual((await collect(decodeStream(pieces(bytes, [cut])))).map(normalize), [want[0], want[i], want[1]]);
    }
  });

  test('random cuts, three sources: async iterable, Node Readable, WHATWG ReadableStream', async () => {
    const r = rng(7);
    for (let round = 0; round < 20; round++) {
      const cuts = Array.from({ length: 1 + Math.floor(r() * 40) }, () => Math.floor(r() * stream.length)).sort((a, b) => a - b);
      const chunks = [];
      for await (const c of pieces(stream, cuts)) chunks.push(c);
      const readable = Readable.from(chunks.map((c) => Buffer.from(c)));
      const whatwg = new ReadableStream({ start(ctl) { for (const c of chunks) ctl.enqueue(c); ctl.close(); } });
      for (const source of [pieces(stream, cuts), readable, whatwg])
        assert.deepEqual((await collect(decodeStream(source))).map(normalize), want);
    }
  });

  test('chunks may be ArrayBuffers and other views, or a plain iterable', async () => {
    const a = stream.subarray(0, 1000), b = stream.subarray(1000);
    const chunks = [new DataView(a.buffer.slice(a.byteOffset, a.byteOffset + a.length)), new Uint8Array(b).buffer];
    assert.deepEqual((await collect(decodeStream(chunks))).map(normalize), want);
  });

  // A decoder that waited for more input would hang here: the timeout fails it.
  test('a value is yielded as soon as its message is complete', { timeout: 10000 }, async () => {
    const src = new PassThrough();
    const it = decodeStream(src)[Symbol.asyncIterator]();
    const [m1, m2] = [sp.encode({ first: 1 }), sp.encode(['second', 'x'.repeat(100)])];
    src.write(Buffer.concat([m1, m2.subarray(0, 10)]));        // the second one is not complete
    assert.deepEqual((await it.next()).value, { first: 1 });  // would hang if it waited for more
    src.end(m2.subarray(10));
    assert.deepEqual((await it.next()).value, ['second', 'x'.repeat(100)]);
    assert.equal((await it.next()).done, true);
  });

  // Decoding again from the message's start at every chunk would take hours here.
  test('a 256 KiB message in 1-byte chunks: no byte is scanned again for every chunk', { timeout: 60000 }, async () => {
    const big = { list: Array.from({ length: 20000 }, (_, i) => [i, `v${i}`]) };
    const bytes = sp.encode(big);
    assert.ok(bytes.length > 200000);
    assert.deepEqual(await collect(decodeStream(bytewise(bytes))), [big]);
  });

  test("binary: 'view' values of earlier messages stay intact while later ones arrive", async () => {
    const msgs = Array.from({ length: 50 }, (_, i) => ({ i, b: new Uint8Array(5000).fill(i) }));
    const bytes = concat(msgs.map((v) => sp.encode(v)));
    const got = await collect(decodeStream(pieces(bytes, [777, 4000, 9999, 100000, 200000]), { binary: 'view' }));
    got.forEach((v, i) => assert.ok(v.b.every((x) => x === i), `message ${i}`));
  });
});

describe('errors at absolute offsets', () => {
  test('a truncated last message throws TRUNCATED where decode() says, plus the message\'s start', async () => {
    const last = messages.length - 1;
    for (const k of [1, 2, 3, 7, 40]) {
      for (const at of [last - 1, last - 3, 17]) {
        const cut = starts[at] + Math.min(k, messages[at].length - 1);
        let relative;
        try { decode(stream.subarray(starts[at], cut)); } catch (e) { relative = e.offset; }
        const all = stream.subarray(0, cut);
        await assert.rejects(collect(decodeStream(pieces(all, [5, 300, cut - 1]))),
          { code: 'TRUNCATED', offset: starts[at] + relative });
        if (k === 3) await assert.rejects(collect(decodeStream(bytewise(all))), { code: 'TRUNCATED', offset: starts[at] + relative });
      }
    }
  });

  test('the values before a bad message come out first', async () => {
    const bad = Buffer.concat([stream.subarray(0, starts[5]), Buffer.from([0x92, 0x01, 0xc1])]);
    const got = [];
    await assert.rejects(async () => { for await (const v of decodeStream(pieces(bad, [3]))) got.push(v); },
      { code: 'MALFORMED', offset: starts[5] + 2 });
    assert.equal(got.length, 5);
  });

  test('limits apply to each message, checked before the message has all arrived', { timeout: 10000 }, async () => {
    const m = concat([sp.encode([1, 2]), sp.encode({ s: 'z'.repeat(100) })]);
    const strAt = 3 + 1 + 2;                                  // [1,2] (3 bytes), fixmap, "s", then the str 8
    const hang = async function* () { yield m.subarray(0, strAt + 5); await new Promise(() => {}); };
    await assert.rejects(collect(decodeStream(hang(), { maxStrLength: 50 })), { code: 'LENGTH_LIMIT', offset: strAt });
    const deep = concat([sp.encode(1), sp.encode([[[[1]]]])]);
    await assert.rejects(collect(decodeStream(bytewise(deep), { maxDepth: 3 })), { code: 'DEPTH_LIMIT', offset: 4 });
    assert.throws(() => decode(sp.encode([[[[1]]]]), { maxDepth: 3 }), { code: 'DEPTH_LIMIT', offset: 3 });
    const arr = concat([sp.encode('a'), sp.encode([1, 2, 3])]);
    await assert.rejects(collect(decodeStream(bytewise(arr), { maxArrayLength: 2 })), { code: 'LENGTH_LIMIT', offset: 2 });
  });

  test('maxMessageLength stops a message that grows past it without waiting for its end', { timeout: 10000 }, async () => {
    const big = sp.encode(Array.from({ length: 1000 }, (_, i) => i));
    const hang = async function* () { yield sp.encode('ok'); yield big.subarray(0, 600); await new Promise(() => {}); };
    const got = [];
    await assert.rejects(async () => { for await (const v of decodeStream(hang(), { maxMessageLength: 500 })) got.push(v); },
      { code: 'LENGTH_LIMIT', offset: 3 });
    assert.deepEqual(got, ['ok']);
    await assert.rejects(collect(decodeStream([concat([sp.encode('ok'), big])], { maxMessageLength: 500 })),
      { code: 'LENGTH_LIMIT', offset: 3 });
    assert.deepEqual(await collect(decodeStream([big], { maxMessageLength: big.length })), [decode(big)]);
  });

  test('what is not a byte source or a chunk of bytes is INVALID_ARGUMENT', async () => {
    assert.throws(() => decodeStream(new Uint8Array(3)), { code: 'INVALID_ARGUMENT', message: /decodeMultiple/ });
    assert.throws(() => decodeStream(42), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => decodeStream([], { maxMessageLength: 0 }), { code: 'INVALID_ARGUMENT' });
    assert.throws(() => decodeStream([], { int64: 'big' }), { code: 'INVALID_ARGUMENT' });
    const text = Readable.from([Buffer.from([1, 2])]).setEncoding('utf8');
    await assert.rejects(collect(decodeStream(text)), { code: 'INVALID_ARGUMENT', message: /text/ });
  });
});

test('on any bytes, chunked anyhow, the stream yields what decodeMultiple yields, then fails in the same message', async () => {
  const r = rng(2024);
  for (let round = 0; round < 400; round++) {
    const parts = [];
    for (let k = 0; k < 1 + Math.floor(r() * 6); k++) {
      if (r() < 0.6) parts.push(sp.encode(randomValue(r, 0, { bigint: true, maps: true, dates: true })));
      else parts.push(Uint8Array.from({ length: 1 + Math.floor(r() * 12) }, () => Math.floor(r() * 256)));
    }
    const bytes = concat(parts);
    const cuts = Array.from({ length: Math.floor(r() * 8) }, () => Math.floor(r() * bytes.length)).sort((a, b) => a - b);
    const whole = [], chunked = [];
    let wholeError = null, chunkedError = null, lastStart = 0;
    try {
      for (const v of decodeMultiple(bytes)) {
        whole.push(v);
        lastStart = decodeEnd;                         // where the next message starts
      }
    } catch (e) { wholeError = e; }
    try { for await (const v of decodeStream(pieces(bytes, cuts))) chunked.push(v); } catch (e) { chunkedError = e; }
    assert.deepEqual(chunked.map(normalize), whole.map(normalize), `round ${round}`);
    assert.equal(chunkedError === null, wholeError === null, `round ${round}: ${chunkedError?.message} / ${wholeError?.message}`);
    if (chunkedError !== null) {
      assert.ok(chunkedError.offset >= lastStart && wholeError.offset >= lastStart,
        `round ${round}: ${chunkedError.message} / ${wholeError.message}`);
      if (chunkedError.code === 'TRUNCATED') assert.equal(chunkedError.offset, wholeError.offset);
    }
  }
});

describe('sources end as they should', () => {
  test('breaking out early cancels a WHATWG stream and destroys a Node Readable', async () => {
    let cancelled = false;
    const ws = new ReadableStream({
      pull(ctl) { ctl.enqueue(stream.subarray(0, 100)); },
      cancel() { cancelled = true; },
    });
    for await (const v of decodeStream(ws)) { void v; break; }
    assert.equal(cancelled, true);
    const readable = Readable.from((function* () { for (;;) yield Buffer.from(stream.subarray(0, 100)); })());
    for await (const v of decodeStream(readable)) { void v; break; }
    assert.equal(readable.destroyed, true);
  });

  test('a source that fails passes its error on', async () => {
    const failing = async function* () { yield stream.subarray(0, 10); throw new Error('socket reset'); };
    await assert.rejects(collect(decodeStream(failing())), /socket reset/);
  });
});

describe('the instance method and decodeMultiple', () => {
  test('sp.decodeStream uses the instance\'s limits; options override them', async () => {
    const strict = await createScratchpack({ limits: { maxArrayLength: 2 } });
    const bytes = concat([sp.encode([1, 2]), sp.encode([1, 2, 3])]);
    await assert.rejects(collect(strict.decodeStream(pieces(bytes, [4]))), { code: 'LENGTH_LIMIT', offset: 3 });
    assert.deepEqual(await collect(strict.decodeStream(pieces(bytes, [4]), { maxArrayLength: 3 })), [[1, 2], [1, 2, 3]]);
    const ints = Int32Array.from({ length: 3000 }, (_, i) => i * 1000);
    const typed = await collect(sp.decodeStream(pieces(concat([sp.encode(ints), sp.encode(ints)]), [5000]), { typedArrays: Int32Array }));
    assert.deepEqual(typed, [ints, ints]);
    assert.deepEqual([...strict.decodeMultiple(bytes, { maxArrayLength: 3 })], [[1, 2], [1, 2, 3]]);
    strict.close();
  });

  test('decodeMultiple is a lazy iterable of every value; errors come at their absolute offsets', () => {
    assert.deepEqual([...decodeMultiple(stream)].map(normalize), want);
    assert.deepEqual([...decodeMultiple(new Uint8Array(0))], []);
    assert.deepEqual([...decodeMultiple(stream.buffer.slice(stream.byteOffset, stream.byteOffset + starts[3]))], [0, -1, 127]);
    const cut = stream.subarray(0, starts[20] + 2);
    const it = decodeMultiple(cut);
    const got = [];
    assert.throws(() => { for (const v of it) got.push(v); }, { code: 'TRUNCATED', offset: starts[20] });
    assert.equal(got.length, 20);
    assert.throws(() => decodeMultiple('not bytes'), { code: 'INVALID_ARGUMENT' });
  });
});

test('maxMessageLength stops a message in one big chunk at the limit, before decoding past it', async () => {
  // [2000-byte str, 0xc1]: read whole, the message fails MALFORMED at byte 2008; the limit must come first.
  const m = new Uint8Array(5 + 3 + 2000 + 1);
  m.set([0xdd, 0, 0, 0, 2, 0xda, 0x07, 0xd0]);
  m[m.length - 1] = 0xc1;
  for (const chunks of [[m], [m.subarray(0, 3), m.subarray(3)]]) {
    await assert.rejects(async () => { for await (const v of decodeStream(chunks, { maxMessageLength: 1024 })) void v; },
      (e) => e.code === 'LENGTH_LIMIT' && e.offset === 0, `chunks of ${chunks.map((c) => c.length)}`);
  }
  // Under the limit the same message gets as far as its real error.
  await assert.rejects(async () => { for await (const v of decodeStream([m], { maxMessageLength: 4096 })) void v; },
    (e) => e.code === 'MALFORMED' && e.offset === m.length - 1);
});

test('however the input is cut, a message fails as decode() of it does: the first error, and maxMessageLength counting headers', async () => {
  const fail = async (chunks, opt) => {
    try { for await (const v of decodeStream(chunks, opt)) void v; } catch (e) { return `${e.code}@${e.offset}`; }
    return 'no error';
  };
  const cuts = (m) => [[m], ...Array.from({ length: m.length - 1 }, (_, i) => [m.subarray(0, i + 1), m.subarray(i + 1)]),
    Array.from(m, (b) => Uint8Array.of(b))];
  // [a timestamp with 2^30 nanoseconds (MALFORMED at 1), a str over maxStrLength (LENGTH_LIMIT at 11)]
  const m = Uint8Array.from([0x92, 0xd7, 0xff, 0xff, 0xff, 0xff, 0xfc, 0, 0, 0, 1, 0xb5, ...new Array(21).fill(0x78)]);
  for (const chunks of cuts(m)) assert.equal(await fail(chunks, { maxStrLength: 20 }), 'MALFORMED@1', chunks.map((c) => c.length).join());
  // Headers count toward maxMessageLength: an empty array16 is 3 bytes, an empty str32 5.
  for (const [bytes, max] of [[[0xdc, 0, 0], 2], [[0x91, 0xdb, 0, 0, 0, 0], 4]])
    for (const chunks of cuts(Uint8Array.from(bytes))) assert.equal(await fail(chunks, { maxMessageLength: max }), 'LENGTH_LIMIT@0');
});

test('an explicit maxMessageLength: undefined is INVALID_ARGUMENT, as every decode option', async () => {
  await assert.rejects(async () => { for await (const v of decodeStream([Uint8Array.of(1)], { maxMessageLength: undefined })) void v; },
    (e) => e.code === 'INVALID_ARGUMENT' && /maxMessageLength' is undefined/.test(e.message));
});
