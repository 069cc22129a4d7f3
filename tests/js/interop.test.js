// Interop with the two peers, both ways, on a few thousand generated values:
// what they encode we decode to the same value, and what we encode they do.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { Decoder, Encoder } from '@msgpack/msgpack';
import { Packr, Unpackr } from 'msgpackr';

import { createScratchpack, decode } from '../../js/index.js';
import { hex, normalize, randomValue, rng } from './helpers.js';

let sp;
before(async () => { sp = await createScratchpack(); });
after(() => sp.close());

const COUNT = 3000;
const values = (seed, opts) => {
  const next = rng(seed);
  return Array.from({ length: COUNT }, () => randomValue(next, 0, opts));
};

// msgpackr: standard maps (no records), 64-bit ints as numbers when safe.
const packr = new Packr({ useRecords: false, variableMapSize: true, int64AsType: 'auto' });
const unpackr = new Unpackr({ useRecords: false, int64AsType: 'auto', mapsAsObjects: true });
// @msgpack/msgpack: BigInt support on, so 64-bit values survive.
const encoder = new Encoder({ useBigInt64: true });
const decoder = new Decoder({ useBigInt64: true });

test('values msgpackr encodes decode to the same values here', () => {
  for (const v of values(11, { bigint: true, dates: true })) {
    assert.deepEqual(normalize(decode(packr.pack(v))), normalize(v));
  }
});

test('values encoded here decode to the same values in msgpackr', () => {
  for (const v of values(12, { bigint: true, dates: true })) {
    assert.deepEqual(normalize(unpackr.unpack(sp.encode(v))), normalize(v));
  }
});

test('values @msgpack/msgpack encodes decode to the same values here', () => {
  for (const v of values(13, { bigint: true, dates: true })) {
    assert.deepEqual(normalize(decode(encoder.encode(v))), normalize(v));
  }
});

test('values encoded here decode to the same values in @msgpack/msgpack', () => {
  for (const v of values(14, { bigint: true, dates: true })) {
    assert.deepEqual(normalize(decoder.decode(sp.encode(v))), normalize(v));
  }
});

// @msgpack/msgpack writes integers outside the 32-bit ranges as float64;
// here they take int64/uint64 (also 9 bytes): the only difference allowed.
const wideInt = (v) => (typeof v === 'number' && Number.isInteger(v) && (v >= 2 ** 32 || v < -(2 ** 31))) ||
  (Array.isArray(v) && v.some(wideInt)) ||
  (v !== null && typeof v === 'object' && !(v instanceof Uint8Array) && Object.values(v).some(wideInt));

test('without BigInts and Dates the bytes are identical to @msgpack/msgpack, 64-bit integers aside', () => {
  let compared = 0;
  for (const v of values(15, {})) {
    if (wideInt(v)) continue;
    assert.equal(hex(sp.encode(v)), hex(encoder.encode(v)));
    compared++;
  }
  assert.ok(compared > COUNT / 2, `compared ${compared}`);
});

test('a typed array encoded here reads as a plain array of numbers in both peers', () => {
  const ints = Int32Array.from({ length: 1000 }, (_, i) => (i - 500) * 70001);
  const bytes = sp.encode(ints);
  assert.deepEqual(unpackr.unpack(bytes), [...ints]);
  assert.deepEqual(decoder.decode(bytes), [...ints]);
  const floats = Float64Array.from({ length: 100 }, (_, i) => i / 7);
  assert.deepEqual(decoder.decode(sp.encode(floats)), [...floats]);
});

test('a Map with non-string keys survives msgpackr in both directions', () => {
  const m = new Map([[1, 'one'], [2.5, [true]], ['s', null]]);
  const mapUnpackr = new Unpackr({ useRecords: false, mapsAsObjects: false });
  assert.deepEqual(mapUnpackr.unpack(sp.encode(m)), m);
  assert.deepEqual(decode(packr.pack(m)), m);
});
