// flat-into.js -- encodeInto's direct path for a short flat array: the
// [id, bytes] or [kind, id, payload] of an RPC, written straight into the
// target.
// Owns: which arrays it takes (at most FLAT_MAX elements, each an integer
// in 32-bit range, nil, a boolean or a non-empty plain Uint8Array or
// Buffer), their MessagePack sizes, and writing such a message when it fits.
// Must not touch: any other value or a message that does not fit -- it
// returns -1 with the target untouched and the walk (writer.js, through
// sink-target.js) encodes the array, errors and all -- nor linear memory.
//
// Why: for such a message the walk's layers (the stage, the sink, the
// deferred body and finish()) cost more than writing it does (docs/node.md,
// round 10).

import { targetShared } from './sink-target.js';
import { isPlainBytes } from './typed.js';

const FLAT_MAX = 8;

// A body this long or longer into a shared target goes the walk's way (its
// copy at word speed, sink-target.js); shorter copies do not ask.
const SHARED_ASK_FROM = 4096;
// Up to this many bytes a loop copies faster than set().
const COPY_BY_LOOP = 32;

/**
 * The last element of value when value is an array this path may take --
 * at most FLAT_MAX elements, the last a plain Uint8Array or Buffer (a
 * message that carries bytes, where the walk's layers cost most against
 * the copy) -- else null. (Read once: flatInto is given it.)
 */
export function flatLast(value) {
  if (!Array.isArray(value)) return null;
  const n = value.length;
  if (n === 0 || n > FLAT_MAX) return null;
  const last = value[n - 1];
  if (typeof last !== 'object' || last === null || !isPlainBytes(last)) return null;
  length = n;                          // (as the walk, the length read before any element)
  return last;
}

// The elements as read (each once), and their bins' lengths, while a call
// runs; emptied after it.
const got = new Array(FLAT_MAX).fill(undefined);
const lens = new Array(FLAT_MAX).fill(0);
let length = 0;                       // the array's, as flatLast read it
let busy = false;

/**
 * Writes array a, whose last element flatLast gave, into target at offset
 * when every element is one this path takes and the message fits; returns
 * its length, or -1, having written nothing. Each element is read once,
 * until one is not taken; the walk then reads the array again (so a getter
 * on an index runs twice when a later element sends the array to the
 * walk: docs/errors.md). A read that throws sends it to the walk too,
 * which reads it again and reports what it throws as every encode does.
 */
export function flatInto(a, last, target, offset) {
  if (busy) return -1;                 // an encodeInto from a getter this path is reading: the walk's
  busy = true;
  const n = length;
  try {
    return flat(a, n, last, target, offset);
  } catch {
    return -1;
  } finally {
    busy = false;
    for (let i = 0; i < n; i++) got[i] = undefined;
  }
}

function flat(a, n, last, target, offset) {
  let size = 1, bins = 0, big = false;
  for (let i = 0; i < n; i++) {
    const x = i === n - 1 ? last : a[i];
    got[i] = x;
    if (typeof x === 'number') {
      const s = intSize(x);
      if (s === 0) return -1;
      size += s;
    } else if (typeof x === 'object' && x !== null) {
      if (!isPlainBytes(x)) return -1;
      const len = x.length;
      if (len === 0 || len > 0xffffffff) return -1;   // (an empty one may be detached: the walk says so)
      lens[i] = len;
      size += (len < 0x100 ? 2 : len < 0x10000 ? 3 : 5) + len;
      bins++;
      big ||= len >= SHARED_ASK_FROM;
    } else if (x === undefined || typeof x === 'boolean') size++;
    else return -1;
  }
  if (size > target.length - offset) return -1;       // (BUFFER_TOO_SMALL: the walk's error)
  if (big && targetShared(target)) return -1;
  if (bins > 1 && anyOver(n, target.buffer)) return -1;
  // The bodies first: one that views the target itself is read by set()
  // before anything else is written.
  if (bins > 0) copyBodies(n, target, offset + 1);
  target[offset] = 0x90 | n;
  let at = offset + 1;
  for (let i = 0; i < n; i++) {
    const x = got[i];
    if (typeof x === 'number') at = putInt(target, at, x);
    else if (x === undefined || x === null) target[at++] = 0xc0;
    else if (x === true) target[at++] = 0xc3;
    else if (x === false) target[at++] = 0xc2;
    else at = putBinHeader(target, at, lens[i]) + lens[i];
  }
  return at - offset;
}

// The bytes an integer takes (as writer.js's writeNumber writes it), or 0
// for any other number (-0, a fraction, past 32 bits): the walk's.
function intSize(x) {
  if ((x >>> 0) === x) {
    if (x < 0x80) return x === 0 && 1 / x < 0 ? 0 : 1;
    return x < 0x100 ? 2 : x < 0x10000 ? 3 : 5;
  }
  if ((x | 0) !== x) return 0;
  return x >= -32 ? 1 : x >= -128 ? 2 : x >= -32768 ? 3 : 5;
}

function putInt(t, at, x) {
  if (x >= 0) {
    if (x < 0x80) { t[at] = x; return at + 1; }
    if (x < 0x100) { t[at] = 0xcc; t[at + 1] = x; return at + 2; }
    if (x < 0x10000) { t[at] = 0xcd; t[at + 1] = x >>> 8; t[at + 2] = x & 0xff; return at + 3; }
    t[at] = 0xce;
    putU32(t, at + 1, x);
    return at + 5;
  }
  if (x >= -32) { t[at] = x & 0xff; return at + 1; }
  if (x >= -128) { t[at] = 0xd0; t[at + 1] = x & 0xff; return at + 2; }
  if (x >= -32768) { t[at] = 0xd1; t[at + 1] = (x >> 8) & 0xff; t[at + 2] = x & 0xff; return at + 3; }
  t[at] = 0xd2;
  putU32(t, at + 1, x >>> 0);
  return at + 5;
}

// A bin header for len bytes at t[at]; returns where the body goes.
function putBinHeader(t, at, len) {
  if (len < 0x100) { t[at] = 0xc4; t[at + 1] = len; return at + 2; }
  if (len < 0x10000) { t[at] = 0xc5; t[at + 1] = len >>> 8; t[at + 2] = len & 0xff; return at + 3; }
  t[at] = 0xc6;
  putU32(t, at + 1, len);
  return at + 5;
}

function putU32(t, at, v) {
  t[at] = v >>> 24; t[at + 1] = (v >>> 16) & 0xff; t[at + 2] = (v >>> 8) & 0xff; t[at + 3] = v & 0xff;
}

// Each bin's body to where it goes in the message, whose elements start at 'at'.
function copyBodies(n, t, at) {
  for (let i = 0; i < n; i++) {
    const x = got[i];
    if (typeof x === 'number') at += intSize(x);
    else if (typeof x !== 'object' || x === null) at++;
    else {
      const len = lens[i], to = at + (len < 0x100 ? 2 : len < 0x10000 ? 3 : 5);
      if (len < COPY_BY_LOOP) for (let j = 0; j < len; j++) t[to + j] = x[j];
      else t.set(x, to);
      at = to + len;
    }
  }
}

// Whether a bin of a views the memory of buffer (several bodies: copying
// one could overwrite another before it is read; the walk copies such a
// body out first). Two shared views may be of one memory through
// different buffer objects.
function anyOver(n, buffer) {
  const shared = typeof SharedArrayBuffer === 'function' && buffer instanceof SharedArrayBuffer;
  for (let i = 0; i < n; i++) {
    const x = got[i];
    if (typeof x !== 'object' || x === null) continue;
    const b = x.buffer;
    if (b === buffer || (shared && b instanceof SharedArrayBuffer)) return true;
  }
  return false;
}
