// index.d.ts -- hand-written declarations for the scratchpack package.
// Symbol.dispose (a lease ends at the end of a `using` block) comes from this lib:
/// <reference lib="esnext.disposable" />

/**
 * Every code a {@link ScratchpackError} can carry. The C core names the same
 * errors `SP_E_` + the code (`SP_E_TRUNCATED`); TYPE and OVERFLOW arise in
 * JS only through contracts, UNSUPPORTED_TYPE, CYCLE, CLOSED, INTERNAL,
 * NOT_READY and RELEASED only in JS.
 */
export type ScratchpackErrorCode =
  | 'NOMEM' | 'INVALID_ARGUMENT' | 'CANCELLED' | 'LENGTH_LIMIT' | 'VALUE_RANGE'
  | 'BUFFER_TOO_SMALL' | 'SINK' | 'CALLBACK' | 'TRUNCATED' | 'MALFORMED' | 'TYPE'
  | 'DEPTH_LIMIT' | 'OVERFLOW' | 'TRAILING_BYTES'
  | 'UNSUPPORTED_TYPE' | 'CYCLE' | 'CLOSED' | 'INTERNAL' | 'NOT_READY' | 'RELEASED';

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
  constructor(code: ScratchpackErrorCode, message: string,
    options?: { offset?: number | undefined; path?: string | null | undefined; cause?: unknown });
  readonly name: 'ScratchpackError';
  /** What went wrong; stable across versions. */
  readonly code: ScratchpackErrorCode;
  /**
   * Decoding: the byte where the bad value starts (DEPTH_LIMIT: where the
   * nesting got too deep). Encoding: the output byte the writer had reached
   * when C reports it, BUFFER_TOO_SMALL the target's length, SINK the bytes
   * the writable had been handed. `undefined` when there is none (never -1).
   */
  readonly offset: number | undefined;
  /**
   * Encoding: the path to the value that failed, e.g. `.users[3].name` ('' is
   * the value itself); past 200 characters its middle is cut: `[0][0]…(434 steps)…[0]`.
   */
  readonly path: string | null;
  /** The error underneath (ES2022 `cause`), when there is one. */
  readonly cause?: unknown;
}

/**
 * An extension value. Ext -1 is the timestamp: it decodes to a Date, or to an
 * Ext(-1) when it lies outside what a Date holds (±8.64e15 ms); new Ext(-1, data)
 * takes only a valid timestamp body (4, 8 or 12 bytes, nanoseconds under 10^9).
 * @example
 * sp.encode(new Ext(7, Uint8Array.of(1, 2)));   // d5 07 01 02
 */
export declare class Ext {
  /**
   * A Uint8Array is kept as it is; anything else is copied into a new one:
   * an ArrayBuffer's bytes, the bytes another typed array or a DataView
   * covers (in memory order), or an array of integers 0..255. A type outside
   * -128..127, or data that is not bytes (a string, a plain object, 256 or
   * 1.5 in an array), throws INVALID_ARGUMENT.
   */
  constructor(type: number, data: Uint8Array | ArrayBufferView | ArrayBufferLike | readonly number[]);
  /** -128..127 */
  readonly type: number;
  readonly data: Uint8Array;
}

/**
 * A finished message that nothing writes over until the lease ends:
 * release() (detached too), the end of a `using` block, or -- once neither
 * the lease nor its view can be reached -- the garbage collector. A view
 * you derive from `bytes` (subarray, a Buffer over its buffer) does not
 * keep the lease alive: keep the lease while such a view is read.
 * @example
 * const lease = sp.encodeView(value);
 * socket.write(lease.bytes);          // or post it to a worker: no copy
 * lease.release();                    // then never read lease.bytes again
 * @example
 * using lease = sp.encodeView(value); // released at the end of the block
 * @example
 * const { bytes, release } = sp.encodeView(value);
 * await send(bytes);
 * release();
 */
export declare class Lease implements Disposable {
  /** Only encodeView makes leases. */
  private constructor();
  /**
   * The message. Pthread build: a view of a block of the module's shared
   * memory of exactly the message's size (a SharedArrayBuffer, so not a
   * `BufferSource`; posted to a worker it is read there without a copy).
   * Single-threaded build, and any message past `bigMessage`: an array of
   * its own of exactly the message's size (posting it copies those bytes
   * and no more). Reading it after the lease has ended throws RELEASED (a
   * view taken before then is not checked: do not read it after release()).
   */
  readonly bytes: Uint8Array<ArrayBufferLike>;
  /** False once the lease has ended. */
  readonly live: boolean;
  /** Gives the block back to malloc (or lets the array go). Idempotent; works detached. */
  readonly release: () => void;
  /** The same as release(): what `using` calls. */
  [Symbol.dispose](): void;
}

/**
 * One of your classes written as an ext value: encode gives its bytes, and
 * decode makes the value again from them. Pass a list of them as the
 * `extensions` option (createScratchpack, decode, decodeStream,
 * decodeMultiple). A value is matched through its prototype chain: an
 * instance of `class` or of a subclass (the nearest registered class wins).
 * A throw in encode or decode, or an encode result that is not a
 * Uint8Array, is a ScratchpackError CALLBACK (the value's path, or the ext's
 * byte offset; your error as `cause`). In decodeStream, decode may run more
 * than once for an ext in a message that spans chunks: keep it free of side
 * effects.
 * @example
 * const point: Extension<Point> = {
 *   type: 7, class: Point,
 *   encode: (p) => Uint8Array.of(p.x, p.y),
 *   decode: (d) => new Point(d[0], d[1]),
 * };
 * const sp = await createScratchpack({ extensions: [point] });
 * sp.encode(new Point(1, 2));   // d5 07 01 02
 */
export interface Extension<T> {
  /** 0..127: MessagePack reserves -128..-1 for its own types (-1 is the timestamp). */
  readonly type: number;
  /** The class whose instances (subclasses' too) this extension writes. */
  readonly class: abstract new (...args: any[]) => T;
  /** The value's bytes (the ext's data). */
  encode(value: T): Uint8Array;
  /** The value from the ext's data (a copy; a view of the input with `binary: 'view'`). */
  decode(data: Uint8Array): T;
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
  /**
   * The most plain bytes a compressed message (Lz4Block, Lz4BlockArray) may
   * declare, checked before they are allocated: LENGTH_LIMIT beyond. Default
   * 64 MiB (MessagePack-CSharp's UntrustedData MaximumDecompressedSize); 0
   * refuses every compressed message.
   */
  maxDecompressedLength?: number;
}

/**
 * Decode options. Leave an option out for its default: an explicit
 * `undefined` is refused (INVALID_ARGUMENT), and exactOptionalPropertyTypes says so.
 */
export interface DecodeOptions extends Limits {
  /**
   * 64-bit integers: 'auto' (default) numbers when safe, else BigInt;
   * 'bigint' always BigInt; 'number' always (lossy) numbers; 'string' decimal strings when unsafe.
   */
  int64?: 'auto' | 'bigint' | 'number' | 'string';
  /** 'auto' (default): objects while every key is a string, else a Map. */
  maps?: 'auto' | 'object' | 'map';
  /**
   * 'copy' (default): every bin value is a plain `Uint8Array` that owns its
   * bytes, whatever the input's type (a Buffer too), offset or chunking.
   * 'view': bin values as plain `Uint8Array` views of the input (valid while it is).
   */
  binary?: 'copy' | 'view';
  /**
   * Numeric arrays as typed arrays: a constructor (arrays whose every element
   * fits exactly become that type; a Float32Array rounds none), 'auto' (by
   * what the message holds: integers as Int32Array or Uint32Array where they
   * fit, float32s as Float32Array, else Float64Array), or false (default).
   */
  typedArrays?: false | 'auto' | TypedArrayConstructor;
  /**
   * Ext types decoded by your decode (see {@link Extension}); other types
   * stay Ext. On an instance's calls, a list given here replaces the
   * instance's for that call.
   */
  extensions?: readonly Extension<any>[] | null;
  /**
   * true (default): a message that is an ext 99 (Lz4Block) or an array led
   * by an ext 98 (Lz4BlockArray), as MessagePack-CSharp writes them, is
   * decompressed and its plain message decoded (only at the top of each
   * message). false: they decode as they are, Ext values and bins.
   */
  decompress?: boolean;
}

/**
 * What decode can return; decode itself returns `unknown` (assert your own
 * type, or this one and narrow). Bin values own their buffer
 * (`Uint8Array<ArrayBuffer>`); with `binary: 'view'` they view the input:
 * use `Decoded<Uint8Array>`. Typed arrays appear only with `typedArrays`,
 * strings for 64-bit integers only with `int64: 'string'`.
 * @example
 * const v = sp.decode(bytes) as Decoded;
 * if (v instanceof Uint8Array) await fetch(url, { method: 'POST', body: v });
 */
export type Decoded<Bin extends Uint8Array<ArrayBufferLike> = Uint8Array<ArrayBuffer>> =
  | null | boolean | number | bigint | string | Date | Ext | Bin
  | Int8Array<ArrayBuffer> | Uint8ClampedArray<ArrayBuffer> | Int16Array<ArrayBuffer> | Uint16Array<ArrayBuffer>
  | Int32Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Float32Array<ArrayBuffer> | Float64Array<ArrayBuffer>
  | BigInt64Array<ArrayBuffer> | BigUint64Array<ArrayBuffer>
  | Decoded<Bin>[] | { [key: string]: Decoded<Bin> } | Map<Decoded<Bin>, Decoded<Bin>>;

/**
 * The array pool behind the sequences the writer migrates to when the
 * scratch overflows ('default': the process-wide bucket pool, 16 B .. 128 KiB
 * x 100). 'bucket': a bounded bucket pool of its own (ArrayPool.Create);
 * 'shared': thread slots plus per-core partitions (ArrayPool.Shared);
 * 'lockfree': a lock-free queue per bucket. `sequences` caps the idle sequences.
 * An object without `kind` is a bucket pool.
 * @example
 * await createScratchpack({ pool: { kind: 'lockfree', maxLength: 1 << 20, perBucket: 64 } });
 */
export type PoolOption =
  | 'default' | 'bucket' | 'shared' | 'lockfree'
  | { kind?: 'bucket' | 'lockfree' | undefined; maxLength?: number | undefined; perBucket?: number | undefined;
      sequences?: number | undefined }
  | { kind: 'shared'; partitions?: number | undefined; perPartition?: number | undefined; sequences?: number | undefined };

/**
 * Every option may be left out or undefined (the default); an unknown name
 * is INVALID_ARGUMENT (so is a size out of range).
 */
export interface ScratchpackOptions {
  /** Worker pthreads for encodeAsync (pthread build only), 0..64. Default 0; startup costs ~80 ms per thread. */
  threads?: number | undefined;
  /** The to_array scratch in bytes, 8..2^30. Default 65,536. */
  scratchSize?: number | undefined;
  /** The pool under the sequences (see PoolOption). */
  pool?: PoolOption | undefined;
  /** Default limits for encode (maxDepth) and decode. */
  limits?: Limits | undefined;
  /** 'auto' (default): the pthread build when SharedArrayBuffer is usable, else the single-threaded one. */
  wasm?: 'auto' | 'threads' | 'single' | undefined;
  /** The .wasm bytes, when the host cannot read or fetch them next to the module. */
  wasmBinary?: ArrayBuffer | Uint8Array | undefined;
  /**
   * The most bytes linear memory may grow to (it starts at 16 MiB and grows
   * on demand): 16 MiB .. 4 GiB - 64 KiB (the default, the wasm32 limit),
   * rounded down to 64 KiB pages. Past it, allocations fail: NOMEM.
   */
  maxMemory?: number | undefined;
  /**
   * The most bytes of arrays the pool keeps cached between calls (default
   * 4 MiB; 0 keeps none; Infinity leaves only the pool's counts: 100 arrays
   * per bucket up to 128 KiB is ~25 MiB).
   */
  cacheLimit?: number | undefined;
  /**
   * A message that passes this many bytes (default 8 MiB) is moved out of
   * linear memory, which never shrinks, into JS memory (a resizable
   * ArrayBuffer, grown in place), which the garbage collector gives back
   * once the message is dropped: encode() returns it, encodeView() leases
   * it as an array of its own. 0 .. 2^32 - 1, or Infinity (every message
   * stays in linear memory until it is copied out). Not for compressed
   * messages, nor for encodeAsync's work on a worker.
   */
  bigMessage?: number | undefined;
  /** Your classes as ext types (see {@link Extension}), for every encode and decode of the instance. */
  extensions?: readonly Extension<any>[] | undefined;
  /**
   * Every encode entry writes its message as MessagePack-CSharp's
   * Lz4BlockArray ('lz4blockarray': an array of LZ4 blocks, one per 32 KiB
   * segment) or Lz4Block ('lz4block': ext 99, one block); messages under 64
   * bytes stay plain. Default 'none'. Decoding detects both whatever this
   * says (DecodeOptions.decompress).
   */
  compression?: Compression | undefined;
  /**
   * What encode() returns a message of up to the JS scratch's size (16 KiB)
   * in. 'pooled' (the default under Node): a view of a 32 KiB array that
   * later results fill in turn, as Node's small Buffers are views of its
   * pool -- a fresh ArrayBuffer per call costs about twice the JS heap.
   * The array is marked untransferable (transferring a result's buffer
   * throws DataCloneError on Node >= 21, copies it on Node 20), and
   * `result.buffer` holds other results: use byteOffset and byteLength, or
   * `result.slice()` for an array of its own. A pooled result keeps its
   * 32 KiB array alive. 'own' (the default where no array can be marked
   * untransferable: browsers): an ArrayBuffer of exactly the message's size.
   * Bigger messages and leases always own theirs; encodeAsync's results are
   * encode()'s, or arrays of their own when a worker wrote them.
   */
  results?: 'pooled' | 'own' | undefined;
}

/** The compression option's values. */
export type Compression = 'none' | 'lz4block' | 'lz4blockarray';

/** Counters from C (allocation per thread, pools) and the WASM heap. */
export interface ScratchpackStats {
  alloc: { allocCalls: number; allocBytes: number; freeCalls: number; freeBytes: number;
    unpooledCalls: number; unpooledBytes: number };
  /** Bytes the core allocated and has not freed (pools' cached arrays included). */
  liveBytes: number;
  /** The pool under the sequences; `cached` arrays of `cachedBytes` in all are kept now. */
  pool: { rents: number; returns: number; slotHits: number; partitionHits: number; fallbackHits: number;
    lockWaits: number; fresh: number; unpooled: number; drops: number; trims: number; cached: number;
    cachedBytes: number };
  sequences: { rents: number; returns: number; fresh: number; drops: number; lockWaits: number; idle: number };
  /**
   * malloc's bytes in use and obtained from memory, linear memory's size now
   * and the most it may grow to (maxMemory), and the staging block kept.
   */
  heap: { used: number; total: number; size: number; max: number; staging: number };
  /**
   * Leases on linear memory not yet ended, and the bytes of their messages
   * (each pins a malloc block of its message's size; leases on arrays of
   * their own are not counted).
   */
  leases: number;
  leaseBytes: number;
  threads: number;
  /** The int32 bulk kernel: 'simd128' or 'scalar'. */
  kernel: string;
}

/**
 * The part of a Node Writable that encodeToStream uses (any stream.Writable
 * fits). The chunks are copies the stream may keep.
 */
export interface NodeWritableLike {
  write(chunk: Uint8Array<ArrayBuffer>): boolean;
  on(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  readonly destroyed?: boolean;
  readonly writableEnded?: boolean;
  readonly errored?: unknown;
}

/**
 * The part of a WHATWG WritableStream that encodeToStream uses (a
 * WritableStream<Uint8Array> fits). With `ready` and `desiredSize` the
 * chunks are queued up to the stream's high-water mark; without, each write
 * is awaited before the next.
 */
export interface WritableStreamLike {
  getWriter(): {
    write(chunk: Uint8Array<ArrayBuffer>): Promise<void>;
    releaseLock(): void;
    readonly ready?: Promise<unknown>;
    readonly desiredSize?: number | null;
  };
}

/** A chunk decodeStream reads: bytes in any view, or an ArrayBuffer. */
export type ByteChunk = ArrayBufferView | ArrayBufferLike;

/** The part of a WHATWG ReadableStream that decodeStream uses (a ReadableStream<Uint8Array> fits). */
export interface ReadableStreamLike {
  getReader(): {
    read(): Promise<{ done: boolean; value?: ByteChunk | undefined }>;
    releaseLock(): void;
    cancel(reason?: unknown): Promise<void>;
  };
}

/**
 * What decodeStream reads: a Node Readable (any async iterable of bytes), a
 * WHATWG ReadableStream, or an iterable of chunks.
 */
export type ByteSource = AsyncIterable<ByteChunk> | ReadableStreamLike | Iterable<ByteChunk>;

/** decodeStream's options: decode's, applied to each message, and a cap on a message's size. */
export interface DecodeStreamOptions extends DecodeOptions {
  /**
   * The bytes one message may take; a message that grows past it fails with
   * LENGTH_LIMIT (at its first byte) as soon as its bytes pass it. Default: no cap.
   */
  maxMessageLength?: number;
}

/** The part of an AbortSignal that encodeAsync uses (the DOM's and Node's fit). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * Any value encode might accept, for annotating your own values and
 * parameters: interfaces, class instances (their own enumerable
 * properties), readonly arrays, `Record<string, unknown>`, Maps, Dates,
 * Ext, bytes and typed arrays all fit. What cannot encode is found when it
 * is encoded (UNSUPPORTED_TYPE, CYCLE); the entries' parameters
 * ({@link EncodableValue}) also refuse what is sure to fail.
 */
export type Encodable =
  | null | undefined | boolean | number | bigint | string | Date | Ext
  | ArrayBufferLike | ArrayBufferView | readonly unknown[] | ReadonlyMap<unknown, unknown> | object;

/** Functions and constructors: never encoded (own properties that are functions fail at run time). */
type Callable = ((...args: any[]) => unknown) | (abstract new (...args: any[]) => unknown);
/** WeakRef, described by its shape so that the declarations need no ES2021 lib. */
interface WeakRefShape { deref(): unknown; readonly [Symbol.toStringTag]: 'WeakRef' }
type Scalar = null | undefined | boolean | number | bigint | string | Date | Ext | ArrayBufferLike | ArrayBufferView;

/**
 * T itself when it can be encoded, else T with each part that cannot (a
 * function, symbol, Set, WeakMap, WeakSet, WeakRef, Promise or RegExp, at
 * any depth the type shows) replaced by a message saying so: the entries
 * take `EncodableValue<T>`, so a wrong argument reads e.g. "Type 'Set<string>'
 * is not assignable to type '"scratchpack cannot encode a Set (convert it to
 * an Array)"'". `unknown` and `any` pass: encode checks them. A property of
 * a function type passes too (it may be a method, which encode skips: only
 * own properties are written). In a function generic in the value, take an
 * `EncodableValue<T>` and pass it on.
 * @example
 * function send<T>(value: EncodableValue<T>) { socket.write(sp.encode(value)); }
 */
export type EncodableValue<T> = unknown extends T ? T : Checked<T>;

type Checked<T> =
  T extends Scalar ? T
  : T extends symbol ? 'scratchpack cannot encode a symbol'
  : T extends Callable ? 'scratchpack cannot encode a function'
  : T extends readonly (infer E)[] ? EncodableArray<E>
  : T extends ReadonlyMap<infer K, infer V> ? EncodableMap<K, V>
  : T extends ReadonlySet<unknown> ? 'scratchpack cannot encode a Set (convert it to an Array)'
  : T extends Promise<unknown> ? 'scratchpack cannot encode a Promise (await it first)'
  : T extends WeakMap<object, unknown> | WeakSet<object> | WeakRefShape ? 'scratchpack cannot encode a WeakMap, WeakSet or WeakRef'
  : T extends RegExp ? 'scratchpack cannot encode a RegExp'
  : T extends object ? { [K in keyof T]: K extends symbol ? T[K] : Property<T[K], K> }
  : T;

// Interfaces, so that elements are checked only when compared: a recursive
// type alias (type Json = ... | Json[]) would otherwise expand for ever.
interface EncodableArray<E> extends ReadonlyArray<EncodableValue<E>> {}
interface EncodableMap<K, V> extends ReadonlyMap<EncodableValue<K>, EncodableValue<V>> {}

/** An object's property: an index signature's values are checked like elements, a named one may be a method. */
type Property<T, K> = string extends K ? EncodableValue<T> : number extends K ? EncodableValue<T>
  : T extends Callable ? T : EncodableValue<T>;

/** One loaded WebAssembly module and the entries over it. */
export declare class Scratchpack {
  /** Only createScratchpack makes one. */
  private constructor();
  /** Whether this is the pthread build. */
  readonly threaded: boolean;
  /** Worker pthreads running for encodeAsync. */
  readonly threads: number;
  /** The layout every encode writes (the compression option). */
  readonly compression: Compression;
  /** What encode() returns a small message in (the results option). */
  readonly results: 'pooled' | 'own';

  /**
   * The to_array entry: a Uint8Array of exactly the message's size (a
   * `BufferSource`: `new Response(sp.encode(v))`); with results 'pooled' a
   * small one is a view of an array shared with other results (see
   * {@link ScratchpackOptions.results}).
   * @example
   * sp.encode({ Id: 1, Name: 'hello' });   // 82 a2 49 64 01 a4 4e 61 6d 65 a5 68 65 6c 6c 6f
   */
  encode<T>(this: Scratchpack, value: EncodableValue<T>): Uint8Array<ArrayBuffer>;
  /** Through a contract (see {@link contract}): its array or map form, type-checked. */
  encode<C extends Contract<any, any>>(this: Scratchpack, value: InferInput<C>, options: { readonly contract: C }): Uint8Array<ArrayBuffer>;

  /**
   * The message, leased: no later encode writes over it until
   * lease.release(). Pthread build: a block of shared linear memory of
   * exactly its size; single-threaded build, or past bigMessage: an array of
   * its own (see {@link Lease.bytes}).
   * @example
   * const lease = sp.encodeView(value);
   * port.postMessage(lease.bytes);       // a SharedArrayBuffer view: no copy
   * lease.release();
   */
  encodeView<T>(this: Scratchpack, value: EncodableValue<T>): Lease;
  encodeView<C extends Contract<any, any>>(this: Scratchpack, value: InferInput<C>, options: { readonly contract: C }): Lease;

  /**
   * The to_output entry: writes into target from offset (an integer in
   * 0..target.length, default 0) and returns the number of bytes written;
   * BUFFER_TOO_SMALL if the message does not fit.
   * @example
   * const n = sp.encodeInto(value, buf, 4);   // buf[4 .. 4 + n)
   */
  encodeInto<T>(this: Scratchpack, value: EncodableValue<T>, target: Uint8Array<ArrayBufferLike>, offset?: number): number;
  encodeInto<C extends Contract<any, any>>(this: Scratchpack, value: InferInput<C>, target: Uint8Array<ArrayBufferLike>, offset: number, options: { readonly contract: C }): number;
  encodeInto<C extends Contract<any, any>>(this: Scratchpack, value: InferInput<C>, target: Uint8Array<ArrayBufferLike>, options: { readonly contract: C }): number;

  /**
   * The to_stream entry: writes the message to the stream while it encodes
   * it. Arrays, Maps and objects too big to write in one piece are written
   * element by element (at any depth); as soon as the writer moves past a
   * pooled segment, what is written goes to the stream (a copy it may keep)
   * and encoding waits while the stream asks to ('drain', `writer.ready`).
   * WASM holds at most the largest piece plus a segment. Resolves to the
   * bytes written once the stream has written them all (Node: each write's
   * callback came without an error; WHATWG: the last write resolved), and
   * rejects with SINK if a last write failed. On an error the
   * stream has received a prefix of the message; the promise rejects with
   * the code and path. Do not change the value until it settles. With
   * `compression`, neither layout can be written before the whole plain
   * message is known: the message is encoded and compressed whole in WASM,
   * then handed to the stream a segment at a time (memory as `encode()`).
   * @example
   * await sp.encodeToStream(rows, fs.createWriteStream('rows.msgpack'));
   */
  encodeToStream<T>(this: Scratchpack, value: EncodableValue<T>,
    writable: NodeWritableLike | WritableStreamLike): Promise<number>;
  /**
   * Through a contract: a list contract's value (`Rec.array()`) goes element
   * by element, each element whole, as a plain array does; one contract's
   * value is written whole, then handed to the stream a segment at a time.
   */
  encodeToStream<C extends Contract<any, any>>(this: Scratchpack, value: InferInput<C>, writable: NodeWritableLike | WritableStreamLike,
    options: { readonly contract: C }): Promise<number>;

  /**
   * encode() without blocking on big arrays: a numeric typed array of 512 KiB
   * or more is encoded as a MessagePack array on a worker pthread; smaller
   * ones and other values are encoded here (a few ms of work per event-loop
   * turn, the rest in later turns). Calls settle in the order they were made.
   * Worker calls queue: at most 64 MiB of staging and two tasks per worker
   * (one without workers, run on this thread one per event-loop turn) are in
   * flight, the rest wait their turn, so any number of calls may be pending.
   * Rejects with CANCELLED when the signal fires (a call not started leaves
   * the queue), with CLOSED when close() comes first (docs/async.md).
   * @example
   * const bytes = await sp.encodeAsync(new Float64Array(1e6));
   */
  encodeAsync<T>(this: Scratchpack, value: EncodableValue<T>,
    options?: { signal?: AbortSignalLike | undefined }): Promise<Uint8Array<ArrayBuffer>>;
  /** Through a contract: encoded on this thread, in its turn in the queue; the signal as above. */
  encodeAsync<C extends Contract<any, any>>(this: Scratchpack, value: InferInput<C>,
    options: { readonly contract: C; signal?: AbortSignalLike | undefined }): Promise<Uint8Array<ArrayBuffer>>;

  /**
   * Decodes exactly one value; options override the instance's limits.
   * Returns `unknown`: see {@link Decoded} for what it can be.
   * @example
   * sp.decode(bytes, { int64: 'bigint', typedArrays: Int32Array });
   */
  decode<T>(this: Scratchpack, bytes: ArrayBufferLike | ArrayBufferView, options: ContractDecodeOptions<T>): T;
  decode(this: Scratchpack, bytes: ArrayBufferLike | ArrayBufferView, options?: DecodeOptions): unknown;

  /**
   * The values of concatenated messages read from source, each yielded as
   * soon as its last byte has arrived (see {@link decodeStream}); the
   * instance's limits apply to each message, options override them.
   */
  decodeStream<T>(this: Scratchpack, source: ByteSource, options: DecodeStreamOptions & ContractOption<T>): AsyncIterableIterator<T>;
  decodeStream(this: Scratchpack, source: ByteSource, options?: DecodeStreamOptions): AsyncIterableIterator<unknown>;

  /** The values of concatenated messages in one buffer (see {@link decodeMultiple}), with the instance's limits. */
  decodeMultiple<T>(this: Scratchpack, bytes: ArrayBufferLike | ArrayBufferView, options: ContractDecodeOptions<T>): IterableIterator<T>;
  decodeMultiple(this: Scratchpack, bytes: ArrayBufferLike | ArrayBufferView, options?: DecodeOptions): IterableIterator<unknown>;

  /** Counters from C. */
  stats(this: Scratchpack): ScratchpackStats;

  /**
   * Gives back everything the instance caches (the pool's arrays, idle
   * sequences, the staging block, the scratch unless a lease holds it) and
   * returns the bytes freed. Linear memory itself never shrinks; what trim
   * frees is used before it grows again.
   */
  trim(this: Scratchpack): number;

  /**
   * Ends the worker pthreads so the process can exit; the instance is
   * unusable afterwards (calls throw CLOSED). encodeAsync calls not yet
   * completed reject with CLOSED; a task running on a worker finishes first.
   */
  close(this: Scratchpack): void;
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
 * Encodes with the package's default instance (the single-threaded module,
 * default options), ready on import: no `await`, under `import` and
 * `require` alike. Node loads the module synchronously on the first call; a
 * browser cannot (a page fetches the .wasm asynchronously), so there
 * `await ready()` comes first, else NOT_READY. As
 * {@link Scratchpack.encode}: a Uint8Array of exactly the message's size (pooled under Node:
 * {@link ScratchpackOptions.results}).
 * @example
 * import { encode, decode } from 'scratchpack';
 * decode(encode({ hello: 'world' }));   // { hello: 'world' }
 */
export declare function encode<T>(value: EncodableValue<T>): Uint8Array<ArrayBuffer>;
export declare function encode<C extends Contract<any, any>>(value: InferInput<C>, options: { readonly contract: C }): Uint8Array<ArrayBuffer>;

/**
 * {@link Scratchpack.encodeInto} on the default instance (see {@link encode}):
 * writes into target from offset and returns the bytes written.
 * @example
 * const n = encodeInto(value, buf, 4);   // buf[4 .. 4 + n)
 */
export declare function encodeInto<T>(value: EncodableValue<T>, target: Uint8Array<ArrayBufferLike>, offset?: number): number;
export declare function encodeInto<C extends Contract<any, any>>(value: InferInput<C>, target: Uint8Array<ArrayBufferLike>, offset: number, options: { readonly contract: C }): number;
export declare function encodeInto<C extends Contract<any, any>>(value: InferInput<C>, target: Uint8Array<ArrayBufferLike>, options: { readonly contract: C }): number;

/**
 * {@link Scratchpack.encodeView} on the default instance (see {@link encode}):
 * a lease on the message in linear memory.
 */
export declare function encodeView<T>(value: EncodableValue<T>): Lease;
export declare function encodeView<C extends Contract<any, any>>(value: InferInput<C>, options: { readonly contract: C }): Lease;

/**
 * {@link Scratchpack.encodeToStream} on the default instance; waits for
 * {@link ready} itself where the module loads asynchronously.
 */
export declare function encodeToStream<T>(value: EncodableValue<T>,
  writable: NodeWritableLike | WritableStreamLike): Promise<number>;
export declare function encodeToStream<C extends Contract<any, any>>(value: InferInput<C>, writable: NodeWritableLike | WritableStreamLike,
  options: { readonly contract: C }): Promise<number>;

/**
 * Resolves once the module-level encodes can run: at once under Node; in a
 * browser once the single-threaded module is fetched and compiled. Rejects
 * (INTERNAL, naming the file) when it cannot be loaded.
 * @example
 * await ready();            // once, in a browser, before the first encode()
 */
export declare function ready(): Promise<void>;

/**
 * Decodes without loading the WebAssembly module (decoding runs in JS).
 * Returns `unknown`: see {@link Decoded} for what it can be.
 * @example
 * decode(Uint8Array.of(0x92, 0x01, 0xa1, 0x61));   // [1, 'a']
 */
export declare function decode<T>(bytes: ArrayBufferLike | ArrayBufferView, options: ContractDecodeOptions<T>): T;
export declare function decode(bytes: ArrayBufferLike | ArrayBufferView, options?: DecodeOptions): unknown;

/**
 * The values of concatenated messages read from a Node Readable, a WHATWG
 * ReadableStream or an (async) iterable of chunks, without loading the
 * WebAssembly module. Each value is yielded as soon as its message is
 * complete; chunks may end anywhere. A message in one chunk is decoded
 * there; one that spans chunks is copied once into a buffer of its own, so
 * memory follows the largest message, not the stream. Options and limits
 * are decode's, per message, plus `maxMessageLength`. Errors carry offsets
 * from the stream's first byte; input that ends inside a message throws
 * TRUNCATED where decode() would for that message. Breaking out of the loop
 * cancels a WHATWG stream (a Node Readable is destroyed by its iterator).
 * @example
 * for await (const event of decodeStream(socket)) handle(event);
 */
export declare function decodeStream<T>(source: ByteSource, options: DecodeStreamOptions & ContractOption<T>): AsyncIterableIterator<T>;
export declare function decodeStream(source: ByteSource, options?: DecodeStreamOptions): AsyncIterableIterator<unknown>;

/**
 * The values of concatenated messages in one buffer, lazily: an error (at
 * its offset in bytes) comes when iteration reaches it. Empty bytes yield nothing.
 * @example
 * for (const row of decodeMultiple(readFileSync('rows.msgpack'))) console.log(row);
 */
export declare function decodeMultiple<T>(bytes: ArrayBufferLike | ArrayBufferView, options: ContractDecodeOptions<T>): IterableIterator<T>;
export declare function decodeMultiple(bytes: ArrayBufferLike | ArrayBufferView, options?: DecodeOptions): IterableIterator<unknown>;

// ---- typed contracts ------------------------------------------------------------

/** Integer field types that JS holds as numbers. */
export type ContractIntType = 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32';
/** Every named field type. int64/uint64 are BigInt (numbers with the contract's int64: 'number'). */
export type ContractScalarType = ContractIntType | 'int64' | 'uint64' | 'bool' | 'float32' | 'float64' | 'string' |
  'bin' | 'timestamp' | 'any';
/** Typed arrays, written as standard MessagePack arrays. */
export interface ContractTypedArrays {
  'int8[]': Int8Array; 'uint8[]': Uint8Array; 'int16[]': Int16Array; 'uint16[]': Uint16Array;
  'int32[]': Int32Array; 'uint32[]': Uint32Array; 'float32[]': Float32Array; 'float64[]': Float64Array;
  'int64[]': BigInt64Array; 'uint64[]': BigUint64Array;
}
/**
 * A field's type: a name ('uint32', 'string?' nullable, 'int32[]' a typed
 * array, 'string[]' an array as [type] is), another contract, [type] an
 * array, { map: [keyType, valueType] } (string keys: an object; integer
 * keys: a Map), or { type, nullable }.
 */
export type ContractType =
  | ContractScalarType | `${ContractScalarType}?` | keyof ContractTypedArrays | `${keyof ContractTypedArrays}?`
  | `${ContractScalarType}[]` | `${ContractScalarType}?[]` | `${ContractScalarType}[]?` | `${ContractScalarType}?[]?`
  | Contract<any> | readonly [ContractType]
  | { readonly map: readonly ['string' | ContractIntType, ContractType]; readonly nullable?: boolean }
  | { readonly type: ContractType; readonly nullable?: boolean };
/** A field: its type, or { type, nullable, default, key } (key: its index, or its name in the map form). */
export type ContractField = ContractType | {
  readonly type: ContractType; readonly nullable?: boolean; readonly default?: unknown; readonly key?: number | string;
};

type ScalarValue<S, I64> = S extends 'bool' ? boolean : S extends 'int64' | 'uint64' ? I64
  : S extends ContractIntType | 'float32' | 'float64' ? number : S extends 'string' ? string
  : S extends 'bin' ? Uint8Array : S extends 'timestamp' ? Date : S extends 'any' ? unknown : never;
/** The JS value of a contract type (I64: what int64 fields hold). */
export type ContractValue<T, I64 = bigint> =
  T extends Contract<infer U> ? U
  : T extends readonly [infer E] ? ContractValue<E, I64>[]
  : T extends { readonly map: readonly [infer K, infer V] }
    ? (K extends 'string' ? Record<string, ContractValue<V, I64>> : Map<number, ContractValue<V, I64>>)
      | (T extends { readonly nullable: true } ? null : never)
  : T extends { readonly type: infer U } ? ContractValue<U, I64> | (T extends { readonly nullable: true } ? null : never)
  : T extends `${infer B}?` ? ContractValue<B, I64> | null
  : T extends keyof ContractTypedArrays ? ContractTypedArrays[T]
  : T extends `${infer E}[]` ? ContractValue<E, I64>[]
  : ScalarValue<T, I64>;
/** The value of a contract with these fields. */
export type ContractFieldsValue<F, I64 = bigint> = { -readonly [K in keyof F]: ContractValue<F[K], I64> };

type ScalarInput<S> = S extends 'int64' | 'uint64' ? bigint | number
  : S extends 'bin' ? ArrayBufferView | ArrayBufferLike : ScalarValue<S, never>;
type TypedInput<T extends keyof ContractTypedArrays> =
  ContractTypedArrays[T] | readonly (T extends 'int64[]' | 'uint64[]' ? bigint : number)[];
/**
 * What encode takes for a contract type: wider than what decode gives
 * (int64 fields a number or a BigInt, typed-array fields a plain array
 * too, bin fields any view or ArrayBuffer; null or undefined where
 * nullable).
 */
export type ContractInput<T> =
  T extends Contract<any, infer I> ? I
  : T extends readonly [infer E] ? readonly ContractInput<E>[]
  : T extends { readonly map: readonly [infer K, infer V] }
    ? (K extends 'string' ? Readonly<Record<string, ContractInput<V>>> : ReadonlyMap<number, ContractInput<V>>)
      | (T extends { readonly nullable: true } ? null | undefined : never)
  : T extends { readonly type: infer U } ? ContractInput<U> | (T extends { readonly nullable: true } ? null | undefined : never)
  : T extends `${infer B}?` ? ContractInput<B> | null | undefined
  : T extends keyof ContractTypedArrays ? TypedInput<T>
  : T extends `${infer E}[]` ? readonly ContractInput<E>[]
  : ScalarInput<T>;
// Fields encode may leave out: those with a default, and nullable ones (written as nil).
type OptionalKeys<F> = { [K in keyof F]: F[K] extends { readonly default: unknown } | { readonly nullable: true } | `${string}?`
  ? K : never }[keyof F];
/** What encode takes for a contract with these fields. */
export type ContractFieldsInput<F> =
  { -readonly [K in Exclude<keyof F, OptionalKeys<F>>]: ContractInput<F[K]> } &
  { -readonly [K in OptionalKeys<F>]?: ContractInput<F[K]> };

/** contract()'s options. */
export interface ContractOptions {
  /** 'index': an array in key order, nil in the gaps ([Key(0)]); 'name': a map keyed by name ([Key("name")]). Default 'name'. */
  readonly keys?: 'index' | 'name';
  /** Decode into instances of this class (prototype set; the constructor does not run); its instances encode through the contract anywhere. */
  readonly class?: abstract new (...args: any[]) => unknown;
  /** int64/uint64 fields as BigInt (default) or number. */
  readonly int64?: 'bigint' | 'number';
  /** true: generated code (throws where eval is refused); false: closures; 'auto' (default): generated unless refused. */
  readonly compile?: boolean | 'auto';
  /** A name for messages (default: the class's name, else 'contract'). */
  readonly name?: string;
}

/**
 * A typed contract, as MessagePack-CSharp's [MessagePackObject] class with
 * [Key] members. Use it directly (encode/decode, no WASM needed) or as the
 * `contract` option of every entry.
 */
export declare class Contract<T, In = T> {
  private constructor();
  readonly name: string;
  /** Whether its code is generated (false: closures, where eval is refused or compile: false). */
  readonly compiled: boolean;
  /** A new Uint8Array with the value in the contract's form; TYPE (with its path, $.items[3].score) for a value of another type. */
  encode(value: In): Uint8Array<ArrayBuffer>;
  /** The value (unknown keys and extra elements skipped; missing fields: their default or undefined). */
  decode(bytes: ArrayBufferLike | ArrayBufferView, options?: DecodeOptions): T;
  /** The contract of an array of these values (one per contract). */
  array(): Contract<T[], readonly In[]>;
  private readonly __value: (value: T) => T;
  private readonly __input: (value: In) => void;
}

/** The value type of a contract, what decode gives: Infer<typeof Rec>. */
export type Infer<C> = C extends Contract<infer T, any> ? T : never;
/** What a contract's encode takes: InferInput<typeof Rec> (wider than Infer: see ContractInput). */
export type InferInput<C> = C extends Contract<any, infer I> ? I : never;

/** The `contract` option of the entries. */
export interface ContractOption<T, In = any> { readonly contract: Contract<T, In> }
/** decode's options with a contract. */
export type ContractDecodeOptions<T> = DecodeOptions & ContractOption<T>;

/** A contract file: { contracts: { Name: { keys, fields } } }, the same vocabulary (types may name the file's contracts). */
export interface ContractFile {
  readonly contracts: { readonly [name: string]: {
    readonly keys?: 'index' | 'name'; readonly fields: { readonly [field: string]: unknown }; readonly int64?: 'bigint' | 'number';
  } };
}

/**
 * Makes a typed contract, or loads a contract file's (by name).
 * @example
 * const Point = contract({ x: 'int32', y: 'int32' }, { keys: 'index' });
 * const Rec = contract({ id: 'uint32', name: 'string', tags: ['string'], pos: Point }, { keys: 'index' });
 * type Rec = Infer<typeof Rec>;     // { id: number; name: string; tags: string[]; pos: { x: number; y: number } }
 * const bytes = sp.encode(rec, { contract: Rec });
 * const back = sp.decode(bytes, { contract: Rec });   // Rec
 */
export declare function contract(doc: ContractFile, options?: {
  readonly classes?: { readonly [name: string]: abstract new (...args: any[]) => unknown };
  readonly compile?: boolean | 'auto'; readonly int64?: 'bigint' | 'number';
}): { readonly [name: string]: Contract<unknown, unknown> };
export declare function contract<const F extends { readonly [name: string]: ContractField }, const O extends ContractOptions = {}>(
  fields: F, options?: O,
): Contract<ContractFieldsValue<F, O extends { readonly int64: 'number' } ? number : bigint>, ContractFieldsInput<F>>;

// Only what is exported above is public (in a .d.ts, a module without this
// line would export the helper types too).
export {};
