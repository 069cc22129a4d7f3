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

// The typed arrays' own getters, which a subclass cannot override: what a
// numeric array's elements are, where they are and how many, as C reads
// them. (A subclass's `length` getter that says more than there is would
// otherwise have C read past the elements copied, into old heap bytes.)
const typedProto = Object.getPrototypeOf(Int8Array.prototype);
const intrinsic = (key) => Object.getOwnPropertyDescriptor(typedProto, key).get;
const typedName = intrinsic(Symbol.toStringTag);
const typedBuffer = intrinsic('buffer');
const typedOffset = intrinsic('byteOffset');
const typedLength = intrinsic('length');
const kindOfName = new Map([...kinds].map(([ctor, kind]) => [ctor.name, kind]));
const ctorOfKind = [];
for (const [ctor, kind] of kinds) ctorOfKind[kind] = ctor;

/**
 * The element kind of a typed array written as a MessagePack array, or -1
 * (Uint8Array and Buffer are bin; DataView is bin). What the array is, not
 * what its constructor property says.
 */
export function numericKind(view) {
  const k = kindOfName.get(typedName.call(view));   // (undefined for a DataView)
  return k === undefined ? -1 : k;
}

/**
 * The numeric array view (of element kind `kind`) as a plain array of its
 * kind over the same bytes, read through the built-in getters: nothing a
 * subclass or an own property says about its length reaches C.
 */
export function plainNumeric(view, kind) {
  const Ctor = ctorOfKind[kind];
  return new Ctor(typedBuffer.call(view), typedOffset.call(view), typedLength.call(view));
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
  const view = ArrayBuffer.isView(v);
  if (!(view && v instanceof DataView) && v.byteLength !== 0) return false;
  const b = view ? v.buffer : v;
  if (!(b instanceof ArrayBuffer)) return false;          // a SharedArrayBuffer never detaches
  if (typeof b.detached === 'boolean') return b.detached;  // ES2024 (not in Node 20)
  try {
    new Uint8Array(b);
    return false;
  } catch {
    return true;
  }
}
