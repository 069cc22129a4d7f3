// sinks.js -- linear memory as the sinks see it, and the package's door to the sinks.
// Owns: the Heap (views of linear memory, checked sizes and pointers, the
// staging block, C strings) and the limits of what crosses to C. The sinks
// themselves each have a file (the interface: sink.js; C's entries:
// sink-heap.js; encodeInto's target: sink-target.js; encode()'s scratch:
// sink-scratch.js; JS memory: sink-out.js, sink-grow.js; numeric arrays
// through C: sink-numeric.js); the entries' three are re-exported here. Must not
// touch: formats (writer.js), what a sink does with its spans, or what the
// entries do with the result.

import { cString, packageAbi, packageCalls } from './abi.js';
import { ScratchpackError, codes } from './errors.js';
import { copyBytes } from './sink.js';

export { HeapSink } from './sink-heap.js';
export { ScratchSink } from './sink-scratch.js';
export { TargetSink } from './sink-target.js';

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
    this.c = packageCalls(m);                          // the module's calls (js/abi.js)
    this.memory = m.spMemory || m.wasmMemory;         // js/wasm.js finds it
    this.max = this.c.memoryMax() >>> 0;               // the build's: 4 GiB - 64 KiB
    this.cap = this.max;                               // the instance's (setCap)
    this.refresh();
    this.span = packageAbi(m, this.u8).span;           // a job's span record (sink-heap.js)
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
    this.c.setMemoryCap(this.cap);
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
    let p = this.c.alloc(n) >>> 0;
    if (p === 0 && this.c.trim() > 0) p = this.c.alloc(n) >>> 0;   // caches give way
    if (p === 0) throw new ScratchpackError(codes.NOMEM, `no WASM memory for ${what} (${n} bytes)`);
    this.check(p + n);
    return p;
  }

  free(p, n) {
    this.c.free(p, n);
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
    copyBytes(this.u8, p, new Uint8Array(view.buffer, view.byteOffset, n));
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
