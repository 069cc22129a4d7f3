// sink-heap.js -- the heap sink: spans of one C entry (a job) in linear memory.
// Owns: the span record C keeps in a job (read at the offsets js/abi.js
// got from the module's layout table), beginning an entry (to_array: the thread's scratch or pooled segments;
// to_stream: pooled segments), moving the span through C's slow path,
// finishing, and every way the finished message leaves (a copy, a leased
// block, segments, one view), and the C writer's errors. Must not touch:
// formats (writer.js), linear memory's rules (sinks.js, Heap) or what the
// entries do with the message.

import { EncodeFailure, codeFromC } from './errors.js';
import { bytesOf, copyIn, PIECE } from './sink.js';
import { ARRAY_CHUNK, arrayMaxBytes, arrayMinBytes, writeNumeric } from './sink-numeric.js';


/** The C writer's error as an EncodeFailure (it gets its path while unwinding). */
export function jobFailure(heap, job) {
  const c = heap.c;
  const f = new EncodeFailure(codeFromC(c.errorCode(job)), heap.cString(c.errorCause(job)) || 'the C writer failed');
  f.offset = c.errorOffset(job);
  return f;
}

/**
 * Spans of one C entry (a job): begin*, the walk, then finish and one of
 * the copy-outs, then release. One per nesting level; a lease keeps it.
 * Every C call that moves the span is followed by load(): it re-reads the
 * span record C left in the job and re-makes the views if memory grew.
 */
export class HeapSink {
  constructor(heap, job) {
    job >>>= 0;
    const span = heap.span;
    this.heap = heap;
    this.c = heap.c;                        // the module's calls (js/abi.js)
    this.job = job;
    this.recordEnd = job + span.size;
    this.curAt = (job + span.cur) >>> 2;    // the span record's fields, as u32 indices
    this.endAt = (job + span.end) >>> 2;
    this.baseAt = (job + span.base) >>> 2;
    this.modeAt = (job + span.mode) >>> 2;
    this.scratchMode = span.scratch;        // the mode that means "in the scratch"
    this.u8 = heap.u8;
    this.shared = heap.shared;              // the pthread build's memory: copies in by copyBytes
    this.dv = heap.dv;
    this.pos = 0;
    this.end = 0;
    this.fixed = false;
    this.whole = true;                      // the message stays in memory (not a stream)
    this.messageLength = 0;
  }

  /** The DataView over the span's memory (writer.js asks when its dv is null). */
  view() {
    return this.dv;
  }

  // After a C call: the span C left, and views that cover it.
  load() {
    const heap = this.heap;
    heap.check(this.recordEnd);
    const u32 = heap.u32;
    this.pos = u32[this.curAt];
    this.end = u32[this.endAt];
    heap.check(this.end);
    this.u8 = heap.u8;
    this.dv = heap.dv;
  }

  store() {
    this.heap.check(this.recordEnd);
    this.heap.u32[this.curAt] = this.pos;
  }

  /** Views that cover the span again after code that may have grown memory (a nested encode). */
  sync() {
    this.heap.check(this.end);
    this.u8 = this.heap.u8;
    this.dv = this.heap.dv;
  }

  // Starts a C entry (begin returned rc); the span it took is then ours.
  begun(rc) {
    if (rc !== 0) throw jobFailure(this.heap, this.job);
    this.load();
  }

  /**
   * to_array: the thread's scratch unless it is taken, else a sequence.
   * compression (sp_compression: 0 none, 1 Lz4Block, 2 Lz4BlockArray):
   * the span is then the plain writer's (pooled segments, never the
   * scratch), and finish writes the compressed message to the output that
   * copyOut, message and segments read.
   */
  beginArray(scratchSize, compression = 0) {
    this.whole = true;
    this.begun(this.c.beginArray(this.job, scratchSize, compression));
  }

  /** to_stream: pooled segments, kept until release (compression: as for beginArray). */
  beginStream(compression = 0) {
    this.whole = false;
    this.begun(this.c.beginStream(this.job, compression));
  }

  more(n) {
    this.heap.need(n, 'a reservation');
    this.store();
    if (!this.c.reserve(this.job, n)) throw jobFailure(this.heap, this.job);
    this.load();
  }

  array(kind, view) {
    const n = view.length;
    if (this.whole) this.heap.need(arrayMinBytes(kind, n), `an array of ${n} elements`);
    // An array bigger than what is left of the scratch: leave it now, while
    // little has been written, rather than after C filled the scratch (the
    // migration copies everything written so far).
    const worst = arrayMaxBytes(kind, n);
    if (this.end - this.pos < worst && this.inScratch()) this.more(Math.min(worst, PIECE));
    if (view.byteLength > ARRAY_CHUNK) {
      writeNumeric(this, this.heap, kind, view);
    } else {
      const src = this.heap.stage(view);
      this.store();
      if (this.c.writeArray(this.job, kind, src, n) !== 0) throw jobFailure(this.heap, this.job);
      this.load();
    }
    this.heap.unstage();
    return null;
  }

  /** Copies n bytes at heap address p into the spans (p is outside them: the staging block). */
  putHeap(p, n) {
    copyIn(this, null, p, n);
  }

  /** Copies bytes[0..n) (a JS array, not linear memory) into the spans. */
  putBytes(bytes, n) {
    copyIn(this, bytes, 0, n);
  }

  /** True while the message sits in the scratch (then it is u8[base..pos)). */
  inScratch() {
    this.heap.check(this.recordEnd);
    return this.heap.u32[this.modeAt] === this.scratchMode;
  }

  base() {
    this.heap.check(this.recordEnd);
    return this.heap.u32[this.baseAt];
  }

  /** Commits; throws the C error if there is one. */
  finish() {
    this.store();
    if (this.c.finish(this.job) !== 0) throw jobFailure(this.heap, this.job);
    this.heap.check(this.recordEnd);
  }

  // Calls fn(address, length) for each non-empty piece of the finished
  // message, with views that cover it.
  pieces(fn) {
    const c = this.c, job = this.job, heap = this.heap;
    for (let i = 0, n = c.pieceCount(job) >>> 0; i < n; i++) {
      const len = c.pieceLen(job, i) >>> 0;
      if (len === 0) continue;
      const p = c.pieceData(job, i) >>> 0;
      heap.check(p + len);
      fn(p, len);
    }
  }

  /** The finished message's length in bytes. */
  length() {
    return this.c.length(this.job);
  }

  /** A new Uint8Array holding the finished message (the to_array result). */
  copyOut() {
    if (this.inScratch()) {             // the scratch needs no commit: read it as it is
      return bytesOf(this.u8, this.base(), this.pos);
    }
    this.finish();
    const n = this.length(), heap = this.heap, one = this.joined(n);
    if (one >= 0) return heap.u8.slice(one, one + n);
    const out = new Uint8Array(n);
    let at = 0;
    this.pieces((p, len) => { out.set(heap.u8.subarray(p, p + len), at); at += len; });
    return out;
  }

  /**
   * After finish, on shared memory: the address of the message in one
   * piece (C's flat copy, kept until release) when copying its pieces from
   * JS would be slow; else -1. V8 copies out of or into a SharedArrayBuffer
   * with relaxed atomics, a word at a time only where source and
   * destination agree modulo 8 and else byte by byte (about a tenth of the
   * speed); pieces after one of odd length land misaligned. C joins them
   * with memory.copy (a plain memmove) into an 8-aligned block, which is
   * then copied in one aligned piece.
   */
  joined(n) {
    if (!this.heap.shared) return -1;
    const c = this.c, job = this.job;
    let at = 0, aligned = true;
    for (let i = 0, k = c.pieceCount(job) >>> 0; i < k && aligned; i++) {
      const len = c.pieceLen(job, i) >>> 0;
      if (len === 0) continue;
      if ((((c.pieceData(job, i) >>> 0) - at) & 7) !== 0) aligned = false;
      at += len;
    }
    if (aligned) return -1;
    const p = c.view(job) >>> 0;
    if (p === 0) throw jobFailure(this.heap, job);
    this.heap.check(p + n);
    return p;
  }

  /**
   * The finished message copied into a block of linear memory of exactly
   * its size (heap.alloc), which outlives the entry: returns its address,
   * and leaves its length in this.messageLength.
   */
  copyToHeap() {
    this.finish();
    const heap = this.heap, n = this.length(), one = this.joined(n);
    const p = heap.alloc(n, 'a lease');            // 8-aligned, as the pieces' first
    if (one >= 0) heap.u8.copyWithin(p, one, one + n);
    else {
      let at = p;
      this.pieces((q, len) => { heap.u8.copyWithin(at, q, q + len); at += len; });
    }
    this.messageLength = n;
    return p;
  }

  /** Copies of each piece, in order (the to_stream hand-off). */
  segments() {
    this.finish();
    const out = [], heap = this.heap;
    this.pieces((p, len) => out.push(bytesOf(heap.u8, p, p + len)));
    return out;
  }

  /**
   * The finished message in one piece of linear memory, kept until release:
   * returns its address, and leaves its length in this.messageLength. One
   * segment or the scratch as they are; several are copied into one block
   * by C.
   */
  message() {
    if (this.inScratch()) {
      const base = this.heap.u32[this.baseAt];
      this.messageLength = this.pos - base;
      return base;
    }
    this.finish();
    const p = this.c.view(this.job) >>> 0;
    if (p === 0) throw jobFailure(this.heap, this.job);
    this.messageLength = this.length();
    this.heap.check(p + this.messageLength);
    return p;
  }

  /** The finished message as one view of linear memory (kept until release). */
  messageView() {
    const p = this.message();
    return new Uint8Array(this.heap.buffer, p, this.messageLength);
  }

  release() {
    this.c.release(this.job);
  }
}
