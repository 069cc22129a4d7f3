// index.d.ts -- hand-written declarations for the scratchpack package.

/**
 * Every code a {@link ScratchpackError} can carry. The C core names the same
 * errors `SP_E_` + the code (`SP_E_TRUNCATED`); SINK, CALLBACK, TYPE and
 * OVERFLOW arise only in C, UNSUPPORTED_TYPE, CYCLE, CLOSED and INTERNAL
 * only in JS.
 */
export type ScratchpackErrorCode =
  | 'NOMEM' | 'INVALID_ARGUMENT' | 'CANCELLED' | 'LENGTH_LIMIT' | 'VALUE_RANGE'
  | 'BUFFER_TOO_SMALL' | 'SINK' | 'CALLBACK' | 'TRUNCATED' | 'MALFORMED' | 'TYPE'
  | 'DEPTH_LIMIT' | 'OVERFLOW' | 'TRAILING_BYTES'
  | 'UNSUPPORTED_TYPE' | 'CYCLE' | 'CLOSED' | 'INTERNAL';

/**
 * The codes as constants.
 * @example
 * if (e.code === codes.TRUNCATED) waitForMoreBytes();
 */
export declare const codes: Readonly<{ [K in ScratchpackErrorCode]: K }>;

/**
 * The one error scratchpack throws: a stable `code`, where it happened, and
 * a message a person can act on.
 * @example
 * try { sp.decode(bytes); } catch (e) {
 *   if (e instanceof ScratchpackError && e.code === 'TRUNCATED') console.log('ends at', e.offset);
 * }
 */
export declare class ScratchpackError extends Error {
  readonly name: 'ScratchpackError';
  /** What went wrong; stable across versions. */
  readonly code: ScratchpackErrorCode;
  /** Decoding: the byte where the bad value starts. encodeInto: the target's length. Else -1. */
  readonly offset: number;
  /** Encoding: the path to the value that failed, e.g. `.users[3].name` ('' is the value itself). */
  readonly path: string | null;
}

/**
 * An extension value other than the timestamp (ext -1 decodes to a Date).
 * @example
 * sp.encode(new Ext(7, Uint8Array.of(1, 2)));   // d5 07 01 02
 */
export declare class Ext {
  constructor(type: number, data: Uint8Array | ArrayLike<number>);
  /** -128..127 */
  readonly type: number;
  readonly data: Uint8Array;
}

/**
 * A view of shared linear memory that nothing writes over until release().
 * @example
 * const lease = sp.encodeView(value);
 * socket.write(lease.bytes);          // or post it to a worker: no copy
 * lease.release();                    // then never read lease.bytes again
 */
export declare class Lease {
  /** The message; a Uint8Array over the module's memory (a SharedArrayBuffer in the pthread build). */
  readonly bytes: Uint8Array;
  /** False once release() has run. */
  readonly live: boolean;
  /** Gives the memory back to the scratch or the pool. Idempotent. */
  release(): void;
}

/** Typed arrays decode can produce for numeric MessagePack arrays. */
export type TypedArrayConstructor =
  | Int8ArrayConstructor | Uint8ArrayConstructor | Uint8ClampedArrayConstructor
  | Int16ArrayConstructor | Uint16ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor
  | Float32ArrayConstructor | Float64ArrayConstructor | BigInt64ArrayConstructor | BigUint64ArrayConstructor;

/** Limits that protect a decoder from hostile input (all lengths in elements or bytes). */
export interface Limits {
  /** Containers nested deeper fail with DEPTH_LIMIT (encode and decode). Default 500. */
  maxDepth?: number;
  maxStrLength?: number;
  maxBinLength?: number;
  maxArrayLength?: number;
  maxMapLength?: number;
  maxExtLength?: number;
}

export interface DecodeOptions extends Limits {
  /**
   * 64-bit integers: 'auto' (default) numbers when safe, else BigInt;
   * 'bigint' always BigInt; 'number' always (lossy) numbers; 'string' decimal strings when unsafe.
   */
  int64?: 'auto' | 'bigint' | 'number' | 'string';
  /** 'auto' (default): objects while every key is a string, else a Map. */
  maps?: 'auto' | 'object' | 'map';
  /** 'copy' (default) or 'view': bin values as views of the input (valid while it is). */
  binary?: 'copy' | 'view';
  /**
   * Numeric arrays as typed arrays: a constructor (arrays whose every element
   * fits become that type), 'auto' (Int32Array, Uint32Array, Float32Array or
   * Float64Array, the smallest that holds them), or false (default).
   */
  typedArrays?: false | 'auto' | TypedArrayConstructor;
}

/**
 * The array pool behind the sequences the writer migrates to when the
 * scratch overflows ('default': the process-wide bucket pool, 16 B .. 128 KiB
 * x 100). 'bucket': a bounded bucket pool of its own (ArrayPool.Create);
 * 'shared': thread slots plus per-core partitions (ArrayPool.Shared);
 * 'lockfree': a lock-free queue per bucket. `sequences` caps the idle sequences.
 * @example
 * await createScratchpack({ pool: { kind: 'lockfree', maxLength: 1 << 20, perBucket: 64 } });
 */
export type PoolOption =
  | 'default' | 'bucket' | 'shared' | 'lockfree'
  | { kind: 'bucket' | 'lockfree'; maxLength?: number; perBucket?: number; sequences?: number }
  | { kind: 'shared'; partitions?: number; perPartition?: number; sequences?: number };

export interface ScratchpackOptions {
  /** Worker pthreads for encodeAsync (pthread build only). Default 0; startup costs ~80 ms per thread. */
  threads?: number;
  /** The to_array scratch in bytes. Default 65,536. */
  scratchSize?: number;
  /** The pool under the sequences (see PoolOption). */
  pool?: PoolOption;
  /** Default limits for encode (maxDepth) and decode. */
  limits?: Limits;
  /** 'auto' (default): the pthread build when SharedArrayBuffer is usable, else the single-threaded one. */
  wasm?: 'auto' | 'threads' | 'single';
  /** The .wasm bytes, when the host cannot read or fetch them next to the module. */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

/** Counters from C (allocation per thread, pools) and the WASM heap. */
export interface ScratchpackStats {
  alloc: { allocCalls: number; allocBytes: number; freeCalls: number; freeBytes: number;
    unpooledCalls: number; unpooledBytes: number };
  /** Bytes the core allocated and has not freed (pools' cached arrays included). */
  liveBytes: number;
  pool: { rents: number; returns: number; slotHits: number; partitionHits: number; fallbackHits: number;
    lockWaits: number; fresh: number; unpooled: number; drops: number; trims: number; cached: number };
  sequences: { rents: number; returns: number; fresh: number; drops: number; lockWaits: number; idle: number };
  /** malloc's bytes in use and obtained, and the fixed memory size. */
  heap: { used: number; total: number; size: number };
  /** Leases not yet released. */
  leases: number;
  threads: number;
  /** The int32 bulk kernel: 'simd128' or 'scalar'. */
  kernel: string;
}

/** The part of a Node Writable that encodeToStream uses (any stream.Writable fits). */
export interface NodeWritableLike {
  write(chunk: Uint8Array): boolean;
  on(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  readonly destroyed?: boolean;
  readonly writableEnded?: boolean;
}

/** Values encode accepts (anything else is UNSUPPORTED_TYPE). */
export type Encodable =
  | null | undefined | boolean | number | bigint | string | Date | Ext
  | ArrayBuffer | ArrayBufferView
  | Encodable[] | Map<Encodable, Encodable> | { [key: string]: Encodable };

/** One loaded WebAssembly module and the entries over it. */
export declare class Scratchpack {
  /** Whether this is the pthread build. */
  readonly threaded: boolean;
  /** Worker pthreads running for encodeAsync. */
  readonly threads: number;

  /**
   * The to_array entry: a new Uint8Array of exactly the message's size.
   * @example
   * sp.encode({ Id: 1, Name: 'hello' });   // 82 a2 49 64 01 a4 4e 61 6d 65 a5 68 65 6c 6c 6f
   */
  encode(value: Encodable): Uint8Array;

  /**
   * The message left in linear memory, leased: no later encode writes over
   * it until lease.release().
   * @example
   * const { bytes, release } = sp.encodeView(value);
   */
  encodeView(value: Encodable): Lease;

  /**
   * The to_output entry: writes into target from offset and returns the
   * number of bytes written; BUFFER_TOO_SMALL if the message does not fit.
   * @example
   * const n = sp.encodeInto(value, buf, 4);   // buf[4 .. 4 + n)
   */
  encodeInto(value: Encodable, target: Uint8Array, offset?: number): number;

  /**
   * The to_stream entry: encodes into pooled segments, then writes them in
   * order, honouring back-pressure. Resolves to the bytes written.
   * @example
   * await sp.encodeToStream(rows, fs.createWriteStream('rows.msgpack'));
   */
  encodeToStream(value: Encodable, writable: NodeWritableLike | WritableStream<Uint8Array>): Promise<number>;

  /**
   * A numeric typed array encoded as a MessagePack array on a worker pthread
   * (other values are encoded here). Rejects with CANCELLED when the signal fires.
   * @example
   * const bytes = await sp.encodeAsync(new Float64Array(1e6));
   */
  encodeAsync(value: Encodable, options?: { signal?: AbortSignal }): Promise<Uint8Array>;

  /**
   * Decodes exactly one value; options override the instance's limits.
   * @example
   * sp.decode(bytes, { int64: 'bigint', typedArrays: Int32Array });
   */
  decode(bytes: Uint8Array | ArrayBuffer | ArrayBufferView, options?: DecodeOptions): unknown;

  /** Counters from C. */
  stats(): ScratchpackStats;

  /** Ends the worker pthreads so the process can exit; the instance is unusable afterwards. */
  close(): void;
}

/**
 * Loads the WebAssembly module.
 * @example
 * import { createScratchpack } from 'scratchpack';
 * const sp = await createScratchpack({ threads: 2 });
 * const bytes = sp.encode({ hello: 'world' });
 * sp.decode(bytes);                  // { hello: 'world' }
 * sp.close();
 */
export declare function createScratchpack(options?: ScratchpackOptions): Promise<Scratchpack>;

/**
 * Decodes without loading the WebAssembly module (decoding runs in JS).
 * @example
 * decode(Uint8Array.of(0x92, 0x01, 0xa1, 0x61));   // [1, 'a']
 */
export declare function decode(bytes: Uint8Array | ArrayBuffer | ArrayBufferView, options?: DecodeOptions): unknown;
