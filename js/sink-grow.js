// sink-grow.js -- a growing JS array, the sink of encodes that need no WASM module.
// Owns: its buffer (doubled as it fills, let go after a big message) and
// the message's copy out. Must not touch: formats (writer.js writes numeric
// arrays element by element for it: it has no array()) or linear memory.

/**
 * A growing JS array, for encodes that need no WASM module (a contract's
 * own encode): no array() -- the writer writes numeric arrays element by
 * element, as C would. One per nesting level (a getter may encode again).
 */
export class GrowSink {
  constructor() {
    this.buf = new Uint8Array(4096);
    this.u8 = this.buf;
    this.shared = false;
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
