// sink-target.js -- encodeInto's sink: the caller's Uint8Array, written only once the whole message is there.
// Owns: the private stage the writer fills (kept between calls, let go when
// big), BUFFER_TOO_SMALL and when it is thrown, and the one copy from the
// stage into the target (big bin and ext bodies and long strings skip the
// stage: finish() writes them into the target from the value itself), and
// whether a target is shared memory (targetShared: the last answer is kept
// a second).
// Must not touch: formats (writer.js), linear memory (numeric arrays go
// through sink-numeric.js) or the target before the message is complete.

import { EncodeFailure, ScratchpackError, codes } from './errors.js';
import { copyBytes, copyIn, isShared } from './sink.js';
import { arrayMinBytes, writeNumeric } from './sink-numeric.js';
import { isDetached, lengthLies } from './typed.js';
import { strHeaderSize, writeStrAt } from './writer.js';

const TARGET_STAGE_FIRST = 4096;
const TARGET_STAGE_KEEP = 4 << 20;   // a bigger stage is let go after the call (as the heap's staging block)
// Up to this many bytes a loop copies faster than subarray() and set().
export const COPY_BY_LOOP = 32;
// bin and ext bodies of at least this many bytes are not staged (see defer):
// from about here one set() into the target beats two copies, alone or
// many bodies to a message (docs/node.md, round 9).
const DEFER_MIN = 1024;
// The list of deferred bodies is kept between calls up to this many slots
// (three a body), so a message of many bodies does not grow a new list each call.
const DEFERS_KEPT = 3072;
// Nor strings of at least this many UTF-16 units (deferText), where the
// target has room for them at their worst: written as UTF-8 straight into
// the target by finish(), not into the stage and then copied. From here the
// copy saved outweighs what deferring costs a string (docs/node.md, round 11).
const TEXT_DEFER_MIN = 2048;
const TEXT_NEVER = 1 << 30;   // (longer than any string: a small integer, as TEXT_DEFER_MIN is)
// finish() copies with set() from a view of the stage exactly n bytes long;
// such views are kept by n, for the stage they view (messages of a service
// come in few lengths), so a reused target costs no allocation per call.
// A loop copy costs 10-20x set() past a few hundred bytes, and neither
// Buffer's copy() nor a resizable buffer avoids the view. More lengths than
// this empty the cache (it then refills).
const STAGE_VIEWS_KEPT = 256;

/**
 * The caller's array (encodeInto), written only once the whole message is
 * there: the writer fills a private staging array the sink keeps between
 * calls, and finish() copies it into the target if it fits. So a failed
 * encodeInto (BUFFER_TOO_SMALL, or any error part way) leaves the target as
 * it was, for one copy of the message: the same copy encode() makes, into
 * an array that is already there. A worst-case reservation past the
 * target's end is let through (the exact bytes may still fit), so
 * BUFFER_TOO_SMALL means the message really is too big.
 */
export const SHARED_COPY_FROM = 4096;
const SAB = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : null;

export class TargetSink {
  constructor(heap) {
    this.heap = heap;              // typed arrays are encoded by C in its staging block
    this.fixed = false;            // the stage grows: the writer may reserve a string's worst case
    this.u8 = null;
    this.shared = false;           // the stage is plain memory
    this.dv = null;
    this.pos = 0;
    this.end = 0;
    this.target = null;
    this.base = 0;                 // where the message goes in the target
    this.stage = new Uint8Array(TARGET_STAGE_FIRST);
    this.stageDv = new DataView(this.stage.buffer);
    this.views = new Map();        // n -> this.stage.subarray(0, n), for finish()
    this.deferMin = DEFER_MIN;     // the writer defers bin and ext bodies this long (undefined elsewhere: never)
    this.textDeferMin = TEXT_DEFER_MIN;   // and strings this long (TEXT_NEVER for the rest of a call in a tight target)
    this.textWorst = 0;            // what deferred strings may take past the byte a unit counted in deferred
    this.defers = [];              // [stage offset, bytes, their length then] triples: bodies finish() copies from the value
    this.ndefers = 0;              // how many of its slots this call uses (the list is kept, its bodies not)
    this.deferred = 0;             // their bytes
  }

  begin(target, offset) {
    this.target = target;
    this.base = offset;
    this.u8 = this.stage;
    this.dv = this.stageDv;
    this.pos = 0;
    this.end = this.stage.length;
    this.ndefers = 0;
    this.deferred = 0;
    this.textWorst = 0;
    this.textDeferMin = TEXT_DEFER_MIN;
  }

  /** Nothing to re-make: the stage is not linear memory. */
  sync() {}

  /** The DataView over the stage. */
  view() {
    return this.stageDv;
  }

  more(n) {
    const reached = this.base + this.pos + this.deferred;
    if (reached > this.target.length) throw this.tooSmall(reached);
    const need = this.pos + n;
    if (this.stage.length >= need) return;
    // Doubling, but not past what the target can take (a message the size
    // of a big target is not staged in twice its size).
    const room = Math.max(this.target.length - this.base, TARGET_STAGE_FIRST);
    this.resize(Math.max(need, Math.min(this.stage.length * 2, room)));
  }

  // A new stage of size bytes, the first pos kept.
  resize(size) {
    const next = new Uint8Array(size);
    next.set(this.stage.subarray(0, this.pos));
    this.stage = next;
    this.views.clear();
    this.stageDv = new DataView(next.buffer);
    this.u8 = next;
    this.dv = this.stageDv;
    this.end = next.length;
  }

  tooSmall(needed) {
    // A target emptied by a getter (its buffer transferred) is no target.
    if (this.target.length === 0 && isDetached(this.target))
      return new EncodeFailure(codes.INVALID_ARGUMENT, 'the target\'s buffer was detached (transferred) while the value was encoded: it has no bytes to write');
    const f = new EncodeFailure(codes.BUFFER_TOO_SMALL,
      `the target has ${this.target.length} bytes; the message needs at least ${needed}`);
    f.offset = this.target.length;
    return f;
  }

  array(kind, view) {
    const need = this.base + this.pos + this.deferred + arrayMinBytes(kind, view.length);
    if (need > this.target.length) throw this.tooSmall(need);   // before staging anything
    writeNumeric(this, this.heap, kind, view);
    this.heap.unstage();
    return null;
  }

  /** Copies n staged bytes at heap address p into the stage. */
  putHeap(p, n) {
    copyIn(this, null, p, n);
  }

  /**
   * A big bin or ext body that belongs at stage offset `at` (the writer's
   * position; it goes on after it as if the body were not there): not
   * staged but kept, and copied by finish() from the value straight into
   * the target -- one copy of it, not two. The value is the caller's and
   * is read within this same call.
   */
  defer(bytes, at) {
    const reached = this.base + at + this.deferred + bytes.length;
    if (reached > this.target.length) throw this.tooSmall(reached);
    this.defers[this.ndefers] = at;
    this.defers[this.ndefers + 1] = bytes;
    this.defers[this.ndefers + 2] = bytes.length;
    this.ndefers += 3;
    this.deferred += bytes.length;
  }

  /**
   * A string of at least TEXT_DEFER_MIN units at stage offset `at`: not
   * staged, but written by finish() as UTF-8 straight into the target --
   * one write of it, not a write and a copy. Counted at its least (a byte a
   * unit, and the header for that) and its worst (3 bytes a unit). Returns
   * -1 when deferred. Only where the target holds the message so far at its
   * worst with this string at its worst; if not (a tight target), no string
   * is deferred for the rest of the call, the strings deferred so far are
   * staged (stageTexts: finish() need not find out what they take), and it
   * returns where the stage goes on, for the writer to stage this string as
   * any string.
   */
  deferText(s, at) {
    const n = s.length, least = strHeaderSize(n) + n, worst = strHeaderSize(3 * n) + 3 * n;
    const reached = this.base + at + this.deferred;
    if (reached + least > this.target.length) throw this.tooSmall(reached + least);
    if (reached + this.textWorst + worst > this.target.length) {
      this.textDeferMin = TEXT_NEVER;
      if (this.textWorst === 0) return at;
      this.pos = at;
      this.stageTexts();
      return this.pos;
    }
    this.defers[this.ndefers] = at;
    this.defers[this.ndefers + 1] = s;
    this.defers[this.ndefers + 2] = 0;   // (a string cannot change)
    this.ndefers += 3;
    this.deferred += least;
    this.textWorst += worst - least;
    return -1;
  }

  /** Copies the message into the target; where it ends there. */
  finish() {
    const n = this.pos, total = this.base + n + this.deferred;
    if (total > this.target.length) throw this.tooSmall(total);
    if (total + this.textWorst > this.target.length) return this.finishTight();
    if (this.deferred > 0) return this.finishDeferred();
    const t = this.target, s = this.stage;
    if (n <= COPY_BY_LOOP) for (let i = 0, j = this.base; i < n; i++, j++) t[j] = s[i];
    else this.copyTo(this.base, n === s.length ? s : this.stageView(n));
    return total;
  }

  // src into the target at 'to': by set(), or, for a copy of SHARED_COPY_FROM
  // bytes or more into shared memory (a user's SharedArrayBuffer), by
  // copyBytes, at word speed whatever the offsets. Only such a copy asks
  // whether the target is shared (shorter copies would feel the asking).
  copyTo(to, src) {
    if (src.length >= SHARED_COPY_FROM && targetShared(this.target)) copyBytes(this.target, to, src);
    else this.target.set(src, to);
  }

  // finish() when the deferred strings might not fit at their worst: each
  // did when it was deferred, but what came after them (bin or ext bodies,
  // numbers, short strings) took the room. They are staged after all, and
  // the message goes to the target at its exact length -- BUFFER_TOO_SMALL,
  // before anything goes there, if it does not fit.
  finishTight() {
    this.stageTexts();
    return this.finish();
  }

  // The deferred strings into the stage, where they were deferred from:
  // the staged runs after them move right past the room the strings may
  // take (3 bytes a unit), the last run first so none is overwritten; then,
  // from the first, each string is written (header and UTF-8: counting the
  // UTF-8 first takes longer than writing it) and the run after it moves
  // back to where the string ends. Bin and ext bodies stay deferred, at
  // their new offsets. (Composing in a second stage instead made the stage
  // alternate between two arrays, call to call: a message of many 2 KB
  // strings took a third as long again.)
  stageTexts() {
    const d = this.defers, nd = this.ndefers;
    let room = 0;
    for (let i = 1; i < nd; i += 3) if (typeof d[i] === 'string') room += textRoom(d[i]);
    if (this.stage.length < this.pos + room) this.resize(this.pos + room);
    const u8 = this.stage;
    let shift = room, end = this.pos;
    for (let i = nd - 3; i >= 0; i -= 3) {
      const at = d[i];
      if (shift > 0 && end > at) u8.copyWithin(at + shift, at, end);
      if (typeof d[i + 1] === 'string') shift -= textRoom(d[i + 1]);
      end = at;
    }
    let w = nd > 0 ? d[0] : this.pos, kept = 0, bodies = 0;
    for (let i = 0; i < nd; i += 3) {
      const at = d[i], body = d[i + 1], len = d[i + 2], next = i + 3 < nd ? d[i + 3] : this.pos;
      if (typeof body === 'string') {
        w = writeStrAt(u8, w, body, u8.length);
        shift += textRoom(body);
      } else {
        d[kept] = w; d[kept + 1] = body; d[kept + 2] = len;    // (kept <= i: nothing unread is overwritten)
        kept += 3;
        bodies += len;
      }
      if (next > at) u8.copyWithin(w, at + shift, next + shift);
      w += next - at;
    }
    for (let i = kept + 1; i < nd; i += 3) d[i] = null;
    this.ndefers = kept;
    this.deferred = bodies;
    this.textWorst = 0;
    this.pos = w;
  }

  // finish() with deferred bodies: the staged runs and the bodies in turn.
  // A deferred body is read only now, so a getter later in the value may
  // have resized its buffer (a resizable ArrayBuffer) or transferred it:
  // its header already says the old length. Such a message is refused
  // before anything is written, the target as it was. A body over the
  // target's own memory is copied out first, or the staged runs and the
  // bodies before it could overwrite it before it is read.
  finishDeferred() {
    const t = this.target, s = this.stage, d = this.defers;
    if (this.ndefers === 3) {           // one body or string (as [id, bytes]): no list to walk
      const at = d[0], body = d[1];
      if (typeof body === 'string') {
        if (lengthLies(t)) throw lyingTarget(t);
        return this.put(writeStrAt(t, this.put(this.base, 0, at), body, t.length), at, this.pos);
      }
      if (body.length !== d[2]) throw bodyChanged(body, d[2]);
      return this.finishOneBody(at, body);
    }
    let tb = null;                      // the target's buffer (its getter is a call: asked once, if at all)
    let texts = false;
    for (let i = 1; i < this.ndefers; i += 3) {
      const body = d[i];
      if (typeof body === 'string') { texts = true; continue; }
      if (body.length !== d[i + 1]) throw bodyChanged(body, d[i + 1]);
      if (sameMemory(body, tb ??= t.buffer)) d[i] = copyOf(body);
    }
    if (texts && lengthLies(t)) throw lyingTarget(t);
    let from = 0, to = this.base;
    for (let i = 0; i < this.ndefers; i += 3) {
      const at = d[i], body = d[i + 1];
      to = this.put(to, from, at);
      if (typeof body === 'string') {
        to = writeStrAt(t, to, body, t.length);
      } else {
        this.copyTo(to, body);
        to += body.length;
      }
      from = at;
    }
    return this.put(to, from, this.pos);
  }

  // finishDeferred for a message with one bin or ext body (the common case,
  // as [id, bytes]): the staged run before it, the body, the run after it.
  // The body goes first: set() copies right even from a view of the target
  // itself, and the staged runs come from the stage. copyBytes (a shared
  // target) does not handle overlap, so there such a body is copied out
  // first.
  finishOneBody(at, body) {
    const to = this.base + at;
    if (body.length >= SHARED_COPY_FROM && targetShared(this.target) && sameMemory(body, this.target.buffer)) body = copyOf(body);
    this.copyTo(to, body);
    this.put(this.base, 0, at);
    return this.put(to + body.length, at, this.pos);   // (nothing after the body: an empty run)
  }

  // stage[from..end) into the target at 'to' (short runs, a body's header,
  // by a loop: no view to make); returns where it ends there.
  put(to, from, end) {
    const t = this.target, s = this.stage, n = end - from;
    if (n <= COPY_BY_LOOP) for (let i = 0; i < n; i++) t[to + i] = s[from + i];
    else this.copyTo(to, s.subarray(from, end));
    return to + n;
  }

  /** The stage's first n bytes as a view, from the cache when it has one. */
  stageView(n) {
    let v = this.views.get(n);
    if (v === undefined) {
      if (this.views.size >= STAGE_VIEWS_KEPT) this.views.clear();
      v = this.stage.subarray(0, n);
      this.views.set(n, v);
    }
    return v;
  }

  /** Ends a call (whatever happened); a big stage is let go. */
  clear() {
    this.u8 = this.dv = null;
    this.target = null;
    // The caller's bodies are not held past the call. (Not by setting the
    // list's length: that calls into V8, a third of a small encodeInto.)
    if (this.defers.length > DEFERS_KEPT) this.defers = [];
    else for (let i = 1; i < this.ndefers; i += 3) this.defers[i] = null;
    this.ndefers = 0;
    if (this.stage.length > TARGET_STAGE_KEEP) {
      this.stage = new Uint8Array(TARGET_STAGE_FIRST);
      this.stageDv = new DataView(this.stage.buffer);
      this.views.clear();
    }
  }
}

// Whether a target is shared memory: the buffer getter answers, but it is a
// call into C++ that costs about as much as the rest of a big bin's path
// (docs/node.md, round 7). A service writes into the same target call after
// call, so the answer is kept for the last target asked about. That target
// is the caller's: it is held at most FORGET_AFTER ms from the first asking
// (an unref'd timer, which no process waits for), and not at all where there
// are no timers.
const FORGET_AFTER = 1000;
const canForget = typeof setTimeout === 'function';
let knownTarget = null;
let knownShared = false;
let forgetting = false;

/** Whether target (a Uint8Array) views shared memory; the last answer is kept a while. */
export function targetShared(target) {
  if (target === knownTarget) return knownShared;
  const shared = isShared(target);
  if (canForget) {
    knownTarget = target;
    knownShared = shared;
    if (!forgetting) forgetLater();
  }
  return shared;
}

function forgetLater() {
  forgetting = true;
  setTimeout(forget, FORGET_AFTER).unref?.();   // (a number in a browser: nothing to unref)
}

function forget() {
  knownTarget = null;
  forgetting = false;
}

// Whether bytes may view the memory of buffer (a value may hold a view of
// the very array it is encoded into). Two shared views may be of one memory
// through different buffer objects: both shared is enough.
export function sameMemory(bytes, buffer) {
  const b = bytes.buffer;
  return b === buffer || (SAB !== null && b instanceof SAB && buffer instanceof SAB);
}

// A copy of bytes in an array of its own (a Buffer's slice() is a view).
function copyOf(bytes) {
  const c = new Uint8Array(bytes.length);
  c.set(bytes);
  return c;
}

/** The error of a deferred body whose length is not the one its header gives. */
export function bodyChanged(body, was) {
  return new ScratchpackError(codes.INVALID_ARGUMENT,
    `a bin or ext body of ${was} bytes has ${body.length} now: its buffer was resized or transferred while the message was encoded (by a getter or an extension); the target is as it was`);
}

/**
 * INVALID_ARGUMENT for a target whose own `length` property says another
 * length than it has: text written straight into it would stop at its real
 * end, the message cut short without a word. (Elsewhere such a target is
 * taken at its word, docs/errors.md; here it is asked, once, before any
 * byte goes.)
 */
function lyingTarget(t) {
  return new EncodeFailure(codes.INVALID_ARGUMENT,
    `the target's length property says ${t.length}, not the bytes it has (an own property): ` +
    'encodeInto writes text only into a target whose length is its own');
}

// What a deferred string may take: its worst header and 3 bytes a unit.
function textRoom(s) {
  return 5 + 3 * s.length;
}

