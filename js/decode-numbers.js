// decode-numbers.js -- numeric MessagePack arrays read into typed arrays.
// Owns: the scan of n numbers (a tight loop over locals: the hot path of
// numeric payloads), the choice of an array type for typedArrays: 'auto',
// and the range checks a requested integer type imposes. Must not touch:
// the decoder's cursor -- the caller passes the bytes and the position in,
// and takes scanEnd back when a scan succeeds, so no state is shared
// across the module boundary per element.

import { intRange } from './typed.js';

/** Where the last successful scan ended (an index into its bytes). */
export let scanEnd = 0;

const INT = 1, F32 = 2, F64 = 4;
// Numbers land in f64 first, before their type is known; it grows to the
// longest array up to F64_KEPT elements, a longer one gets a buffer of its
// own for the call (one huge array must not pin its size for good).
const F64_KEPT = 65536;
let f64 = new Float64Array(1024);

/**
 * The n numbers at s[p..end) as a typed array of ctor, or null when an
 * element is not a number or does not fit exactly (a Float32Array too: no
 * float64 or integer is rounded) -- the caller then reads the array element
 * by element. 'auto' goes by what the message holds: integers as Int32Array
 * or Uint32Array when they fit, float32s as Float32Array, else Float64Array.
 * d: a DataView of s.
 */
export function scanNumbers(s, d, p, end, n, ctor) {
  if (typeof BigInt64Array === 'function' && (ctor === BigInt64Array || ctor === BigUint64Array))
    return scanBig(s, d, p, end, n, ctor);
  const wanted = ctor === 'auto' ? null : intRange(ctor);
  if (wanted !== null) return scanInts(s, d, p, end, n, new ctor(n), wanted[0], wanted[1]);
  if (f64.length < n && n <= F64_KEPT) f64 = new Float64Array(Math.min(F64_KEPT, Math.max(n, f64.length * 2)));
  const out = n <= f64.length ? f64 : new Float64Array(n);
  let kinds = 0, min = 0, max = 0;
  for (let i = 0; i < n; i++) {
    if (p >= end) return null;
    const c = s[p];
    let v;
    if (c < 0x80) { v = c; p += 1; kinds |= INT; }
    else if (c >= 0xe0) { v = c - 256; p += 1; kinds |= INT; }
    else if (c === 0xcd) {
      if (p + 3 > end) return null;
      v = (s[p + 1] << 8) | s[p + 2]; p += 3; kinds |= INT;
    } else if (c === 0xcc) {
      if (p + 2 > end) return null;
      v = s[p + 1]; p += 2; kinds |= INT;
    } else if (c === 0xd2 || c === 0xce) {
      if (p + 5 > end) return null;
      v = (s[p + 1] << 24) | (s[p + 2] << 16) | (s[p + 3] << 8) | s[p + 4];
      if (c === 0xce) v >>>= 0;
      p += 5; kinds |= INT;
    } else if (c === 0xd1) {
      if (p + 3 > end) return null;
      v = (((s[p + 1] << 8) | s[p + 2]) << 16) >> 16; p += 3; kinds |= INT;
    } else if (c === 0xd0) {
      if (p + 2 > end) return null;
      v = (s[p + 1] << 24) >> 24; p += 2; kinds |= INT;
    } else if (c === 0xcb) {
      if (p + 9 > end) return null;
      v = d.getFloat64(p + 1); p += 9; kinds |= F64;
    } else if (c === 0xca) {
      if (p + 5 > end) return null;
      v = d.getFloat32(p + 1); p += 5; kinds |= F32;
    } else {
      v = safeInt64(s, d, p, end);               // the 64-bit integer forms: the slow way
      if (v === undefined) return null;
      p += 9; kinds |= INT;
    }
    if (v < min) min = v;
    else if (v > max) max = v;
    out[i] = v;
  }
  const type = ctor === 'auto' ? autoType(kinds === INT, kinds === F32, min, max) : ctor;
  if (type === null) return null;
  const range = intRange(type);
  if (range !== null && (kinds !== INT || min < range[0] || max > range[1])) return null;
  if (type === Float32Array && kinds !== F32 && !allFloat32(out, n)) return null;   // none rounded away
  scanEnd = p;
  if (out !== f64 && type === Float64Array) return out;   // a buffer of its own already
  const a = new type(n);
  a.set(n === out.length ? out : out.subarray(0, n));
  return a;
}

// Integers straight into the requested integer array, each checked against
// its range; null at the first element that is not an integer that fits.
function scanInts(s, d, p, end, n, a, lo, hi) {
  for (let i = 0; i < n; i++) {
    if (p >= end) return null;
    const c = s[p];
    let v;
    if (c < 0x80) { v = c; p += 1; }
    else if (c === 0xcd) {
      if (p + 3 > end) return null;
      v = (s[p + 1] << 8) | s[p + 2]; p += 3;
    } else if (c >= 0xe0) { v = c - 256; p += 1; }
    else if (c === 0xcc) {
      if (p + 2 > end) return null;
      v = s[p + 1]; p += 2;
    } else if (c === 0xd2 || c === 0xce) {
      if (p + 5 > end) return null;
      v = (s[p + 1] << 24) | (s[p + 2] << 16) | (s[p + 3] << 8) | s[p + 4];
      if (c === 0xce) v >>>= 0;
      p += 5;
    } else if (c === 0xd1) {
      if (p + 3 > end) return null;
      v = (((s[p + 1] << 8) | s[p + 2]) << 16) >> 16; p += 3;
    } else if (c === 0xd0) {
      if (p + 2 > end) return null;
      v = (s[p + 1] << 24) >> 24; p += 2;
    } else {
      v = safeInt64(s, d, p, end);               // the 64-bit forms (another encoder's int64 fields), as C reads them
      if (v === undefined) return null;         // (and floats: never here)
      p += 9;
    }
    if (v < lo || v > hi) return null;
    a[i] = v;
  }
  scanEnd = p;
  return a;
}

// Whether each of a's first n numbers is a float32 exactly (NaN too).
function allFloat32(a, n) {
  for (let i = 0; i < n; i++) {
    const v = a[i];
    if (Math.fround(v) !== v && v === v) return false;
  }
  return true;
}

function autoType(ints, f32s, min, max) {
  if (ints) {
    if (min >= -2147483648 && max <= 2147483647) return Int32Array;
    if (min >= 0 && max <= 4294967295) return Uint32Array;
    return Number.isSafeInteger(min) && Number.isSafeInteger(max) ? Float64Array : null;
  }
  return f32s ? Float32Array : Float64Array;
}

// A uint 64 or int 64 at s[p] that is a safe integer, or undefined.
function safeInt64(s, d, p, end) {
  const c = s[p];
  if ((c !== 0xcf && c !== 0xd3) || end - p < 9) return undefined;
  const hi = c === 0xcf ? d.getUint32(p + 1) : d.getInt32(p + 1);
  const v = hi * 4294967296 + d.getUint32(p + 5);
  return Number.isSafeInteger(v) ? v : undefined;
}

// Integers of any form into a BigInt64Array or BigUint64Array.
function scanBig(s, d, p, end, n, ctor) {
  const a = new ctor(n);
  const lo = ctor === BigInt64Array ? -(2n ** 63n) : 0n;
  const hi = ctor === BigInt64Array ? 2n ** 63n - 1n : 2n ** 64n - 1n;
  for (let i = 0; i < n; i++) {
    if (p >= end) return null;
    const c = s[p];
    let v;
    if (c === 0xcf || c === 0xd3) {
      if (end - p < 9) return null;
      v = c === 0xcf ? d.getBigUint64(p + 1) : d.getBigInt64(p + 1);
      p += 9;
    } else {
      const x = smallInt(s, d, p, end);
      if (x === undefined) return null;
      p = scanEnd;
      v = BigInt(x);
    }
    if (v < lo || v > hi) return null;
    a[i] = v;
  }
  scanEnd = p;
  return a;
}

// An integer of at most 32 bits at s[p] (scanEnd: after it), or undefined.
function smallInt(s, d, p, end) {
  const c = s[p];
  let w, v;
  if (c < 0x80) { w = 1; v = c; }
  else if (c >= 0xe0) { w = 1; v = c - 256; }
  else if (c === 0xcc || c === 0xd0) w = 2;
  else if (c === 0xcd || c === 0xd1) w = 3;
  else if (c === 0xce || c === 0xd2) w = 5;
  else return undefined;
  if (end - p < w) return undefined;
  if (w === 2) v = c === 0xcc ? d.getUint8(p + 1) : d.getInt8(p + 1);
  else if (w === 3) v = c === 0xcd ? d.getUint16(p + 1) : d.getInt16(p + 1);
  else if (w === 5) v = c === 0xce ? d.getUint32(p + 1) : d.getInt32(p + 1);
  scanEnd = p + w;
  return v;
}
