// decoder-contract.js -- the typed decoder: reading a value of the type a contract field asks for.
// Owns: the primitives a contract's decoder calls (contract-compile.js
// generates code over them, contract-interp.js builds closures over them),
// each reading one value of the type asked for, and their failures: TYPE
// (a value of another type, named by what it is) and OVERFLOW (an integer
// out of the field's range), at the value's offset. Must not touch: how
// formats are read, the limits or the position (decoder.js reads every
// token, with its checks, through the calls imported below).

import { codes, decodeError } from './errors.js';
import {
  arrayLength, formatHere, here, mapLength, matchToken, nothingLeft, peek, peekAt, read, readFixstr, readFloat,
  readInt, readMapKey, skip,
} from './decoder.js';
import { intRange } from './typed.js';

const wrong = (what) => decodeError(codes.TYPE, here(), `expected ${what}, got ${formatHere()}`);
const outOfRange = (at, v, what) => decodeError(codes.OVERFLOW, at, `${v} does not fit ${what}`);
// No value left is TRUNCATED; a value of another kind, TYPE.
const missing = (what) => (peek() < 0 ? nothingLeft() : wrong(what));

/** The decoder's primitives for contract decoders (depth: as read()'s). */
export const D = Object.freeze({
  /** Consumes a nil and returns true, or returns false. */
  nil() {
    if (peek() === 0xc0) { skip(1); return true; }
    return false;
  },
  /** Whether any bytes are left (a missing value is TRUNCATED, not TYPE). */
  more() { return peek() >= 0; },
  array(depth, what) {
    const n = arrayLength(depth);
    if (n < 0) throw missing(what);
    return n;
  },
  map(depth, what) {
    const n = mapLength(depth);
    if (n < 0) throw missing(what);
    return n;
  },
  /**
   * The map key at pos, consumed, as an index into a contract's keys: the
   * canonical str tokens of its keys are compared byte by byte with the
   * input, hint's first (the field after the last one matched: a writer
   * keeps the order), so a known key costs no string; any other key is read
   * and looked up by value in byValue (a str in a wider header form than the
   * canonical one still finds its field). -1 for a key the contract has not.
   */
  keyIndex(tokens, hint, byValue, depth) {
    const t = matchToken(tokens, hint);
    if (t >= 0) return t;
    const v = byValue.get(read(depth));
    return v === undefined ? -1 : v;
  },
  /** A map key: short str keys through the key cache, anything else as read() reads it. */
  key: readMapKey,
  str(what) {
    const c = peek();
    if (c >= 0xa0 && c < 0xc0) return readFixstr();
    if (c >= 0xd9 && c <= 0xdb) return read(0);
    throw wrong(what);
  },
  bool(what) {
    const c = peek();
    if (c === 0xc3) { skip(1); return true; }
    if (c === 0xc2) { skip(1); return false; }
    throw wrong(what);
  },
  /** An integer in lo..hi as a number. */
  int(lo, hi, what) {
    const at = here();
    const v = readInt();
    if (v === undefined) throw wrong(what);
    if (typeof v !== 'number' || v < lo || v > hi) throw outOfRange(at, v, what);
    return v;
  },
  /** An int64 (signed) or uint64 as a BigInt, or a number when asNumber. */
  big(signed, asNumber, what) {
    const at = here(), c = peek();
    const v = readInt();
    if (v === undefined) throw wrong(what);
    if (!signed && v < 0) throw outOfRange(at, v, what);
    if (signed && typeof v === 'bigint' && v >= 0n && c === 0xcf && v > 0x7fffffffffffffffn)
      throw outOfRange(at, v, what);
    if (asNumber) return Number(v);
    return BigInt(v);
  },
  /** Any number (integers too: a float field reads what a C# double reads). */
  num(what) {
    const c = peek();
    if (c === 0xcb || c === 0xca) return readFloat(c);
    const v = readInt();
    if (v === undefined) throw wrong(what);
    return Number(v);
  },
  bin(what) {
    const c = peek();
    if (c >= 0xc4 && c <= 0xc6) return read(0);
    throw wrong(what);
  },
  date(what) {
    const c = peek();
    if ((c === 0xd6 || c === 0xd7 || c === 0xc7) && peekAt(1) >= 0 && peekAt(c === 0xc7 ? 2 : 1) === 0xff) return read(0);
    throw wrong(what);
  },
  any: read,
  skip: read,
  /** A numeric array into a new typed array of ctor (int kinds range-checked). */
  typed(ctor, big, depth, what) {
    const n = D.array(depth, what);
    const a = new ctor(n);
    const range = intRange(ctor);
    for (let i = 0; i < n; i++) a[i] = big ? D.big(ctor === BigInt64Array, false, `an element of ${what}`)
      : range === null ? D.num(`an element of ${what}`) : intIn(range, what);
    return a;
  },
});

// An integer element of a typed array field, within range [lo, hi].
function intIn(range, what) {
  const at = here();
  const v = readInt();
  if (v === undefined) throw wrong(`an integer element of ${what}`);
  if (v < range[0] || v > range[1]) throw outOfRange(at, v, `an element of ${what}`);
  return v;
}
