// flat-into.js -- encodeInto's direct path for a short flat array: the
// [id, bytes] or [kind, id, payload] of an RPC, written straight into the
// target.
// Owns: which arrays it takes (at most FLAT_MAX elements, the last a
// non-empty plain Uint8Array or Buffer or a string of FLAT_TEXT_MIN units
// or more, the others integers in 32-bit range, nil, booleans or such
// bins), their MessagePack sizes, and writing such a message when it fits
// (a string at its worst, 3 bytes a unit): the elements read in order,
// each once, and every body read when the message is complete, its length
// checked then (the walk reads so the bodies of DEFER_MIN bytes and more).
// Must not touch: any other value or a message that does not fit -- it
// returns -1 having written nothing and the walk (writer.js, through
// sink-target.js) encodes the array, errors and all -- nor linear memory.
//
// Why: for such a message the walk's layers (the stage, the sink, the
// deferred body and finish()) cost more than writing it does (docs/node.md,
// round 10).

import { COPY_BY_LOOP, SHARED_COPY_FROM, bodyChanged, sameMemory, targetShared } from './sink-target.js';
import { isPlainBytes, lengthLies } from './typed.js';
import { strHeaderSize, writeStrAt } from './writer.js';

const FLAT_MAX = 8;
// A string last from this many units (shorter ones the walk writes with
// its own loop, which the host's UTF-8 encoder does not beat).
const FLAT_TEXT_MIN = 32;


/**
 * Whether value is an array this path may take: one the walk writes as an
 * array (its constructor is not Object), of at most FLAT_MAX elements, the
 * last a plain Uint8Array or Buffer or a string of FLAT_TEXT_MIN units or
 * more (a message that carries bytes or text, where the walk's layers cost
 * most against the copy). Reads the last element,
 * which flatInto reads again in its turn; anything that throws here is
 * the walk's to report.
 */
export function isFlat(value) {
  try {
    if (!Array.isArray(value) || value.constructor === Object) return false;
    const n = value.length;
    if (n === 0 || n > FLAT_MAX) return false;
    const last = value[n - 1];
    if (typeof last === 'string') return last.length >= FLAT_TEXT_MIN;
    return typeof last === 'object' && last !== null && isPlainBytes(last);
  } catch {
    return false;
  }
}

// While a call runs: the elements as read and each bin's length then.
const got = new Array(FLAT_MAX).fill(undefined);
const lens = new Array(FLAT_MAX).fill(0);
// A short body passes through here: a loop copy straight into the target
// would overwrite its own source where it views the target just before it.
const bounce = new Uint8Array(COPY_BY_LOOP);
let busy = false;

/**
 * Writes array a (isFlat) into target at offset: its length, or -1 when an
 * element is not one this path takes, a read throws, the message does not
 * fit or a body needs the walk's care -- nothing written, and the walk
 * reads the array again (a getter on an index runs twice then:
 * docs/errors.md). A body whose buffer a getter resized or transferred is
 * INVALID_ARGUMENT, the target untouched.
 */
export function flatInto(a, target, offset) {
  if (busy) return -1;                 // an encodeInto from a getter this path is reading: the walk's
  busy = true;
  let n = 0, size = -1;
  try {
    try {
      n = a.length;
      size = read(a, n);
      if (size > target.length - offset || (size >= 0 && !bodiesFit(n, target))) size = -1;   // (too small: the walk's error)
      else if (size >= 0 && typeof got[n - 1] === 'string' && lengthLies(target)) size = -1;   // (the walk's error too)
    } catch (e) {
      if (e instanceof Changed) throw bodyChanged(e.body, e.was);
      size = -1;                       // a read threw: the walk's to report
    }
    return size >= 0 ? write(n, target, offset) - offset : -1;   // (no code of the caller's runs from here)
  } finally {
    busy = false;
    for (let i = 0; i < n; i++) got[i] = undefined;
  }
}

// Reads the n elements in order; returns the message's size (with a string
// at its worst), or -1 at the first element this path does not take.
function read(a, n) {
  let size = 1;
  for (let i = 0; i < n; i++) {
    const x = a[i];
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
    } else if (x === undefined || typeof x === 'boolean') size++;
    else if (typeof x === 'string' && i === n - 1 && x.length >= FLAT_TEXT_MIN) size += strHeaderSize(3 * x.length) + 3 * x.length;
    else return -1;
  }
  return size;
}

// The bodies, now the message is complete: each as long as it was when met
// (else a Changed), and none that needs the walk's copy -- two or more of
// them one of which views the target's memory (copying one could overwrite
// another before it is read), or a long one into a shared target.
function bodiesFit(n, target) {
  let bodies = 0, big = false;
  for (let i = 0; i < n; i++) {
    const x = got[i];
    if (!isBody(x)) continue;
    if (x.length !== lens[i]) throw new Changed(x, lens[i]);
    bodies++;
    big ||= lens[i] >= SHARED_COPY_FROM;   // (into a shared target: the walk's word copy)
  }
  if (big && targetShared(target)) return false;
  return bodies < 2 || !anyOver(n, target.buffer);
}

const isBody = (x) => typeof x === 'object' && x !== null;

// The message into target at offset: the bodies first (one that views the
// target itself is read before anything else is written), then the rest,
// a string last; returns where it ends.
function write(n, t, offset) {
  let at = offset + 1;
  for (let i = 0; i < n; i++) {
    const x = got[i];
    if (typeof x === 'number') at += intSize(x);
    else if (typeof x === 'string') break;       // (the last)
    else if (typeof x !== 'object' || x === null) at++;
    else {
      const len = lens[i], to = at + (len < 0x100 ? 2 : len < 0x10000 ? 3 : 5);
      if (len >= COPY_BY_LOOP) t.set(x, to);
      else {
        for (let j = 0; j < len; j++) bounce[j] = x[j];
        for (let j = 0; j < len; j++) t[to + j] = bounce[j];
      }
      at = to + len;
    }
  }
  t[offset] = 0x90 | n;
  at = offset + 1;
  for (let i = 0; i < n; i++) {
    const x = got[i];
    if (typeof x === 'number') at = putInt(t, at, x);
    else if (x === undefined || x === null) t[at++] = 0xc0;
    else if (x === true) t[at++] = 0xc3;
    else if (x === false) t[at++] = 0xc2;
    else if (typeof x === 'string') at = writeStrAt(t, at, x, t.length);
    else at = putBinHeader(t, at, lens[i]) + lens[i];
  }
  return at;
}

// A body whose length changed after it was met.
class Changed {
  constructor(body, was) {
    this.body = body;
    this.was = was;
  }
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

// Whether a body views the memory of buffer.
function anyOver(n, buffer) {
  for (let i = 0; i < n; i++) if (isBody(got[i]) && sameMemory(got[i], buffer)) return true;
  return false;
}
