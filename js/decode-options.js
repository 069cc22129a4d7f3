// decode-options.js -- what a decode may be asked for, checked once.
// Owns: every decode option's name, default and range, and the frozen,
// reusable options object a decode reads. Must not touch: the bytes
// (decoder.js reads them with these options).

import { ScratchpackError, codes } from './errors.js';
import { extensionTable } from './ext.js';
import { isTypedCtor } from './typed.js';

/** The defaults of every decode option. */
export const decodeDefaults = Object.freeze({
  int64: 'auto',          // 'auto' | 'bigint' | 'number' | 'string'
  maps: 'auto',           // 'auto' (objects while keys are strings) | 'object' | 'map'
  binary: 'copy',         // 'copy' | 'view' (a view of the input's memory)
  typedArrays: false,     // false | 'auto' | a typed array constructor
  maxDepth: 500,
  maxStrLength: 0xffffffff,
  maxBinLength: 0xffffffff,
  maxArrayLength: 0xffffffff,
  maxMapLength: 0xffffffff,
  maxExtLength: 0xffffffff,
  extensions: null,       // the user's ext types (ext.js): decoded by their decode()
  decompress: true,       // detect Lz4Block / Lz4BlockArray at the top (decompress.js)
  maxDecompressedLength: 64 * 1024 * 1024,   // plain bytes of a compressed message, checked first
});
// (and `contract`, no default: a contract (contract.js) the message is read as a value of)

/** The hooks an instance adds to its decode options (C's typed-array reader
 * and LZ4 decompressor), under symbols: a user's options cannot name them. */
export const BULK_READ = Symbol('bulkRead');
export const INFLATE = Symbol('inflate');

/** INVALID_ARGUMENT for an option given as undefined (leaving it out takes its default). */
export const undefinedOption = (k) =>
  new ScratchpackError(codes.INVALID_ARGUMENT, `decode option '${k}' is undefined: leave it out for its default`);

const int64Modes = ['auto', 'bigint', 'number', 'string'];
const mapModes = ['auto', 'object', 'map'];

/** Checks and completes decode options (a frozen, reusable object). */
export function decodeOptions(o, base = decodeDefaults) {
  if (o === undefined || o === null) return base;
  if (typeof o !== 'object') throw new ScratchpackError(codes.INVALID_ARGUMENT, `decode options must be an object, not ${typeof o}`);
  if (o.contract !== undefined && o.contract !== null && typeof o.contract._options === 'function' &&
      Object.keys(o).length === 1) return o.contract._options(base);   // cached per base
  const keys = Object.keys(o);
  const known = recall(o, keys, base);
  if (known !== null) return known;
  const r = checked(o, keys, base);
  remember(o, keys, base, r);
  return r;
}

// The options of recent calls, by their own keys and values: a call that
// passes { binary: 'view' } as a new literal each time gets the same
// frozen object back instead of a check and a copy of every option (most
// of what decoding a small message or a viewed bin costs). Only options
// whose values are primitives or typed array constructors are kept: an
// object (the extensions) might be changed in place between calls, and a
// function (an instance's hooks) would hold its instance. Kept per base
// (an instance's options), weakly: a closed instance is not held by them.
const MEMO = 4;
const memos = new WeakMap();           // base -> { entries: [...], next }

function recall(o, keys, base) {
  const memo = memos.get(base);
  if (memo === undefined) return null;
  for (let m = 0; m < memo.entries.length; m++) {
    const e = memo.entries[m];
    if (e.keys.length !== keys.length) continue;
    let i = 0;
    while (i < keys.length && e.keys[i] === keys[i] && e.values[i] === o[keys[i]]) i++;
    if (i === keys.length) return e.result;
  }
  return null;
}

function remember(o, keys, base, result) {
  const values = keys.map((k) => o[k]);
  if (!values.every((v) => (typeof v !== 'object' && typeof v !== 'function') || v === null || isTypedCtor(v))) return;
  let memo = memos.get(base);
  if (memo === undefined) memos.set(base, (memo = { entries: [], next: 0 }));
  memo.entries[memo.next] = { keys, values, result };
  memo.next = (memo.next + 1) % MEMO;
}

function checked(o, keys, base) {
  const r = { ...base, ...o };
  const bad = (what) => new ScratchpackError(codes.INVALID_ARGUMENT, what);
  for (const k of keys) {                     // a misspelt name is an error, not a default
    if (!(k in decodeDefaults) && k !== 'contract')   // (contract.js)
      throw bad(`unknown decode option '${k}'; known: ${Object.keys(decodeDefaults).join(', ')}`);
    if (o[k] === undefined) throw undefinedOption(k);
  }
  if (!int64Modes.includes(r.int64)) throw bad(`int64 must be one of ${int64Modes.join(', ')}`);
  if (!mapModes.includes(r.maps)) throw bad(`maps must be one of ${mapModes.join(', ')}`);
  if (r.binary !== 'copy' && r.binary !== 'view') throw bad("binary must be 'copy' or 'view'");
  if (r.typedArrays !== false && r.typedArrays !== 'auto' && !isTypedCtor(r.typedArrays))
    throw bad("typedArrays must be false, 'auto' or a typed array constructor");
  if (typeof r.decompress !== 'boolean') throw bad('decompress must be true or false');
  for (const k of ['maxDepth', 'maxStrLength', 'maxBinLength', 'maxArrayLength', 'maxMapLength', 'maxExtLength',
    'maxDecompressedLength'])
    if (!Number.isInteger(r[k]) || r[k] < 0) throw bad(`${k} must be a non-negative integer`);
  r.extensions = extensionTable(r.extensions);
  if (r.contract === undefined) r.contract = null;
  if (r.contract !== null && (typeof r.contract !== 'object' || typeof r.contract._top !== 'function'))
    throw bad('contract must be a contract made by contract()');
  return Object.freeze(r);
}
