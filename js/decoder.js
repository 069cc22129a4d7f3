// decoder.js -- MessagePack bytes to JS values, in JS.
// Owns: the cursor (one per decode, module state, saved around user code)
// and reading every format at it, the limits (depth, lengths), the checks
// that come before any allocation (a claimed length must fit in what
// remains: one byte per array element, two per map entry), error codes
// with byte offsets, the caches of short map keys and of tiny strings, the
// shapes of maps seen before (their keys predicted, their objects built by
// generated literals), single tokens for a
// walker (readToken: the inspector), and the typed reads a contract's
// decoder makes at the cursor (D). Numeric arrays as typed arrays are
// scanned in decode-numbers.js, options checked in decode-options.js. Must
// not touch: the WASM module -- decoding builds JS values, which only JS
// can do, so the bytes are read where they are.

import { BULK_READ, decodeDefaults } from './decode-options.js';
import { scanEnd, scanNumbers } from './decode-numbers.js';
import { Ext, extDecode } from './ext.js';
import { ScratchpackError, codes, decodeError, decodeWithin, indexStep, isStackOverflow, plural } from './errors.js';
import { formatName } from './format-name.js';
import { intRange, isDetached, ownBytes } from './typed.js';
import { readUtf8 } from './text.js';

let src = null;
let pos = 0;
let len = 0;
let dv = null;
let opt = decodeDefaults;

/** Decodes exactly one value from bytes (a Uint8Array, ArrayBuffer or other view). */
export function decodeValue(bytes, options) {
  const u8 = asBytes(bytes);
  const v = decodeFrom(u8, 0, options);
  if (decodeEnd !== u8.length)
    throw decodeError(codes.TRAILING_BYTES, decodeEnd, `${plural(u8.length - decodeEnd, 'byte')} left after the value`);
  return v;
}

/** Where the value decodeFrom read last ends (an index into its bytes). */
export let decodeEnd = 0;

/**
 * Decodes the one value that starts at bytes[at] (a Uint8Array), for
 * readers of concatenated messages; decodeEnd says where it ends. Errors
 * carry offsets into bytes; TRUNCATED means the value goes on past its end.
 */
export function decodeFrom(bytes, at, options) {
  // A decode run by user code inside another (an extension's decode, a
  // contract class's setter) gives the outer one its state back after it.
  const s0 = src, p0 = pos, l0 = len, d0 = dv, o0 = opt;
  src = bytes; pos = at; len = src.length; dv = null; opt = options;
  onDecode();
  try {
    const v = options.contract == null ? read(0) : options.contract._top(0);   // (undefined: decodeDefaults)
    decodeEnd = pos;
    return v;
  } catch (e) {
    throw tooDeep(e);
  } finally {
    // The outermost call puts back nulls: nothing of it is held past it
    // (not the bytes, the options, a value).
    src = s0; pos = p0; len = l0; dv = d0; opt = o0;
  }
}

/**
 * One token at bytes[at], for a walker such as the inspector: a scalar, str,
 * bin or ext and its value ({ value, end }), or the header of an array or a
 * map and its element count ({ container: 'array' | 'map', count, end }),
 * read with decodeValue's checks, limits and errors. `depth` is the token's
 * nesting level (0 for the root), as decodeValue counts it for maxDepth.
 */
export function readToken(bytes, at, depth, options) {
  src = asBytes(bytes); pos = at; len = src.length; dv = null; opt = options;
  try {
    const c = pos < len ? src[pos] : -1;
    let container = 'array', count;
    if (c >= 0x80 && c < 0xa0) { pos++; count = c & 15; if (c < 0x90) container = 'map'; }
    else if (c === 0xdc) { pos++; count = len16(at, 'an array 16 header'); }
    else if (c === 0xdd) { pos++; count = len32(at, 'an array 32 header'); }
    else if (c === 0xde) { pos++; count = len16(at, 'a map 16 header'); container = 'map'; }
    else if (c === 0xdf) { pos++; count = len32(at, 'a map 32 header'); container = 'map'; }
    else { const value = read(depth); return { value, end: pos }; }
    if (container === 'map') mapHeader(count, depth, at);
    else arrayHeader(count, depth, at);
    return { container, count, end: pos };
  } catch (e) {
    throw tooDeep(e);
  } finally {
    src = null;                        // nothing of the call is held past it:
    dv = null;                         // not the bytes, not the options (an
    opt = decodeDefaults;              // instance's hold the instance)
  }
}

/**
 * bytes as a plain Uint8Array (a view, never a copy); INVALID_ARGUMENT for
 * anything but bytes. A Buffer or other subclass is viewed as a plain
 * Uint8Array too: bins are made by the source's slice() and subarray(),
 * and Buffer's slice() is a view of the input, not a copy -- so every bin
 * is a Uint8Array of its own (or with binary: 'view' one viewing the
 * input) whatever type of view the input came in.
 */
export function asBytes(b) {
  if (b instanceof Uint8Array && b.constructor === Uint8Array && ArrayBuffer.isView(b))
    return b.length !== 0 || !isDetached(b) ? b : detached();    // (bytes in it: not detached, nothing more to ask)
  const view = ArrayBuffer.isView(b);
  if (!view && !(b instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && b instanceof SharedArrayBuffer)))
    throw new ScratchpackError(codes.INVALID_ARGUMENT, 'decode takes a Uint8Array, another typed array or an ArrayBuffer');
  if (!view) return isDetached(b) ? detached() : new Uint8Array(b);
  return ownBytes(b) ?? detached();    // its real bytes, whatever its class says of their length
}

function detached() {
  throw new ScratchpackError(codes.INVALID_ARGUMENT, 'the input\'s buffer was detached (transferred away): it holds no bytes');
}

// The decoder recurses once per level of nesting: a maxDepth above what the
// host's stack holds (a few thousand levels in Node's default stack) ends in a
// stack overflow, which becomes DEPTH_LIMIT at the byte reached -- the
// same error a lower maxDepth gives, never the host's RangeError.
function tooDeep(e) {
  if (!isStackOverflow(e)) return e;
  return new ScratchpackError(codes.DEPTH_LIMIT,
    `nesting deeper than this host's stack can decode (maxDepth ${opt.maxDepth}; lower it) (at byte ${pos})`,
    { offset: pos, cause: e });
}

function view() {
  if (dv === null) dv = new DataView(src.buffer, src.byteOffset, src.byteLength);
  return dv;
}

// The big-endian 32-bit word at src[p..p+4): one DataView load where the
// call has made its DataView (a float did), else four byte loads -- making
// one costs more than a small message's word reads save (a.obj decode
// took twice as long with it).
function wordAt(p) {
  const d = dv;
  if (d !== null) return d.getInt32(p);
  const u = src;
  return (u[p] << 24) | (u[p + 1] << 16) | (u[p + 2] << 8) | u[p + 3];
}

const truncated = (at, what) => decodeError(codes.TRUNCATED, at, `input ends inside ${what}`);

// Makes sure n more bytes are there for the value that started at 'at'.
function need(n, at, what) {
  if (len - pos < n) throw truncated(at, what);
}

function read(depth) {
  if (pos >= len) throw truncated(pos, 'a value (no bytes left)');
  const at = pos;
  const c = src[pos++];
  if (c < 0xa0) {
    if (c < 0x80) return c;
    if (c < 0x90) return readMap(c & 15, depth, at);
    return readArray(c & 15, depth, at);
  }
  if (c < 0xc0) return readStr(c & 31, at);
  if (c >= 0xe0) return c - 256;
  switch (c) {
    case 0xc0: return null;
    case 0xc1: throw decodeError(codes.MALFORMED, at, '0xc1 is never used in MessagePack');
    case 0xc2: return false;
    case 0xc3: return true;
    case 0xc4: return readBin(len8(at, 'a bin 8 header'), at);
    case 0xc5: return readBin(len16(at, 'a bin 16 header'), at);
    case 0xc6: return readBin(len32(at, 'a bin 32 header'), at);
    case 0xc7: return readExt(len8(at, 'an ext 8 header'), at);
    case 0xc8: return readExt(len16(at, 'an ext 16 header'), at);
    case 0xc9: return readExt(len32(at, 'an ext 32 header'), at);
    case 0xca: need(4, at, 'a float 32'); pos += 4; return view().getFloat32(pos - 4);
    case 0xcb: need(8, at, 'a float 64'); pos += 8; return view().getFloat64(pos - 8);
    case 0xcc: return len8(at, 'a uint 8');
    case 0xcd: return len16(at, 'a uint 16');
    case 0xce: return len32(at, 'a uint 32');
    case 0xcf: need(8, at, 'a uint 64'); return readU64();
    case 0xd0: need(1, at, 'an int 8'); return (src[pos++] << 24) >> 24;
    case 0xd1: need(2, at, 'an int 16'); pos += 2; return ((src[pos - 2] << 24) >> 16) | src[pos - 1];
    case 0xd2: need(4, at, 'an int 32'); pos += 4; return view().getInt32(pos - 4);
    case 0xd3: need(8, at, 'an int 64'); return readI64();
    case 0xd4: return readExt(1, at);
    case 0xd5: return readExt(2, at);
    case 0xd6: return readExt(4, at);
    case 0xd7: return readExt(8, at);
    case 0xd8: return readExt(16, at);
    case 0xd9: return readStr(len8(at, 'a str 8 header'), at);
    case 0xda: return readStr(len16(at, 'a str 16 header'), at);
    case 0xdb: return readStr(len32(at, 'a str 32 header'), at);
    case 0xdc: return readArray(len16(at, 'an array 16 header'), depth, at);
    case 0xdd: return readArray(len32(at, 'an array 32 header'), depth, at);
    case 0xde: return readMap(len16(at, 'a map 16 header'), depth, at);
    default: return readMap(len32(at, 'a map 32 header'), depth, at);   // 0xdf
  }
}

function len8(at, what) {
  need(1, at, what);
  return src[pos++];
}
function len16(at, what) {
  need(2, at, what);
  pos += 2;
  return (src[pos - 2] << 8) | src[pos - 1];
}
function len32(at, what) {
  need(4, at, what);
  pos += 4;
  return ((src[pos - 4] << 24) | (src[pos - 3] << 16) | (src[pos - 2] << 8) | src[pos - 1]) >>> 0;
}

function readU64() {
  const hi = len32(0, ''), lo = len32(0, '');
  const v = hi * 4294967296 + lo;
  return int64Result(v, () => (BigInt(hi) << 32n) | BigInt(lo));
}

function readI64() {
  const hi = len32(0, '') | 0, lo = len32(0, '');
  const v = hi * 4294967296 + lo;
  return int64Result(v, () => (BigInt(hi) << 32n) | BigInt(lo));
}

function int64Result(v, big) {
  switch (opt.int64) {
    case 'auto': return Number.isSafeInteger(v) ? v : big();
    case 'bigint': return big();
    case 'number': return v;
    default: return Number.isSafeInteger(v) ? v : big().toString();
  }
}

function limit(n, max, at, what) {
  if (n > max) throw decodeError(codes.LENGTH_LIMIT, at, `${what} of ${n} is over the limit of ${max}`);
}

// The checks a str header passes before its body is read (pos is at the body).
function strHeader(n, at) {
  if (n > len - pos) throw truncated(at, `a str of ${n} bytes (${len - pos} left)`);
  if (n > opt.maxStrLength) limit(n, opt.maxStrLength, at, 'str length');
}

function readStr(n, at) {
  strHeader(n, at);
  const p = pos;
  pos += n;
  if (n <= TINY_MAX && tinyOn && len - p >= 8) return tinyStr(p, n);
  if (n <= SHORT_MAX) {
    const s = shortAscii(src, p, n);
    if (s !== null) return s;
  }
  return readUtf8(src, p, p + n);
}

// Strings of at most TINY_MAX bytes come from a cache: such values repeat
// (tags, states, codes) and their bytes, read as two words, hash and
// compare without a loop; a hit makes no string. A slot holds the last
// string whose words hashed there. Memory: 4,096 strings of 8 bytes or less.
const TINY_MAX = 8, TINY_BITS = 10;
const tinyKey = new Int32Array(3 << TINY_BITS).fill(-1);   // per slot: length, first word, second word
const tinyStrs = new Array(1 << TINY_BITS).fill('');
const tinyKept = new Uint8Array(1 << TINY_BITS);
const HEAD_MASK = new Int32Array([0, 0xff000000 | 0, 0xffff0000 | 0, 0xffffff00 | 0, -1]);

// Where values do not repeat (ids, hashes) a miss costs more than making
// the string (and keeps it alive past the next scavenge): when fewer than 1
// in 8 of a window's lookups hit, the cache is off for the rest of the
// decode and the next TINY_OFF decodes.
const TINY_WINDOW = 1024, TINY_OFF = 16;
let tinyTries = 0, tinyHits = 0, tinyOn = true, tinyOffFor = 0;

function tinyWindow() {
  if (tinyHits < TINY_WINDOW / 8) { tinyOn = false; tinyOffFor = TINY_OFF; }
  tinyTries = 0;
  tinyHits = 0;
}

// Called once per decode: counts it (shapes' misses decay by it), and the
// tiny cache comes back after TINY_OFF decodes.
function onDecode() {
  decodes = (decodes + 1) & DECODES_MASK;        // (a small integer, wrapping)
  if (!tinyOn && --tinyOffFor <= 0) tinyOn = true;
}

/** The tiny cache's slot for a string of n bytes whose first 8, as big-endian words with zeros past n, are w0 and w1 (exported for tests). */
export function tinySlot(w0, w1, n) {
  return Math.imul(w0 ^ Math.imul(w1 ^ n, 0x85ebca6b), 0x9e3779b1) >>> (32 - TINY_BITS);
}

// The string of src[p..p+n), n <= TINY_MAX, with 8 bytes readable at p.
// Only a kept hit is handled here: small enough for V8 to inline.
function tinyStr(p, n) {
  const w0 = wordAt(p) & HEAD_MASK[n < 4 ? n : 4];
  const w1 = n > 4 ? wordAt(p + 4) & HEAD_MASK[n - 4] : 0;
  const slot = tinySlot(w0, w1, n);
  if (++tinyTries === TINY_WINDOW) tinyWindow();
  const k = slot * 3;
  if (tinyKey[k] === n && tinyKey[k + 1] === w0 && tinyKey[k + 2] === w1 && tinyKept[slot] === 1) {
    tinyHits++;
    return tinyStrs[slot];
  }
  return tinyMiss(p, n, w0, w1, slot);
}

// tinyStr's other cases: a string seen once before in its slot (now kept)
// or a new one (now the slot's key). The key is compared again here:
// passing tinyStr's compare in measured no faster, slower on Node 24.
function tinyMiss(p, n, w0, w1, slot) {
  const k = slot * 3;
  let str;
  if (tinyKey[k] === n && tinyKey[k + 1] === w0 && tinyKey[k + 2] === w1) {
    tinyHits++;
    str = fromWords(w0, w1, n);                  // (what the slot is keyed by, read once)
    tinyStrs[slot] = str;
    tinyKept[slot] = 1;
    return str;
  }
  str = shortAscii(src, p, n);
  if (str === null) str = readUtf8(src, p, p + n);
  tinyKey[k] = n; tinyKey[k + 1] = w0; tinyKey[k + 2] = w1; tinyKept[slot] = 0;
  return str;
}

// The string of the n bytes in w0 and w1.
function fromWords(w0, w1, n) {
  for (let i = 0; i < 4; i++) { tinyBuf[i] = w0 >>> (24 - 8 * i); tinyBuf[i + 4] = w1 >>> (24 - 8 * i); }
  const s = shortAscii(tinyBuf, 0, n);
  return s !== null ? s : readUtf8(tinyBuf, 0, n);
}
const tinyBuf = new Uint8Array(8);

const fcc = String.fromCharCode;

// An ASCII string of at most SHORT_MAX bytes without the text decoder, or
// null. One String.fromCharCode call with every byte as an argument makes a
// flat string (joining pieces would make a rope past 12 characters); up to
// 16 bytes this measured faster than Buffer#utf8Slice (bench:js b.records).
// Each byte is loaded once, into a local that both the ASCII test and the
// call use (a test loop first, then the loads, measured 10-15% slower).
const SHORT_MAX = 16;

function shortAscii(u, p, n) {
  switch (n) {
    case 0: return '';
    case 1: {
      const b0 = u[p];
      return (b0) < 0x80 ? fcc(b0) : null;
    }
    case 2: {
      const b0 = u[p], b1 = u[p + 1];
      return (b0 | b1) < 0x80 ? fcc(b0, b1) : null;
    }
    case 3: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2];
      return (b0 | b1 | b2) < 0x80 ? fcc(b0, b1, b2) : null;
    }
    case 4: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3];
      return (b0 | b1 | b2 | b3) < 0x80 ? fcc(b0, b1, b2, b3) : null;
    }
    case 5: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4];
      return (b0 | b1 | b2 | b3 | b4) < 0x80 ? fcc(b0, b1, b2, b3, b4) : null;
    }
    case 6: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5];
      return (b0 | b1 | b2 | b3 | b4 | b5) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5) : null;
    }
    case 7: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5], b6 = u[p + 6];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5, b6) : null;
    }
    case 8: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5], b6 = u[p + 6], b7 = u[p + 7];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5, b6, b7) : null;
    }
    case 9: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5], b6 = u[p + 6], b7 = u[p + 7], b8 = u[p + 8];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5, b6, b7, b8) : null;
    }
    case 10: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5], b6 = u[p + 6], b7 = u[p + 7], b8 = u[p + 8], b9 = u[p + 9];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9) : null;
    }
    case 11: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5], b6 = u[p + 6], b7 = u[p + 7], b8 = u[p + 8], b9 = u[p + 9], b10 = u[p + 10];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10) : null;
    }
    case 12: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5], b6 = u[p + 6], b7 = u[p + 7], b8 = u[p + 8], b9 = u[p + 9], b10 = u[p + 10], b11 = u[p + 11];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11) : null;
    }
    case 13: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5], b6 = u[p + 6], b7 = u[p + 7], b8 = u[p + 8], b9 = u[p + 9], b10 = u[p + 10], b11 = u[p + 11], b12 = u[p + 12];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12) : null;
    }
    case 14: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5], b6 = u[p + 6], b7 = u[p + 7], b8 = u[p + 8], b9 = u[p + 9], b10 = u[p + 10], b11 = u[p + 11], b12 = u[p + 12], b13 = u[p + 13];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13) : null;
    }
    case 15: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5], b6 = u[p + 6], b7 = u[p + 7], b8 = u[p + 8], b9 = u[p + 9], b10 = u[p + 10], b11 = u[p + 11], b12 = u[p + 12], b13 = u[p + 13], b14 = u[p + 14];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14) : null;
    }
    case 16: {
      const b0 = u[p], b1 = u[p + 1], b2 = u[p + 2], b3 = u[p + 3], b4 = u[p + 4], b5 = u[p + 5], b6 = u[p + 6], b7 = u[p + 7], b8 = u[p + 8], b9 = u[p + 9], b10 = u[p + 10], b11 = u[p + 11], b12 = u[p + 12], b13 = u[p + 13], b14 = u[p + 14], b15 = u[p + 15];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15) < 0x80 ? fcc(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15) : null;
    }
    default: return null;
  }
}

function readBin(n, at) {
  if (n > len - pos) throw truncated(at, `a bin of ${n} bytes (${len - pos} left)`);
  if (n > opt.maxBinLength) limit(n, opt.maxBinLength, at, 'bin length');
  pos += n;
  return opt.binary === 'view' ? src.subarray(pos - n, pos) : src.slice(pos - n, pos);
}

function readExt(n, at) {
  if (n + 1 > len - pos) throw truncated(at, `an ext of ${n} bytes (${len - pos} left)`);
  if (n > opt.maxExtLength) limit(n, opt.maxExtLength, at, 'ext length');
  const type = (src[pos] << 24) >> 24;
  pos += 1 + n;
  if (type === -1) return readTimestamp(pos - n, n, at);
  const e = type >= 0 && opt.extensions !== null ? opt.extensions.byType[type] : null;
  if (e !== null) return userExt(e, n, at);
  return new Ext(type, src.slice(pos - n, pos));
}

// A registered ext type through the user's decode, given the data as bin
// values are (a copy, or a view with binary: 'view'). That code may decode
// in turn, which would reuse this module's state: it is kept here.
function userExt(e, n, at) {
  const s = src, p = pos, l = len, d = dv, o = opt;
  const data = o.binary === 'view' ? s.subarray(p - n, p) : s.slice(p - n, p);
  try {
    return extDecode(e, data, at);
  } finally {
    src = s; pos = p; len = l; dv = d; opt = o;
  }
}

// Timestamp ext -1: 32-bit seconds; 64-bit nsec:30 | sec:34; 96-bit nsec + int64 sec.
function readTimestamp(p, n, at) {
  const d = view();
  let sec, nsec;
  if (n === 4) {
    sec = d.getUint32(p); nsec = 0;
  } else if (n === 8) {
    const hi = d.getUint32(p);
    nsec = hi >>> 2;
    sec = (hi & 3) * 4294967296 + d.getUint32(p + 4);
  } else if (n === 12) {
    nsec = d.getUint32(p);
    sec = Number(d.getBigInt64(p + 4));
  } else {
    throw decodeError(codes.MALFORMED, at, `a timestamp (ext -1) of ${n} bytes; it must have 4, 8 or 12`);
  }
  if (nsec >= 1e9) throw decodeError(codes.MALFORMED, at, `a timestamp with ${nsec} nanoseconds (must be under 10^9)`);
  const ms = sec * 1000 + Math.floor(nsec / 1e6);
  // Past what a Date holds (±8.64e15 ms): the timestamp as it came, not an Invalid Date.
  if (!(Math.abs(ms) <= 8.64e15)) return new Ext(-1, src.slice(p, p + n));
  return new Date(ms);
}

function deeper(depth, at) {
  if (depth >= opt.maxDepth)
    throw decodeError(codes.DEPTH_LIMIT, at, `nesting deeper than ${opt.maxDepth} levels`);
}

// The checks an array header passes before anything is allocated for it.
function arrayHeader(n, depth, at) {
  deeper(depth, at);
  if (n > len - pos) throw truncated(at, `an array of ${n} elements (${len - pos} bytes left)`);
  if (n > opt.maxArrayLength) limit(n, opt.maxArrayLength, at, 'array length');
}

// The same for a map: two bytes at least per entry.
function mapHeader(n, depth, at) {
  deeper(depth, at);
  if (n > (len - pos) / 2) throw truncated(at, `a map of ${n} entries (${len - pos} bytes left)`);
  if (n > opt.maxMapLength) limit(n, opt.maxMapLength, at, 'map length');
}

function readArray(n, depth, at) {
  arrayHeader(n, depth, at);
  if (opt.typedArrays !== false && n > 0) {
    if (n >= 256 && opt[BULK_READ] !== undefined && opt.typedArrays !== 'auto') {
      const r = opt[BULK_READ](src, at, n, opt.typedArrays);   // C, when an instance offers it
      if (r !== null) { pos = r[1]; return r[0]; }
    }
    const t = scanNumbers(src, view(), pos, len, n, opt.typedArrays);
    if (t !== null) { pos = scanEnd; return t; }
  }
  const a = new Array(n);
  for (let i = 0; i < n; i++) {
    const c = src[pos];                  // the commonest elements of big arrays, inline
    if (c < 0x80) { a[i] = c; pos++; }
    else if (c >= 0xa0 && c < 0xc0) { pos++; a[i] = readStr(c & 31, pos - 1); }
    else if (c >= 0x80 && c < 0x90) { pos++; a[i] = readMap(c & 15, depth + 1, pos - 1); }
    else if (c === 0xcd && len - pos >= 3) { a[i] = (src[pos + 1] << 8) | src[pos + 2]; pos += 3; }
    else a[i] = read(depth + 1);
  }
  return a;
}

function readMap(n, depth, at) {
  mapHeader(n, depth, at);
  if (opt.maps === 'map') return readIntoMap(new Map(), n, depth);
  if (n > SHAPE_KEYS_MAX) return readObject({}, n, depth);
  // A new kv for each map, not one kept for reuse: storing new values into
  // a long-lived array takes V8's write barrier on its slow path each time.
  return readShaped(new Array(2 * n), n, depth);
}

// A map of at most SHAPE_KEYS_MAX entries: its keys and values go to kv (key
// i at 2i, its value at 2i + 1) while the shape tree is walked; the object
// comes from the literal of the shape it ends at, when there is one.
function readShaped(kv, n, depth) {
  let node = opt.maxStrLength >= KEY_MAX ? shapeRoot : null;   // (a predicted key skips strHeader)
  for (let i = 0; i < n; i++) {
    let k;
    const last = node !== null ? node.last : null;
    if (last !== null && keyHere(last)) {
      k = last.key;
      node = last;
    } else {
      const at = pos;
      k = mapKey(depth + 1);
      if (typeof k !== 'string') {
        if (opt.maps === 'auto') return readIntoMap(mapFromKv(kv, i), n - i, depth, true, k);
        node = null;
      } else if (node !== null) {
        node = predictable(at) ? stepShape(node, k, at) : null;   // (long keys make no shapes)
      }
    }
    kv[2 * i + 1] = value(depth);
    kv[2 * i] = propName(k);                     // (maps: 'object': named here, as o[k] = v would)
  }
  if (node !== null) {
    if (node.make !== null) return node.make(kv);
    if (++node.hits === SHAPE_COMPILE_AT && shapesOn()) node.make = compileShape(kv, n);
    if (node.plain) return assignPlain({}, kv, n);
  }
  return assign({}, kv, n);
}

// A map key at pos (depth: the key's own): short str keys through the key
// cache, anything else as read() reads it.
function mapKey(depth) {
  const c = pos < len ? src[pos] : 0xc1;         // none left: read() says so
  return c >= 0xa0 && c <= 0xa0 + KEY_MAX ? readKey(c - 0xa0) : read(depth);
}

// The property name of a key (maps: 'object' names any key). A decoded
// map whose 'toString' is data (or an extension's value with a throwing
// one) has no String(): it is named as any object is.
function propName(k) {
  if (typeof k === 'string') return k;
  try {
    return String(k);
  } catch {
    return Object.prototype.toString.call(k);
  }
}

// The value of a map entry: the commonest values of records inline.
function value(depth) {
  const c = src[pos];
  if (c < 0x80) { pos++; return c; }
  if (c >= 0xa0 && c < 0xc0) { pos++; return readStr(c & 31, pos - 1); }
  if (c === 0xcb && len - pos >= 9) { pos += 9; return view().getFloat64(pos - 8); }
  return read(depth + 1);
}

// Makes k an own data property of the new object o, as a generated literal
// does (and JSON.parse): a name that Object.prototype also has ('__proto__',
// 'constructor', one given a setter or frozen) is defined, not assigned;
// any other name is assigned, which is the same and faster.
function setProp(o, k, v) {
  if (k in objectProto) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}
const objectProto = Object.prototype;

// The first n entries of kv into o.
function assign(o, kv, n) {
  for (let i = 0; i < n; i++) setProp(o, kv[2 * i], kv[2 * i + 1]);
  return o;
}

// The same for keys known to be names Object.prototype had not when their
// shape was learnt (ShapeNode.plain).
function assignPlain(o, kv, n) {
  for (let i = 0; i < n; i++) o[kv[2 * i]] = kv[2 * i + 1];
  return o;
}

// Reads n entries into the object o, key by key (maps of many keys, or no
// generated code). An object lists integer-like keys ('1') first, so once
// one comes the keys' order is kept aside: a Map that a later non-string
// key turns it into has the message's order.
function readObject(o, n, depth) {
  let order = null;
  for (let i = 0; i < n; i++) {
    const k = mapKey(depth + 1);
    if (typeof k !== 'string') {
      if (opt.maps === 'auto') return readIntoMap(objectToMap(o, order), n - i, depth, true, k);
    } else if (order !== null) order.push(k);
    else if (isIndexLike(k)) (order = Object.keys(o)).push(k);
    const v = value(depth);
    setProp(o, propName(k), v);
  }
  return o;
}

// Whether an object lists key k before its other keys (an array index: '0', '17').
function isIndexLike(k) {
  const c = k.charCodeAt(0);
  if (!(c >= 48 && c <= 57)) return false;
  const n = Number(k);
  return n < 4294967295 && String(n) === k;
}

// ---- shapes ------------------------------------------------------------------
// Maps whose keys come in an order seen before (records) are built by an
// object literal generated for that order: V8 makes such an object from a
// template with its final layout in one step, where adding the keys one by
// one walks a layout per key through a store that sees every key. The
// orders seen form a tree, a node per key prefix; each node keeps its key's
// str token and the node of the key that came after it last: when the input
// has that token next, the key costs a compare, no hash and no cache. A
// node that ends SHAPE_COMPILE_AT maps gets its literal. Bounded: only str
// keys of at most KEY_MAX bytes, at most SHAPE_FANOUT keys after a node
// (maps used as dictionaries stop there; a full node that keeps missing
// forgets its keys, so a new workload can be learnt), SHAPE_NODES nodes in
// all (then the tree starts again). Where generated code is refused (a
// Content-Security-Policy) keys are still predicted and objects built key
// by key.
const SHAPE_KEYS_MAX = 32, SHAPE_FANOUT = 16, SHAPE_NODES = 4096, SHAPE_COMPILE_AT = 16;
const SHAPE_MISSES = 256, SHAPE_SPAN = 256;

class ShapeNode {
  constructor(key, kb, parent) {
    this.tree = shapeTree;  // the tree it belongs to (newTree() drops the old one)
    this.key = key;       // the key that leads here from the parent
    this.kb = kb;         // its str token as first seen (null only at the root)
    // No key on the way here was a name of Object.prototype when this node
    // was made: assigning them makes own properties, as defining them does.
    this.plain = parent === null || (parent.plain && !(key in objectProto));
    this.m = kb === null ? 0 : kb.length;
    this.w0 = word(kb, 0);      // the token's first 8 bytes as two int32 words, and their masks
    this.m0 = mask(kb, 0);
    this.w1 = word(kb, 4);
    this.m1 = mask(kb, 4);
    this.last = null;     // the node of the key that followed last
    this.next = null;     // every key that has followed: key -> node
    this.misses = 0;      // keys turned away while full, since decode number missFrom
    this.missFrom = 0;
    this.hits = 0;        // maps that ended here
    this.make = null;     // their literal, once compiled
  }
}

let shapeTree = 0, decodes = 0;   // (decodes: counted by onDecode)
const DECODES_MASK = 0x3fffffff;
let shapeRoot = new ShapeNode(null, null, null);
let shapeNodes = 1;
let shapesState = 0;      // 0: not known yet, 1: on, -1: this host refuses generated code

function shapesOn() {
  if (shapesState === 0) {
    try { shapesState = new Function('return 1')() === 1 ? 1 : -1; } catch { shapesState = -1; }
  }
  return shapesState === 1;
}

// Whether the bytes at pos are node's key token; if so, consumed. Compared
// four bytes at a time where 8 are left.
function keyHere(node) {
  const p = pos, m = node.m;
  if (len - p < 8) return keyNearEnd(node.kb);
  if ((wordAt(p) & node.m0) !== node.w0) return false;
  if (m > 4) {
    if ((wordAt(p + 4) & node.m1) !== node.w1) return false;
    if (m > 8 && !restHere(node.kb, p)) return false;
  }
  pos = p + m;
  return true;
}

// Whether kb's bytes from the 9th on are at src[p + 8..].
function restHere(kb, p) {
  const m = kb.length;
  if (m > len - p) return false;
  for (let i = 8; i < m; i++) if (src[p + i] !== kb[i]) return false;
  return true;
}

// keyHere with fewer than 8 bytes left.
function keyNearEnd(kb) {
  const m = kb.length;
  if (m > len - pos) return false;
  for (let i = 0; i < m; i++) if (src[pos + i] !== kb[i]) return false;
  pos += m;
  return true;
}

// kb's bytes [at, at + 4) as a big-endian int32, missing bytes 0; and the mask of those there.
function word(kb, at) {
  let w = 0;
  for (let i = at; i < at + 4; i++) w = (w << 8) | (kb !== null && i < kb.length ? kb[i] : 0);
  return w | 0;
}
function mask(kb, at) {
  let w = 0;
  for (let i = at; i < at + 4; i++) w = (w << 8) | (kb !== null && i < kb.length ? 0xff : 0);
  return w | 0;
}

// The node after key k, whose str token is src[at..pos); made if new, null
// past the bounds or when node is from a tree that has since been dropped.
function stepShape(node, k, at) {
  if (node.next === null) node.next = new Map();
  let to = node.next.get(k);
  if (to === undefined) {
    if (node.tree !== shapeTree) return null;
    if (node.next.size >= SHAPE_FANOUT) {
      missed(node);
      return null;
    }
    if (shapeNodes >= SHAPE_NODES) {
      newTree();
      return null;
    }
    const kb = new Uint8Array(pos - at);               // a copy: the input may be reused
    for (let i = 0; i < kb.length; i++) kb[i] = src[at + i];
    if (tokenText(kb) !== k) return null;              // (changed under us: shared memory)
    to = new ShapeNode(k, kb, node);
    shapeNodes++;
    node.next.set(k, to);
  }
  node.last = to;
  return to;
}

// A key turned away by a full node: SHAPE_MISSES of them within SHAPE_SPAN
// decodes make it forget its keys (a node that nearly always finds its
// key keeps them).
function missed(node) {
  if (((decodes - node.missFrom) & DECODES_MASK) > SHAPE_SPAN) { node.missFrom = decodes; node.misses = 0; }
  if (++node.misses < SHAPE_MISSES) return;
  shapeNodes -= below(node);
  node.next = null;
  node.last = null;
  node.misses = 0;
}

// The nodes under node.
function below(node) {
  let n = 0;
  if (node.next !== null) for (const c of node.next.values()) n += 1 + below(c);
  return n;
}

function newTree() {
  shapeTree++;
  shapeRoot = new ShapeNode(null, null, null);
  shapeNodes = 1;
}

// The text of a fixstr or str 8 token.
function tokenText(kb) {
  const h = kb[0] === 0xd9 ? 2 : 1;
  const s = kb.length - h <= SHORT_MAX ? shortAscii(kb, h, kb.length - h) : null;
  return s !== null ? s : readUtf8(kb, h, kb.length);
}

// Whether the key token at src[at..pos) may make a shape: a str (an
// extension's decode that returns a string must run each time) of at most
// KEY_MAX bytes (readShaped predicts only under a maxStrLength at least
// that, and the tree holds no long strings).
function predictable(at) {
  const c = src[at];
  if (c >= 0xa0 && c <= 0xbf) return (c & 31) <= KEY_MAX;
  return c === 0xd9 && pos - at - 2 <= KEY_MAX;
}

// The literal of a map with kv's first n keys, in their order; null for one
// with __proto__ (a literal would set the prototype, not a property).
function compileShape(kv, n) {
  const props = [];
  for (let i = 0; i < n; i++) {
    if (kv[2 * i] === '__proto__') return null;
    props.push(`${JSON.stringify(kv[2 * i])}: kv[${2 * i + 1}]`);
  }
  try {
    return new Function('kv', `return { ${props.join(', ')} };`);
  } catch {
    return null;                                 // refused after all (a policy that checks each source)
  }
}

/** The shape tree's nodes and compiled literals (for tests). */
export function shapeStats() {
  let literals = 0;
  const walk = (node) => {
    if (node.make !== null) literals++;
    if (node.next !== null) for (const c of node.next.values()) walk(c);
  };
  walk(shapeRoot);
  return { nodes: shapeNodes, literals };
}

/** Forgets every shape and tiny string: decodes go on as in a fresh module (for tests). */
export function forgetShapes() {
  newTree();
  tinyKey.fill(-1);
  tinyKept.fill(0);
  tinyOn = true;
  tinyTries = 0;
  tinyHits = 0;
}

// ---- map keys ----------------------------------------------------------------
// Short fixstr keys come from a cache: the bytes hash to a slot that keeps
// the bytes and the string made from them, so a repeated key costs a hash
// and a compare of at most KEY_MAX bytes, and is the same string object
// every time, which V8 stores as a property name faster than a fresh string
// of the same text (b.records decode measured faster with the cache alone).
// A slot's string is only returned when all its bytes match; else the key
// is read and takes the slot. Only map keys: on values (mostly distinct)
// the cache measured slower. Memory: 64 kB of bytes and 4,096 strings.
const KEY_MAX = 16, KEY_BITS = 12, KEY_SLOTS = 1 << KEY_BITS;
const keyStrs = new Array(KEY_SLOTS).fill('');
const keyLens = new Uint8Array(KEY_SLOTS).fill(255);
const keyBytes = new Uint8Array(KEY_SLOTS * KEY_MAX);

// A fixstr key of n <= KEY_MAX bytes; pos is at its header.
function readKey(n) {
  const at = pos++;
  strHeader(n, at);
  pos += n;
  return cachedStr(pos - n, n);
}

/** The key cache's slot for the n bytes at u8[p] (exported for tests). */
export function keySlot(u8, p, n) {
  let h = n;
  for (let i = p; i < p + n; i++) h = ((h << 5) - h + u8[i]) | 0;
  return Math.imul(h, 0x9e3779b1) >>> (32 - KEY_BITS);   // the top bits mix every byte
}

// The string of src[p..p+n), n <= KEY_MAX, from the cache or made and kept there.
function cachedStr(p, n) {
  const s = src;
  const slot = keySlot(s, p, n);
  const b = slot * KEY_MAX;
  if (keyLens[slot] === n) {
    let i = 0;
    while (i < n && keyBytes[b + i] === s[p + i]) i++;
    if (i === n) return keyStrs[slot];
  }
  // The string is made from the slot's copy: input in shared memory that
  // another thread writes meanwhile cannot leave bytes and string apart.
  for (let i = 0; i < n; i++) keyBytes[b + i] = s[p + i];
  let str = shortAscii(keyBytes, b, n);
  if (str === null) str = readUtf8(keyBytes, b, b + n);
  keyLens[slot] = n;
  keyStrs[slot] = str;
  return str;
}

// The object's entries as a Map, in the message's order (keys: that order, when kept).
function objectToMap(o, keys = null) {
  const m = new Map();
  for (const k of keys ?? Object.keys(o)) m.set(k, o[k]);
  return m;
}

// The first n entries of kv (key i at 2i) as a Map, in order.
function mapFromKv(kv, n) {
  const m = new Map();
  for (let i = 0; i < n; i++) m.set(kv[2 * i], kv[2 * i + 1]);
  return m;
}

// Reads n entries into m; with hasFirst, 'first' is the first one's key,
// already read (it may be undefined: an extension's value).
function readIntoMap(m, n, depth, hasFirst = false, first = undefined) {
  for (let i = 0; i < n; i++) {
    const k = i === 0 && hasFirst ? first : read(depth + 1);
    m.set(k, read(depth + 1));
  }
  return m;
}

// ---- contracts ---------------------------------------------------------------
// A contract's decoder (contract-compile.js, contract-interp.js) reads
// through these: each reads one value of the type asked for at pos, with
// the checks and limits above, and fails with TYPE (a value of another
// type) or OVERFLOW (an integer out of the field's range) at its offset.

// At the end of the input the value is missing, not of another type: TRUNCATED,
// as read() says, so that decodeStream waits for more bytes; 0xc1 is no
// value at all: MALFORMED, as read() says.
function wrong(what) {
  if (pos >= len) return truncated(pos, 'a value (no bytes left)');
  if (src[pos] === 0xc1) return decodeError(codes.MALFORMED, pos, '0xc1 is never used in MessagePack');
  return decodeError(codes.TYPE, pos, `expected ${what}, got ${formatName(src, pos, len)}`);
}
const outOfRange = (at, v, what) => decodeError(codes.OVERFLOW, at, `${v} does not fit ${what}`);

// An integer of any form as a number (64-bit forms past 2^53 as a BigInt), or undefined.
function intHere() {
  const c = pos < len ? src[pos] : 0xc1;
  if (c < 0x80) { pos++; return c; }
  if (c >= 0xe0) { pos++; return c - 256; }
  if (c >= 0xcc && c <= 0xd3 && c !== 0xcf && c !== 0xd3) return read(0);
  if (c === 0xcf || c === 0xd3) {
    const at = pos++;
    need(8, at, 'a 64-bit integer');
    const hi = c === 0xcf ? len32(at, '') : len32(at, '') | 0, lo = len32(at, '');
    const v = hi * 4294967296 + lo;
    return Number.isSafeInteger(v) ? v : (BigInt(hi) << 32n) | BigInt(lo);
  }
  return undefined;
}

// The element count of the array (fix: 0x90, x16: 0xdc) or map (0x80,
// 0xde) header at pos, consumed; TYPE for anything else.
function countHere(fix, x16, what, kind) {
  const at = pos, c = pos < len ? src[pos] : -1;
  if (c >= fix && c < fix + 16) { pos++; return c & 15; }
  if (c === x16) { pos++; return len16(at, `${kind} 16 header`); }
  if (c === x16 + 1) { pos++; return len32(at, `${kind} 32 header`); }
  if (c < 0) throw truncated(at, 'a value (no bytes left)');
  throw wrong(what);
}

/** The decoder's primitives for contract decoders (depth: as read()'s). */
export const D = Object.freeze({
  // A generated decoder (contract-compile.js) reads the common forms itself
  // at a local cursor: bytes() and end() are the input, at() where it
  // starts; before any primitive below it seek()s there and takes at()
  // back after. ascii() is a short ASCII str body, or null; opts() the
  // limits it checks as read() would.
  bytes() { return src; },
  end() { return len; },
  at() { return pos; },
  seek(p) { pos = p; },
  opts() { return opt; },
  view,
  ascii: shortAscii,
  /** Consumes a nil and returns true, or returns false. */
  nil() {
    if (pos < len && src[pos] === 0xc0) { pos++; return true; }
    return false;
  },
  /** Whether any bytes are left (a missing value is TRUNCATED, not TYPE). */
  more() { return pos < len; },
  array(depth, what) {
    const at = pos;
    const n = countHere(0x90, 0xdc, what, 'an array');
    arrayHeader(n, depth, at);
    return n;
  },
  map(depth, what) {
    const at = pos;
    const n = countHere(0x80, 0xde, what, 'a map');
    mapHeader(n, depth, at);
    return n;
  },
  /**
   * The map key at pos, consumed, as an index into a contract's keys: the
   * canonical str tokens of its keys are compared byte by byte with the
   * input, hint's first (the field after the last one matched: a writer
   * keeps the order), so a known key costs no string; any other key is read
   * and looked up by value in byValue (a str in a wider header form than the
   * canonical one still finds its field). -1 for a key the contract has not.
   */
  keyIndex(tokens, hint, byValue, depth) {
    const n = tokens.length;
    for (let j = 0, t = hint < n ? hint : 0; j < n; j++, t = t + 1 === n ? 0 : t + 1) {
      const k = tokens[t], m = k.length;
      if (m > len - pos || src[pos] !== k[0]) continue;
      let i = 1;
      while (i < m && src[pos + i] === k[i]) i++;
      if (i === m) { pos += m; return t; }
    }
    const v = byValue.get(read(depth));
    return v === undefined ? -1 : v;
  },
  /** A map key: short str keys through the key cache, anything else as read() reads it. */
  key: mapKey,
  str(what) {
    const c = pos < len ? src[pos] : 0xc1;
    const at = pos;
    if (c >= 0xa0 && c < 0xc0) { pos++; return readStr(c & 31, at); }
    if (c >= 0xd9 && c <= 0xdb) return read(0);
    throw wrong(what);
  },
  bool(what) {
    const c = pos < len ? src[pos] : 0xc1;
    if (c === 0xc3) { pos++; return true; }
    if (c === 0xc2) { pos++; return false; }
    throw wrong(what);
  },
  /** An integer in lo..hi as a number. */
  int(lo, hi, what) {
    const at = pos;
    const v = intHere();
    if (v === undefined) throw wrong(what);
    if (typeof v !== 'number' || v < lo || v > hi) throw outOfRange(at, v, what);
    return v;
  },
  /** An int64 (signed) or uint64 as a BigInt, or a number when asNumber. */
  big(signed, asNumber, what) {
    const at = pos;
    const v = intHere();
    if (v === undefined) throw wrong(what);
    if (!signed && v < 0) throw outOfRange(at, v, what);
    if (signed && typeof v === 'bigint' && v >= 0n && src[at] === 0xcf && v > 0x7fffffffffffffffn)
      throw outOfRange(at, v, what);
    if (asNumber) return Number(v);
    return BigInt(v);
  },
  /** Any number (integers too: a float field reads what a C# double reads). */
  num(what) {
    const c = pos < len ? src[pos] : 0xc1;
    if (c === 0xcb) { need(9, pos, 'a float 64'); pos += 9; return view().getFloat64(pos - 8); }
    if (c === 0xca) { need(5, pos, 'a float 32'); pos += 5; return view().getFloat32(pos - 4); }
    const v = intHere();
    if (v === undefined) throw wrong(what);
    return Number(v);
  },
  bin(what) {
    const c = pos < len ? src[pos] : 0xc1;
    if (c >= 0xc4 && c <= 0xc6) return read(0);
    throw wrong(what);
  },
  date(what) {
    const c = pos < len ? src[pos] : 0xc1;
    if (c === 0xd6 || c === 0xd7 || c === 0xc7) {
      const type = pos + (c === 0xc7 ? 2 : 1);     // the ext type byte: -1 is a timestamp
      if (type >= len) throw truncated(pos, 'an ext header');
      if (src[type] === 0xff) return read(0);
    }
    throw wrong(what);
  },
  any: read,
  skip: read,
  /** A numeric array into a new typed array of ctor (int kinds range-checked). */
  typed(ctor, big, depth, what) {
    const n = D.array(depth, what);
    const a = new ctor(n);
    const range = intRange(ctor);
    let i = 0;
    try {
      for (; i < n; i++) {
        const at = pos;
        if (big) a[i] = D.big(ctor === BigInt64Array, false, `an element of ${what}`);
        else if (range === null) a[i] = D.num(`an element of ${what}`);
        else {
          const v = intHere();
          if (v === undefined) throw wrong(`an integer element of ${what}`);
          if (v < range[0] || v > range[1]) throw outOfRange(at, v, `an element of ${what}`);
          a[i] = v;
        }
      }
    } catch (e) {
      throw decodeWithin(e, indexStep(i));         // the element's path, as [T]'s
    }
    return a;
  },
});
