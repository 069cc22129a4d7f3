// framer.js -- where each message ends in a stream of concatenated messages.
// Owns: a resumable scan over MessagePack tokens that keeps its place
// across chunk boundaries (a token's length field, its body, and a count of
// values still pending per open container, like an iterative skip), with
// the decoder's limits (depth, lengths) and a cap on a message's size,
// reporting errors at absolute byte offsets. Must not touch: values
// (decoder.js decodes each message once its end is found) or where the
// bytes come from (decode-stream.js).

import { codes, decodeError } from './errors.js';

// What a token's first byte says follows it.
const SCALAR = 0, STR = 1, BIN = 2, EXT = 3, ARRAY = 4, MAP = 5, NEVER = 6;
const KIND = new Uint8Array(256);        // one of the above
const LEN_BYTES = new Uint8Array(256);   // bytes of its length or count field: 0, 1, 2 or 4
const FIXED = new Uint8Array(256);       // without one: the body's bytes or the inline count

(function table() {
  const set = (from, to, kind, lenBytes, fixed) => {
    for (let c = from; c <= to; c++) {
      KIND[c] = kind;
      LEN_BYTES[c] = lenBytes;
      FIXED[c] = typeof fixed === 'function' ? fixed(c) : fixed;
    }
  };
  set(0x00, 0xff, SCALAR, 0, 0);        // fixints, nil, booleans; the rest below
  set(0xc1, 0xc1, NEVER, 0, 0);
  set(0x80, 0x8f, MAP, 0, (c) => c & 15);
  set(0x90, 0x9f, ARRAY, 0, (c) => c & 15);
  set(0xa0, 0xbf, STR, 0, (c) => c & 31);
  [[0xc4, 1], [0xc5, 2], [0xc6, 4]].forEach(([c, n]) => set(c, c, BIN, n, 0));
  [[0xc7, 1], [0xc8, 2], [0xc9, 4]].forEach(([c, n]) => set(c, c, EXT, n, 0));
  [[0xca, 4], [0xcb, 8], [0xcc, 1], [0xcd, 2], [0xce, 4], [0xcf, 8], [0xd0, 1], [0xd1, 2], [0xd2, 4], [0xd3, 8]]
    .forEach(([c, n]) => set(c, c, SCALAR, 0, n));
  [[0xd4, 1], [0xd5, 2], [0xd6, 4], [0xd7, 8], [0xd8, 16]].forEach(([c, n]) => set(c, c, EXT, 0, n));
  [[0xd9, 1], [0xda, 2], [0xdb, 4]].forEach(([c, n]) => set(c, c, STR, n, 0));
  [[0xdc, 2], [0xdd, 4]].forEach(([c, n]) => set(c, c, ARRAY, n, 0));
  [[0xde, 2], [0xdf, 4]].forEach(([c, n]) => set(c, c, MAP, n, 0));
})();

// Where the scan is inside a token.
const AT_TOKEN = 0, IN_LENGTH = 1, IN_BODY = 2;

/** Finds message ends in bytes given a chunk at a time. */
export class Framer {
  /** opt: decode options (their limits apply per message); maxMessage: bytes a message may take. */
  constructor(opt, maxMessage) {
    this.opt = opt;
    this.maxMessage = maxMessage;
    this.pending = [];                  // per open container, the values it still needs
    this.phase = AT_TOKEN;
    this.kind = SCALAR;
    this.lenLeft = 0;                   // length-field bytes still to read
    this.len = 0;                       // the length or count read so far
    this.skip = 0;                      // body bytes still to pass
    this.tokenAt = 0;                   // absolute offset of the current token
    this.messageAt = -1;                // absolute offset of the current message, -1 between messages
  }

  /** Whether a message has begun and not ended. */
  get inMessage() {
    return this.messageAt >= 0;
  }

  /** A message begins at absolute offset at. */
  begin(at) {
    this.messageAt = at;
    this.phase = AT_TOKEN;
    if (this.pending.length !== 0) this.pending.length = 0;   // (setting a length calls into V8)
  }

  /**
   * Scans u8[from, to) (u8[0] is at absolute offset base) for the end of
   * the current message. Returns the index just past it, or -1 when the
   * message goes on past 'to' (everything up to it was taken in).
   */
  scan(u8, from, to, base) {
    let p = from;
    while (p < to) {
      if (this.phase === IN_BODY) {
        const k = Math.min(this.skip, to - p);
        p += k;
        if ((this.skip -= k) > 0) return -1;
        this.phase = AT_TOKEN;
        if (this.valueDone()) return p;
      } else if (this.phase === IN_LENGTH) {
        while (this.lenLeft > 0 && p < to) {
          this.len = this.len * 256 + u8[p++];
          this.lenLeft--;
        }
        if (this.lenLeft > 0) return -1;
        if (this.sized(base + p)) return p;
      } else {
        const c = u8[p];
        this.tokenAt = base + p;
        p++;
        if (this.tokenAt - this.messageAt >= this.maxMessage) throw this.tooBig();
        this.kind = KIND[c];
        if (LEN_BYTES[c] > 0) {
          this.phase = IN_LENGTH;
          this.lenLeft = LEN_BYTES[c];
          this.len = 0;
        } else {
          this.len = FIXED[c];
          if (this.sized(base + p)) return p;
        }
      }
    }
    return -1;
  }

  // The current token's length or count is known and 'end' is the absolute
  // offset past its header: checks it, then passes its body or opens its
  // container. Returns true when that ended the message.
  sized(end) {
    const n = this.len, opt = this.opt, at = this.tokenAt;
    if (end - this.messageAt > this.maxMessage) throw this.tooBig();      // its header alone passes the cap
    switch (this.kind) {
      case STR: if (n > opt.maxStrLength) throw limit(n, opt.maxStrLength, at, 'str length'); return this.body(n, end);
      case BIN: if (n > opt.maxBinLength) throw limit(n, opt.maxBinLength, at, 'bin length'); return this.body(n, end);
      case EXT: if (n > opt.maxExtLength) throw limit(n, opt.maxExtLength, at, 'ext length'); return this.body(n + 1, end);
      case ARRAY: return this.open(n, opt.maxArrayLength, 'array length');
      case MAP: return this.open(n, opt.maxMapLength, 'map length');
      case NEVER: throw decodeError(codes.MALFORMED, at, '0xc1 is never used in MessagePack');
      default: return this.body(n, end);
    }
  }

  body(n, end) {
    if (n === 0) {
      this.phase = AT_TOKEN;
      return this.valueDone();
    }
    if (end + n - this.messageAt > this.maxMessage) throw this.tooBig();
    this.skip = n;
    this.phase = IN_BODY;
    return false;
  }

  // A container header: the decoder's depth rule (the root is depth 0), its
  // length limit, then its values are pending (two per map entry).
  open(n, max, what) {
    this.phase = AT_TOKEN;
    if (this.pending.length >= this.opt.maxDepth)
      throw decodeError(codes.DEPTH_LIMIT, this.tokenAt, `nesting deeper than ${this.opt.maxDepth} levels`);
    if (n > max) throw limit(n, max, this.tokenAt, what);
    if (n === 0) return this.valueDone();
    this.pending.push(this.kind === MAP ? 2 * n : n);
    return false;
  }

  // One value is complete: it counts for its container, and a container
  // whose values are all there is a complete value itself.
  valueDone() {
    const st = this.pending;
    while (st.length > 0) {
      if (--st[st.length - 1] > 0) return false;
      st.pop();
    }
    this.messageAt = -1;
    return true;
  }

  tooBig() {
    return decodeError(codes.LENGTH_LIMIT, this.messageAt,
      `a message of more than ${this.maxMessage} bytes (maxMessageLength)`);
  }
}

const limit = (n, max, at, what) => decodeError(codes.LENGTH_LIMIT, at, `${what} of ${n} is over the limit of ${max}`);
