// Damaged messages (bytes changed, set to headers, bit-flipped, cut short)
// through decode() with every kind of option, contracts included, and
// through decodeStream in random chunks: each either decodes or fails with
// a ScratchpackError -- never a TypeError, RangeError or a hang -- and a
// stream gives what decodeMultiple gives over the same bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';

import { ScratchpackError, contract, decode, decodeMultiple, decodeStream, encode } from '../../js/index.js';
import { rng } from './helpers.js';

const R = contract({
  id: 'uint32', name: 'string?', score: 'float64', tags: ['string'], when: 'timestamp', blob: 'bin',
  m: { map: ['string', 'int32'] }, any: 'any', ta: 'int16[]',
}, { keys: 'index' });
const M = contract({ id: 'uint32', name: 'string', n: { type: 'int8', default: 3 } }, { keys: 'name' });
const SEEDS = [
  encode({ a: 1, b: [1, 2, 3], c: 'hello', d: Uint8Array.of(1, 2), e: 1.5, f: null, g: true, h: -100000, i: 2n ** 60n, j: new Date(5) }),
  encode([[], {}, '', 'x'.repeat(40), new Map([[1, 2]])]),
  R.encode({ id: 5, name: null, score: 2.5, tags: ['a', 'b'], when: new Date(1e12), blob: Uint8Array.of(9), m: { k: 1 }, any: [1, 'x'], ta: Int16Array.of(1, -2) }),
  M.encode({ id: 7, name: 'nm', n: 4 }),
  encode(Array.from({ length: 20 }, (_, i) => i * 1000.5)),
];
const OPTIONS = [undefined, { binary: 'view' }, { typedArrays: 'auto' }, { typedArrays: Int32Array }, { int64: 'bigint' },
  { maps: 'map' }, { contract: R }, { contract: M }, { maxDepth: 2 }, { typedArrays: BigInt64Array }];
const HEADERS = [0xc0, 0xc1, 0xd9, 0xdc, 0xde, 0xc7, 0xd4, 0xcf, 0xdb, 0xdd, 0xdf, 0xc6];

function damaged(next, bytes) {
  const b = Uint8Array.from(bytes);
  for (let j = 0, k = 1 + Math.floor(next() * 4); j < k; j++) {
    const r = next(), p = Math.floor(next() * b.length);
    if (r < 0.5) b[p] = Math.floor(next() * 256);
    else if (r < 0.7) b[p] = HEADERS[Math.floor(next() * HEADERS.length)];
    else if (r < 0.85) b[p] ^= 1 << Math.floor(next() * 8);
  }
  return next() < 0.3 ? b.subarray(0, Math.floor(next() * b.length)) : b;
}

const typed = (f) => {
  try {
    f();
    return null;
  } catch (e) {
    return e;
  }
};

test('damaged messages decode or fail with a ScratchpackError, whatever the options', () => {
  const next = rng(41);
  for (let i = 0; i < 20000; i++) {
    const b = damaged(next, SEEDS[Math.floor(next() * SEEDS.length)]);
    const o = OPTIONS[Math.floor(next() * OPTIONS.length)];
    const e = typed(() => decode(b, o));
    if (e !== null && !(e instanceof ScratchpackError))
      assert.fail(`${e.constructor.name}: ${e.message} for ${Buffer.from(b).toString('hex')} with ${JSON.stringify(o && Object.keys(o))}`);
  }
});

test('a damaged sequence in random chunks gives what decodeMultiple gives, or both fail with a ScratchpackError', async () => {
  const next = rng(42);
  const plain = [encode({ a: 1, b: 'xy' }), encode([1, [2, [3]]]), encode('s'.repeat(300)), encode(new Uint8Array(70)), encode(2n ** 63n)];
  for (let i = 0; i < 2000; i++) {
    const all = Uint8Array.from(Array.from({ length: 1 + Math.floor(next() * 5) },
      () => [...plain[Math.floor(next() * plain.length)]]).flat());
    if (next() < 0.5) for (let j = 0; j < 2; j++) all[Math.floor(next() * all.length)] = Math.floor(next() * 256);
    const chunks = [];
    for (let p = 0; p < all.length;) {
      const k = 1 + Math.floor(next() * 40);
      chunks.push(next() < 0.5 ? Buffer.from(all.subarray(p, p + k)) : all.slice(p, p + k));
      p += k;
    }
    const got = [], want = [];
    let streamed = null;
    try { for await (const x of decodeStream(chunks)) got.push(x); } catch (e) { streamed = e; }
    const whole = typed(() => { for (const x of decodeMultiple(all)) want.push(x); });
    const hex = Buffer.from(all).toString('hex');
    if (streamed !== null) assert.ok(streamed instanceof ScratchpackError, `${streamed}: ${hex}`);
    if (whole !== null) assert.ok(whole instanceof ScratchpackError, `${whole}: ${hex}`);
    assert.equal(streamed === null, whole === null, `one failed and not the other: ${hex}`);
    if (streamed === null) assert.ok(isDeepStrictEqual(got, want), `different values: ${hex}`);
  }
});
