// ext.js -- MessagePack extension values other than the timestamp, and the
// user's extension types (classes encoded as ext values and back).
// Owns: the Ext class; checking the `extensions` option and the table made
// from it (lookup by class for the writer, by type for the decoder); the
// calls of a user's encode and decode and what their failures become.
// Must not touch: formats (writer.js writes ext headers, decoder.js reads
// them).

import { EncodeFailure, ScratchpackError, codes, describeValue } from './errors.js';
import { isDetached, ownBytes, trueBytes } from './typed.js';

const detachedData = 'ext data is over a detached (transferred) buffer: its bytes are gone';

/**
 * An extension value: a type in -128..127 and its bytes. Type -1 is the
 * timestamp, which decodes to a Date, or to an Ext(-1) when it lies outside
 * what a Date holds; an Ext(-1) must hold a valid one (4, 8 or 12 bytes,
 * nanoseconds under 10^9), as decode would read it back.
 */
export class Ext {
  constructor(type, data) {
    if (!Number.isInteger(type) || type < -128 || type > 127)
      throw new ScratchpackError(codes.INVALID_ARGUMENT, `ext type must be an integer in -128..127, got ${type}`);
    this.type = type;
    const bytes = data instanceof Uint8Array && ArrayBuffer.isView(data);   // (a Proxy of one is not bytes)
    if (bytes && isDetached(data)) throw new ScratchpackError(codes.INVALID_ARGUMENT, detachedData);
    this.data = bytes ? trueBytes(data) : bytesOf(data);
    const wrong = type === -1 ? timestampProblem(this.data) : null;
    if (wrong !== null) throw new ScratchpackError(codes.INVALID_ARGUMENT, wrong);
  }
}

/**
 * What is wrong with an Ext's fields as the writer finds them (they are
 * plain fields: an assignment after construction is checked there), or null.
 */
export function extProblem(type, data) {
  if (!Number.isInteger(type) || type < -128 || type > 127) return `its type is ${typeof type === 'number' ? type : describeValue(type)}, not an integer in -128..127`;
  if (!(data instanceof Uint8Array) || !ArrayBuffer.isView(data)) return `its data is ${describeValue(data)}, not a Uint8Array`;
  if (isDetached(data)) return 'its data is over a detached (transferred) buffer: its bytes are gone';
  return type === -1 ? timestampProblem(data) : null;
}

// Why b is not a timestamp's body (what decode reads as MALFORMED), or null.
function timestampProblem(b) {
  const n = b.length;
  if (n !== 4 && n !== 8 && n !== 12) return `an ext -1 is a timestamp of 4, 8 or 12 bytes, not ${n}`;
  const hi = ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
  const nsec = n === 8 ? hi >>> 2 : n === 12 ? hi : 0;
  return nsec >= 1e9 ? `an ext -1 timestamp with ${nsec} nanoseconds (must be under 10^9)` : null;
}

// Ext's data from what else holds bytes: a copy of an ArrayBuffer's, the
// bytes a typed array or DataView covers, or an array of integers 0..255.
// Anything else -- a string, a plain object, 256 or 1.5 in an array -- is
// INVALID_ARGUMENT, not bytes made up from it.
function bytesOf(data) {
  if (data instanceof ArrayBuffer || isShared(data) || ArrayBuffer.isView(data)) {
    try {
      return ArrayBuffer.isView(data) ? ownBytes(data).slice() : new Uint8Array(data.slice(0));
    } catch (e) {                       // a detached (transferred) buffer
      throw new ScratchpackError(codes.INVALID_ARGUMENT, detachedData, { cause: e });
    }
  }
  if (!Array.isArray(data))
    throw new ScratchpackError(codes.INVALID_ARGUMENT, `ext data must be a Uint8Array, an ArrayBuffer, a typed array or an array of bytes, not ${describeValue(data)}`);
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const b = data[i];
    if (!Number.isInteger(b) || b < 0 || b > 255)
      throw new ScratchpackError(codes.INVALID_ARGUMENT, `ext data[${i}] is ${typeof b === 'number' ? b : describeValue(b)}, not a byte (an integer 0..255)`);
    out[i] = b;
  }
  return out;
}

const isShared = (x) => typeof SharedArrayBuffer === 'function' && x instanceof SharedArrayBuffer;

const bad = (what) => new ScratchpackError(codes.INVALID_ARGUMENT, what);
const EXT_FIELDS = ['type', 'class', 'encode', 'decode'];

function className(c) {
  return typeof c === 'function' && c.name ? c.name : '<anonymous class>';
}

/**
 * The checked `extensions` option: a class maps to its entry through its
 * prototype (so a subclass is found through the nearest registered
 * ancestor), a type to its entry through an array of 128.
 */
export class ExtensionTable {
  constructor(list) {
    this.list = Object.freeze(list);
    this.byProto = new Map();
    this.byType = new Array(128).fill(null);
    for (const e of list) {
      this.byProto.set(e.class.prototype, e);
      this.byType[e.type] = e;
    }
  }

  /** The entry whose class is v's, or the nearest ancestor's; null for none. */
  find(v) {
    for (let p = Object.getPrototypeOf(v); p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      const e = this.byProto.get(p);
      if (e !== undefined) return e;
    }
    return null;
  }
}

/**
 * Checks an `extensions` option (an array of { type, class, encode, decode })
 * and returns its table, or null for none (undefined, null, []). Throws
 * INVALID_ARGUMENT naming the entry at fault.
 *
 * Types are 0..127: the MessagePack spec reserves -128..-1 for types of its
 * own (-1 is the timestamp), and a type it defines later must not decode
 * into a user's class.
 */
export function extensionTable(list) {
  if (list === undefined || list === null) return null;
  if (list instanceof ExtensionTable) return list;
  if (!Array.isArray(list)) throw bad('extensions must be an array of { type, class, encode, decode }');
  const types = new Map(), classes = new Map(), out = [];
  list.forEach((x, i) => {
    const where = `extensions[${i}]`;
    if (x === null || typeof x !== 'object') throw bad(`${where} must be an object { type, class, encode, decode }`);
    for (const k of Object.keys(x))
      if (!EXT_FIELDS.includes(k)) throw bad(`${where} has an unknown field '${k}'; known: ${EXT_FIELDS.join(', ')}`);
    const { type, class: cls, encode, decode } = x;
    if (type === -1) throw bad(`${where}.type -1 is the timestamp, which scratchpack reads and writes itself (Date)`);
    if (!Number.isInteger(type) || type < 0 || type > 127)
      throw bad(`${where}.type must be an integer in 0..127 (-128..-1 are reserved by MessagePack), not ${type}`);
    if (typeof cls !== 'function' || cls.prototype === undefined || cls.prototype === null)
      throw bad(`${where}.class must be a class (a constructor function)`);
    if (cls === Object) throw bad(`${where}.class cannot be Object: every plain object would match it`);
    if (typeof encode !== 'function') throw bad(`${where}.encode must be a function (value) => Uint8Array`);
    if (typeof decode !== 'function') throw bad(`${where}.decode must be a function (data: Uint8Array) => value`);
    if (types.has(type)) throw bad(`${where} and extensions[${types.get(type)}] both have type ${type}`);
    if (classes.has(cls))
      throw bad(`${where} and extensions[${classes.get(cls)}] both have class ${className(cls)}`);
    types.set(type, i);
    classes.set(cls, i);
    out.push(Object.freeze({ type, class: cls, encode, decode }));
  });
  return out.length === 0 ? null : new ExtensionTable(out);
}

/**
 * Calls e.encode(v) and returns its bytes. A throw, or a result that is not
 * a Uint8Array, becomes a ScratchpackError CALLBACK (the writer adds the
 * value's path; the user's error is its cause).
 */
export function extEncode(e, v) {
  let data;
  try {
    data = e.encode(v);
  } catch (err) {
    throw new EncodeFailure(codes.CALLBACK, `extension ${e.type} (${className(e.class)}) encode threw: ${said(err)}`, err);
  }
  if (!(data instanceof Uint8Array) || !ArrayBuffer.isView(data))
    throw new EncodeFailure(codes.CALLBACK,
      `extension ${e.type} (${className(e.class)}) encode returned ${describe(data)}, not a Uint8Array`);
  if (isDetached(data))
    throw new EncodeFailure(codes.CALLBACK,
      `extension ${e.type} (${className(e.class)}) encode returned a Uint8Array over a detached (transferred) buffer`);
  return trueBytes(data);               // its real bytes, whatever a subclass says of their length
}

/**
 * Calls e.decode(data) for the ext at byte `at`. A throw becomes a
 * ScratchpackError CALLBACK at that offset, the user's error its cause.
 */
export function extDecode(e, data, at) {
  try {
    return e.decode(data);
  } catch (err) {
    throw new ScratchpackError(codes.CALLBACK,
      `extension ${e.type} (${className(e.class)}) decode threw: ${said(err)} (at byte ${at})`, { offset: at, cause: err });
  }
}

const said = (err) => (err instanceof Error ? err.message : String(err));

function describe(v) {
  if (v === null) return 'null';
  if (typeof v !== 'object') return typeof v;
  const name = v.constructor?.name || 'object';
  return `${/^[AEIOU]/i.test(name) ? 'an' : 'a'} ${name}`;
}
