// scratchpack.js -- one loaded module and the entries over it.
// Owns: the instance over its checked options (options.js), the free lists of C
// jobs and sinks (one per nesting level or live lease), the five entries
// (encode, encodeView, encodeInto, encodeToStream, encodeAsync), leases'
// ends (release, dispose, the garbage collector), the memory cap, decode,
// decodeStream and decodeMultiple with the instance's limits, the
// compression every entry writes (C compresses) and C's LZ4 decompressor
// lent to its decodes, stats, trim, close. Must not touch: formats
// (writer.js, decoder.js, decompress.js) or C internals (sinks.js, the
// sink-*.js files and tasks.js speak to wasm/package/; abi.js names its calls
// and reads its records).

import { packageAbi, packageCalls } from './abi.js';
import { BULK_READ, INFLATE, decodeDefaults, decodeOptions } from './decode-options.js';
import { bufferValues, streamOptions, streamValues } from './decode-stream.js';
import { decodeTop } from './decompress.js';
import { streamCompressed, streamEncode } from './encode-stream.js';
import { ScratchpackError, codeFromC, codes, finishEncodeError } from './errors.js';
import { flatInto, isFlat } from './flat-into.js';
import { Lease } from './lease.js';
import { LZ4_BAD_OFFSET, LZ4_TOO_LONG, LZ4_TRUNCATED } from './lz4.js';
import { COMPRESSIONS, asyncSignal, bad, contractOf, contractOption, normalize } from './options.js';
import { copyBytes } from './sink.js';
import { Heap, HeapSink, ScratchSink, TargetSink } from './sinks.js';
import { openWritable } from './stream.js';
import { Tasks } from './tasks.js';
import { KIND, isDetached, isPlainBytes, kindOfCtor, numericKind, trueBytes, trueView } from './typed.js';
import { canUseThreads, endWorkers, loadModule, unrefWorkers } from './wasm.js';
import { encodeWith, resync } from './writer.js';

export { normalize } from './options.js';   // (where the option tests have always found it)

const MiB = 1 << 20;
// encode()'s JS scratch (ScratchSink), at most: a message that fits calls
// no C; a bigger one is moved once into C's scratch and goes on there.
const JS_SCRATCH = 16 * 1024;

/**
 * Loads the WebAssembly module and returns a Scratchpack over it.
 * @param {object} [options] see index.d.ts
 */
export async function createScratchpack(options = {}) {
  const o = normalize(options);
  const threaded = o.wasm === 'threads' || (o.wasm === 'auto' && canUseThreads());
  if (!threaded && o.threads > 0)
    throw new ScratchpackError(codes.INVALID_ARGUMENT, o.wasm === 'single'
      ? `threads: ${o.threads} needs the threaded build; wasm: 'single' has none (use wasm: 'auto' or 'threads', or threads: 0)`
      : 'threads need SharedArrayBuffer (in a browser: a cross-origin isolated page); use threads: 0 here');
  const m = await loadModule({ threaded, poolSize: o.threads, wasmBinary: o.wasmBinary });
  try {
    return new Scratchpack(m, o, threaded);
  } catch (e) {
    endWorkers(m);                         // nothing else holds them
    throw e;
  }
}

const mib = (n) => `${(n / MiB).toFixed(1)} MiB`;

// NOMEM errors whose message already says where memory stood.
const explained = new WeakSet();

export class Scratchpack {
  constructor(m, o, threaded) {
    this._m = m;
    this._heap = new Heap(m);
    this._c = this._heap.c;               // the module's calls (js/abi.js)
    const size = this._heap.size();
    if (o.maxMemory < size)
      throw bad(`maxMemory ${o.maxMemory} is below the ${size} bytes the module already has`);
    this._heap.setCap(o.maxMemory);
    this._scratchSize = o.scratchSize;
    this._ext = o.extensions;
    this._compression = o.compression;    // sp_compression: every entry writes that layout
    /** The layout every encode writes: 'none', 'lz4block' or 'lz4blockarray'. */
    this.compression = COMPRESSIONS[o.compression];
    this._decode = Object.freeze({ ...decodeOptions({ ...o.limits, extensions: o.extensions }, decodeDefaults),
      [BULK_READ]: (src, at, n, ctor) => this._readTyped(src, at, n, ctor),
      [INFLATE]: (src, s, sEnd, out, d, plain) => this._inflate(src, s, sEnd, out, d, plain) });
    this._maxDepth = this._decode.maxDepth;
    this._sinks = [];
    this._targets = [];
    this._target = null;                  // encodeInto's sink when no call holds it; nested calls use _targets
    this._scratches = [];                 // encode()'s JS scratches, one per nesting level
    this._big = o.bigMessage;             // messages past it are written to JS memory
    this._bigLast = 0;                    // the last encode(): 0 in the JS scratch, 1 in C, 2 in JS memory
    /** What encode() returns a message in: 'pooled' (a view of a shared array) or 'own' (an array of its own). */
    this.results = o.results;
    this._leases = 0;
    this._leaseBytes = 0;
    this._fresh = null;                   // the newest lease, watched from the next call on
    this._reclaim = typeof FinalizationRegistry === 'function'
      ? new FinalizationRegistry((grip) => this._reclaimed(grip)) : null;
    this._depth = 0;                      // encodes running (a getter may call in again)
    this._closed = false;
    this._outs = new Set();          // encodeToStream's writables in use: close() stops their waits
    this.threaded = threaded;
    configurePool(m, o.pool, o.cacheLimit);
    this._statsPtr = this._heap.alloc(packageAbi(m, this._heap.u8).stats.bytes, 'the stats block');
    this._tasks = new Tasks(this._heap, o.scratchSize, o.compression, (v, via) => this.encode(v, via === null ? undefined : { contract: via }),
      (e) => this._explain(e));
    this.threads = o.threads > 0 ? this._c.workersStart(o.threads) : 0;
    this._tasks.workers = this.threads;
    this._tasks.bigMessage = this._big;
    unrefWorkers(m);
  }

  // At the start of every call: a lease still live from the last one is
  // watched from now on (docs/memory-model.md), whatever call comes next.
  _open() {
    if (this._closed) throw new ScratchpackError(codes.CLOSED, 'this scratchpack was closed');
    if (this._fresh !== null) this._watchFresh();
  }

  _takeSink() {
    const s = this._sinks.pop();
    if (s !== undefined) return s;
    const job = this._c.jobNew() >>> 0;
    if (!job) throw this._explain(new ScratchpackError(codes.NOMEM, 'no WASM memory for another writer'));
    return new HeapSink(this._heap, job);
  }

  // A NOMEM says where memory stands, and how many leases hold some (once:
  // encodeAsync's queue explains what reaches it, encode()'s errors too).
  _explain(e) {
    if (!(e instanceof ScratchpackError) || e.code !== codes.NOMEM || explained.has(e)) return e;
    explained.add(e);
    const heap = this._heap;
    let more = `linear memory is ${mib(heap.size())} of at most ${mib(heap.cap)} (maxMemory)`;
    if (this._leases > 0)
      more += `; ${this._leases} lease${this._leases === 1 ? ' is' : 's are'} live, holding ` +
        `${this._leaseBytes} bytes of messages and the buffers under them: release() them ` +
        '(a dropped lease is reclaimed only when the JS garbage collector runs)';
    e.message += ` (${more})`;
    return e;
  }

  // The error an entry throws.
  _fail(e) {
    return this._explain(finishEncodeError(e));
  }

  /**
   * Encodes value into a Uint8Array of exactly its size (to_array: the
   * thread's scratch, migrating to pooled segments when it overflows).
   * results 'pooled': a message that fits the JS scratch is a view of it,
   * as Node's small Buffers are of its pool; else an array of its own.
   */
  encode(value, options) {
    this._open();
    return this._encode(value, contractOf(options), false);
  }

  /**
   * Encodes value and returns a lease on it: lease.bytes is the message,
   * which nothing writes over until the lease ends (lease.js). Pthread
   * build: a block of shared linear memory of exactly the message's size
   * (a worker reads it without a copy); single-threaded build, or past
   * bigMessage: an array of its own, as encode() returns.
   */
  encodeView(value, options) {
    this._open();
    const via = contractOf(options);
    if (!this.threaded) return this._ownLease(this._encode(value, via, false, true));
    return this._encode(value, via, true);
  }

  // encode (lease false) and encodeView (true): through the JS scratch, or,
  // compressing, straight into C. own: an array of its own even when
  // results are pooled (a lease's, whose buffer may travel).
  _encode(value, via, lease, own = false) {
    if (this._compression !== 0) return this._encodeInC(value, via, lease);
    const s = this._scratches.pop() || this._newScratch();
    this._depth++;
    try {
      // encode() only (bigMessage: Infinity keeps all in linear memory); a lease is linear memory.
      this._beginScratch(s, !lease && this._big !== Infinity, lease);
      encodeWith(s, value, this._maxDepth, this._ext, via);
      this._bigLast = this._sizeClass(s);
      if (!lease) return s.copyOut(own);
      // Past bigMessage a lease is an array of its own, wherever the message was written.
      if (s.inJs() || s.linearLength() > this._big) return this._ownLease(s.copyOut(true));
      return this._heapLease(s.copyToHeap(), s.messageLength);
    } catch (e) {
      this._bigLast = 0;               // a message that failed says nothing of the next one's size
      throw this._fail(e);
    } finally {
      this._depth--;
      s.done(this._sinks);
      this._scratches.push(s);
    }
  }

  _newScratch() {
    return new ScratchSink(Math.min(this._scratchSize, JS_SCRATCH), () => this._takeSink(), this._heap, this._big,
      this.results === 'pooled');
  }

  // Where the message just written would have been best started: 2 in JS
  // memory (it passed bigMessage), 1 in C (it outgrew the scratch), 0 in
  // the scratch. By its length: one that started in JS memory and stayed
  // small sends the next back to the scratch.
  _sizeClass(s) {
    if (s.bodyMoved) return 0;
    if (!s.inJs()) return s.outgrew() ? 1 : 0;
    return s.pos > this._big ? 2 : s.pos > s.limit ? 1 : 0;   // an OutSink's message starts at 0
  }

  // Right after a message too big for the JS scratch the next is likely as
  // big: it starts where that one ended, rather than be moved there again.
  // A lease starts in C, never in JS memory: it is linear memory unless it
  // passes bigMessage itself.
  _beginScratch(s, bodies = false, lease = false) {
    s.begin(this._scratchSize, bodies);
    if (this._bigLast === 1 || (this._bigLast === 2 && lease)) s.migrate();
    else if (this._bigLast === 2) s.toJs(0);
  }

  // _encode straight through a C entry: a new array, or a leased block.
  _encodeInC(value, via, lease) {
    const s = this._takeSink();
    this._depth++;
    try {
      s.beginArray(this._scratchSize, this._compression);
      encodeWith(s, value, this._maxDepth, this._ext, via);
      return lease ? this._heapLease(s.copyToHeap(), s.messageLength) : s.copyOut();
    } catch (e) {
      throw this._fail(e);
    } finally {
      this._depth--;
      s.release();
      this._sinks.push(s);
    }
  }

  // A lease on a message in an array of its own: nothing to give back.
  _ownLease(bytes) {
    return new Lease(this, -1, bytes.length, bytes);
  }

  // A lease on a block of linear memory (heap.alloc) of exactly n bytes.
  _heapLease(p, n) {
    if (this._fresh !== null) this._watchFresh();      // one made by a getter meanwhile
    const lease = new Lease(this, p, n, this._viewAt(p, n));
    this._leases++;
    this._leaseBytes += n;
    this._fresh = lease;
    return lease;
  }

  // A view of n bytes of linear memory at p, over the memory as it is now.
  _viewAt(p, n) {
    this._heap.check(p + n);
    return new Uint8Array(this._heap.buffer, p, n);
  }

  // A lease on linear memory ends (release or dispose): its block goes back to malloc.
  _endLease(lease) {
    if (lease === this._fresh) this._fresh = null;      // nothing to watch
    else if (lease._grip !== null) lease._grip.ended = true;
    this._endHeld(lease._ptr, lease._length);
  }

  _endHeld(p, bytes) {
    this._leases--;
    this._leaseBytes -= bytes;
    if (this._closed) return;
    this._heap.free(p, bytes);
  }

  // The newest lease outlived the call that made it: from now on the
  // garbage collector ends it once neither it nor a view of it can be
  // reached. (Deferred: watching costs more than a small
  // encode, and most leases are released before the next call, which
  // clears _fresh.)
  _watchFresh() {
    const l = this._fresh;
    this._fresh = null;
    if (this._reclaim === null) return;
    const grip = { ptr: l._ptr, bytes: l._length, views: 0, ended: false };
    l._grip = grip;
    this._watchView(l._view, grip);
    if (l._views !== null) for (const v of l._views) if (v !== l._view) this._watchView(v, grip);
  }

  // One more view whose loss the lease's end waits for.
  _watchView(v, grip) {
    grip.views++;
    this._reclaim.register(v, grip);
  }

  _reclaimed(grip) {
    if (--grip.views > 0 || grip.ended) return;
    grip.ended = true;
    this._endHeld(grip.ptr, grip.bytes);
  }

  /**
   * Encodes value into target from offset (to_output). Returns the number
   * of bytes written; BUFFER_TOO_SMALL when the message does not fit.
   */
  encodeInto(value, target, offset = 0, options = undefined) {
    this._open();
    if (typeof offset === 'object' && offset !== null) { options = offset; offset = 0; }   // (value, target, { contract })
    // (contractOf not called without options: left out of line, it leaves
    // V8 the room to inline the walk's entry into this function)
    const via = options === undefined ? null : contractOf(options);
    if (!isPlainBytes(target)) target = targetBytes(target);   // (a subclass, or not a Uint8Array)
    else if (target.length === 0 && isDetached(target)) throw detachedTarget();
    if (offset !== 0 && (!Number.isInteger(offset) || offset < 0 || offset > target.length))
      throw new ScratchpackError(codes.INVALID_ARGUMENT, `offset ${offset} is outside the target (0..${target.length})`);
    if (this._compression !== 0) return this._encodeIntoCompressed(value, target, offset, options);
    // [id, bytes] and the like: straight into the target (a bin in the root array is at depth 2).
    if (via === null && this._ext === null && this._maxDepth >= 2 && isFlat(value)) {
      const n = flatInto(value, target, offset);
      if (n >= 0) return n;
    }
    let t = this._target;                       // (the one a call at a time uses, without an array)
    if (t !== null) this._target = null;
    else t = this._targets.pop() || new TargetSink(this._heap);
    this._depth++;
    try {
      t.begin(target, offset);
      encodeWith(t, value, this._maxDepth, this._ext, via);
      return t.finish() - offset;
    } catch (e) {
      throw this._fail(e);
    } finally {
      this._depth--;
      t.clear();
      if (this._target === null) this._target = t;
      else this._targets.push(t);
    }
  }

  // encodeInto while compressing: C writes the compressed message (the
  // scratch, or pooled segments), leased for as long as it takes to copy it
  // into the target, so the target never holds the plain bytes; one copy
  // more than uncompressed.
  _encodeIntoCompressed(value, target, offset, options) {
    const lease = this.encodeView(value, options);
    try {
      const bytes = lease.bytes, n = bytes.length;
      if (target.length === 0 && isDetached(target)) throw detachedTarget();   // (by a getter, while encoding)
      if (n > target.length - offset)
        throw new ScratchpackError(codes.BUFFER_TOO_SMALL, target.length < offset
          ? `the target has ${target.length} bytes now, fewer than the offset ${offset} (its buffer shrank while the value was encoded); the compressed message needs ${n} from there`
          : `the target has ${target.length - offset} bytes from offset ${offset}; the compressed message needs ${n}`,
          { offset: target.length });
      target.set(bytes, offset);
      return n;
    } finally {
      lease.release();
    }
  }

  /**
   * Encodes value to a Node Writable or a WHATWG WritableStream (to_stream)
   * while it walks it: big containers element by element, each segment
   * handed over (a copy) as soon as the writer moves past it, waiting while
   * the writable asks to (encode-stream.js). Resolves to the number of
   * bytes written once the writable has accepted them all; on an error the
   * writable has received a prefix of the message.
   */
  async encodeToStream(value, writable, options) {
    this._open();
    const c = contractOption(options);
    const out = openWritable(writable);
    const s = this._takeSink();
    this._outs.add(out);
    try {
      // A contract's value is written whole, then handed over segment by
      // segment; a list contract's (Rec.array()) element by element.
      const list = c !== null && c._encElement !== undefined ? c : null;
      if (this._compression !== 0 || (c !== null && list === null))
        return await streamCompressed(s, value, out, this._maxDepth, this._compression, () => this._closed, this._ext,
          c === null ? null : c._encTop);
      return await streamEncode(s, value, out, this._maxDepth, () => this._closed, this._ext, list);
    } catch (e) {
      throw this._fail(e);
    } finally {
      this._outs.delete(out);
      s.release();
      this._sinks.push(s);
    }
  }

  /**
   * Encodes value like encode(), resolving to a Uint8Array (encode()'s); calls
   * settle in the order they were made. A numeric typed array of
   * INLINE_MAX_BYTES or more is encoded on a worker thread (when the
   * instance has threads), without blocking this thread beyond one copy of
   * its bytes; anything else here, a turn's budget at a time (tasks.js).
   */
  encodeAsync(value, options) {
    // Not an async function: its promise would wrap the queue's, one more
    // promise and two more microtasks per call (a flood's garbage).
    try {
      this._open();
      const signal = asyncSignal(options);
      // Through a contract: encoded here, in its turn in the queue.
      const via = options?.contract ?? null;
      const kind = via === null && ArrayBuffer.isView(value) && (this._ext === null || this._ext.find(value) === null)
        ? numericKind(value) : -1;
      // A numeric array as its real elements (trueView); a detached one as it is, for the task to refuse.
      return this._tasks.run(kind, kind >= 0 ? trueView(value) ?? value : value, signal, via);
    } catch (e) {
      return this._tasks.refuse(e);                // in its turn, as every other outcome
    }
  }

  // A numeric array read by C's bulk reader into a typed array: [array,
  // end offset], or null to let the JS decoder read it. Integer arrays only:
  // for floats the JS loop measured faster than C's per-element reads.
  _readTyped(src, at, n, ctor) {
    const kind = kindOfCtor(ctor);
    if (kind < 0 || kind === KIND.F32 || kind === KIND.F64 || this._closed) return null;
    const heap = this._heap, size = ctor.BYTES_PER_ELEMENT;
    const avail = Math.min(src.length - at, 9 * n + 5);
    const outOff = (avail + 7) & ~7, total = outOff + n * size;
    // Past bigMessage the JS decoder reads it without C's help: staging it
    // would grow linear memory for good.
    if (total > heap.cap || total > this._big) return null;
    let inAt;
    try {
      inAt = heap.reserve(total);
    } catch {
      return null;                               // no memory to stage it: the same
    }
    let out = null, used;
    try {                                        // (a stack overflow may strike here, deep in a decode)
      copyBytes(heap.u8, inAt, avail === src.length && at === 0 ? src : src.subarray(at, at + avail));
      used = this._c.readArray(kind, inAt, avail, inAt + outOff, n) >>> 0;
      if (used !== 0) {
        out = new ctor(n);
        out.set(new ctor(heap.buffer, inAt + outOff, n));
      }
    } finally {
      heap.unstage();
    }
    if (this._depth > 0) resync();               // decode called from a getter of an encode
    return out === null ? null : [out, at + used];
  }

  // An LZ4 block of a compressed message decompressed by C (4-8x lz4.js on
  // record-like data, many short sequences: WASM's wide copies), staged in
  // linear memory with its output: out[d ..] filled, the index after it
  // returned, or an lz4.js refusal (the same outcomes as lz4DecompressInto).
  // null leaves the block to JS: small ones, and blocks that are mostly
  // literals (under 2:1) or long runs (over 32:1), which lz4.js copies with
  // set / copyWithin / fill about as fast as C, so staging would cost more
  // than it saves (bench/js-bench.mjs, its last table); no memory to stage;
  // a closed instance.
  _inflate(src, s, sEnd, out, d, plain) {
    const n = sEnd - s;
    if (plain < INFLATE_MIN || plain < 2 * n || plain > 32 * n || n + plain > this._big || this._closed) return null;
    const heap = this._heap;
    let at;
    try {
      at = heap.reserve(n + plain);
    } catch {
      return null;
    }
    copyBytes(heap.u8, at, src.subarray(s, sEnd));
    const got = this._c.lz4Decompress(at, n, at + n, plain);
    if (got >= 0) copyBytes(out, d, heap.u8.subarray(at + n, at + n + got));
    heap.unstage();
    if (this._depth > 0) resync();               // decode called from a getter of an encode
    if (got >= 0) return d + got;
    const code = codeFromC(-got);                 // C's sp_code, negated
    return code === codes.TRUNCATED ? LZ4_TRUNCATED : code === codes.LENGTH_LIMIT ? LZ4_TOO_LONG : LZ4_BAD_OFFSET;
  }

  /**
   * Decodes one value (an Lz4Block or Lz4BlockArray message is decompressed
   * first unless decompress is false); options override the instance's
   * limits for this call.
   */
  decode(bytes, options) {
    this._open();
    return decodeTop(bytes, options === undefined ? this._decode : decodeOptions(options, this._decode));
  }

  /**
   * The values of concatenated messages from a Node Readable, a WHATWG
   * ReadableStream or an async iterable of bytes, as an async iterator
   * (decode-stream.js); the instance's limits apply to each message.
   */
  decodeStream(source, options) {
    this._open();
    const [opt, maxMessage] = streamOptions(options, this._decode);
    return streamValues(source, opt, maxMessage);
  }

  /** The values of concatenated messages in one buffer, as an iterator. */
  decodeMultiple(bytes, options) {
    this._open();
    return bufferValues(bytes, options === undefined ? this._decode : decodeOptions(options, this._decode));
  }

  /** Allocation and pool counters from C, the WASM heap, and live leases. */
  stats() {
    this._open();
    const heap = this._heap;
    const st = packageAbi(this._m, heap.u8).stats;
    this._c.stats(this._statsPtr);
    heap.check(this._statsPtr + st.bytes);
    const c = st.read(heap.buffer, this._statsPtr);    // alloc, liveBytes, pool, sequences, heap: C's
    Object.assign(c.heap, { size: heap.size(), max: heap.cap, staging: heap.stageCap });
    return {
      ...c,
      leases: this._leases,
      leaseBytes: this._leaseBytes,
      threads: this.threads,
      kernel: heap.cString(this._c.kernel()),
    };
  }

  /**
   * Gives back everything the instance caches: the pool's arrays, idle
   * sequences, the staging block, and the scratch when no lease or encode
   * holds it. Linear memory itself never shrinks (WebAssembly cannot), but
   * what trim frees is reused before memory grows again. Returns the bytes
   * freed.
   */
  trim() {
    this._open();
    const heap = this._heap, staged = heap.stageCap;
    heap.unstage(0);
    const freed = staged + this._c.trim();
    heap.refresh();
    return freed;
  }

  /**
   * Ends the worker threads so the process can exit; the instance is
   * unusable after. encodeAsync calls not completed reject with CLOSED. A
   * task already running on a worker is let finish first: the workers are
   * told to stop, and each returns from its loop, before they are ended (in
   * a browser's main thread, which may not block, once they have).
   */
  close() {
    if (this._closed) return;
    this._closed = true;
    this._tasks.close();
    // A stream waiting on its writable (which may never drain) stops now.
    for (const out of this._outs) out.cancel(new ScratchpackError(codes.CANCELLED, 'the scratchpack was closed while the message was written'));
    if (!this.threaded) return;
    const m = this._m, c = this._c;
    c.workersStop();
    const end = () => { c.workersJoin(); endWorkers(m); };
    if (this._workersGone(true)) { end(); return; }
    const poll = setInterval(() => {
      if (!this._workersGone(false)) return;
      clearInterval(poll);
      end();
    }, 5);
  }

  // Whether every worker has returned from its loop (sp_wasm_workers_live
  // is 0); when `block`, waits for it where this thread may block (Node),
  // for at most 10 s before it leaves the rest to polling.
  _workersGone(block) {
    const heap = this._heap, at = (this._c.workersLive() >>> 0) >>> 2;
    const until = Date.now() + 10000;
    for (;;) {
      heap.check(at * 4 + 4);
      const live = Atomics.load(heap.i32, at);
      if (live === 0) return true;
      if (!block || Date.now() > until) return false;
      try {
        Atomics.wait(heap.i32, at, live, 100);
      } catch {
        return false;                   // a browser's main thread
      }
    }
  }
}

// Blocks of fewer plain bytes are decompressed by lz4.js (staging them costs more than C saves).
const INFLATE_MIN = 4096;

// The pool under the sequences: the kinds of src/include/sp_pool.h, made
// for this instance, caching at most cacheLimit bytes of arrays ('default'
// is a bucket pool of C's default sizes: 16 B .. 128 KiB x 100).
export function configurePool(m, [kind, a, b, sequences], cacheLimit) {
  // C's budget: 0 means none; a budget of 1 byte keeps nothing (arrays are >= 16 B).
  const keep = cacheLimit === Infinity ? 0 : Math.max(cacheLimit, 1);
  const rc = packageCalls(m).configure(kind, a, b, sequences, keep);
  if (rc === 1) throw new ScratchpackError(codes.NOMEM, 'no WASM memory for the pool');
  if (rc !== 0) throw new ScratchpackError(codes.INTERNAL, `C refused a pool of checked sizes (${kind}, ${a}, ${b})`);
}

// encodeInto's target when it is not a plain Uint8Array or Buffer: a
// subclass as a plain view of its real memory (what its getters say of its
// length is not asked: the message goes where its bytes are); anything
// else -- another typed array, a DataView, a Proxy -- INVALID_ARGUMENT.
function targetBytes(target) {
  if (!(target instanceof Uint8Array) || !ArrayBuffer.isView(target) || numericKind(target) >= 0)
    throw new ScratchpackError(codes.INVALID_ARGUMENT, 'encodeInto needs a Uint8Array target');
  return trueBytes(target) ?? detachedTarget();
}

function detachedTarget() {
  throw new ScratchpackError(codes.INVALID_ARGUMENT, 'the target is over a detached (transferred) buffer: it has no bytes to write');
}
