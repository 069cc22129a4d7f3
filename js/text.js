// text.js -- UTF-8 in and out of byte arrays, the fastest way each host has.
// Owns: the choice between Node's Buffer codecs and the WHATWG text codecs,
// the detour shared memory needs in browsers, and in Node the two reads
// that beat utf8Slice (long ASCII; text dense in multi-byte characters,
// decoded here when well-formed). Must not touch: formats.
//
// Node's utf8Write/utf8Slice work on any Uint8Array, shared or not.
// Chromium's TextEncoder.encodeInto and TextDecoder.decode refuse views of a
// SharedArrayBuffer ("must not be shared"), so there a shared target gets
// the text through a private scratch array and a set(), and a shared source
// is copied out before decoding.

import { copyBytes, isShared } from './sink.js';

const nodeBuffer = typeof globalThis.Buffer === 'function' ? globalThis.Buffer : null;
const nodeWrite = nodeBuffer ? nodeBuffer.prototype.utf8Write : null;
const nodeSlice = nodeBuffer ? nodeBuffer.prototype.utf8Slice : null;
const nodeLatin1 = nodeBuffer ? nodeBuffer.prototype.latin1Slice : null;
const nodeUcs2 = nodeBuffer ? nodeBuffer.prototype.ucs2Slice : null;
const encoder = new TextEncoder();
// ignoreBOM: a leading U+FEFF is part of the string, as in Node's utf8Slice
// (the default TextDecoder drops it, so "\ufeffx" would not round trip).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

// node:buffer's isAscii (SIMD), through process.getBuiltinModule (Node >=
// 20.16, the package's floor): no node: import for a browser bundler to chase.
let nodeIsAscii = null;
if (typeof nodeLatin1 === 'function' && typeof process === 'object' && process.versions?.node) {
  const take = (m) => { if (m && typeof m.isAscii === 'function') nodeIsAscii = m.isAscii; };
  take(process.getBuiltinModule('node:buffer'));
}

// UTF-16 units decoded here reach a string through ucs2Slice, which reads
// them little-endian: only on little-endian hosts.
const unitsOk = typeof nodeUcs2 === 'function' && new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

let sharedOk = null; // do the WHATWG codecs accept shared views here?
let scratch = new Uint8Array(1024);

function codecsAcceptShared() {
  if (sharedOk === null) {
    sharedOk = true;
    if (typeof SharedArrayBuffer === 'function') {
      try {
        const probe = new Uint8Array(new SharedArrayBuffer(8));
        encoder.encodeInto('a', probe);
        decoder.decode(probe.subarray(0, 1));
      } catch {
        sharedOk = false;
      }
    }
  }
  return sharedOk;
}

/** Writes s as UTF-8 at u8[at..at+max) and returns the bytes written; max >= 3 * s.length. */
export function writeUtf8(u8, s, at, max) {
  if (nodeWrite !== null) return nodeWrite.call(u8, s, at, max);
  if (!isShared(u8) || codecsAcceptShared()) return encoder.encodeInto(s, u8.subarray(at, at + max)).written;
  if (scratch.length < max) scratch = new Uint8Array(Math.max(max, scratch.length * 2));
  const n = encoder.encodeInto(s, scratch.subarray(0, max)).written;
  copyBytes(u8, at, scratch.subarray(0, n));      // (at word speed wherever 'at' falls)
  return n;
}

/**
 * Writes s at u8[at..at+s.length) if it is all ASCII (one byte a unit) and
 * returns true; false if it is not (the bytes there are then garbage) or the
 * host cannot tell here (a shared array where the codecs refuse it).
 */
export function writeIfAscii(u8, s, at) {
  if (isShared(u8) && !codecsAcceptShared()) return false;
  return encoder.encodeInto(s, u8.subarray(at, at + s.length)).read === s.length;
}

// Where Node's own UTF-8 decoding loses (npm run bench:js, d.strings and
// e.big): a long ASCII string is a SIMD check and a Latin-1 copy, faster
// than utf8Slice from 8 kB on; text where multi-byte characters are common
// decodes faster in JS into UTF-16 units, then one ucs2Slice copy.
const ASCII_BULK = 8192;
const UNITS_MAX = 65536;
let units = new Uint16Array(1024);
let unitBytes = new Uint8Array(units.buffer);

/** The string whose UTF-8 bytes are u8[start..end). Bad sequences become U+FFFD. */
export function readUtf8(u8, start, end) {
  if (nodeSlice !== null) {
    const n = end - start;
    if (n >= ASCII_BULK && nodeIsAscii !== null && nodeIsAscii(u8.subarray(start, end)))
      return nodeLatin1.call(u8, start, end);
    if (unitsOk && n <= UNITS_MAX && looksWide(u8, start, n)) {
      const s = jsUtf8(u8, start, end);
      if (s !== null) return s;
    }
    return nodeSlice.call(u8, start, end);
  }
  if (!isShared(u8) || codecsAcceptShared()) return decoder.decode(u8.subarray(start, end));
  return decoder.decode(u8.slice(start, end));
}

// Whether at least two of four bytes sampled across u8[start..start+n) are
// not ASCII: text dense in multi-byte characters, where the JS path wins.
function looksWide(u8, start, n) {
  const q = n >> 2;
  return (u8[start] >> 7) + (u8[start + q] >> 7) + (u8[start + 2 * q] >> 7) + (u8[start + 3 * q] >> 7) >= 2;
}

/**
 * Well-formed UTF-8 decoded in JS (Node, little-endian hosts: see
 * utf8Paths), or null where readUtf8 leaves the bytes to Node's decoder.
 */
export function jsUtf8(u8, start, end) {
  const k = utf8ToUnits(u8, start, end);
  return k < 0 ? null : nodeUcs2.call(unitBytes, 0, 2 * k);
}

/** Which of readUtf8's own paths this host takes now (for tests). */
export function utf8Paths() {
  return { bulkAscii: nodeSlice !== null && nodeIsAscii !== null, units: nodeSlice !== null && unitsOk };
}

// Decodes u8[start..end) into `units` and returns their count, or -1 at
// anything but well-formed UTF-8 (overlong forms, surrogates, code points
// past U+10FFFF, a sequence cut short): those go to the host's decoder, so
// its replacement rules stay the only ones. A leading U+FEFF is a character
// like any other, as utf8Slice keeps it.
function utf8ToUnits(u8, start, end) {
  if (units.length < end - start) {
    units = new Uint16Array(Math.max(end - start, units.length * 2));
    unitBytes = new Uint8Array(units.buffer);
  }
  const out = units;
  let i = start, k = 0;
  while (i < end) {
    const a = u8[i];
    if (a < 0x80) { out[k++] = a; i++; continue; }
    if (a >= 0xe0 && a < 0xf0) {                       // 3 bytes: U+0800..U+FFFF but surrogates
      if (end - i < 3) return -1;
      const b = u8[i + 1], c = u8[i + 2];
      if ((b & 0xc0) !== 0x80 || (c & 0xc0) !== 0x80) return -1;
      const cp = ((a & 15) << 12) | ((b & 63) << 6) | (c & 63);
      if (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000)) return -1;
      out[k++] = cp; i += 3;
    } else if (a >= 0xc2 && a < 0xe0) {                 // 2 bytes: U+0080..U+07FF
      if (end - i < 2) return -1;
      const b = u8[i + 1];
      if ((b & 0xc0) !== 0x80) return -1;
      out[k++] = ((a & 31) << 6) | (b & 63); i += 2;
    } else if (a >= 0xf0 && a < 0xf5) {                 // 4 bytes: U+10000..U+10FFFF, a surrogate pair
      if (end - i < 4) return -1;
      const b = u8[i + 1], c = u8[i + 2], d = u8[i + 3];
      if ((b & 0xc0) !== 0x80 || (c & 0xc0) !== 0x80 || (d & 0xc0) !== 0x80) return -1;
      const cp = ((a & 7) << 18) | ((b & 63) << 12) | ((c & 63) << 6) | (d & 63);
      if (cp < 0x10000 || cp > 0x10ffff) return -1;
      out[k++] = 0xd7c0 + (cp >> 10); out[k++] = 0xdc00 | (cp & 1023); i += 4;
    } else {
      return -1;                                         // a continuation byte, 0xc0, 0xc1, 0xf5..0xff
    }
  }
  return k;
}

/** UTF-8 length of s (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8Length(s) {
  if (nodeBuffer !== null) return nodeBuffer.byteLength(s);   // (naming 'utf8' took a much slower path for big strings)
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length &&
             (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 2; i++; }
    else n += 2;
  }
  return n;
}
