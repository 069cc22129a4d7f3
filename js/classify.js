// classify.js -- what an object is, as the encoders see it.
// Owns: the one classification of object values that encode()'s walk
// (writer.js) and encodeToStream's walk (encode-stream.js) both follow, in
// one order (a plain object first, then a registered extension's class,
// then the built-in kinds), the classes that have a contract, and a bin
// value's bytes. Must not touch: formats (writer.js writes each kind) or
// which kinds a stream enters (encode-stream.js).

import { Ext } from './ext.js';
import { trueBytes } from './typed.js';

/** The kinds classifyObject returns. */
export const OBJECT = 0;      // a plain object (its constructor is Object): a map of its own keys
export const EXTENSION = 1;   // a value of a class an extension (ext.js) claims
export const ARRAY = 2;
export const VIEW = 3;        // a typed array or DataView: a numeric array, or bin
export const MAP = 4;
export const DATE = 5;
export const EXT = 6;         // an Ext (a raw ext type and data)
export const BUFFER = 7;      // an ArrayBuffer or SharedArrayBuffer: bin
export const CONTRACT = 8;    // an instance of a class a contract names
export const OTHER = 9;       // anything else: refused, boxed, or a map of its own keys

/**
 * The classes a contract names, to the encoder of their instances
 * ((value, depth) => void, depth already checked): the walk writes an
 * instance through its contract wherever it meets one (in `any` values,
 * plain arrays, maps). The exact class only, as MessagePack-CSharp picks a
 * formatter by the runtime type.
 */
export const contractClasses = new WeakMap();

let claimed = null;            // the extension of the last EXTENSION

/** The extension that claimed the value classifyObject last called EXTENSION. */
export const claimedBy = () => claimed;

const hasShared = typeof SharedArrayBuffer === 'function';

/**
 * The kind of a non-null object v; exts: the extensions' table (ext.js),
 * or null when none are asked about.
 */
export function classifyObject(v, exts) {
  const ctor = v.constructor;
  if (ctor === Object) return OBJECT;
  if (exts !== null && (claimed = exts.find(v)) !== null) return EXTENSION;
  if (Array.isArray(v)) return ARRAY;
  if (ArrayBuffer.isView(v)) return VIEW;
  if (v instanceof Map) return MAP;
  if (v instanceof Date) return DATE;
  if (v instanceof Ext) return EXT;
  if (v instanceof ArrayBuffer || (hasShared && v instanceof SharedArrayBuffer)) return BUFFER;
  if (ctor !== undefined && contractClasses.has(ctor)) return CONTRACT;
  return OTHER;
}

/**
 * A bin value's bytes (a VIEW that is not a numeric array, or a BUFFER) as
 * a Uint8Array, never a copy: a view's real bytes, whatever its class says
 * of them (typed.js trueBytes); null when its buffer is detached.
 */
export function binBytes(v) {
  return ArrayBuffer.isView(v) ? trueBytes(v) : new Uint8Array(v);
}
