// scratchpack.js -- one loaded module and the entries over it.
// Owns: options, the free lists of C jobs and sinks (one per nesting level
// or live lease), the five entries (encode, encodeView, encodeInto,
// encodeToStream, encodeAsync), decode, decodeStream and decodeMultiple with
// the instance's limits, stats, close. Must not touch: formats (writer.js,
// decoder.js) or C internals (sinks.js and tasks.js speak to sp_wasm.c).

import { decodeDefaults, decodeOptions, decodeValue } from './decoder.js';
import { bufferValues, streamOptions, streamValues } from './decode-stream.js';
import { streamEncode } from './encode-stream.js';
import { ScratchpackError, codes, finishEncodeError } from './errors.js';
import { Lease } from './lease.js';
import { Heap, HeapSink, TargetSink, checkSpanLayout, jobFailure } from './sinks.js';
import { openWritable } from './stream.js';
import { Tasks } from './tasks.js';
import { KIND, kindOfCtor, numericKind } from './typed.js';
import { canUseThreads, endWorkers, loadModule, unrefWorkers } from './wasm.js';
import { encodeWith } from './writer.js';

const poolKinds = ['default', 'bucket', 'shared', 'lockfree'];

function normalize(o) {
  const bad = (what) => new ScratchpackError(codes.INVALID_ARGUMENT, what);
  const r = {
    threads: o.threads ?? 0,
    scratchSize: o.scratchSize ?? 65536,
    pool: o.pool ?? 'default',
    limits: o.limits ?? {},
    wasm: o.wasm ?? 'auto',
    wasmBinary: o.wasmBinary,
  };
  if (!Number.isInteger(r.threads) || r.threads < 0 || r.threads > 64) throw bad('threads must be an integer in 0..64');
  if (!Number.isInteger(r.scratchSize) || r.scratchSize < 8 || r.scratchSize > 1 << 30)
    throw bad('scratchSize must be an integer in 8..2^30');
  const kind = typeof r.pool === 'string' ? r.pool : r.pool.kind ?? 'bucket';
  if (!poolKinds.includes(kind)) throw bad(`pool must be one of ${poolKinds.join(', ')}, or { kind, maxLength, perBucket, partitions, perPartition, sequences }`);
  if (!['auto', 'threads', 'single'].includes(r.wasm)) throw bad("wasm must be 'auto', 'threads' or 'single'");
  return r;
}

/**
 * Loads the WebAssembly module and returns a Scratchpack over it.
 * @param {object} [options] see index.d.ts
 */
export async function createScratchpack(options = {}) {
  const o = normalize(options);
  const threaded = o.wasm === 'threads' || (o.wasm === 'auto' && canUseThreads());
  if (!threaded && o.threads > 0)
    throw new ScratchpackError(codes.INVALID_ARGUMENT,
      'threads need SharedArrayBuffer (in a browser: a cross-origin isolated page); use threads: 0 here');
  const m = await loadModule({ threaded, poolSize: o.threads, wasmBinary: o.wasmBinary });
  return new Scratchpack(m, o, threaded);
}

export class Scratchpack {
  constructor(m, o, threaded) {
    this._m = m;
    this._heap = new Heap(m);
    checkSpanLayout(m, this._heap);
    this._scratchSize = o.scratchSize;
    this._decode = decodeOptions({ ...o.limits, bulkRead: (src, at, n, ctor) => this._readTyped(src, at, n, ctor) },
      decodeDefaults);
    this._maxDepth = this._decode.maxDepth;
    this._sinks = [];
    this._targets = [];
    this._leases = 0;
    this._closed = false;
    this.threaded = threaded;
    configurePool(m, o.pool);
    this._tasks = new Tasks(this._heap, o.scratchSize);
    this.threads = o.threads > 0 ? m._sp_wasm_workers_start(o.threads) : 0;
    this._tasks.workers = this.threads;
    unrefWorkers(m);
    this._bulkBuffer = 0;
    this._bulkJob = 0;
    this._statsPtr = 0;
  }

  _open() {
    if (this._closed) throw new ScratchpackError(codes.CLOSED, 'this scratchpack was closed');
  }

  _takeSink() {
    const s = this._sinks.pop();
    if (s !== undefined) return s;
    const job = this._m._sp_wasm_job_new();
    if (!job) throw new ScratchpackError(codes.NOMEM, 'no WASM memory for another writer');
    return new HeapSink(this._heap, job);
  }

  /**
   * Encodes value into a new Uint8Array of exactly its size (to_array: the
   * thread's scratch, migrating to pooled segments when it overflows).
   */
  encode(value) {
    this._open();
    const s = this._takeSink();
    try {
      s.beginArray(this._scratchSize);
      encodeWith(s, value, this._maxDepth);
      return s.copyOut();
    } catch (e) {
      throw finishEncodeError(e);
    } finally {
      s.release();
      this._sinks.push(s);
    }
  }

  /**
   * Encodes value and returns a lease on it in linear memory: lease.bytes
   * is a view no later encode writes over until lease.release().
   */
  encodeView(value) {
    this._open();
    const s = this._takeSink();
    let bytes;
    try {
      s.beginArray(this._scratchSize);
      encodeWith(s, value, this._maxDepth);
      bytes = s.messageView();
    } catch (e) {
      s.release();
      this._sinks.push(s);
      throw finishEncodeError(e);
    }
    this._leases++;
    return new Lease(bytes, this, s);
  }

  // A lease ends: its writer gives back the scratch or sequence under it.
  _endLease(s) {
    this._leases--;
    if (this._closed) return;
    s.release();
    this._sinks.push(s);
  }

  /**
   * Encodes value into target from offset (to_output). Returns the number
   * of bytes written; BUFFER_TOO_SMALL when the message does not fit.
   */
  encodeInto(value, target, offset = 0) {
    this._open();
    if (!(target instanceof Uint8Array)) throw new ScratchpackError(codes.INVALID_ARGUMENT, 'encodeInto needs a Uint8Array target');
    if (!Number.isInteger(offset) || offset < 0 || offset > target.length)
      throw new ScratchpackError(codes.INVALID_ARGUMENT, `offset ${offset} is outside the target (0..${target.length})`);
    const t = this._targets.pop() || new TargetSink((kind, view) => this._bulk(kind, view));
    try {
      t.begin(target, offset);
      encodeWith(t, value, this._maxDepth);
      return t.finish() - offset;
    } catch (e) {
      throw finishEncodeError(e);
    } finally {
      t.clear();
      this._targets.push(t);
    }
  }

  // A typed array as MessagePack bytes in C's buffer (for encodeInto).
  _bulk(kind, view) {
    const m = this._m, heap = this._heap;
    if (!this._bulkBuffer) {
      this._bulkBuffer = m._sp_wasm_buffer_new();
      this._bulkJob = m._sp_wasm_job_new();
      if (!this._bulkBuffer || !this._bulkJob) throw new ScratchpackError(codes.NOMEM, 'no WASM memory for a buffer');
    }
    const src = heap.stage(view);
    m._sp_wasm_buffer_clear(this._bulkBuffer);
    try {
      if (m._sp_wasm_begin_buffer(this._bulkJob, this._bulkBuffer) !== 0 ||
          m._sp_wasm_write_array(this._bulkJob, kind, src, view.length) !== 0 || m._sp_wasm_finish(this._bulkJob) !== 0)
        throw jobFailure(heap, this._bulkJob);
    } finally {
      m._sp_wasm_release(this._bulkJob);
    }
    heap.check();
    const p = m._sp_wasm_buffer_data(this._bulkBuffer);
    return heap.u8.subarray(p, p + m._sp_wasm_buffer_len(this._bulkBuffer));
  }

  /**
   * Encodes value to a Node Writable or a WHATWG WritableStream (to_stream)
   * while it walks it: big containers element by element, each segment
   * handed over (a copy) as soon as the writer moves past it, waiting while
   * the writable asks to (encode-stream.js). Resolves to the number of
   * bytes written once the writable has accepted them all; on an error the
   * writable has received a prefix of the message.
   */
  async encodeToStream(value, writable) {
    this._open();
    const out = openWritable(writable);
    const s = this._takeSink();
    try {
      return await streamEncode(s, value, out, this._maxDepth, () => this._closed);
    } finally {
      s.release();
      this._sinks.push(s);
    }
  }

  /**
   * Encodes a numeric typed array as a MessagePack array on a worker thread
   * (when the instance has threads), without blocking this thread beyond
   * one copy of its bytes. Any other value is encoded here. Resolves to a
   * new Uint8Array.
   */
  async encodeAsync(value, { signal } = {}) {
    this._open();
    const kind = ArrayBuffer.isView(value) ? numericKind(value) : -1;
    if (kind < 0) return this.encode(value);
    return this._tasks.run(kind, value, signal);
  }

  // A numeric array read by C's bulk reader into a typed array: [array,
  // end offset], or null to let the JS decoder read it. Integer arrays only:
  // for floats the JS loop measured faster than C's per-element reads.
  _readTyped(src, at, n, ctor) {
    const kind = kindOfCtor(ctor);
    if (kind < 0 || kind === KIND.F32 || kind === KIND.F64 || this._closed) return null;
    const heap = this._heap, size = ctor.BYTES_PER_ELEMENT;
    const avail = Math.min(src.length - at, 9 * n + 5);
    const inAt = heap.reserve(avail + 8 + n * size);
    heap.check();
    const outAt = (inAt + avail + 7) & ~7;
    heap.u8.set(avail === src.length && at === 0 ? src : src.subarray(at, at + avail), inAt);
    const used = this._m._sp_wasm_read_array(kind, inAt, avail, outAt, n);
    if (used === 0) return null;
    const out = new ctor(n);
    out.set(new ctor(heap.buffer, outAt, n));
    return [out, at + used];
  }

  /** Decodes one value; options override the instance's limits for this call. */
  decode(bytes, options) {
    return decodeValue(bytes, options === undefined ? this._decode : decodeOptions(options, this._decode));
  }

  /**
   * The values of concatenated messages from a Node Readable, a WHATWG
   * ReadableStream or an async iterable of bytes, as an async iterator
   * (decode-stream.js); the instance's limits apply to each message.
   */
  decodeStream(source, options) {
    const [opt, maxMessage] = streamOptions(options, this._decode);
    return streamValues(source, opt, maxMessage);
  }

  /** The values of concatenated messages in one buffer, as an iterator. */
  decodeMultiple(bytes, options) {
    return bufferValues(bytes, options === undefined ? this._decode : decodeOptions(options, this._decode));
  }

  /** Allocation and pool counters from C, and the WASM heap in use. */
  stats() {
    this._open();
    const m = this._m;
    if (!this._statsPtr) this._statsPtr = m._sp_wasm_alloc(26 * 8);
    m._sp_wasm_stats(this._statsPtr);
    this._heap.check();
    const f = new Float64Array(this._heap.buffer, this._statsPtr, 26);
    const names = (list, at) => Object.fromEntries(list.map((k, i) => [k, f[at + i]]));
    return {
      alloc: names(['allocCalls', 'allocBytes', 'freeCalls', 'freeBytes', 'unpooledCalls', 'unpooledBytes'], 0),
      liveBytes: f[6],
      pool: names(['rents', 'returns', 'slotHits', 'partitionHits', 'fallbackHits', 'lockWaits', 'fresh',
        'unpooled', 'drops', 'trims', 'cached'], 7),
      sequences: names(['rents', 'returns', 'fresh', 'drops', 'lockWaits', 'idle'], 18),
      heap: { used: f[24], total: f[25], size: this._heap.buffer.byteLength },
      leases: this._leases,
      threads: this.threads,
      kernel: this._heap.cString(m._sp_wasm_kernel()),
    };
  }

  /**
   * Ends the worker threads (pending encodeAsync calls reject with
   * CANCELLED) so the process can exit. The instance is unusable after.
   * A task already running on a worker is let finish first (in a browser's
   * main thread, which may not block, the workers end once it has).
   */
  close() {
    if (this._closed) return;
    this._closed = true;
    const quiet = this._tasks.close();
    if (!this.threaded) return;
    if (quiet) { endWorkers(this._m); return; }
    const poll = setInterval(() => {
      if (!this._tasks.settled()) return;
      clearInterval(poll);
      endWorkers(this._m);
    }, 5);
  }
}

// The pool under the sequences: the process default, or one of the three
// kinds of src/include/sp_pool.h made for this instance.
function configurePool(m, pool) {
  if (pool === 'default') return;
  const p = typeof pool === 'string' ? { kind: pool } : pool;
  const kind = p.kind ?? 'bucket';
  const rc = kind === 'shared'
    ? m._sp_wasm_configure(1, p.partitions ?? 0, p.perPartition ?? 0, p.sequences ?? 0)
    : m._sp_wasm_configure(kind === 'lockfree' ? 2 : 0, p.maxLength ?? 80 * 1024, p.perBucket ?? 100, p.sequences ?? 0);
  if (rc === 1) throw new ScratchpackError(codes.NOMEM, 'no WASM memory for the pool');
  if (rc !== 0) throw new ScratchpackError(codes.INVALID_ARGUMENT, `the ${kind} pool refused those sizes`);
}
