// decode() against @msgpack/msgpack on generated messages and on damaged
// copies of them: both throw, or both give equal values -- except where the
// two differ on purpose. Each such policy is a named exception below; the
// test counts the cases each one explained and requires every one to have
// been met, so none is dead. The generator is seeded: a failure names its
// case and reproduces.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Decoder, Encoder, ExtData } from '@msgpack/msgpack';

import { Ext, ScratchpackError, decode } from '../../js/index.js';
import { walk } from '../../js/inspect.js';
import { hex, intBoundaries, normalize, randomString, randomValue, rng, str, tricky, trickyBytes } from './helpers.js';

const MESSAGES = 3000;
const MUTATIONS = 3;

const encoder = new Encoder({ useBigInt64: true });
const encoder32 = new Encoder({ forceFloat32: true });
const theirDecoder = new Decoder({ useBigInt64: true });
// The same, with str values as their bytes: what the UTF-8 policies check against.
const rawDecoder = new Decoder({ useBigInt64: true, rawStrings: true });
const whatwg = new TextDecoder('utf-8', { ignoreBOM: true });
const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// ---- the policies: where decode() differs from @msgpack/msgpack on purpose ----
const seen = {
  // Invalid UTF-8 becomes U+FFFD by the WHATWG rules (Node's decoder, the
  // browser's TextDecoder); @msgpack decodes str values up to 200 bytes and
  // keys in its own JS, which maps bad bytes to other characters.
  invalidUtf8: 0,
  // The same for a map key; only its decoded text is there to compare, so the
  // key here must hold a U+FFFD (the generator writes none in valid text).
  invalidUtf8Key: 0,
  // A leading U+FEFF is part of the string here, as Node's utf8Slice has it;
  // @msgpack decodes str values over 200 bytes with a default TextDecoder,
  // which drops it.
  leadingBom: 0,
  // Timestamps are floored to the millisecond: sec * 1000 + floor(nsec / 1e6).
  // @msgpack hands Date sec * 1e3 + nsec / 1e6, which Date cuts toward zero
  // (1 ms later for a negative time whose nanoseconds are not whole
  // milliseconds) and which the addition may already have rounded up to the
  // next millisecond (a fraction just under 1 on a large number of seconds).
  timestampFloor: 0,
  // A timestamp with 10^9 nanoseconds or more is MALFORMED here; @msgpack
  // makes a Date of it.
  nsecRange: 0,
  // A timestamp past what a Date holds is Ext(-1, its bytes) here, which
  // encodes back to them; @msgpack makes an Invalid Date.
  timestampOutsideDate: 0,
  // A map with a key that is not a string decodes to a Map here; @msgpack
  // makes an object of number keys (as their text) and refuses other keys.
  nonStringKeys: 0,
  // A __proto__ key becomes an own property (or a Map key) here; @msgpack refuses it.
  protoKey: 0,
};

const wellFormed = (bytes) => { try { fatal.decode(bytes); return true; } catch { return false; } };
const hasBom = (b) => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const isPlainObject = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

// ---- comparing: ours, theirs, and theirs with raw str bytes, side by side ----
function compare(o, t, r, path) {
  const where = `at ${path}`;
  if (typeof t === 'string') {
    assert.equal(typeof o, 'string', where);
    assert.ok(r instanceof Uint8Array, where);
    if (!wellFormed(r)) {                  // checked even where @msgpack's lax decoding gives the same
      assert.equal(o, whatwg.decode(r), where);
      if (o !== t) seen.invalidUtf8++;
      return;
    }
    if (o === t) return;
    if (r.length > 200 && hasBom(r)) { assert.equal(o, `\ufeff${t}`, where); seen.leadingBom++; return; }
    assert.equal(o, t, where);
  } else if (t instanceof Uint8Array) {
    assert.ok(o instanceof Uint8Array && sameBytes(o, t), where);
  } else if (t instanceof ExtData) {
    assert.ok(o instanceof Ext, where);
    assert.equal(o.type, t.type, where);
    assert.ok(sameBytes(o.data, t.data), where);
  } else if (t instanceof Date) {
    if (o instanceof Ext && o.type === -1 && Number.isNaN(t.getTime())) { seen.timestampOutsideDate++; return; }
    assert.ok(o instanceof Date, where);
    if (Object.is(o.getTime(), t.getTime())) return;
    assert.equal(o.getTime(), t.getTime() - 1, where);
    seen.timestampFloor++;
  } else if (Array.isArray(t)) {
    assert.ok(Array.isArray(o) && o.length === t.length, where);
    for (let i = 0; i < t.length; i++) compare(o[i], t[i], r[i], `${path}[${i}]`);
  } else if (isPlainObject(t)) {
    compareMap(o, t, r, path);
  } else {
    assert.ok(Object.is(normalize(o), normalize(t)), `${where}: ${String(o)} vs ${String(t)}`);
  }
}

function compareMap(o, t, r, path) {
  let entries;
  if (o instanceof Map) {
    // Only number keys get here (@msgpack threw on the others): theirs as text.
    const m = new Map();
    for (const [k, v] of o) {
      assert.ok(typeof k === 'string' || typeof k === 'number', `at ${path}: key ${String(k)}`);
      m.set(String(k), v);
    }
    entries = m;
    seen.nonStringKeys++;
  } else {
    assert.ok(isPlainObject(o), `at ${path}`);
    entries = new Map(Object.entries(o));
  }
  const theirKeys = Object.keys(t);
  const same = theirKeys.length === entries.size && theirKeys.every((k) => entries.has(k));
  if (!same) {
    assert.ok([...entries.keys()].some((k) => k.includes('\ufffd')), `at ${path}: keys ${[...entries.keys()]} vs ${theirKeys}`);
    seen.invalidUtf8Key++;
  }
  for (const k of theirKeys) if (entries.has(k)) compare(entries.get(k), t[k], r[k], `${path}.${JSON.stringify(k)}`);
}

// The map keys of a message that decode() read whole, as tokens of the
// inspector's walk: what @msgpack refuses must be there for its refusals.
function keysOf(bytes) {
  const keys = [];
  walk(bytes, (t) => { if (t.key) keys.push(t); });
  return keys;
}
// Neither a string nor a number for @msgpack: a container, nil, a boolean,
// bin, ext, or a 64-bit integer form (a BigInt with useBigInt64).
const oddKey = (bytes) => (t) => t.container !== undefined || bytes[t.at] === 0xcf || bytes[t.at] === 0xd3 ||
  (typeof t.value !== 'string' && typeof t.value !== 'number');
const protoKey = (t) => t.value === '__proto__';

const run = (f) => { try { return { value: f() }; } catch (error) { return { error }; } };
const decodeCodes = ['TRUNCATED', 'MALFORMED', 'TRAILING_BYTES', 'LENGTH_LIMIT', 'DEPTH_LIMIT'];

function check(bytes, name) {
  const ours = run(() => decode(bytes));
  const theirs = run(() => theirDecoder.decode(bytes));
  const raw = run(() => rawDecoder.decode(bytes));
  const why = `${name}: ${hex(bytes)}`;
  assert.equal('error' in raw, 'error' in theirs, `@msgpack with raw strings agrees with itself (${why})`);
  if (ours.error) {
    const e = ours.error;
    assert.ok(e instanceof ScratchpackError && decodeCodes.includes(e.code), `${why}: ${e.stack}`);
    assert.ok(e.offset >= 0 && e.offset <= bytes.length, why);
    if (theirs.error) return;
    assert.ok(e.code === 'MALFORMED' && /nanoseconds/.test(e.message), `${why}: only here: ${e.message}`);
    seen.nsecRange++;
    return;
  }
  if (theirs.error) {
    const m = theirs.error.message;
    if (/type of key must be string or number/.test(m) && keysOf(bytes).some(oddKey(bytes))) seen.nonStringKeys++;
    else if (/__proto__/.test(m) && keysOf(bytes).some(protoKey)) seen.protoKey++;
    else assert.fail(`${why}: only @msgpack throws: ${m}`);
    return;
  }
  compare(ours.value, theirs.value, raw.value, '$');
}

// ---- generating: messages from @msgpack's encoder, some parts written here ----
const cat = (parts) => {
  const b = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { b.set(p, at); at += p.length; }
  return b;
};
const pick = (next, list) => list[Math.floor(next() * list.length)];
const header = (n, fix, h16) => (n < 16 ? [fix | n] : [h16, n >> 8, n & 255]);

// An integer in a wider form than it needs (valid MessagePack, never written by encoders).
function wideInt(next) {
  const v = pick(next, [0, 1, 5, 127, 200, 65535]);
  const forms = [[0xcc, 1], [0xcd, 2], [0xce, 4], [0xcf, 8], [0xd1, 2], [0xd2, 4], [0xd3, 8]]
    .filter(([c, w]) => v < 2 ** (8 * w - (c >= 0xd0 ? 1 : 0)));
  const [c, w] = pick(next, forms);
  const b = new Uint8Array(1 + w);
  b[0] = c;
  for (let i = 0; i < w; i++) b[w - i] = Math.floor(v / 2 ** (8 * i)) & 255;
  return b;
}

// A timestamp ext -1 in any of its three forms, nanoseconds in range or not,
// seconds negative (96-bit form) or not; now and then a length it may not have.
function timestamp(next) {
  const form = pick(next, [4, 8, 12, 12, 12, next() < 0.2 ? 5 : 8]);
  const d = new DataView(new ArrayBuffer(form));
  const nsec = next() < 0.15 ? 1e9 + Math.floor(next() * 1e8) : Math.floor(next() * 1e9);
  if (form === 4) d.setUint32(0, Math.floor(next() * 2 ** 32));
  else if (form === 8) {
    d.setUint32(0, ((Math.min(nsec, 2 ** 30 - 1) << 2) | Math.floor(next() * 4)) >>> 0);
    d.setUint32(4, Math.floor(next() * 2 ** 32));
  } else if (form === 12) {
    d.setUint32(0, nsec);
    d.setBigInt64(4, BigInt(Math.floor((next() - 0.6) * 2 ** (next() * 40))));
  }
  return encoder.encode(new ExtData(-1, new Uint8Array(d.buffer)));
}

function leaf(next) {
  switch (Math.floor(next() * 16)) {
    case 0: return encoder.encode(pick(next, [null, true, false]));
    case 1: return encoder.encode(pick(next, intBoundaries));
    case 2: return encoder.encode(Math.floor((next() - 0.5) * 2 ** (next() * 54)));
    case 3: return encoder.encode(BigInt.asIntN(64, BigInt(Math.floor(next() * 2 ** 32)) << BigInt(Math.floor(next() * 40))));
    case 4: return wideInt(next);
    case 5: return encoder.encode(pick(next, [NaN, Infinity, -Infinity, -0, 5e-324, 1.5, (next() - 0.5) * 1e300]));
    case 6: return encoder32.encode((next() - 0.5) * 10 ** Math.floor(next() * 20 - 10));
    case 7: case 8: return encoder.encode(randomString(next));
    case 9: return encoder.encode(`\ufeff${'b'.repeat(next() < 0.5 ? 10 : 250)}`);
    case 10: return str(trickyBytes(next, Math.floor(next() * (next() < 0.2 ? 300 : 24))));
    case 11: return encoder.encode(Uint8Array.from({ length: Math.floor(next() * 300) }, () => Math.floor(next() * 256)));
    case 12: {
      const n = pick(next, [1, 2, 4, 8, 16, Math.floor(next() * 40)]);
      return encoder.encode(new ExtData(Math.floor(next() * 256) - 128 || 5, Uint8Array.from({ length: n }, (_, i) => i)));
    }
    case 13: return encoder.encode(new Date(Math.floor((next() - 0.3) * 4e12)));
    default: return timestamp(next);
  }
}

function key(next) {
  const r = next();
  if (r < 0.55) return encoder.encode(`k${Math.floor(next() * 20)}`);
  if (r < 0.75) return encoder.encode(randomString(next));
  if (r < 0.8) return encoder.encode(pick(next, ['안녕', 'a_rather_long_key_name', '__proto__', '', '1', 'é']));
  if (r < 0.88) return str(trickyBytes(next, 1 + Math.floor(next() * 20)));
  if (r < 0.95) return encoder.encode(pick(next, [0, 1, -3, 70000, 1.5, 2 ** 40]));
  return encoder.encode(pick(next, [null, true, [1, 2], Uint8Array.of(1)]));
}

function message(next, depth = 0) {
  const r = next();
  if (depth > 3 || r < 0.5) return leaf(next);
  const n = Math.floor(next() * (next() < 0.1 ? 24 : 6));
  const parts = [];
  if (r < 0.7) {
    parts.push(Uint8Array.from(header(n, 0x90, 0xdc)));
    for (let i = 0; i < n; i++) parts.push(message(next, depth + 1));
  } else {
    parts.push(Uint8Array.from(header(n, 0x80, 0xde)));
    for (let i = 0; i < n; i++) parts.push(key(next), message(next, depth + 1));
  }
  return cat(parts);
}

// Damage: a byte flipped or overwritten with a telling one, a byte put in, an end cut off.
function mutate(next, b) {
  const at = Math.floor(next() * b.length);
  const telling = [0xc1, 0xc0, 0xd9, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xc7, 0xd6, 0xd7, 0xff, 0x00, 0x7f, 0x80, 0x90, 0xa0, ...tricky];
  switch (Math.floor(next() * 4)) {
    case 0: { const c = Uint8Array.from(b); c[at] ^= 1 << Math.floor(next() * 8); return c; }
    case 1: { const c = Uint8Array.from(b); c[at] = pick(next, telling); return c; }
    case 2: return cat([b.subarray(0, at), Uint8Array.of(pick(next, telling)), b.subarray(at)]);
    default: return b.subarray(0, at);
  }
}

test('decode() and @msgpack/msgpack agree on generated and damaged messages, but for the listed policies', () => {
  const next = rng(41);
  let cases = 0;
  for (let i = 0; i < MESSAGES; i++) {
    const bytes = i % 3 === 0 ? encoder.encode(randomValue(next, 0, { bigint: true, dates: true })) : message(next);
    check(bytes, `message ${i}`);
    for (let m = 0; m < MUTATIONS; m++) check(mutate(next, bytes), `message ${i}, damage ${m}`);
    cases += 1 + MUTATIONS;
  }
  for (const [policy, n] of Object.entries(seen)) assert.ok(n > 0, `no case needed the ${policy} exception`);
  assert.equal(cases, MESSAGES * (1 + MUTATIONS));
});
