// typed.js -- typed arrays as standard MessagePack arrays.
// Owns: which typed arrays are numeric arrays (and their element kind, as
// C's sp_num_kind numbers it), the ranges a decoded array must fit to
// become a given typed array, and whether a buffer was detached. Must not touch: the bytes (C writes them,
// decoder.js reads them).

/**
 * Element kinds: C's sp_num_kind (src/include/sp_bulk.h), SP_NUM_<name> =
 * KIND.<name>; tests/js/vocabulary.test.js checks the two against each other.
 */
export const KIND = Object.freeze({ I8: 0, U8: 1, I16: 2, U16: 3, I32: 4, U32: 5, F32: 6, F64: 7, I64: 8, U64: 9 });

const kinds = new Map([
  [Int8Array, KIND.I8], [Uint8ClampedArray, KIND.U8], [Int16Array, KIND.I16],
  [Uint16Array, KIND.U16], [Int32Array, KIND.I32], [Uint32Array, KIND.U32],
  [Float32Array, KIND.F32], [Float64Array, KIND.F64],
]);
if (typeof BigInt64Array === 'function') {
  kinds.set(BigInt64Array, KIND.I64);
  kinds.set(BigUint64Array, KIND.U64);
}

// Float16Array (Node 24, recent browsers): MessagePack has no 16-bit float,
// so it is written as the float32 array of the same values (exact).
const Half = typeof Float16Array === 'function' ? Float16Array : null;

/** A Float32Array of view's values when view is a Float16Array, else null. */
export function halvesAsFloat32(view) {
  return Half !== null && view instanceof Half ? Float32Array.from(view) : null;
}

/** The element kind decode reads into a typed array of this constructor, or -1. */
export function kindOfCtor(ctor) {
  if (ctor === Uint8Array) return KIND.U8;
  const k = kinds.get(ctor);
  return k === undefined ? -1 : k;
}

// The built-in getters, which a subclass (or an own property) cannot
// override: what a view's bytes are, where they are and how many -- what
// the encoders write and C reads. A class whose `length` said more than
// there is would otherwise have a header promise bytes that are not there,
// and old stage or linear-memory bytes fill the gap.
const typedProto = Object.getPrototypeOf(Int8Array.prototype);
const intrinsic = (proto, key) => Object.getOwnPropertyDescriptor(proto, key).get;
const typedName = intrinsic(typedProto, Symbol.toStringTag);
const typedBuffer = intrinsic(typedProto, 'buffer');
const typedOffset = intrinsic(typedProto, 'byteOffset');
const typedLength = intrinsic(typedProto, 'length');
const typedBytes = intrinsic(typedProto, 'byteLength');
const viewBuffer = intrinsic(DataView.prototype, 'buffer');
const viewOffset = intrinsic(DataView.prototype, 'byteOffset');
const viewLength = intrinsic(DataView.prototype, 'byteLength');
const kindOfName = new Map([...kinds].map(([ctor, kind]) => [ctor.name, kind]));
const ctorOfName = new Map([...kinds.keys(), Uint8Array, ...(Half !== null ? [Half] : [])].map((c) => [c.name, c]));

// The arrays whose getters are the built-in ones: Uint8Array and Node's
// Buffer add none.
const NodeBuffer = typeof Buffer === 'function' && Buffer.prototype instanceof Uint8Array ? Buffer : Uint8Array;

/**
 * Whether v is a Uint8Array or a Buffer as the built-ins make them, whose
 * `length` can be taken as it is: by its constructor property, which a
 * subclass's instances inherit from it -- the hot paths' test, a load and
 * a compare (Object.getPrototypeOf costs more: docs/node.md, round 10).
 * An own property defined on one such instance is not looked for
 * (docs/errors.md). Not a Proxy (isView).
 */
export function isPlainBytes(v) {
  const c = v.constructor;
  return (c === Uint8Array || c === NodeBuffer) && ArrayBuffer.isView(v);
}

/**
 * A view (typed array or DataView) as a plain one over the elements it
 * really has, read through the built-in getters: a typed array of its own
 * kind (a subclass's or own property's getters left behind), a DataView
 * as a Uint8Array; null when its buffer is detached.
 */
export function trueView(v) {
  const name = typedName.call(v);
  if (name === undefined) {
    const buffer = viewBuffer.call(v);
    return isDetached(buffer) ? null : new Uint8Array(buffer, viewOffset.call(v), viewLength.call(v));
  }
  const buffer = typedBuffer.call(v), n = typedLength.call(v);   // (0 when detached)
  return n === 0 && isDetached(buffer) ? null : new (ctorOfName.get(name))(buffer, typedOffset.call(v), n);
}

/**
 * Whether a plain Uint8Array or Buffer says another length than it has (an
 * own `length` property defined on it): asked only where the host would
 * otherwise stop at the real end without a word (its UTF-8 writer).
 */
export function lengthLies(v) {
  return typedLength.call(v) !== v.length;
}

/** A view's real bytes as a Uint8Array: v itself when isPlainBytes(v) (detached or not), else ownBytes(v). */
export function trueBytes(v) {
  return isPlainBytes(v) ? v : ownBytes(v);
}

/** A view's real bytes as a plain Uint8Array made here (never v, nor a Buffer); null when detached. */
export function ownBytes(v) {
  const t = trueView(v);
  return t === null || t instanceof Uint8Array ? t : new Uint8Array(t.buffer, t.byteOffset, t.byteLength);
}

/**
 * The element kind of a typed array written as a MessagePack array, or -1
 * (Uint8Array and Buffer are bin; DataView is bin). What the array is, not
 * what its constructor property says.
 */
export function numericKind(view) {
  const k = kindOfName.get(typedName.call(view));   // (undefined for a DataView)
  return k === undefined ? -1 : k;
}

// Ranges decoded integers must fit to land in each integer array type.
const ranges = new Map([
  [Int8Array, [-128, 127]], [Uint8Array, [0, 255]], [Uint8ClampedArray, [0, 255]],
  [Int16Array, [-32768, 32767]], [Uint16Array, [0, 65535]],
  [Int32Array, [-2147483648, 2147483647]], [Uint32Array, [0, 4294967295]],
]);

/** [min, max] for an integer typed array constructor, or null for float and bigint arrays. */
export function intRange(ctor) {
  return ranges.get(ctor) || null;
}

/** Whether ctor is one of the typed array constructors decode can produce. */
export function isTypedCtor(ctor) {
  return ranges.has(ctor) || ctor === Float32Array || ctor === Float64Array ||
    (typeof BigInt64Array === 'function' && (ctor === BigInt64Array || ctor === BigUint64Array));
}

/**
 * Whether v (a view or an ArrayBuffer) is over a detached buffer: its bytes
 * were transferred away (postMessage, structuredClone). A typed array then
 * reads as empty; a DataView throws at every read, its length too.
 */
export function isDetached(v) {
  let b = v;
  if (ArrayBuffer.isView(v)) {
    const plain = isPlainBytes(v), typed = plain || typedName.call(v) !== undefined;
    if (typed && (plain ? v.byteLength : typedBytes.call(v)) !== 0) return false;
    b = plain ? v.buffer : typed ? typedBuffer.call(v) : viewBuffer.call(v);   // (a DataView throws at its length when detached)
  }
  if (b.byteLength !== 0) return false;
  if (!(b instanceof ArrayBuffer)) return false;          // a SharedArrayBuffer never detaches
  if (typeof b.detached === 'boolean') return b.detached;  // ES2024 (not in Node 20)
  try {
    new Uint8Array(b);
    return false;
  } catch {
    return true;
  }
}
