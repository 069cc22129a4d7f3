// sink-scratch.js -- encode()'s sink: a small JS scratch that migrates into C, then to JS memory.
// Owns: the JS scratch (one per nesting level), which doubles as the pool
// that small results are views of; when a message leaves it (the first
// reservation it cannot give, or a typed array: into a heap sink's entry)
// and when it leaves linear memory (past 'big' bytes: into an OutSink), and
// the message's way out from wherever it ended. Must not touch: formats
// (writer.js), C's entries (sink-heap.js) or JS memory's growth
// (sink-out.js).

import { POOLED_PIECE_MAX, bytesOf } from './sink.js';
import { arrayMinBytes } from './sink-numeric.js';
import { OutSink } from './sink-out.js';

// encode()'s bodies past this many bytes get a JS buffer of their own (the
// JS scratch's usual size: a smaller scratchSize still migrates the rest).
const BODY_WHOLE = 16 * 1024;

// The scratch's array: a message uses at most the scratch's size of it;
// pooled results fill it, one after another, before a new one is made.
const POOL_ARRAY = 32 * 1024;

// Results are pooled by default only where the pool's buffers can be
// marked untransferable (Node's markAsUntransferable, as Node marks its
// Buffer pool): a transfer of one result's buffer would otherwise detach
// every other result in it.
let markPooled;                    // undefined until first asked, then the function or null

function hostUntransferable() {
  const p = globalThis.process;
  const wt = typeof p?.getBuiltinModule === 'function' ? p.getBuiltinModule('node:worker_threads') : null;
  const mark = wt?.markAsUntransferable;
  if (typeof mark !== 'function' || typeof structuredClone !== 'function') return null;
  // Only where marking works (a runtime may offer it as a no-op): a marked
  // buffer in a transfer list is refused (Node >= 21) or copied (Node 20), never detached.
  const probe = new ArrayBuffer(8);
  mark(probe);
  try {
    structuredClone(probe, { transfer: [probe] });
  } catch {
    // refused: marked
  }
  return probe.byteLength === 8 ? mark : null;
}

function untransferable() {
  if (markPooled === undefined) markPooled = hostUntransferable();
  return markPooled;
}

/** Whether this host can pool results safely (the default of the results option). */
export const canPoolResults = () => untransferable() !== null;

/**
 * encode()'s span: a JS array the instance reuses (one per nesting level),
 * as C's thread scratch is one level down, so a message that fits costs no
 * call into C at all. Pooled results (results: 'pooled') are views of it,
 * as Node's small Buffers are views of its pool: a message begins where
 * the last pooled one ended ('next'), so nothing is written over a result,
 * and one that does not fit the rest starts again in a new array. The
 * first reservation it cannot give moves the bytes written so far, once,
 * into a C entry (a heap sink's scratch, migrating in turn to pooled
 * segments) and the walk goes on there: C's one-way migration, in JS.
 * Typed arrays migrate at once (C writes them). A message that passes
 * 'big' bytes moves once more, out of linear memory (which never shrinks)
 * into JS memory (OutSink), where it grows without copies.
 */
export class ScratchSink {
  constructor(size, takeHeapSink, heap, big, pooled) {
    this.limit = size;             // a message past this many bytes leaves the scratch
    this.pooled = pooled;          // copyOut may give views of buf (each array marked when made)
    this.size = pooled ? Math.max(size, POOL_ARRAY) : size;
    this.buf = null;
    this.bufDv = null;
    this.newArray();
    this.base = 0;                 // where this message begins in buf
    this.next = 0;                 // buf below this holds pooled results: never written again
    this.lastLength = 0;           // the last pooled result's length
    this.take = takeHeapSink;      // () => a HeapSink, the entry's own
    this.heap = heap;
    this.big = big;                // past this many bytes the message goes to JS memory
    this.hs = null;                // where the walk writes after migration: a HeapSink or an OutSink
    this.held = null;              // the HeapSink taken, if any (released by done())
    this.scratchSize = 0;
    this.fixed = false;
    this.u8 = null;
    this.shared = false;           // whether u8 is shared memory (a C entry's, pthread build)
    this.dv = null;
    this.pos = 0;
    this.end = 0;
    this.messageLength = 0;
    this.bodies = false;           // a body past BODY_WHOLE goes to JS memory, not to C
    this.bodyMoved = false;        // ... and this message's did
    this.onePiece = big;           // the writer asks for a str or bin body past this in one piece
  }

  /** bodies: encode()'s walk, whose result leaves linear memory anyway (see more). */
  begin(scratchSize, bodies = false) {
    this.scratchSize = scratchSize;
    this.bodies = bodies;
    this.bodyMoved = false;
    this.onePiece = bodies ? BODY_WHOLE : this.big;
    this.hs = null;
    if (this.buf.length - this.next < this.lastLength) this.renew();
    this.u8 = this.buf;
    this.shared = false;
    this.dv = this.bufDv;
    this.pos = this.base = this.next;
    this.end = Math.min(this.buf.length, this.base + this.limit);
  }

  // A new array to write in: the old one now belongs to the results that
  // view it (or was detached: a transfer where nothing marked it).
  renew() {
    this.newArray();
    this.next = 0;
  }

  newArray() {
    this.buf = new Uint8Array(this.size);
    this.bufDv = null;
    const mark = this.pooled ? untransferable() : null;
    if (mark !== null) mark(this.buf.buffer);
  }

  // A message that outgrew the rest of a pooled array starts again at the
  // start of a new one, if it fits there.
  restart() {
    const old = this.buf, from = this.base, n = this.pos - from;
    this.renew();
    this.buf.set(old.subarray(from, from + n));
    this.u8 = this.buf;
    this.dv = null;
    this.base = 0;
    this.pos = n;
    this.end = this.limit;
  }

  // The message so far: buf[base..pos).
  written() {
    return this.buf.subarray(this.base, this.pos);
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
    this.onePiece = this.bodies ? BODY_WHOLE : this.big;
    hs.beginArray(this.scratchSize, 0);
    hs.putBytes(this.written(), this.pos - this.base);
    this.pull();
  }

  /**
   * Whether the message outgrew the scratch (the next one starts in C). One
   * that went into C for a typed array, or started there, and stayed small
   * did not: the next starts in the scratch again.
   */
  outgrew() {
    const hs = this.hs;
    if (hs === null) return false;
    if (hs !== this.held) return true;              // in JS memory
    return this.heldLength() > this.limit;
  }

  // The message's length so far in the C entry taken (hs === held).
  heldLength() {
    this.hs.pos = this.pos;
    this.hs.store();
    return this.hs.length();
  }

  /** Whether the message is in JS memory: past 'big', or a body moved (then copyOut is its own array). */
  inJs() {
    return this.hs !== null && this.hs !== this.held;
  }

  /** The message's length while it is not in JS memory: in the scratch or in C. */
  linearLength() {
    return this.hs === null ? this.pos - this.base : this.heldLength();
  }

  // Bytes written so far, plus n, would pass 'big'.
  passes(n) {
    const hs = this.hs;
    if (hs === null) return this.pos - this.base + n > this.big;
    if (hs !== this.held) return false;             // in JS memory already
    return this.heldLength() + n > this.big;
  }

  // Out of linear memory: what was written is copied into an OutSink, and
  // the C entry gives its scratch or segments back at once.
  toJs(n, size = 2 * this.big + n, plain = false) {
    const hs = this.hs;
    const out = new OutSink(this.heap, size, plain);
    if (hs === null) {
      out.putBytes(this.written(), this.pos - this.base);
    } else {
      hs.pos = this.pos;
      hs.finish();
      hs.pieces((p, len) => out.putHeap(p, len));
      hs.release();
    }
    this.hs = out;
    this.onePiece = this.big;
    this.pull();
  }

  // A str or bin body past BODY_WHOLE, for a result that is a JS
  // array anyway: the message goes on in a plain JS buffer of exactly the
  // size so far, so a body that ends the message is copied once, into what
  // becomes the result -- not into linear memory and out again (shared
  // memory copies slowly in V8); bytes after it grow the buffer by copies.
  // From the scratch, or from the C entry a message that started there
  // (after one that outgrew the scratch) has written so far.
  moveBody(n) {
    this.bodyMoved = true;
    const sofar = this.hs === null ? this.pos - this.base : this.heldLength();
    this.toJs(n, sofar + n, true);
  }

  // Whether a body of n bytes takes the message to JS memory: from the
  // scratch always (at most its size is written); from a C entry when n is
  // at least what is there (a big message of small values stays in C, where
  // its segments grow without copies), or when C could give n in one piece
  // only outside its pool.
  bodyLeads(n) {
    if (this.hs === null) return true;
    if (this.hs !== this.held) return false;
    return n > POOLED_PIECE_MAX || this.heldLength() <= n;
  }

  // The current sink's span as ours (after a call on it).
  pull() {
    const hs = this.hs;
    this.u8 = hs.u8; this.dv = hs.dv; this.pos = hs.pos; this.end = hs.end;
    this.shared = hs.shared;
  }

  more(n) {
    if (this.passes(n)) this.toJs(n);
    else if (this.bodies && n > BODY_WHOLE && this.bodyLeads(n)) this.moveBody(n);
    else if (this.hs === null && this.base > 0 && this.pos - this.base + n <= this.limit) {
      this.restart();
      return;
    } else if (this.hs === null) this.migrate();
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

  /**
   * The message as a Uint8Array of exactly its size: an array of its own,
   * or (pooled, not own, and the message still in the scratch) a view of
   * the scratch's array, which the scratch never writes again.
   */
  copyOut(own) {
    const hs = this.hs;
    if (hs !== null) {
      hs.pos = this.pos;
      return hs === this.held ? hs.copyOut() : hs.result();
    }
    if (own || !this.pooled) return bytesOf(this.buf, this.base, this.pos);
    const n = this.pos - this.base, out = new Uint8Array(this.buf.buffer, this.base, n);
    this.next = (this.pos + 7) & ~7;          // the next result 8-aligned, as Node's pool does
    this.lastLength = n;
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
      const n = this.pos - this.base, p = heap.alloc(n, 'a lease');
      heap.u8.set(this.written(), p);
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
