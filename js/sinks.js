// sinks.js -- where the writer's spans come from.
// Owns: the heap sink (spans of the C writer in linear memory: the thread's
// scratch, pooled sequence segments; the slow path and bulk arrays go to C)
// and the target sink (the caller's Uint8Array, with a spill area so that
// only a message that really does not fit is refused). Must not touch:
// formats (writer.js) or what the entries do with the result.

import { EncodeFailure, ScratchpackError, codes, codeFromC } from './errors.js';

/**
 * The span record at the start of every C job (sp_span in
 * src/include/sp_writer.h): byte offsets of cur, end, base and mode, its
 * size, and the mode that means "the message is in the scratch". C states
 * its own in sp_wasm_span_layout(); checkSpanLayout compares at load.
 */
export const SPAN = Object.freeze({ size: 16, cur: 0, end: 4, base: 8, mode: 12, scratch: 0 });
const SPAN_FIELDS = ['size', 'cur', 'end', 'base', 'mode', 'scratch'];

/** Throws INTERNAL when the module's span record is not the one SPAN describes. */
export function checkSpanLayout(m, heap) {
  const p = m._sp_wasm_span_layout() >> 2;
  const c = Object.fromEntries(SPAN_FIELDS.map((k, i) => [k, heap.u32[p + i]]));
  if (SPAN_FIELDS.some((k) => c[k] !== SPAN[k]))
    throw new ScratchpackError(codes.INTERNAL, `the module's span record ${JSON.stringify(c)} is not the one js/sinks.js reads`);
}

/** Linear memory as the sinks see it; views are re-made if the buffer changes. */
export class Heap {
  constructor(m) {
    this.m = m;
    // The pthread build exports its (imported, shared) memory; the single-
    // threaded one only has the views Emscripten made over its own.
    this.memory = m.wasmMemory || { get buffer() { return m.HEAPU8.buffer; } };
    this.refresh();
    this.stagePtr = 0;
    this.stageCap = 0;
  }

  refresh() {
    const buf = this.memory.buffer;
    this.buffer = buf;
    this.u8 = new Uint8Array(buf);
    this.u32 = new Uint32Array(buf);
    this.i32 = new Int32Array(buf);
    this.dv = new DataView(buf);
  }

  /**
   * Re-makes the views when memory.buffer is no longer the one they view.
   * Both builds have fixed memory (no growth), so this only guards against
   * a detached buffer; reading memory.buffer itself on every call costs
   * more than a small encode (it was 15% of one).
   */
  check() {
    if (this.u8.length === 0) this.refresh();
  }

  /** A NUL-terminated C string at p. */
  cString(p) {
    let s = '';
    for (let i = p; p !== 0 && this.u8[i] !== 0; i++) s += String.fromCharCode(this.u8[i]);
    return s;
  }

  /** The staging block, at least n bytes (8-aligned); returns its address. */
  reserve(n) {
    if (n > this.stageCap) {
      if (this.stagePtr) this.m._sp_wasm_free(this.stagePtr, this.stageCap);
      let cap = Math.max(4096, this.stageCap * 2);
      while (cap < n) cap *= 2;
      this.stagePtr = this.m._sp_wasm_alloc(cap);
      this.stageCap = this.stagePtr ? cap : 0;
      if (!this.stagePtr) throw new EncodeFailure(codes.NOMEM, `no WASM memory to stage ${n} bytes`);
    }
    return this.stagePtr;
  }

  /** Copies a typed array's bytes into the staging block; returns its address. */
  stage(view) {
    const n = view.byteLength;
    const p = this.reserve(n);
    this.u8.set(new Uint8Array(view.buffer, view.byteOffset, n), p);
    return p;
  }

  /** Frees the staging block if it has grown past keep bytes. */
  trimStage(keep) {
    if (this.stageCap > keep) {
      this.m._sp_wasm_free(this.stagePtr, this.stageCap);
      this.stagePtr = 0;
      this.stageCap = 0;
    }
  }
}

/** The C writer's error as an EncodeFailure (it gets its path while unwinding). */
export function jobFailure(heap, job) {
  const m = heap.m;
  const f = new EncodeFailure(codeFromC(m._sp_wasm_error_code(job)),
    heap.cString(m._sp_wasm_error_cause(job)) || 'the C writer failed');
  f.offset = m._sp_wasm_error_offset(job);
  return f;
}

/**
 * Spans of one C entry (a job): begin*, the walk, then finish and one of
 * the copy-outs, then release. One per nesting level; a lease keeps it.
 * Every C call that moves the span is followed by load(): it re-reads the
 * span record C left in the job.
 */
export class HeapSink {
  constructor(heap, job) {
    this.heap = heap;
    this.m = heap.m;
    this.job = job;
    this.curAt = (job + SPAN.cur) >> 2;    // the span record's fields, as u32 indices
    this.endAt = (job + SPAN.end) >> 2;
    this.baseAt = (job + SPAN.base) >> 2;
    this.modeAt = (job + SPAN.mode) >> 2;
    this.u8 = heap.u8;
    this.dv = heap.dv;
    this.pos = 0;
    this.end = 0;
    this.fixed = false;
  }

  /** The DataView over the span's memory (writer.js asks when its dv is null). */
  view() {
    return this.dv;
  }

  load() {
    const u32 = this.heap.u32;
    this.pos = u32[this.curAt];
    this.end = u32[this.endAt];
  }

  store() {
    this.heap.u32[this.curAt] = this.pos;
  }

  // Starts a C entry (begin returned rc); the span it took is then ours.
  begun(rc) {
    if (rc !== 0) throw jobFailure(this.heap, this.job);
    this.load();
  }

  /** to_array: the thread's scratch unless it is taken, else a sequence. */
  beginArray(scratchSize) {
    this.heap.check();
    this.u8 = this.heap.u8;
    this.dv = this.heap.dv;
    this.begun(this.m._sp_wasm_begin_array(this.job, scratchSize));
  }

  /** to_stream: pooled segments, kept until release. */
  beginStream() {
    this.heap.check();
    this.u8 = this.heap.u8;
    this.dv = this.heap.dv;
    this.begun(this.m._sp_wasm_begin_stream(this.job));
  }

  more(n) {
    this.store();
    if (!this.m._sp_wasm_reserve(this.job, n)) throw jobFailure(this.heap, this.job);
    this.load();
  }

  array(kind, view) {
    const src = this.heap.stage(view);
    // An array bigger than what is left of the scratch: leave it now, while
    // little has been written, rather than after C filled the scratch (the
    // migration copies everything written so far).
    const worst = 9 * view.length + 5;
    if (this.end - this.pos < worst && this.inScratch()) this.more(Math.min(worst, 64 * 1024));
    this.store();
    if (this.m._sp_wasm_write_array(this.job, kind, src, view.length) !== 0)
      throw jobFailure(this.heap, this.job);
    this.load();
    return null;
  }

  /** True while the message sits in the scratch (then it is u8[base..pos)). */
  inScratch() {
    return this.heap.u32[this.modeAt] === SPAN.scratch;
  }

  base() {
    return this.heap.u32[this.baseAt];
  }

  /** Commits; throws the C error if there is one. */
  finish() {
    this.store();
    if (this.m._sp_wasm_finish(this.job) !== 0) throw jobFailure(this.heap, this.job);
  }

  // Calls fn(address, length) for each non-empty piece of the finished message.
  pieces(fn) {
    const m = this.m, job = this.job;
    for (let i = 0, n = m._sp_wasm_piece_count(job); i < n; i++) {
      const len = m._sp_wasm_piece_len(job, i);
      if (len > 0) fn(m._sp_wasm_piece_data(job, i), len);
    }
  }

  /** A new Uint8Array holding the finished message (the to_array result). */
  copyOut() {
    if (this.inScratch()) {             // the scratch needs no commit: read it as it is
      const base = this.base(), n = this.pos - base;
      if (n > 48) return this.u8.slice(base, this.pos);
      const out = new Uint8Array(n), u8 = this.u8;     // short: a loop beats slice()
      for (let i = 0; i < n; i++) out[i] = u8[base + i];
      return out;
    }
    this.finish();
    const out = new Uint8Array(this.m._sp_wasm_length(this.job)), u8 = this.heap.u8;
    let at = 0;
    this.pieces((p, len) => { out.set(u8.subarray(p, p + len), at); at += len; });
    return out;
  }

  /** Copies of each piece, in order (the to_stream hand-off). */
  segments() {
    this.finish();
    const out = [], u8 = this.heap.u8;
    this.pieces((p, len) => out.push(u8.slice(p, p + len)));
    return out;
  }

  /** The finished message as one view of linear memory (kept until release). */
  messageView() {
    if (this.inScratch()) return new Uint8Array(this.heap.buffer, this.base(), this.pos - this.base());
    this.finish();
    const p = this.m._sp_wasm_view(this.job);
    if (p === 0) throw jobFailure(this.heap, this.job);
    return new Uint8Array(this.heap.buffer, p, this.m._sp_wasm_length(this.job));
  }

  release() {
    this.m._sp_wasm_release(this.job);
  }
}

/**
 * The caller's array (encodeInto). Writes go straight into it; when a
 * worst-case reservation does not fit the rest of it, writing continues in
 * a private spill array and is copied back at the end if the exact bytes
 * fit, so BUFFER_TOO_SMALL means the message really is too big.
 */
export class TargetSink {
  constructor(bulk) {
    this.bulk = bulk;              // (kind, view) -> Uint8Array of the encoded array
    this.fixed = true;
    this.u8 = null;
    this.dv = null;
    this.pos = 0;
    this.end = 0;
    this.target = null;
    this.targetDv = null;
    this.spill = null;
    this.spillDv = null;
    this.spilling = false;
    this.spillBase = 0;
  }

  begin(target, offset) {
    if (this.target !== target) {       // a DataView only when the writer needs one
      this.target = target;
      this.targetDv = null;
    }
    this.u8 = target;
    this.dv = this.targetDv;
    this.pos = offset;
    this.end = target.length;
    this.spilling = false;
  }

  /** The DataView over the current span (made on first use). */
  view() {
    if (this.spilling) return this.spillDv;
    const t = this.target;
    return (this.targetDv = this.dv = new DataView(t.buffer, t.byteOffset, t.byteLength));
  }

  more(n) {
    if (!this.spilling) {
      this.spilling = true;
      this.spillBase = this.pos;
      this.growSpill(n, 0);
      this.pos = 0;
      return;
    }
    if (this.spillBase + this.pos > this.target.length) throw this.tooSmall(this.spillBase + this.pos);
    this.growSpill(this.pos + n, this.pos);
  }

  growSpill(need, keep) {
    if (this.spill === null || this.spill.length < need) {
      const next = new Uint8Array(Math.max(need, 256, this.spill ? this.spill.length * 2 : 0));
      if (keep > 0) next.set(this.spill.subarray(0, keep));
      this.spill = next;
      this.spillDv = new DataView(next.buffer);
    }
    this.u8 = this.spill;
    this.dv = this.spillDv;
    this.end = this.spill.length;
  }

  tooSmall(needed) {
    const f = new EncodeFailure(codes.BUFFER_TOO_SMALL,
      `the target has ${this.target.length} bytes; the message needs at least ${needed}`);
    f.offset = this.target.length;
    return f;
  }

  array(kind, view) {
    return this.bulk(kind, view);
  }

  /** Where the message ends in the target; copies the spill back. */
  finish() {
    if (!this.spilling) return this.pos;
    const total = this.spillBase + this.pos;
    if (total > this.target.length) throw this.tooSmall(total);
    this.target.set(this.spill.subarray(0, this.pos), this.spillBase);
    if (this.spill.length > 1 << 20) { this.spill = null; this.spillDv = null; }
    return total;
  }

  /** Ends a call. The last target (and its DataView) stay cached for the
  ** next call with the same array. */
  clear() {
    this.u8 = this.dv = null;
  }
}
