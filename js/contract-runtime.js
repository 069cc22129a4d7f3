// contract-runtime.js -- what a contract's encoder and decoder call besides the
// writer's and decoder's primitives, the same for generated code
// (contract-compile.js) and closures (contract-interp.js).
// Owns: the TYPE failures of encode and their wording, the steps added to
// paths on the way up, bytes from the binary kinds a bin field takes,
// copies of object defaults. Must not touch: formats.

import { EncodeFailure, ScratchpackError, codes, decodeWithin, describeValue, finishEncodeError, indexStep, keyStep,
  mapStep, within } from './errors.js';
import { GrowSink } from './sink-grow.js';
import { isDetached, trueBytes } from './typed.js';
import { StreamPart, detached, encodeWith } from './writer.js';

// 2^128 - 2^103: from here a number rounds to float32's infinity.
export const F32_OVER = 3.4028235677973366e38;

export const runtime = Object.freeze({
  /** An encode TYPE failure: the value is not what the field's type takes. */
  type(what, v) {
    return new EncodeFailure(codes.TYPE, `expected ${what}, got ${describeValue(v)}`);
  },
  /** A value out of the field's range. */
  range(what, v) {
    return new EncodeFailure(codes.VALUE_RANGE, `${typeof v === 'bigint' ? `${v}n` : v} does not fit ${what}`);
  },
  /**
   * Whether a float32 field's number is finite but rounds to an infinity
   * (its magnitude reaches halfway past float32's largest): VALUE_RANGE,
   * as an integer field's number out of its range is.
   */
  f32Over: (x) => (x >= F32_OVER || x <= -F32_OVER) && x !== Infinity && x !== -Infinity,
  /** The failure of a value that is not an integer in lo..hi: TYPE, or VALUE_RANGE for an integer outside. */
  intFail(what, x) {
    return typeof x === 'number' && Number.isInteger(x) ? runtime.range(what, x) : runtime.type(what, x);
  },
  /** The same for an int64/uint64 field given a number. */
  bigFail(what, x) {
    return typeof x === 'number' && Number.isInteger(x) ? runtime.range(what, x) : runtime.type(what, x);
  },
  /** Encode: adds the field's or element's step to a failure unwinding. */
  field: (e, name) => within(e, keyStep(name)),
  index: (e, i) => within(e, indexStep(i)),
  entry: (e, k) => within(e, typeof k === 'string' ? keyStep(k) : mapStep(k)),
  /** Decode: the same for read errors. */
  dfield: (e, name) => (name === null ? e : decodeWithin(e, keyStep(name))),
  dindex: (e, i) => decodeWithin(e, indexStep(i)),
  dentry: (e, k) => decodeWithin(e, typeof k === 'string' ? keyStep(k) : mapStep(k)),
  finishEncode: finishEncodeError,
  /** A bin field's value as a Uint8Array, or null when it is not bytes. */
  bytes(x) {
    if (ArrayBuffer.isView(x)) return trueBytes(x) ?? detached();   // its real bytes, whatever its class says
    if (x instanceof ArrayBuffer && isDetached(x)) detached();
    if (x instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && x instanceof SharedArrayBuffer))
      return new Uint8Array(x);
    return null;
  },
  /** A fresh copy of an object default (each decoded value gets its own), of the same classes. */
  clone: (v) => copyOf(v, new Map()),
  /**
   * v[k] for a field named like a member of Object.prototype (toString,
   * constructor, __proto__...): what v has of its own or from its class,
   * never Object.prototype's (a plain object without the field has none).
   */
  read(v, k) {
    if (Object.prototype.hasOwnProperty.call(v, k)) return v[k];
    if (k === '__proto__') return undefined;
    const x = v[k];
    return x === Object.prototype[k] ? undefined : x;
  },
  /** Whether a field named k is read with read() (inherited from every object otherwise). */
  inherited: (k) => k in Object.prototype,
  /** Sets o[k] = v, also for the key '__proto__' (an own property, not the prototype). */
  set(o, k, v) {
    if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    else o[k] = v;
  },
  /** Decode: assigning field 'name' on an object of contract 'of''s class threw (its setter). */
  setFailed(e, of, name, at) {
    const said = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    const err = new ScratchpackError(codes.CALLBACK, `setting field ${name} of a ${of} threw: ${said} (at byte ${at})`,
      { offset: at, cause: e });
    return decodeWithin(err, keyStep(name));
  },
  /** 'a Point object', 'an Order object': what a contract's value is, for messages. */
  objectOf: (name) => `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name} object`,
  /** The value in place of a field that is not in the message. */
  MISSING: Symbol('missing'),
});

// The exact bytes the writer writes for a token (a map key, a header),
// made once when a contract's code is made: the writer's own formats.
const tokenSink = new GrowSink();
function token(v) {
  tokenSink.begin();
  encodeWith(tokenSink, v, 1);
  return tokenSink.copyOut();
}

/** The str token of a map key, and an array or map header of n. */
export const keyToken = (s) => token(s);
export const headerToken = (n, map) => token(new StreamPart(map ? 'map' : 'array', n));

// A deep copy that keeps what a default is made of: its objects' prototypes
// (an object of a contract's class stays one), typed arrays, Dates, Maps
// and Sets, and shared or cyclic parts as shared or cyclic.
function copyOf(v, seen) {
  if (typeof v !== 'object' || v === null) return v;
  if (seen.has(v)) return seen.get(v);
  const out = shell(v);
  seen.set(v, out);                              // before the parts: a part may be v itself
  if (v instanceof Date || ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return out;
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) out[i] = copyOf(v[i], seen);
  else if (v instanceof Map) for (const [k, x] of v) out.set(copyOf(k, seen), copyOf(x, seen));
  else if (v instanceof Set) for (const x of v) out.add(copyOf(x, seen));
  else for (const k of Object.keys(v)) runtime.set(out, k, copyOf(v[k], seen));
  return out;
}

// A copy of a Date or of bytes; an empty container of v's kind (and prototype) otherwise.
function shell(v) {
  if (v instanceof Date) return new Date(v.getTime());
  if (v instanceof DataView) return new DataView(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
  if (ArrayBuffer.isView(v)) return v.slice();
  if (v instanceof ArrayBuffer) return v.slice(0);
  if (Array.isArray(v)) return new Array(v.length);
  if (v instanceof Map) return new Map();
  if (v instanceof Set) return new Set();
  return Object.create(Object.getPrototypeOf(v));
}
