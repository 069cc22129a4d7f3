// writer.js -- walks JS values and writes MessagePack into a span.
// Owns: every format as JS writes it, the walk (and its cycle check), element paths on failure.
// Must not touch: where spans come from -- a sink supplies them (sink.js
// states the interface; sink-*.js: the WASM heap through the C writer's slow
// path, the caller's array, JS memory).
//
// The walk keeps the span (u8, dv, pos, end) in module variables for speed
// and saves them around each call, so an encode nested in a getter has its
// own.

import {
  ARRAY, BUFFER, CONTRACT, DATE, EXT, EXTENSION, MAP, OBJECT, VIEW, binBytes, claimedBy, classifyObject, contractClasses,
} from './classify.js';
import { extEncode, extProblem } from './ext.js';
import { POOLED_PIECE_MAX, copyBytes, unzeroedBuffer } from './sink.js';
import {
  EncodeFailure, codes, finishEncodeError, indexStep, keyStep, mapKeyStep, mapStep,
  valuesAlong, within,
} from './errors.js';
import { halvesAsFloat32, isDetached, isPlainBytes, kindOfCtor, trueBytes, trueView } from './typed.js';
import { utf8Length, writeIfAscii, writeUtf8 } from './text.js';

let u8 = null;
let dv = null;
let pos = 0;
let end = 0;
let sink = null;
let maxDepth = 500;
let exts = null;                  // the extensions option's table (ext.js), or null

// The containers the walk is inside: the one at depth d in open[openBase +
// d] (an encode nested in a getter starts past its caller's; a contract's
// level that is not checked, W.deeper, empties its slot, so every slot
// below the current depth holds an ancestor or nothing), so a value
// that contains itself fails as CYCLE where it first meets itself -- not at
// maxDepth, after writing everything beside the cycle at every level. Past
// OPEN_SCAN levels they also go in a Set, so a deep walk checks in constant
// time. openTop: the highest slot written, cleared when the walk ends.
const open = Array.from({ length: 64 }, () => undefined);   // packed: appends keep it so
let openBase = 0;
let openTop = 0;
let deepOpen = null;
const OPEN_SCAN = 32;

const RAW_CHUNK = 65536;          // bytes asked of a sink at once for long copies
const LONG_STRING = 16384;        // longer strings are written in chunks
const STAGED_TEXT_MAX = 1 << 20;  // units: longer strings of unknown UTF-8 length are counted, not written aside
const TEXT_STAGE_KEPT = 1 << 20;     // bytes: writeStagedString's array is kept up to this
let textStage = null;

/**
 * Writes value into the sink's span; on return sink.pos is past the
 * message. table: the extensions (ext.js) or null. Throws a
 * ScratchpackError with the element path on failure.
 */
export function encodeWith(s, value, depthLimit, table = null, via = null) {
  if (sink === null) { walk(s, value, depthLimit, table, via); return; }
  // Nested (a getter, an extension's encode): the running walk's state is
  // kept aside and put back. The outermost call has nothing to keep, and
  // keeping it showed in a small encodeInto's profile (docs/node.md).
  const su8 = u8, sdv = dv, spos = pos, send = end, ssink = sink, sdepth = maxDepth, sexts = exts;
  const sopenBase = openBase, sdeep = deepOpen;
  openBase = openTop;                          // (slot openBase, depth 0, is never written)
  try {
    walk(s, value, depthLimit, table, via);
  } finally {
    u8 = su8; dv = sdv; pos = spos; end = send; sink = ssink; maxDepth = sdepth; exts = sexts;
    openBase = sopenBase; deepOpen = sdeep;
    // It may have grown linear memory: the caller's views are re-made if
    // they no longer cover its span.
    if (ssink.sync !== undefined) { ssink.sync(); u8 = ssink.u8; dv = ssink.dv; }
  }
}

// One walk of value into s; leaves the writer idle (encodeWith puts a
// caller's walk back after a nested one).
function walk(s, value, depthLimit, table, via) {
  sink = s; u8 = s.u8; dv = s.dv; pos = s.pos; end = s.end; maxDepth = depthLimit; exts = table;
  deepOpen = null;
  try {
    if (via === null) writeValue(value, 0);
    else via(value);                            // a contract's encoder (contract.js)
    s.pos = pos;
  } catch (e) {
    throw explain(e, value);
  } finally {
    u8 = null; dv = null; sink = null; exts = null;
    for (; openTop > openBase; openTop--) open[openTop] = undefined;   // nothing of the value kept alive
    deepOpen = null;
    if (keyTop === 0 && keyStack.length > KEYS_KEPT) keyStack.length = 0;   // no key of a big object kept alive
  }
}

/**
 * For code that calls C while an encode may be running below it on the
 * stack (a getter calling decode, stats, ...): memory may have grown, so
 * the running encode's views are re-made.
 */
export function resync() {
  if (sink !== null && sink.sync !== undefined) { sink.sync(); u8 = sink.u8; dv = sink.dv; }
}

// A cycle (or a depth failure along a path that meets an ancestor again):
// the message names the ancestor.
function explain(e, root) {
  if (!(e instanceof EncodeFailure) || (e.code !== codes.DEPTH_LIMIT && e.code !== codes.CYCLE)) return finishEncodeError(e);
  const steps = e.steps.slice().reverse();
  const values = valuesAlong(root, steps);
  for (let j = 1; j < values.length; j++) {
    const i = values.indexOf(values[j]);
    if (i < j && typeof values[j] === 'object' && values[j] !== null) {
      const f = new EncodeFailure(codes.CYCLE,
        `cyclic structure: this value is its own ancestor (the one at ${pathOf(steps.slice(0, i), e.root)})`);
      f.steps = steps.slice(0, j).reverse();
      f.root = e.root;                               // '$' under a contract
      return finishEncodeError(f);
    }
  }
  return finishEncodeError(e);
}

function pathOf(steps, root) {
  if (steps.length === 0) return 'the root';
  const f = new EncodeFailure('', '');
  f.steps = steps.slice().reverse();
  f.root = root;
  return finishEncodeError(f).path;
}

// The span's DataView, which a sink may make only when first asked.
function view() {
  if (dv === null) dv = sink.view();
  return dv;
}

function more(n) {
  sink.pos = pos;
  sink.more(n);
  u8 = sink.u8; dv = sink.dv; pos = sink.pos; end = sink.end;
}

// A typeof comparison per branch, not a switch on typeof: V8 folds each
// `typeof v === '...'` into a type check, where the switch called its
// Typeof builtin once per value.
function writeValue(v, depth) {
  if (typeof v === 'string') writeString(v);
  else if (typeof v === 'number') writeNumber(v);
  else if (typeof v === 'object') {
    if (v === null) writeNil();
    else writeObject(v, depth + 1);
  } else if (typeof v === 'boolean') {
    if (pos >= end) more(1);
    u8[pos++] = v ? 0xc3 : 0xc2;
  } else if (typeof v === 'undefined') writeNil();
  else if (typeof v === 'bigint') writeBigInt(v);
  else throw new EncodeFailure(codes.UNSUPPORTED_TYPE, `cannot encode a ${typeof v}`);
}

function writeNil() {
  if (pos >= end) more(1);
  u8[pos++] = 0xc0;
}

// ---- numbers ---------------------------------------------------------------

function writeNumber(v) {
  if (end - pos < 9) more(9);
  if ((v >>> 0) === v) {                       // 0 .. 2^32-1 (and -0)
    if (v < 0x80) {
      if (v === 0 && 1 / v < 0) { writeFloat64(v); return; }
      u8[pos++] = v;
    } else if (v < 0x100) {
      u8[pos] = 0xcc; u8[pos + 1] = v; pos += 2;
    } else if (v < 0x10000) {
      u8[pos] = 0xcd; u8[pos + 1] = v >>> 8; u8[pos + 2] = v & 0xff; pos += 3;
    } else {
      u8[pos] = 0xce; view().setUint32(pos + 1, v); pos += 5;
    }
  } else if ((v | 0) === v) {                  // -2^31 .. -1
    if (v >= -32) {
      u8[pos++] = v & 0xff;
    } else if (v >= -128) {
      u8[pos] = 0xd0; u8[pos + 1] = v & 0xff; pos += 2;
    } else if (v >= -32768) {
      u8[pos] = 0xd1; u8[pos + 1] = (v >> 8) & 0xff; u8[pos + 2] = v & 0xff; pos += 3;
    } else {
      u8[pos] = 0xd2; view().setInt32(pos + 1, v); pos += 5;
    }
  } else if (Number.isSafeInteger(v)) {        // the 64-bit forms
    const hi = Math.floor(v / 4294967296);
    u8[pos] = v > 0 ? 0xcf : 0xd3;
    view().setInt32(pos + 1, hi);
    view().setUint32(pos + 5, v - hi * 4294967296);
    pos += 9;
  } else {
    writeFloat64(v);
  }
}

function writeFloat64(v) {
  u8[pos] = 0xcb;
  view().setFloat64(pos + 1, v);
  pos += 9;
}

// A key that the for-in above no longer visits, and its value now (undefined when deleted).
function writeEntry(o, k, depth) {
  writeString(k);
  writeValue(o[k], depth);
}

// A number that is not an integer (always a float 64), written where it
// was read: a double field or element passed to a call V8 does not inline
// is boxed first (a 16-byte HeapNumber per value, garbage at once), and
// this is small enough to be inlined into the loops that read them.
function putFloat64(v) {
  if (end - pos < 9) more(9);
  u8[pos] = 0xcb;
  view().setFloat64(pos + 1, v);
  pos += 9;
}

const U64_MAX = 0xffffffffffffffffn;
const I64_MIN = -0x8000000000000000n;

// BigInt <-> int64/uint64: always the 64-bit forms, so the type survives.
function writeBigInt(v) {
  if (v > U64_MAX || v < I64_MIN)
    throw new EncodeFailure(codes.VALUE_RANGE, `BigInt ${v} does not fit in 64 bits`);
  if (end - pos < 9) more(9);
  if (v >= 0n) { u8[pos] = 0xcf; view().setBigUint64(pos + 1, v); }
  else { u8[pos] = 0xd3; view().setBigInt64(pos + 1, v); }
  pos += 9;
}

// ---- strings ---------------------------------------------------------------

// Short strings through putStr, with room for their worst case.
function writeString(s) {
  const n = s.length;
  if (n >= 32) { writeLongerString(s, n); return; }
  if (end - pos < 3 * n + 2) more(3 * n + 2);
  pos = putStr(u8, pos, s);
}

const isPair = (s, i) => i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;

// One non-ASCII UTF-16 unit at p (a lone surrogate becomes U+FFFD).
function putChar(c, p) {
  if (c < 0x800) {
    u8[p] = 0xc0 | (c >> 6); u8[p + 1] = 0x80 | (c & 63);
    return p + 2;
  }
  if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
  u8[p] = 0xe0 | (c >> 12); u8[p + 1] = 0x80 | ((c >> 6) & 63); u8[p + 2] = 0x80 | (c & 63);
  return p + 3;
}

// A surrogate pair at p.
function putPair(hi, lo, p) {
  const cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
  u8[p] = 0xf0 | (cp >> 18); u8[p + 1] = 0x80 | ((cp >> 12) & 63);
  u8[p + 2] = 0x80 | ((cp >> 6) & 63); u8[p + 3] = 0x80 | (cp & 63);
  return p + 4;
}

/**
 * Bytes of the str header for n bytes: fixstr 1, str 8 2, str 16 3, str 32 5.
 * The one copy of this rule in JS (C's is sp_str_header_size); the page uses it too.
 */
export const strHeaderSize = (n) => (n < 32 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);

/** The str header of 'size' bytes (strHeaderSize(len)) for len bytes at t[at]. */
export function putStrHeader(t, at, len, size) {
  if (size === 1) t[at] = 0xa0 | len;
  else if (size === 2) { t[at] = 0xd9; t[at + 1] = len; }
  else if (size === 3) { t[at] = 0xda; t[at + 1] = len >>> 8; t[at + 2] = len & 0xff; }
  else { t[at] = 0xdb; t[at + 1] = len >>> 24; t[at + 2] = (len >>> 16) & 0xff; t[at + 3] = (len >>> 8) & 0xff; t[at + 4] = len & 0xff; }
}

/**
 * s as a str at t[at], where t holds it at its worst before 'end' (3 bytes
 * a unit, under the header for that): the body after the header its length
 * in units gives, moved on if its UTF-8 needs a wider one. Returns where it
 * ends. The writer's, and encodeInto's for text it writes straight into
 * the target (sink-target.js, flat-into.js).
 */
export function writeStrAt(t, at, s, end) {
  const guess = strHeaderSize(s.length), start = at + guess;
  const len = writeUtf8(t, s, start, end - start), size = strHeaderSize(len);
  if (size > guess) t.copyWithin(at + size, start, start + len);
  putStrHeader(t, at, len, size);
  return at + size + len;
}

// 32 units and more: the host's UTF-8 encoder after a guessed header. When
// the span cannot hold the worst case (3 bytes a unit) -- long strings, or
// a fixed target near its end -- the body is written optimistically after
// a 5-byte header slot: if it ended 4 or more bytes before the span did, it
// is complete (a cut-off write stops less than one character short), and
// the body moves back under the smallest header. Otherwise it is written
// aside first (writeStagedString), or, past STAGED_TEXT_MAX, its length is
// counted, and the body goes in chunks. Room is asked for at once only up
// to POOLED_PIECE_MAX, which C's pool still gives in one piece, and the
// worst case only up to a sink's onePiece (encode()'s: past it the
// message would move to a buffer of that size of its own, for bytes that
// may be a third of it).

function writeLongerString(s, n) {
  if (n >= sink.textDeferMin) {   // encodeInto's: written once, by its finish(), where the target has room
    const at = sink.deferText(s, pos);
    if (at < 0) return;
    if (at !== pos) { u8 = sink.u8; dv = sink.dv; pos = at; end = sink.end; }   // (it staged what it had deferred)
  }
  const worst = 3 * n + 5;
  if (end - pos >= worst || (n <= LONG_STRING && !sink.fixed && !(worst > sink.onePiece))) {   // (no onePiece: no bound)
    if (end - pos < worst) more(worst);
    pos = writeStrAt(u8, pos, s, end);
    return;
  }
  // Text that does not look ASCII is written aside at once: written
  // optimistically, it would mostly not fit.
  if (n <= STAGED_TEXT_MAX && !looksAscii(s, n)) { writeStagedString(s, n); return; }
  if (n + 9 > sink.onePiece && end - pos < n + 9) { writeWholeString(s, n); return; }
  if (end - pos < n + 9 && !sink.fixed && n + 9 <= POOLED_PIECE_MAX) more(n + 9);
  if (end - pos >= n + 9) {
    const max = end - pos - 5;
    const len = writeUtf8(u8, s, pos + 5, max);
    if (len <= max - 4) {
      const size = strHeaderSize(len);
      if (size < 5) u8.copyWithin(pos + size, pos + 5, pos + 5 + len);
      putStrHeader(u8, pos, len, size);
      pos += size + len;
      return;
    }
  }
  writeChunkedString(s, n);
}

// Whether s's first, middle and last units are ASCII: a guess (three reads)
// at whether its UTF-8 is a byte a unit.
function looksAscii(s, n) {
  return (s.charCodeAt(0) | s.charCodeAt(n >>> 1) | s.charCodeAt(n - 1)) < 0x80;
}

// A sink with a 'onePiece' bound (encode's) takes a body past it in one piece
// of its exact size: first as ASCII (n bytes; the encoder says whether all
// of s went), else written aside (or counted) and written again.
function writeWholeString(s, n) {
  const size = strHeaderSize(n);
  if (end - pos < size + n) more(size + n);
  if (writeIfAscii(u8, s, pos + size)) {
    putStrHeader(u8, pos, n, size);
    pos += size + n;
    return;
  }
  writeChunkedString(s, n);
}

function writeChunkedString(s, n) {
  if (n <= STAGED_TEXT_MAX) { writeStagedString(s, n); return; }
  const len = utf8Length(s);
  if (len > 0xffffffff) throw new EncodeFailure(codes.LENGTH_LIMIT, 'string longer than 2^32-1 bytes');
  writeStrHeader(len);
  writeUtf8Body(s, n, len);
}

// A string whose length is not known, written aside to learn it (counting
// it first takes longer than writing it), then its header and the bytes,
// as a body: one more copy, at memcpy speed. The staging array is kept
// between calls up to TEXT_STAGE_KEPT bytes.
function writeStagedString(s, n) {
  let t = textStage;
  if (t === null || t.length < 3 * n) t = new Uint8Array(unzeroedBuffer(Math.max(3 * n, 4096)));   // (only what is written is read)
  textStage = t.length <= TEXT_STAGE_KEPT ? t : null;
  const len = writeUtf8(t, s, 0, 3 * n);
  writeStrHeader(len);
  writeRaw(t.subarray(0, len), true);
}

function writeStrHeader(len) {
  if (end - pos < 5) more(5);
  const size = strHeaderSize(len);
  putStrHeader(u8, pos, len, size);
  pos += size;
}

// The UTF-8 of s (n units, len bytes) in pieces as big as the span allows.
function writeUtf8Body(s, n, len) {
  // A sink with a 'onePiece' bound (encode's) takes a body past it in one
  // piece, in JS memory: one write (slices write slower).
  if (len > sink.onePiece && end - pos < len) more(len);
  if (end - pos >= len) {               // room for all of it (len is exact)
    pos += writeUtf8(u8, s, pos, len);
    return;
  }
  if (len === n) {                      // ASCII: one byte per unit, chunks as big as the span
    for (let i = 0; i < n;) {
      if (pos >= end) more(Math.min(n - i, RAW_CHUNK));
      const k = Math.min(n - i, end - pos);
      pos += writeUtf8(u8, k === n ? s : s.substring(i, i + k), pos, k);
      i += k;
    }
    return;
  }
  for (let i = 0; i < n;) {             // up to 3 bytes per unit: a third of the span at a time
    if (end - pos < 8) more(Math.max(8, Math.min(3 * (n - i), RAW_CHUNK)));
    let k = Math.min(n - i, Math.floor((end - pos) / 3));
    if (k < n - i && (s.charCodeAt(i + k - 1) & 0xfc00) === 0xd800) k--;   // keep pairs whole
    pos += writeUtf8(u8, k === n ? s : s.substring(i, i + k), pos, end - pos);
    i += k;
  }
}

// ---- raw bytes, bin, ext ---------------------------------------------------

// W.token's bytes one at a time, near the end of the span (its fast path
// stores all 8 bytes of its two words and moves on by n).
function writeToken(n, hi, lo) {
  if (end - pos < n) more(n);
  for (let i = 0; i < n; i++) u8[pos + i] = (i < 4 ? hi >>> (24 - 8 * i) : lo >>> (56 - 8 * i)) & 0xff;
  pos += n;
}

// now: copy b's bytes into the span before returning, never defer them.
// What an extension's encode returns may be a view of a buffer it reuses
// on its next call, later in the same message.
function writeRaw(b, now = false) {
  const n = b.length;
  if (n >= sink.deferMin && !now) {     // encodeInto's: copied once, by its finish()
    sink.defer(b, pos);
    return;
  }
  if (n <= end - pos) {
    if (n < 32) for (let i = 0; i < n; i++) u8[pos + i] = b[i];
    else if (sink.shared) copyBytes(u8, pos, b);    // (asking the arrays themselves costs ~80 ns a copy)
    else u8.set(b, pos);
    pos += n;
    return;
  }
  if (n > sink.onePiece) more(n);       // JS memory, in one piece (see writeUtf8Body)
  for (let i = 0; i < n;) {
    if (pos >= end) more(Math.min(n - i, RAW_CHUNK));
    const k = Math.min(end - pos, n - i);
    if (sink.shared) copyBytes(u8, pos, b.subarray(i, i + k));
    else u8.set(b.subarray(i, i + k), pos);
    pos += k;
    i += k;
  }
}

function writeBin(b) {
  writeBinHeader(b.length);
  writeRaw(b);
}

function writeBinHeader(n) {
  if (n > 0xffffffff) throw new EncodeFailure(codes.LENGTH_LIMIT, 'binary longer than 2^32-1 bytes');
  if (end - pos < 5) more(5);
  if (n < 0x100) { u8[pos] = 0xc4; u8[pos + 1] = n; pos += 2; }
  else if (n < 0x10000) { u8[pos] = 0xc5; u8[pos + 1] = n >>> 8; u8[pos + 2] = n & 0xff; pos += 3; }
  else { u8[pos] = 0xc6; view().setUint32(pos + 1, n); pos += 5; }
}

function writeExtHeader(type, n) {
  if (end - pos < 6) more(6);
  const fix = n === 1 ? 0xd4 : n === 2 ? 0xd5 : n === 4 ? 0xd6 : n === 8 ? 0xd7 : n === 16 ? 0xd8 : 0;
  if (fix) { u8[pos++] = fix; }
  else if (n < 0x100) { u8[pos] = 0xc7; u8[pos + 1] = n; pos += 2; }
  else if (n < 0x10000) { u8[pos] = 0xc8; u8[pos + 1] = n >>> 8; u8[pos + 2] = n & 0xff; pos += 3; }
  else { u8[pos] = 0xc9; view().setUint32(pos + 1, n); pos += 5; }
  u8[pos++] = type & 0xff;
}

// Date <-> timestamp ext -1 in its smallest form (32, 64 or 96 bits).
function writeDate(d) {
  const ms = d.getTime();
  if (Number.isNaN(ms)) throw new EncodeFailure(codes.VALUE_RANGE, 'cannot encode an invalid Date');
  const sec = Math.floor(ms / 1000);
  const nsec = (ms - sec * 1000) * 1000000;
  if (end - pos < 15) more(15);
  if (sec >= 0 && sec < 17179869184) {                 // 2^34
    if (nsec === 0 && sec < 4294967296) {
      u8[pos] = 0xd6; u8[pos + 1] = 0xff; view().setUint32(pos + 2, sec); pos += 6;
    } else {
      u8[pos] = 0xd7; u8[pos + 1] = 0xff;
      view().setUint32(pos + 2, nsec * 4 + Math.floor(sec / 4294967296));
      view().setUint32(pos + 6, sec >>> 0);
      pos += 10;
    }
    return;
  }
  u8[pos] = 0xc7; u8[pos + 1] = 12; u8[pos + 2] = 0xff;
  view().setUint32(pos + 3, nsec);
  view().setBigInt64(pos + 7, BigInt(sec));
  pos += 15;
}

// ---- containers ------------------------------------------------------------

/**
 * Bytes of an array or map header for n elements: fix 1, 16-bit 3, 32-bit 5.
 * The one copy of this rule in JS (sink-numeric.js sizes arrays by it).
 */
export const containerHeaderSize = (n) => (n < 16 ? 1 : n < 0x10000 ? 3 : 5);

/**
 * Writes the header of an array (fix 0x90, c16 0xdc) or a map (0x80, 0xde)
 * of n elements at u8[at], which has room for 5 bytes; returns its size.
 * The one place JS writes these headers (sink-numeric.js writes a big
 * typed array's through it).
 */
export function putContainerHeader(u8, at, n, fix, c16) {
  if (n < 16) { u8[at] = fix | n; return 1; }
  if (n < 0x10000) { u8[at] = c16; u8[at + 1] = n >>> 8; u8[at + 2] = n & 0xff; return 3; }
  if (n > 0xffffffff)
    throw new EncodeFailure(codes.LENGTH_LIMIT, `${fix === 0x90 ? 'array' : 'map'} longer than 2^32-1 elements`);
  u8[at] = c16 + 1; u8[at + 1] = n >>> 24; u8[at + 2] = (n >>> 16) & 0xff;
  u8[at + 3] = (n >>> 8) & 0xff; u8[at + 4] = n & 0xff;
  return 5;
}

function writeHeader(n, fix, c16) {
  if (end - pos < 5) more(5);
  pos += putContainerHeader(u8, pos, n, fix, c16);
}

function writeArray(a, depth) {
  const n = a.length;
  writeHeader(n, 0x90, 0xdc);
  let i = 0;
  try {
    for (; i < n; i++) {
      const x = a[i];
      if (typeof x !== 'number') writeValue(x, depth);
      else if (Number.isInteger(x)) writeNumber(x);   // numeric arrays: no writeValue dispatch (bench:js c.ints)
      else putFloat64(x);
    }
  } catch (e) {
    throw within(e, indexStep(i));
  }
}

// An object's own enumerable string keys, as Object.keys lists them, go
// on one stack the walk reuses: Object.keys made a new array per object,
// most of the JS garbage an encode left. for-in visits own keys in
// Object.keys's order (then inherited ones, left out), and over an object
// V8 has seen before it reads the shape's cached key list, allocating
// nothing. The keys are taken before any value is written, so a getter that
// adds or deletes keys changes nothing here, as with Object.keys. The values
// are then read in a second for-in, where V8 loads a field by its index
// instead of looking the key up (measured faster than o[keys[i]]); a key
// it no longer visits is written from the stack as Object.keys's would be.
const keyStack = [];
let keyTop = 0;
const KEYS_KEPT = 4096;           // a deeper stack is cut back after the encode that grew it
const hasOwn = Object.prototype.hasOwnProperty;

function writeObjectMap(o, depth) {
  const start = keyTop;
  for (const k in o) if (hasOwn.call(o, k)) keyStack[keyTop++] = k;
  const n = keyTop - start;
  let i = start;
  try {
    writeHeader(n, 0x80, 0xde);
    const last = keyTop;
    for (const k in o) {                // values read here: V8 loads the field by its index
      if (i === last) break;
      if (k !== keyStack[i]) {          // a getter deleted keys (or k is inherited): as Object.keys would
        const m = keyStack.indexOf(k, i);
        if (m < 0 || m >= last) continue;
        for (; i < m; i++) writeEntry(o, keyStack[i], depth);
      }
      writeString(k);
      const v = o[k];
      if (typeof v !== 'number') writeValue(v, depth);
      else if (Number.isInteger(v)) writeNumber(v);
      else putFloat64(v);
      i++;
    }
    for (; i < last; i++) writeEntry(o, keyStack[i], depth);
  } catch (e) {
    throw within(e, keyStep(keyStack[i]));
  } finally {
    keyTop = start;
  }
}

// The header says the size the Map had when the walk met it, and exactly
// that many entries follow: a getter inside may add entries (the ones past
// the count are left out, as encodeToStream leaves them) or delete some
// (fewer would follow than the header says: INVALID_ARGUMENT, as there).
function writeMap(m, depth) {
  const n = m.size;
  writeHeader(n, 0x80, 0xde);
  let i = 0;
  for (const [k, v] of m) {
    if (i === n) return;
    try { writeValue(k, depth); } catch (e) { throw within(e, mapKeyStep(k)); }
    try { writeValue(v, depth); } catch (e) { throw within(e, mapStep(k)); }
    i++;
  }
  if (i < n) throw new EncodeFailure(codes.INVALID_ARGUMENT, `the Map lost entries while it was written (${n} at the start)`);
}

// A plain Uint8Array or Buffer (isPlainBytes) the caller gave as a bin:
// an empty one may be detached.
function writeBinView(b) {
  if (b.length === 0 && isDetached(b)) detached();
  writeBin(b);
}

// Any Uint8Array as a bin (a contract's bin field): a subclass as the
// bytes it really has.
function writeAnyBin(b) {
  if (isPlainBytes(b)) writeBinView(b);
  else writeBin(trueBytes(b) ?? detached());
}

function writeTyped(view) {
  if (isPlainBytes(view)) {            // a bin: the common case, without the kind lookups
    writeBinView(view);
    return;
  }
  // Its real elements, through the built-in getters: whatever its class or
  // own properties say of its length, the header and the bytes agree.
  view = trueView(view) ?? detached();
  view = halvesAsFloat32(view) ?? view;
  const ctor = view.constructor;       // (an array made here now: its constructor is what it is)
  const kind = ctor === Uint8Array ? -1 : kindOfCtor(ctor);
  if (kind < 0) {                      // a Uint8Array subclass, a DataView: bin
    writeBin(view);
    return;
  }
  if (sink.array === undefined) { writeNumbers(view, kind); return; }   // a sink without C (GrowSink)
  sink.pos = pos;
  const bytes = sink.array(kind, view);
  u8 = sink.u8; dv = sink.dv; pos = sink.pos; end = sink.end;
  if (bytes !== null) writeRaw(bytes);
}

const refused = [
  [typeof Set === 'function' ? Set : null, 'a Set (convert it to an Array)'],
  [typeof WeakMap === 'function' ? WeakMap : null, 'a WeakMap'],
  [typeof WeakSet === 'function' ? WeakSet : null, 'a WeakSet'],
  [typeof WeakRef === 'function' ? WeakRef : null, 'a WeakRef'],
  [typeof Promise === 'function' ? Promise : null, 'a Promise (await it first)'],
  [RegExp, 'a RegExp'],
].filter(([c]) => c !== null);

function writeObject(v, depth) {
  if (depth > maxDepth)
    throw new EncodeFailure(codes.DEPTH_LIMIT, `nesting deeper than ${maxDepth} levels`);
  // A bin, the commonest object after plain ones and arrays, straight to its
  // writer: what classifyObject would find (no extension can claim it when
  // there are none). A plain Uint8Array only (as isPlainBytes; a Buffer
  // goes on to writeTyped): a subclass is read through the built-in getters.
  if (exts === null && v.constructor === Uint8Array && ArrayBuffer.isView(v)) { writeBinView(v); return; }
  switch (classifyObject(v, exts)) {
    case OBJECT: enter(v, depth); writeObjectMap(v, depth); break;
    case EXTENSION: writeExtension(v, claimedBy()); return;
    case ARRAY: enter(v, depth); writeArray(v, depth); break;
    case VIEW: writeTyped(v); return;
    case MAP: enter(v, depth); writeMap(v, depth); break;
    case DATE: writeDate(v); return;
    case EXT: writeExt(v); return;
    case BUFFER: if (isDetached(v)) detached(); writeBin(binBytes(v)); return;
    case CONTRACT: enter(v, depth); contractClasses.get(v.constructor)(v, depth); break;
    default: enter(v, depth); writeOtherObject(v, depth);
  }
  if (depth > OPEN_SCAN) deepOpen.delete(v);
}

// Container v is entered at depth (1 and up): CYCLE if the walk is inside
// it already. The root (depth 1) is not kept -- a small message then costs
// nothing here -- so a cycle back to it is found one level down, at its
// child meeting itself again; slot 1 stays empty.
function enter(v, depth) {
  if (depth === 1) return;
  const at = openBase + depth;
  for (let i = openBase + 2, to = depth > OPEN_SCAN ? openBase + OPEN_SCAN : at - 1; i <= to; i++) if (open[i] === v) cycle();
  if (depth > OPEN_SCAN) {
    if (deepOpen === null) deepOpen = new Set();
    if (deepOpen.has(v)) cycle();
    deepOpen.add(v);
  }
  open[at] = v;
  if (at > openTop) openTop = at;
}

// An Ext as it is now: its fields were checked when it was made, but may
// have been assigned since.
function writeExt(v) {
  const type = v.type, d = v.data;
  const data = d instanceof Uint8Array && ArrayBuffer.isView(d) ? trueBytes(d) ?? d : d;   // (detached: extProblem says so)
  const wrong = extProblem(type, data);
  if (wrong !== null) throw new EncodeFailure(codes.INVALID_ARGUMENT, `an Ext whose fields changed after it was made: ${wrong}`);
  writeExtHeader(type, data.length);
  writeRaw(data);
}

/** Throws the failure of bytes over a detached (transferred) buffer. */
export function detached() {
  throw new EncodeFailure(codes.INVALID_ARGUMENT, 'a typed array or ArrayBuffer whose buffer was detached (transferred away): its bytes are gone');
}

function cycle() {
  throw new EncodeFailure(codes.CYCLE, 'cyclic structure: this value is its own ancestor');
}

// A value of a registered class (or a subclass) as its extension e's ext.
// The user's encode may encode in turn: encodeWith saves this walk's state
// and re-makes its views, as for a getter.
function writeExtension(v, e) {
  const data = extEncode(e, v);
  if (data.length > 0xffffffff) throw new EncodeFailure(codes.LENGTH_LIMIT, 'ext data longer than 2^32-1 bytes');
  writeExtHeader(e.type, data.length);
  writeRaw(data, true);
}

/**
 * A part of a value, for encodeToStream, which writes big values in parts:
 * the header of an array or map (kind 'array' / 'map', n elements) or of a
 * str or bin (kind 'str' / 'bin', n bytes), then elements or the body's
 * pieces ('raw': data, a Uint8Array; 'utf8': data, a string, n its UTF-8
 * length). Written with encodeWith(sink, part, 1). Not exported from the
 * package, so no user value is one.
 */
export class StreamPart {
  constructor(kind, n, data) {
    this.kind = kind;
    this.n = n;
    this.data = data;
  }
}

function writePart(p) {
  switch (p.kind) {
    case 'array': writeHeader(p.n, 0x90, 0xdc); return;
    case 'map': writeHeader(p.n, 0x80, 0xde); return;
    case 'bin': writeBinHeader(p.n); return;
    case 'str': writeStrHeader(p.n); return;
    case 'raw': writeRaw(p.data); return;
    default: writeUtf8Body(p.data, p.data.length, p.n);
  }
}

function writeOtherObject(v, depth) {
  if (v instanceof StreamPart) {
    writePart(v);
    return;
  }
  for (const [c, what] of refused)
    if (v instanceof c) throw new EncodeFailure(codes.UNSUPPORTED_TYPE, `cannot encode ${what}`);
  if (v instanceof Number || v instanceof String || v instanceof Boolean || (typeof BigInt === 'function' && v instanceof BigInt)) {
    writeValue(v.valueOf(), depth);
    return;
  }
  writeObjectMap(v, depth);                     // class instances, null-prototype objects
}

// ---- contracts ---------------------------------------------------------------
// A contract's encoder (contract-compile.js generates one, contract-interp.js
// builds one from closures) writes through these: the same formats as the
// walk above, at its span. Each call reserves what it writes.

// A numeric typed array element by element, as C's bulk writer writes it
// (integers in their smallest form, floats never narrowed): for sinks
// without C, and contract fields of typed arrays.
function writeNumbers(view, kind) {
  const n = view.length;
  writeHeader(n, 0x90, 0xdc);
  if (kind === 6) for (let i = 0; i < n; i++) writeF32(view[i]);
  else if (kind === 7) for (let i = 0; i < n; i++) { if (end - pos < 9) more(9); writeFloat64(view[i]); }
  else if (kind >= 8) for (let i = 0; i < n; i++) writeBigSmall(view[i]);
  else for (let i = 0; i < n; i++) writeNumber(view[i]);
}

function writeF32(v) {
  if (end - pos < 5) more(5);
  u8[pos] = 0xca;
  view().setFloat32(pos + 1, v);
  pos += 5;
}

// A BigInt of int64/uint64 in its smallest form, as C's sp_write_int does
// (not the full width writeBigInt keeps for untyped values).
function writeBigSmall(v) {
  if (v >= -2147483648n && v <= 4294967295n) writeNumber(Number(v));
  else writeBigInt(v);
}

// ---- a contract's fast runs ----------------------------------------------------
// Generated contract encoders (contract-compile.js) write a run of fields
// whose worst case they know at a local cursor: reserve() that many bytes
// once, put*(u, p, ...) each returning the position after what it wrote,
// and done(p) to move the span's position there. Nothing else may write
// between reserve() and done(); a run that gives up before done() leaves
// the span as it was.

/** Strings of at most this many UTF-16 units go in a run (3 bytes a unit: a str 8 header at most). */
export const RUN_STR_MAX = 80;

// An integer of -2^31 .. 2^32-1 at p in its smallest form (writeNumber's, and an int field's range).
function putInt(u, p, v) {
  if (v >= 0) {
    if (v < 0x80) { u[p] = v; return p + 1; }
    if (v < 0x100) { u[p] = 0xcc; u[p + 1] = v; return p + 2; }
    if (v < 0x10000) { u[p] = 0xcd; u[p + 1] = v >>> 8; u[p + 2] = v & 0xff; return p + 3; }
    u[p] = 0xce; view().setUint32(p + 1, v); return p + 5;
  }
  if (v >= -32) { u[p] = v & 0xff; return p + 1; }
  if (v >= -128) { u[p] = 0xd0; u[p + 1] = v & 0xff; return p + 2; }
  if (v >= -32768) { u[p] = 0xd1; u[p + 1] = (v >> 8) & 0xff; u[p + 2] = v & 0xff; return p + 3; }
  u[p] = 0xd2; view().setInt32(p + 1, v); return p + 5;
}

// A string of at most RUN_STR_MAX units at p (writeString's short ones):
// the header guessed from the unit count (UTF-8 is never shorter), the body
// written after it and moved forward by one byte in the rare case the
// guess was short. u is the span's array (the non-ASCII helpers write it).
// ASCII goes four units at a time, one test for the four (faster on V8
// than one at a time or eight: bench:contract).
function putStr(u, p, s) {
  const n = s.length, start = p + 1;
  let i = 0, q = start;
  for (; i + 4 <= n; i += 4) {
    const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2), d = s.charCodeAt(i + 3);
    if ((a | b | c | d) >= 0x80) break;
    u[q] = a; u[q + 1] = b; u[q + 2] = c; u[q + 3] = d; q += 4;
  }
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) u[q++] = c;
    else if (c >= 0xd800 && c < 0xdc00 && isPair(s, i)) q = putPair(c, s.charCodeAt(++i), q);
    else q = putChar(c, q);
  }
  const len = q - start;
  if (len < 32) { u[p] = 0xa0 | len; return q; }
  u.copyWithin(start + 1, start, q);
  u[p] = 0xd9; u[p + 1] = len;
  return q + 1;
}

/** The writer's primitives for contract encoders. */
export const W = Object.freeze({
  nil: writeNil,
  bool(b) {
    if (pos >= end) more(1);
    u8[pos++] = b ? 0xc3 : 0xc2;
  },
  int(v) { writeNumber(v + 0); },          // (+ 0: -0 is the integer 0, not a float)
  big: writeBigSmall,
  f32: writeF32,
  f64(v) {
    if (end - pos < 9) more(9);
    writeFloat64(v);
  },
  str: writeString,
  bin: writeAnyBin,
  date: writeDate,
  any: writeValue,
  numbers: writeNumbers,
  array(n) { writeHeader(n, 0x90, 0xdc); },
  map(n) { writeHeader(n, 0x80, 0xde); },
  raw: writeRaw,                            // a pre-encoded map key
  token(n, hi, lo) {                        // n <= 8 constant bytes, big-endian in hi then lo
    if (end - pos < 8) { writeToken(n, hi, lo); return; }
    u8[pos] = hi >>> 24; u8[pos + 1] = (hi >>> 16) & 0xff; u8[pos + 2] = (hi >>> 8) & 0xff; u8[pos + 3] = hi & 0xff;
    u8[pos + 4] = lo >>> 24; u8[pos + 5] = (lo >>> 16) & 0xff; u8[pos + 6] = (lo >>> 8) & 0xff; u8[pos + 7] = lo & 0xff;
    pos += n;
  },
  byte(b) {                                 // a one-byte token (a fix header)
    if (pos >= end) more(1);
    u8[pos++] = b;
  },
  /** Makes room for n bytes; the position they start at (in buf()). */
  reserve(n) {
    if (end - pos < n) more(n);
    return pos;
  },
  buf() { return u8; },
  view,
  done(p) { pos = p; },
  putInt,
  putStr,
  putBytes(u, p, b) {
    for (let i = 0; i < b.length; i++) u[p + i] = b[i];
    return p + b.length;
  },
  /** A contract's level at depth whose value is not checked for cycles (an array, a list's elements). */
  deeper(depth) {
    if (depth > maxDepth) throw new EncodeFailure(codes.DEPTH_LIMIT, `nesting deeper than ${maxDepth} levels`);
    open[openBase + depth] = undefined;         // no ancestor there: not an earlier sibling's container
  },
  /** A nested contract's value v at depth: as deeper, and CYCLE if the walk is inside v already. */
  nest(v, depth) {
    if (depth > maxDepth) throw new EncodeFailure(codes.DEPTH_LIMIT, `nesting deeper than ${maxDepth} levels`);
    enter(v, depth);
  },
  /** After nest's value is written. */
  unnest(v, depth) {
    if (depth > OPEN_SCAN) deepOpen.delete(v);
  },
});
