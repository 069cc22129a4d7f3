// options.js -- the options of an instance and of its calls, checked before anything reaches C.
// Owns: every option's name, kind, range and default (createScratchpack's,
// the pool's, the limits'), the errors that name a bad one (with a
// suggestion for a misspelt name, suggest.js), and the per-call options of
// the entries ({ contract }, encodeAsync's { signal }). Must not touch: the
// module (scratchpack.js hands the checked values to C) or what the options
// do.

import { decodeDefaults } from './decode-options.js';
import { ScratchpackError, codes } from './errors.js';
import { extensionTable } from './ext.js';
import { canPoolResults } from './sink-scratch.js';
import { U32_MAX } from './sinks.js';
import { suggest } from './suggest.js';

const MiB = 1 << 20;

/**
 * The instance's options and their ranges: every one is checked here,
 * before the module loads, so no size reaches C that a wasm32 parameter
 * cannot hold (a JS number past 2^32 would wrap in the i32 conversion).
 */
const OPTIONS = ['threads', 'scratchSize', 'pool', 'limits', 'wasm', 'wasmBinary', 'maxMemory', 'cacheLimit',
  'extensions', 'compression', 'bigMessage', 'results'];
const CALL_OPTIONS = ['contract'];
const POOL_OPTIONS = ['kind', 'maxLength', 'perBucket', 'partitions', 'perPartition', 'sequences'];
const LIMIT_OPTIONS = Object.keys(decodeDefaults).filter((k) => k.startsWith('max'));
const poolKinds = ['default', 'bucket', 'shared', 'lockfree'];
/** The compression option's values, by sp_compression number (src/include/sp_compress.h). */
export const COMPRESSIONS = Object.freeze(['none', 'lz4block', 'lz4blockarray']);

/** The pool's limits (src/include/sp_pool.h and sp_sequence.h allow more; these keep its tables small). */
export const POOL_LIMITS = Object.freeze({
  maxLength: 1 << 30,        // the largest bucket, 1 GiB
  perBucket: 65536,          // slot pointers per bucket, allocated up front
  partitions: 1024,
  perPartition: 65536,
  arraysPerBucket: 1 << 20,  // partitions x perPartition (pointers per bucket)
  sequences: 65536,          // SP_SEQ_POOL_MAX
});

/** What the instance keeps cached between calls by default: the pool's arrays, in bytes. */
export const DEFAULT_CACHE_LIMIT = 4 * MiB;
/**
 * A message that passes this many bytes leaves linear memory for JS memory
 * (sink-out.js, OutSink): linear memory never shrinks, JS memory goes back
 * once the message is dropped. Below it nothing changes.
 */
export const DEFAULT_BIG_MESSAGE = 8 * MiB;
// The wasm32 limit (the builds' MAXIMUM_MEMORY less one page); the module reports the same.
const MEMORY_MAX = 2 ** 32 - 65536;
/** An INVALID_ARGUMENT error saying what is wrong. */
export const bad = (what) => new ScratchpackError(codes.INVALID_ARGUMENT, what);

/** Throws INVALID_ARGUMENT naming any own key of o that is not in known. */
function onlyKnown(o, known, where) {
  // for-in, not Object.keys: no array per call (per-call options are checked on every encode).
  for (const k in o)
    if (!known.includes(k) && Object.hasOwn(o, k))
      throw bad(`unknown ${where} '${k}'${suggest(k, known)}; known: ${known.join(', ')}`);
}

function integerIn(v, lo, hi, name) {
  if (!Number.isInteger(v) || v < lo || v > hi)
    throw bad(`${name} must be an integer in ${lo}..${hi}, not ${v}`);
  return v;
}

/**
 * The C arguments of sp_wasm_configure for a pool option: [kind, a, b,
 * sequences], every one range-checked (INVALID_ARGUMENT names the limit).
 */
export function poolArgs(pool) {
  const p = typeof pool === 'string' ? { kind: pool } : pool;
  if (p === null || typeof p !== 'object')
    throw bad(`pool must be one of ${poolKinds.join(', ')}, or { ${POOL_OPTIONS.join(', ')} }`);
  onlyKnown(p, POOL_OPTIONS, 'pool option');
  const kind = p.kind ?? 'bucket';
  if (!poolKinds.includes(kind))
    throw bad(`pool must be one of ${poolKinds.join(', ')}, or { ${POOL_OPTIONS.join(', ')} }`);
  const L = POOL_LIMITS;
  const sequences = integerIn(p.sequences ?? 0, 0, L.sequences, 'pool.sequences');
  if (kind === 'shared') {
    const parts = integerIn(p.partitions ?? 0, 0, L.partitions, 'pool.partitions');
    const per = integerIn(p.perPartition ?? 0, 0, L.perPartition, 'pool.perPartition');
    if ((parts || 1) * (per || 32) > L.arraysPerBucket)
      throw bad(`pool.partitions x pool.perPartition must be at most ${L.arraysPerBucket}, not ${parts * per}`);
    return [1, parts, per, sequences];
  }
  const maxLength = integerIn(p.maxLength ?? 80 * 1024, 1, L.maxLength, 'pool.maxLength');
  const perBucket = integerIn(p.perBucket ?? 100, 1, L.perBucket, 'pool.perBucket');
  return [kind === 'lockfree' ? 2 : 0, maxLength, perBucket, sequences];
}

/** Checks the options (unknown names, kinds, ranges) and fills in the defaults. */
export function normalize(o) {
  if (o === null || typeof o !== 'object') throw bad('options must be an object');
  onlyKnown(o, OPTIONS, 'option');
  const r = {
    threads: o.threads ?? 0,
    scratchSize: o.scratchSize ?? 65536,
    pool: poolArgs(o.pool ?? 'default'),
    limits: o.limits ?? {},
    wasm: o.wasm ?? 'auto',
    wasmBinary: o.wasmBinary,
    maxMemory: o.maxMemory ?? MEMORY_MAX,
    cacheLimit: o.cacheLimit ?? DEFAULT_CACHE_LIMIT,
    extensions: extensionTable(o.extensions),       // ext.js: a table, or null
    compression: COMPRESSIONS.indexOf(o.compression ?? 'none'),
    bigMessage: o.bigMessage ?? DEFAULT_BIG_MESSAGE,
    results: o.results ?? (canPoolResults() ? 'pooled' : 'own'),
  };
  if (r.compression < 0)
    throw bad(`compression must be one of ${COMPRESSIONS.map((c) => `'${c}'`).join(', ')}, not ${
      typeof o.compression === 'string' ? `'${o.compression}'` : String(o.compression)}`);
  integerIn(r.threads, 0, 64, 'threads');
  integerIn(r.scratchSize, 8, 1 << 30, 'scratchSize');
  integerIn(r.maxMemory, 16 * MiB, MEMORY_MAX, 'maxMemory');
  if (r.cacheLimit !== Infinity) integerIn(r.cacheLimit, 0, U32_MAX, 'cacheLimit');
  if (r.bigMessage !== Infinity) integerIn(r.bigMessage, 0, U32_MAX, 'bigMessage');
  if (typeof r.limits !== 'object' || r.limits === null) throw bad('limits must be an object');
  onlyKnown(r.limits, LIMIT_OPTIONS, 'limit');
  if (!['auto', 'threads', 'single'].includes(r.wasm)) throw bad("wasm must be 'auto', 'threads' or 'single'");
  if (r.results !== 'pooled' && r.results !== 'own') throw bad(`results must be 'pooled' or 'own', not ${String(o.results)}`);
  return r;
}

/** The encoder of an entry's { contract } option (contract.js), or null. */
export function contractOf(options) {
  const c = contractOption(options);
  return c === null ? null : c._encTop;
}

/** An entry's { contract } option itself (contract.js), checked, or null. */
export function contractOption(options) {
  if (options === undefined || options === null) return null;
  if (typeof options !== 'object') throw bad('options must be an object { contract }');
  onlyKnown(options, CALL_OPTIONS, 'encode option');
  const c = options.contract;
  if (c === undefined || c === null) return null;
  if (typeof c !== 'object' || typeof c._encTop !== 'function') throw bad('contract must be a contract made by contract()');
  return c;
}

/**
 * encodeAsync's options: its { signal }, an AbortSignal (or one alike:
 * aborted and addEventListener), or undefined; INVALID_ARGUMENT otherwise.
 */
export function asyncSignal(options) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') throw new ScratchpackError(codes.INVALID_ARGUMENT, 'encodeAsync options must be an object { signal }');
  for (const k of Object.keys(options))
    if (k !== 'signal' && k !== 'contract')
      throw new ScratchpackError(codes.INVALID_ARGUMENT, `unknown encodeAsync option '${k}'; known: signal, contract`);
  const { signal } = options;
  if (signal === undefined || signal === null) return undefined;
  if (typeof signal !== 'object' || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function' ||
      typeof signal.removeEventListener !== 'function')
    throw new ScratchpackError(codes.INVALID_ARGUMENT, 'encodeAsync signal must be an AbortSignal');
  return signal;
}
