// sinks.js -- where the writer's spans come from.
// Owns: the heap sink (spans of the C writer in linear memory: the thread's
// scratch, pooled sequence segments; the slow path and bulk arrays go to C),
// the target sink (the caller's Uint8Array, written from a staging array
// once the whole message is there, so a failure leaves it untouched and
// only a message that really does not fit is refused) and the scratch sink
// (encode()'s small JS scratch that migrates into a heap sink when it
// overflows). Must not touch: formats (writer.js) or what the entries do
// with the result.

import { cString } from './abi.js';
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
  const p = m._sp_wasm_span_layout() >>> 2;
  const c = Object.fromEntries(SPAN_FIELDS.map((k, i) => [k, heap.u32[p + i]]));
  if (SPAN_FIELDS.some((k) => c[k] !== SPAN[k]))
    throw new ScratchpackError(codes.INTERNAL, `the module's span record ${JSON.stringify(c)} is not the one js/sinks.js reads`);
}

/** The largest value a wasm32 size_t parameter holds. */
export const U32_MAX = 0xffffffff;

// Staging blocks bigger than this are freed after the call that needed them.
const STAGE_KEEP = 4 << 20;

/**
 * Linear memory as the package sees it, and every pointer and size that
 * crosses to C. The one place the rules live (tasks.js and stream.js use
 * the same calls):
 * - ptr(p): a pointer or size_t C returned, as an unsigned number (wasm32
 *   values are i32 in JS: an address above 2 GiB arrives negative).
 * - check(end): call after any C call that can allocate (memory may have
 *   grown), and before reading at an address C gave: afterwards u8, u32,
 *   i32, dv and buffer cover [0, end). Growth detaches the single-threaded
 *   build's buffer (views read as empty) and leaves a pthread build's old
 *   views valid but short (they still cover their old range).
 * - need(n, what): throws NOMEM unless n bytes may be asked of C (an
 *   integer within the memory's cap, so it also fits a size_t); call it
 *   before passing any computed size.
 * - alloc(n, what) / free(p, n): a checked block (unsigned pointer), or
 *   NOMEM naming what it was for; when memory is short it first gives back
 *   what the pools cache (sp_wasm_trim) and tries again.
 */
export class Heap {
  constructor(m) {
    this.m = m;
    this.memory = m.spMemory || m.wasmMemory;         // js/wasm.js finds it
    this.max = m._sp_wasm_memory_max() >>> 0;          // the build's: 4 GiB - 64 KiB
    this.cap = this.max;                               // the instance's (setCap)
    this.refresh();
    this.stagePtr = 0;
    this.stageCap = 0;
  }

  refresh() {
    const buf = this.memory.buffer;
    this.buffer = buf;
    this.shared = typeof SharedArrayBuffer === 'function' && buf instanceof SharedArrayBuffer;
    this.u8 = new Uint8Array(buf);
    this.u32 = new Uint32Array(buf);
    this.i32 = new Int32Array(buf);
    this.dv = new DataView(buf);
  }

  /**
   * Re-makes the views unless they cover [0, end). One compare: reading
   * memory.buffer on every call cost 15% of a small encode.
   */
  check(end = 0) {
    if (end >= this.u8.length) this.refresh();
  }

  /** The memory's size now, in bytes. */
  size() {
    return this.memory.buffer.byteLength;
  }

  /** Caps growth at bytes (rounded down to 64 KiB pages); C's malloc then fails past it. */
  setCap(bytes) {
    this.cap = bytes - (bytes % 65536);
    this.m._sp_wasm_set_memory_cap(this.cap);
  }

  /** A pointer or size C returned, as the unsigned number it is. */
  ptr(p) {
    return p >>> 0;
  }

  need(n, what) {
    if (!(n <= this.cap) || !Number.isInteger(n) || n < 0)
      throw new ScratchpackError(codes.NOMEM, `${what} needs ${n} bytes of WASM memory, ` +
        `more than its maximum of ${this.cap} (maxMemory)`);
  }

  alloc(n, what) {
    this.need(n, what);
    let p = this.m._sp_wasm_alloc(n) >>> 0;
    if (p === 0 && this.m._sp_wasm_trim() > 0) p = this.m._sp_wasm_alloc(n) >>> 0;   // caches give way
    if (p === 0) throw new ScratchpackError(codes.NOMEM, `no WASM memory for ${what} (${n} bytes)`);
    this.check(p + n);
    return p;
  }

  free(p, n) {
    this.m._sp_wasm_free(p, n);
  }

  /** A NUL-terminated C string at p. */
  cString(p) {
    this.refresh();                       // error paths only: cover the string wherever it is
    return cString(this.u8, p);
  }

  /** The staging block, at least n bytes (8-aligned); returns its address. */
  reserve(n) {
    if (n > this.stageCap) {
      this.need(n, 'staging');
      this.unstage(0);
      const cap = Math.max(4096, Math.ceil(n / 4096) * 4096);   // chunks keep n small: no need to double
      this.stagePtr = this.alloc(cap, 'staging');
      this.stageCap = cap;
    }
    this.check(this.stagePtr + n);
    return this.stagePtr;
  }

  /** Copies a typed array's bytes into the staging block; returns its address. */
  stage(view) {
    const n = view.byteLength;
    const p = this.reserve(n);
    this.u8.set(new Uint8Array(view.buffer, view.byteOffset, n), p);
    return p;
  }

  /** Frees the staging block if it is bigger than keep bytes (default: what is kept between calls). */
  unstage(keep = STAGE_KEEP) {
    if (this.stageCap > keep) {
      this.free(this.stagePtr, this.stageCap);
      this.stagePtr = 0;
      this.stageCap = 0;
    }
  }
}

// ---- numeric arrays ---------------------------------------------------------

// Bigger typed arrays are staged and encoded this many bytes of elements at
// a time, so the staging block stays small whatever the array's size (a
// chunk and its encoding take ~0.6 MiB: small enough to fit between the
// blocks of a fragmented heap).
export const ARRAY_CHUNK = 256 * 1024;

// Bytes per element, most and fewest, by sp_num_kind (js/typed.js KIND):
// integers take their smallest form, floats are never narrowed.
const WORST = [2, 2, 3, 3, 5, 5, 5, 9, 9, 9];
const FEWEST = [1, 1, 1, 1, 1, 1, 5, 9, 1, 1];

const arrayHeaderSize = (n) => (n < 16 ? 1 : n < 0x10000 ? 3 : 5);

/** The fewest bytes a typed array of n elements of kind encodes to. */
export const arrayMinBytes = (kind, n) => arrayHeaderSize(n) + FEWEST[kind] * n;

// Writes an array header for n elements at u8[at]; returns its size.
function putArrayHeader(u8, at, n) {
  if (n < 16) { u8[at] = 0x90 | n; return 1; }
  if (n < 0x10000) { u8[at] = 0xdc; u8[at + 1] = n >>> 8; u8[at + 2] = n & 0xff; return 3; }
  u8[at] = 0xdd; u8[at + 1] = n >>> 24; u8[at + 2] = (n >>> 16) & 0xff;
  u8[at + 3] = (n >>> 8) & 0xff; u8[at + 4] = n & 0xff;
  return 5;
}

/**
 * Encodes a typed array (at most ARRAY_CHUNK bytes) of element kind as one
 * MessagePack array in the staging block, through C; returns [address,
 * length]. Allocates nothing in C beyond the staging block.
 */
function encodeChunk(heap, kind, view) {
  const n = view.length, bytes = view.byteLength, room = WORST[kind] * n + 5;
  const at = (bytes + 7) & ~7;
  const src = heap.reserve(at + room);
  heap.u8.set(new Uint8Array(view.buffer, view.byteOffset, bytes), src);
  const len = heap.m._sp_wasm_encode_array(kind, src, n, src + at, room) >>> 0;
  if (len === 0) throw new EncodeFailure(codes.INTERNAL, 'C refused a numeric array');
  return [src + at, len];
}

/**
 * Writes a typed array as a MessagePack array into a sink through C: in one
 * piece when small, else the header from here and the elements a chunk at a
 * time (each chunk encoded as an array of its own, whose header is left
 * out). sink.putHeap(address, n) copies staged bytes into its spans.
 */
function writeNumeric(sink, heap, kind, view) {
  const n = view.length;
  if (view.byteLength <= ARRAY_CHUNK) {
    const [p, len] = encodeChunk(heap, kind, view);
    sink.putHeap(p, len);
    return;
  }
  if (n > U32_MAX) throw new EncodeFailure(codes.LENGTH_LIMIT, 'array longer than 2^32-1 elements');
  if (sink.end - sink.pos < 5) sink.more(5);
  sink.pos += putArrayHeader(sink.u8, sink.pos, n);
  const per = Math.floor(ARRAY_CHUNK / view.BYTES_PER_ELEMENT);
  for (let i = 0; i < n; i += per) {
    const k = Math.min(per, n - i);
    const [p, len] = encodeChunk(heap, kind, view.subarray(i, i + k));
    const h = arrayHeaderSize(k);
    sink.putHeap(p + h, len - h);
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
 * span record C left in the job and re-makes the views if memory grew.
 */
export class HeapSink {
  constructor(heap, job) {
    job >>>= 0;
    this.heap = heap;
    this.m = heap.m;
    this.job = job;
    this.recordEnd = job + SPAN.size;
    this.curAt = (job + SPAN.cur) >>> 2;    // the span record's fields, as u32 indices
    this.endAt = (job + SPAN.end) >>> 2;
    this.baseAt = (job + SPAN.base) >>> 2;
    this.modeAt = (job + SPAN.mode) >>> 2;
    this.u8 = heap.u8;
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
    this.begun(this.m._sp_wasm_begin_array(this.job, scratchSize, compression));
  }

  /** to_stream: pooled segments, kept until release (compression: as for beginArray). */
  beginStream(compression = 0) {
    this.whole = false;
    this.begun(this.m._sp_wasm_begin_stream(this.job, compression));
  }

  more(n) {
    this.heap.need(n, 'a reservation');
    this.store();
    if (!this.m._sp_wasm_reserve(this.job, n)) throw jobFailure(this.heap, this.job);
    this.load();
  }

  array(kind, view) {
    const n = view.length;
    if (this.whole) this.heap.need(arrayMinBytes(kind, n), `an array of ${n} elements`);
    // An array bigger than what is left of the scratch: leave it now, while
    // little has been written, rather than after C filled the scratch (the
    // migration copies everything written so far).
    const worst = WORST[kind] * n + 5;
    if (this.end - this.pos < worst && this.inScratch()) this.more(Math.min(worst, 64 * 1024));
    if (view.byteLength > ARRAY_CHUNK) {
      writeNumeric(this, this.heap, kind, view);
    } else {
      const src = this.heap.stage(view);
      this.store();
      if (this.m._sp_wasm_write_array(this.job, kind, src, n) !== 0) throw jobFailure(this.heap, this.job);
      this.load();
    }
    this.heap.unstage();
    return null;
  }

  /** Copies n bytes at heap address p into the spans (p is outside them: the staging block). */
  putHeap(p, n) {
    while (n > 0) {
      if (this.pos >= this.end) this.more(Math.min(n, 64 * 1024));
      const k = Math.min(n, this.end - this.pos);
      this.u8.copyWithin(this.pos, p, p + k);
      this.pos += k;
      p += k;
      n -= k;
    }
  }

  /** Copies bytes[0..n) (a JS array, not linear memory) into the spans. */
  putBytes(bytes, n) {
    for (let at = 0; at < n;) {
      if (this.pos >= this.end) this.more(Math.min(n - at, 64 * 1024));
      const k = Math.min(n - at, this.end - this.pos);
      this.u8.set(bytes.subarray(at, at + k), this.pos);
      this.pos += k;
      at += k;
    }
  }

  /** True while the message sits in the scratch (then it is u8[base..pos)). */
  inScratch() {
    this.heap.check(this.recordEnd);
    return this.heap.u32[this.modeAt] === SPAN.scratch;
  }

  base() {
    this.heap.check(this.recordEnd);
    return this.heap.u32[this.baseAt];
  }

  /** Commits; throws the C error if there is one. */
  finish() {
    this.store();
    if (this.m._sp_wasm_finish(this.job) !== 0) throw jobFailure(this.heap, this.job);
    this.heap.check(this.recordEnd);
  }

  // Calls fn(address, length) for each non-empty piece of the finished
  // message, with views that cover it.
  pieces(fn) {
    const m = this.m, job = this.job, heap = this.heap;
    for (let i = 0, n = m._sp_wasm_piece_count(job) >>> 0; i < n; i++) {
      const len = m._sp_wasm_piece_len(job, i) >>> 0;
      if (len === 0) continue;
      const p = m._sp_wasm_piece_data(job, i) >>> 0;
      heap.check(p + len);
      fn(p, len);
    }
  }

  /** The finished message's length in bytes. */
  length() {
    return this.m._sp_wasm_length(this.job);
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
    const m = this.m, job = this.job;
    let at = 0, aligned = true;
    for (let i = 0, k = m._sp_wasm_piece_count(job) >>> 0; i < k && aligned; i++) {
      const len = m._sp_wasm_piece_len(job, i) >>> 0;
      if (len === 0) continue;
      if ((((m._sp_wasm_piece_data(job, i) >>> 0) - at) & 7) !== 0) aligned = false;
      at += len;
    }
    if (aligned) return -1;
    const p = m._sp_wasm_view(job) >>> 0;
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
    this.pieces((p, len) => out.push(heap.u8.slice(p, p + len)));
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
    const p = this.m._sp_wasm_view(this.job) >>> 0;
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
    this.m._sp_wasm_release(this.job);
  }
}

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
const TARGET_STAGE_FIRST = 4096;
const TARGET_STAGE_KEEP = 4 << 20;   // a bigger stage is let go after the call (as the heap's staging block)
// Up to this many bytes a loop copies faster than subarray() and set().
const COPY_BY_LOOP = 32;
// finish() copies with set() from a view of the stage exactly n bytes long;
// such views are kept by n, for the stage they view (messages of a service
// come in few lengths), so a reused target costs no allocation per call.
// A loop copy costs 10-20x set() past a few hundred bytes, and neither
// Buffer's copy() nor a resizable buffer avoids the view. More lengths than
// this empty the cache (it then refills).
const STAGE_VIEWS_KEPT = 256;

export class TargetSink {
  constructor(heap) {
    this.heap = heap;              // typed arrays are encoded by C in its staging block
    this.fixed = false;            // the stage grows: the writer may reserve a string's worst case
    this.u8 = null;
    this.dv = null;
    this.pos = 0;
    this.end = 0;
    this.target = null;
    this.base = 0;                 // where the message goes in the target
    this.stage = new Uint8Array(TARGET_STAGE_FIRST);
    this.stageDv = new DataView(this.stage.buffer);
    this.views = new Map();        // n -> this.stage.subarray(0, n), for finish()
  }

  begin(target, offset) {
    this.target = target;
    this.base = offset;
    this.u8 = this.stage;
    this.dv = this.stageDv;
    this.pos = 0;
    this.end = this.stage.length;
  }

  /** Nothing to re-make: the stage is not linear memory. */
  sync() {}

  /** The DataView over the stage. */
  view() {
    return this.stageDv;
  }

  more(n) {
    if (this.base + this.pos > this.target.length) throw this.tooSmall(this.base + this.pos);
    const need = this.pos + n;
    if (this.stage.length >= need) return;
    // Doubling, but not past what the target can take (a message the size
    // of a big target is not staged in twice its size).
    const room = Math.max(this.target.length - this.base, TARGET_STAGE_FIRST);
    const next = new Uint8Array(Math.max(need, Math.min(this.stage.length * 2, room)));
    next.set(this.stage.subarray(0, this.pos));
    this.stage = next;
    this.views.clear();
    this.stageDv = new DataView(next.buffer);
    this.u8 = next;
    this.dv = this.stageDv;
    this.end = next.length;
  }

  tooSmall(needed) {
    const f = new EncodeFailure(codes.BUFFER_TOO_SMALL,
      `the target has ${this.target.length} bytes; the message needs at least ${needed}`);
    f.offset = this.target.length;
    return f;
  }

  array(kind, view) {
    const need = this.base + this.pos + arrayMinBytes(kind, view.length);
    if (need > this.target.length) throw this.tooSmall(need);   // before staging anything
    writeNumeric(this, this.heap, kind, view);
    this.heap.unstage();
    return null;
  }

  /** Copies n staged bytes at heap address p into the stage. */
  putHeap(p, n) {
    const src = this.heap.u8;
    while (n > 0) {
      if (this.pos >= this.end) this.more(Math.min(n, 64 * 1024));
      const k = Math.min(n, this.end - this.pos);
      this.u8.set(src.subarray(p, p + k), this.pos);
      this.pos += k;
      p += k;
      n -= k;
    }
  }

  /** Copies the message into the target; where it ends there. */
  finish() {
    const n = this.pos, total = this.base + n;
    if (total > this.target.length) throw this.tooSmall(total);
    const t = this.target, s = this.stage;
    if (n <= COPY_BY_LOOP) for (let i = 0, j = this.base; i < n; i++, j++) t[j] = s[i];
    else t.set(n === s.length ? s : this.stageView(n), this.base);
    return total;
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
    if (this.stage.length > TARGET_STAGE_KEEP) {
      this.stage = new Uint8Array(TARGET_STAGE_FIRST);
      this.stageDv = new DataView(this.stage.buffer);
      this.views.clear();
    }
  }
}

// encode()'s bodies past this many bytes get a JS buffer of their own (the
// JS scratch's usual size: a smaller scratchSize still migrates the rest).
const BODY_WHOLE = 16 * 1024;

/**
 * encode()'s span: a JS array the instance reuses (one per nesting level),
 * as C's thread scratch is one level down, so a message that fits costs no
 * call into C at all. The first reservation it cannot give moves the bytes
 * written so far, once, into a C entry (a heap sink's scratch, migrating in
 * turn to pooled segments) and the walk goes on there: C's one-way
 * migration, in JS. Typed arrays migrate at once (C writes them). A message
 * that passes 'big' bytes moves once more, out of linear memory (which
 * never shrinks) into JS memory (OutSink), where it grows without copies.
 */
export class ScratchSink {
  constructor(size, takeHeapSink, heap, big) {
    this.buf = new Uint8Array(size);
    this.bufDv = null;
    this.take = takeHeapSink;      // () => a HeapSink, the entry's own
    this.heap = heap;
    this.big = big;                // past this many bytes the message goes to JS memory
    this.hs = null;                // where the walk writes after migration: a HeapSink or an OutSink
    this.held = null;              // the HeapSink taken, if any (released by done())
    this.scratchSize = 0;
    this.fixed = false;
    this.u8 = null;
    this.dv = null;
    this.pos = 0;
    this.end = 0;
    this.messageLength = 0;
    this.bodies = false;           // a body past BODY_WHOLE goes to JS memory, not to C
    this.bodyMoved = false;        // ... and this message's did
    this.whole = big;              // the writer asks for a str or bin body past this in one piece
  }

  /** bodies: encode()'s walk, whose result leaves linear memory anyway (see more). */
  begin(scratchSize, bodies = false) {
    this.scratchSize = scratchSize;
    this.bodies = bodies;
    this.bodyMoved = false;
    this.whole = bodies ? BODY_WHOLE : this.big;
    this.hs = null;
    this.u8 = this.buf;
    this.dv = this.bufDv;
    this.pos = 0;
    this.end = this.buf.length;
  }

  view() {
    if (this.hs !== null) return (this.dv = this.hs.view());
    if (this.bufDv === null) this.bufDv = new DataView(this.buf.buffer);
    return (this.dv = this.bufDv);
  }

  // Into C: a to_array entry, the bytes written so far copied to its span.
  migrate() {
    const hs = this.take();
    this.hs = this.held = hs;      // from here on, done() ends the entry
    this.whole = this.big;
    hs.beginArray(this.scratchSize, 0);
    hs.putBytes(this.buf, this.pos);
    this.pull();
  }

  /** Whether the message is in JS memory: past 'big', or a body moved (then copyOut is its own array). */
  inJs() {
    return this.hs !== null && this.hs !== this.held;
  }

  // Bytes written so far, plus n, would pass 'big'.
  passes(n) {
    const hs = this.hs;
    if (hs === null) return this.pos + n > this.big;
    if (hs !== this.held) return false;             // in JS memory already
    hs.pos = this.pos;
    hs.store();
    return hs.length() + n > this.big;
  }

  // Out of linear memory: what was written is copied into an OutSink, and
  // the C entry gives its scratch or segments back at once.
  toJs(n, size = 2 * this.big + n, plain = false) {
    const hs = this.hs;
    const out = new OutSink(this.heap, size, plain);
    if (hs === null) {
      out.putBytes(this.buf, this.pos);
    } else {
      hs.pos = this.pos;
      hs.finish();
      hs.pieces((p, len) => out.putHeap(p, len));
      hs.release();
    }
    this.hs = out;
    this.whole = this.big;
    this.pull();
  }

  // A str or bin body past BODY_WHOLE, for a result that is a JS
  // array anyway: the message goes on in a plain JS buffer of exactly the
  // size so far, so a body that ends the message is copied once, into what
  // becomes the result -- not into linear memory and out again (shared
  // memory copies slowly in V8); bytes after it grow the buffer by copies.
  moveBody(n) {
    this.bodyMoved = true;
    this.toJs(n, this.pos + n, true);
  }

  // The current sink's span as ours (after a call on it).
  pull() {
    const hs = this.hs;
    this.u8 = hs.u8; this.dv = hs.dv; this.pos = hs.pos; this.end = hs.end;
  }

  more(n) {
    if (this.passes(n)) this.toJs(n);
    else if (this.hs === null && this.bodies && n > BODY_WHOLE) this.moveBody(n);
    else if (this.hs === null) this.migrate();
    this.hs.pos = this.pos;
    if (this.hs.end - this.hs.pos < n) this.hs.more(n);
    this.pull();
  }

  array(kind, view) {
    if (this.passes(arrayMinBytes(kind, view.length))) this.toJs(0);
    else if (this.hs === null) this.migrate();
    this.hs.pos = this.pos;
    const bytes = this.hs.array(kind, view);
    this.pull();
    return bytes;
  }

  sync() {
    if (this.hs === null) return;
    this.hs.sync();
    this.u8 = this.hs.u8; this.dv = this.hs.dv;
  }

  /** The message as a new Uint8Array of exactly its size. */
  copyOut() {
    const hs = this.hs;
    if (hs !== null) {
      hs.pos = this.pos;
      return hs === this.held ? hs.copyOut() : hs.result();
    }
    const n = this.pos, buf = this.buf;
    if (n > 48) return buf.slice(0, n);
    const out = new Uint8Array(n);      // short: a loop beats slice()
    for (let i = 0; i < n; i++) out[i] = buf[i];
    return out;
  }

  /**
   * The message copied into a block of linear memory of exactly its size
   * (heap.alloc): returns its address, and leaves its length in
   * this.messageLength. Only while it is not in JS memory.
   */
  copyToHeap() {
    const heap = this.heap, hs = this.hs;
    if (hs === null) {
      const n = this.pos, p = heap.alloc(n, 'a lease');
      heap.u8.set(n === this.buf.length ? this.buf : this.buf.subarray(0, n), p);
      this.messageLength = n;
      return p;
    }
    hs.pos = this.pos;
    const p = hs.copyToHeap();
    this.messageLength = hs.messageLength;
    return p;
  }

  /** Ends the call: the heap sink, if one was taken, is released and put in pool. */
  done(pool) {
    const hs = this.held;
    this.hs = this.held = null;
    this.u8 = this.dv = null;
    if (hs !== null) {
      hs.release();
      pool.push(hs);
    }
  }
}

/**
 * A growing JS array, for encodes that need no WASM module (a contract's
 * own encode): no array() -- the writer writes numeric arrays element by
 * element, as C would. One per nesting level (a getter may encode again).
 */
export class GrowSink {
  constructor() {
    this.buf = new Uint8Array(4096);
    this.u8 = this.buf;
    this.dv = null;
    this.bufDv = null;
    this.pos = 0;
    this.end = this.buf.length;
    this.fixed = false;
  }

  begin() {
    this.u8 = this.buf;
    this.dv = this.bufDv;
    this.pos = 0;
    this.end = this.buf.length;
  }

  view() {
    if (this.bufDv === null) this.bufDv = new DataView(this.buf.buffer);
    return (this.dv = this.bufDv);
  }

  more(n) {
    const next = new Uint8Array(Math.max(this.pos + n, 2 * this.buf.length));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = this.u8 = next;
    this.bufDv = this.dv = null;
    this.end = next.length;
  }

  sync() {}

  /** The message, a new array of exactly its size; a buffer grown past 1 MiB is let go. */
  copyOut() {
    const out = this.buf.slice(0, this.pos);
    if (this.buf.length > 1 << 20) { this.buf = this.u8 = new Uint8Array(4096); this.bufDv = this.dv = null; }
    return out;
  }
}

// The most a resizable ArrayBuffer may reserve here (V8 refuses more than 4 GiB).
const OUT_MAX = 2 ** 32;
const canResize = typeof ArrayBuffer === 'function' && typeof ArrayBuffer.prototype.resize === 'function';

/**
 * A big message's span in JS memory, outside linear memory (which never
 * shrinks): after the message is dropped, the garbage collector gives its
 * memory back. A resizable ArrayBuffer that reserves its address range
 * once and grows in place, so growing copies nothing and the payload is
 * copied once, from the value into the result (a host without resizable
 * buffers doubles by copying). Typed arrays are encoded by C in
 * the staging block, a chunk at a time, and copied in.
 */
export class OutSink {
  constructor(heap, size, plain = false) {
    this.heap = heap;
    this.plain = plain;
    this.fixed = false;
    this.pos = 0;
    this.buf = null;
    this.u8 = null;
    this.dv = null;
    this.end = 0;
    this.grow(size);
  }

  // Room for at least 'need' bytes: in place when the buffer is resizable,
  // by an eighth more each time (growing costs no copy; shrinking to the
  // message at the end zeroes the tail, touching it, so the tail stays
  // small); a plain buffer doubles (each growth is a copy).
  grow(need) {
    const resizable = canResize && this.buf !== null && this.buf.resizable;
    const cap = Math.max(need, resizable ? this.end + (this.end >>> 3) : this.end * 2);
    if (need > OUT_MAX) throw new EncodeFailure(codes.NOMEM, `a message of more than ${OUT_MAX} bytes`);
    const buf = this.buf;
    try {
      if (resizable) {
        buf.resize(Math.min(cap, buf.maxByteLength));
      } else {
        const next = canResize && !this.plain ? new ArrayBuffer(Math.min(cap, OUT_MAX), { maxByteLength: OUT_MAX })
          : new ArrayBuffer(cap);
        if (buf !== null) new Uint8Array(next).set(new Uint8Array(buf, 0, this.pos));
        this.buf = next;
      }
    } catch (e) {
      const f = new EncodeFailure(codes.NOMEM, `no memory for a message of ${cap} bytes (${e.message})`);
      f.cause = e;
      throw f;
    }
    this.end = this.buf.byteLength;
    this.u8 = new Uint8Array(this.buf, 0, this.end);
    this.dv = null;
  }

  view() {
    return (this.dv ??= new DataView(this.buf, 0, this.end));
  }

  /** Nothing to re-make: this is not linear memory. */
  sync() {}

  more(n) {
    if (this.end - this.pos < n) this.grow(this.pos + n);
  }

  array(kind, view) {
    const need = arrayMinBytes(kind, view.length);
    if (this.pos + need > OUT_MAX)
      throw new EncodeFailure(codes.NOMEM, `an array of ${view.length} elements needs ${need} bytes, ` +
        `more than a message may take (${OUT_MAX})`);
    writeNumeric(this, this.heap, kind, view);
    this.heap.unstage();
    return null;
  }

  /** Copies n staged bytes at heap address p into the span. */
  putHeap(p, n) {
    if (this.end - this.pos < n) this.grow(this.pos + n);
    this.u8.set(this.heap.u8.subarray(p, p + n), this.pos);
    this.pos += n;
  }

  /** Copies bytes[0..n) into the span. */
  putBytes(bytes, n) {
    if (this.end - this.pos < n) this.grow(this.pos + n);
    this.u8.set(bytes.subarray(0, n), this.pos);
    this.pos += n;
  }

  /** The message: a view of exactly its bytes; the buffer shrinks to it (a plain one by a copy). */
  result() {
    const n = this.pos, buf = this.buf;
    if (canResize && buf.resizable) buf.resize(n);
    this.u8 = this.dv = null;
    const out = new Uint8Array(buf, 0, n);
    return buf.byteLength === n ? out : out.slice();
  }
}
