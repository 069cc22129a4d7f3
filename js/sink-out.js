// sink-out.js -- a big message's sink in JS memory, outside linear memory.
// Owns: its buffer (a resizable ArrayBuffer grown in place, or doubled by
// copying where the host has none), the bound of what a message may take
// there, and the message as a view of exactly its bytes. Must not touch:
// formats (writer.js) or linear memory (numeric arrays go through
// sink-numeric.js).

import { EncodeFailure, codes } from './errors.js';
import { copyIn, unzeroedBuffer } from './sink.js';
import { arrayMinBytes, writeNumeric } from './sink-numeric.js';

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
    this.shared = false;
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
          : unzeroedBuffer(cap);   // (the result is a view of its first pos bytes, or a copy of them)
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

  /** Copies n staged bytes at heap address p into the span (room first: one piece). */
  putHeap(p, n) {
    this.more(n);
    copyIn(this, null, p, n);
  }

  /** Copies bytes[0..n) into the span. */
  putBytes(bytes, n) {
    this.more(n);
    copyIn(this, bytes, 0, n);
  }

  /**
   * The message in an ArrayBuffer of exactly its bytes and of fixed length,
   * as every result is (a resizable one is refused by fetch bodies on Node
   * 20 and 22 and by structuredClone): a resizable buffer is transferred to
   * a fixed one (copied where the host cannot transfer), a plain one of
   * another size copied.
   */
  result() {
    const n = this.pos, buf = this.buf;
    this.u8 = this.dv = null;
    this.buf = null;
    if (buf.resizable) {
      if (typeof buf.transferToFixedLength === 'function') return new Uint8Array(buf.transferToFixedLength(n));
      return new Uint8Array(buf, 0, n).slice();
    }
    const out = new Uint8Array(buf, 0, n);
    return buf.byteLength === n ? out : out.slice();
  }
}
