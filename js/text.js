// text.js -- UTF-8 in and out of byte arrays, the fastest way each host has.
// Owns: the choice between Node's Buffer codecs and the WHATWG text codecs,
// and the detour shared memory needs in browsers. Must not touch: formats.
//
// Node's utf8Write/utf8Slice work on any Uint8Array, shared or not.
// Chromium's TextEncoder.encodeInto and TextDecoder.decode refuse views of a
// SharedArrayBuffer ("must not be shared"), so there a shared target gets
// the text through a private scratch array and a set(), and a shared source
// is copied out before decoding.

const nodeBuffer = typeof globalThis.Buffer === 'function' ? globalThis.Buffer : null;
const nodeWrite = nodeBuffer ? nodeBuffer.prototype.utf8Write : null;
const nodeSlice = nodeBuffer ? nodeBuffer.prototype.utf8Slice : null;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

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

const isShared = (u8) => typeof SharedArrayBuffer === 'function' && u8.buffer instanceof SharedArrayBuffer;

/** Writes s as UTF-8 at u8[at..at+max) and returns the bytes written; max >= 3 * s.length. */
export function writeUtf8(u8, s, at, max) {
  if (nodeWrite !== null) return nodeWrite.call(u8, s, at, max);
  if (!isShared(u8) || codecsAcceptShared()) return encoder.encodeInto(s, u8.subarray(at, at + max)).written;
  if (scratch.length < max) scratch = new Uint8Array(Math.max(max, scratch.length * 2));
  const n = encoder.encodeInto(s, scratch.subarray(0, max)).written;
  u8.set(scratch.subarray(0, n), at);
  return n;
}

/** The string whose UTF-8 bytes are u8[start..end). Bad sequences become U+FFFD. */
export function readUtf8(u8, start, end) {
  if (nodeSlice !== null) return nodeSlice.call(u8, start, end);
  if (!isShared(u8) || codecsAcceptShared()) return decoder.decode(u8.subarray(start, end));
  return decoder.decode(u8.slice(start, end));
}

/** UTF-8 length of s (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8Length(s) {
  if (nodeBuffer !== null) return nodeBuffer.byteLength(s);   // (naming 'utf8' took a slower path: 14 µs vs 0.7 µs for 100 kB)
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
