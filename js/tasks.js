// tasks.js -- encodeAsync: every call queued per instance, settled in the
// order it was made; numeric arrays big enough encoded off the calling thread.
// Owns: the order calls settle in, which calls are encoded here (small ones,
// and every value that is not a numeric array) and which on a worker, how
// much work is done here per event-loop turn, the queue of worker tasks and
// its bounds (bytes staged in WASM and tasks in flight at once), staging a
// typed array for a task, submitting it to a worker (or running it here,
// one per event-loop turn, when there is no worker), waiting without
// blocking the event loop, taking the result out and freeing everything,
// cancellation of queued and running calls, rejecting what is left at
// close(). Must not touch: the worker threads themselves
// (wasm/package/sp_wasm_workers.c runs and ends them; js/scratchpack.js's
// close() stops them) or the task record's layout (js/abi.js reads it).
//
// Why a queue for worker tasks: every task holds its input staged in linear
// memory, and the worker's to_array holds its segments and then the result,
// until the task is taken. Unbounded, 1,000 concurrent calls of 800 KB each
// asked for more than the heap and most failed with NOMEM. Queued, a call
// waits for its turn: at most `maxBytes` of estimated staging (but always
// one task, however big) and `maxTasks` tasks are in flight; the rest wait
// in order, holding nothing in WASM.
//
// Why small values are encoded here: a worker task costs a copy in, a copy
// out and a wake-up across threads, more than encode() itself below
// INLINE_MAX_BYTES (bench/js-async.mjs prints the crossover). Why the turn
// budget: a flood of calls made in one loop would otherwise run all its
// encodes in that loop's turn; past TURN_BUDGET_MS of work in a turn, the
// rest are encoded in later turns, a budget at a time, and settled the same
// way, so timers and I/O run between them.

import { packageAbi } from './abi.js';
import { ScratchpackError, codes, codeFromC } from './errors.js';
import { bytesOf, copyBytes } from './sink.js';

/** Estimated bytes staged in WASM at once for all tasks in flight (one task may exceed it alone). */
export const QUEUE_MAX_BYTES = 64 * 1024 * 1024;
/** Tasks in flight per worker thread: one running, one ready behind it. */
export const QUEUE_TASKS_PER_WORKER = 2;
// A staged block, a task and its result must each fit wasm32's 32-bit sizes.
const MAX_BLOCK = 2 ** 32 - 1;

/**
 * Numeric arrays of fewer bytes are encoded on the calling thread: below it
 * a worker task measured slower than encode() (bench/js-async.mjs), its
 * round trip (a wake-up each way, Atomics.waitAsync's turn) costing more
 * than the encode it saves.
 */
export const INLINE_MAX_BYTES = 512 * 1024;
/** Milliseconds of encoding done here per event-loop turn before the rest waits for a later turn. */
export const TURN_BUDGET_MS = 2;
// Calls encoded, and calls settled, per event-loop turn at most: each
// settlement runs its caller's continuations in the same turn's
// microtasks, which the time budget does not see.
const TURN_CALLS = 512;

// Work past the turn's budget, and tasks run here, wait for a later turn.
const later = typeof setImmediate === 'function' ? setImmediate : (fn) => setTimeout(fn, 0);
const now = () => performance.now();

// A FIFO whose shift is O(1) (Array#shift copies a long array's rest):
// the array is cut only once its consumed head is more than half of it.
class Fifo {
  constructor() { this.a = []; this.h = 0; }
  get length() { return this.a.length - this.h; }
  push(x) { this.a.push(x); }
  peek() { return this.a[this.h]; }
  shift() {
    const x = this.a[this.h];
    this.a[this.h++] = undefined;
    if (this.h >= 1024 && this.h * 2 >= this.a.length) { this.a = this.a.slice(this.h); this.h = 0; }
    return x;
  }
  unshift(x) {
    if (this.h > 0) this.a[--this.h] = x; else this.a.unshift(x);
  }
  /** Empties it; returns what it held, in order. */
  take() {
    const rest = this.a.slice(this.h);
    this.a = []; this.h = 0;
    return rest;
  }
}

// A typed array whose buffer was transferred (postMessage, structuredClone
// with transfer) or resized after its call was made no longer holds the
// elements the call was for: INVALID_ARGUMENT for that call (returned, or
// null), not an empty array or a TypeError thrown where nothing catches
// it. (A growing length-tracking view too: the queue sized its place by
// the length at the call; keep an array's length while its call is pending.)
function moved(call) {
  if (call.kind < 0 || call.value.byteLength === call.bytes) return null;
  return new ScratchpackError(codes.INVALID_ARGUMENT, `the typed array of ${call.bytes} bytes given to encodeAsync ` +
    `now has ${call.value.byteLength} (its buffer was transferred or resized before the call ran)`);
}

// A call of the queue: settled by resolve/reject once it has its outcome.
function newCall(kind, value, via, signal, resolve, reject) {
  return { kind, value, via, signal, resolve, reject, onAbort: null, done: false, err: null, out: null, started: false,
    bytes: kind >= 0 ? value.byteLength : 0 };
}

/**
 * What a task holds in linear memory at its peak: the staged elements, the
 * worker's segments while it writes, and the exact-size result (a MessagePack
 * number takes at most one byte more than its element).
 */
export function taskCost(view) {
  const result = view.length * (view.BYTES_PER_ELEMENT + 1) + 5;
  return view.byteLength + 2 * result;
}

/** The encodeAsync queue of one module. */
export class Tasks {
  /**
   * encodeHere(value, via) encodes on this thread (the instance's encode; via: a contract or null);
   * explain(err) adds where memory stands to a NOMEM (the instance's, as its other entries say it).
   */
  constructor(heap, scratchSize, compression = 0, encodeHere = null, explain = (e) => e) {
    this.heap = heap;
    this.c = heap.c;                              // the module's calls (js/abi.js)
    this.F = packageAbi(heap.m, heap.u8).task;   // sp_wasm_task's fields, in 32-bit words
    this.scratchSize = scratchSize;
    this.compression = compression;   // sp_compression: the worker's to_array writes that layout
    this.encodeHere = encodeHere;
    this.explain = explain;
    this.workers = 0;                 // set by the owner once its workers run
    this.bigMessage = Infinity;       // the owner's: with no worker, a bigger message is encode()'s, in JS memory
    this.maxBytes = QUEUE_MAX_BYTES;
    this.inlineMax = INLINE_MAX_BYTES;
    this.order = new Fifo();          // every call not settled yet, in the order it was made
    this.here = new Fifo();           // calls to encode here in a later turn
    this.waiting = new Fifo();        // worker calls not started, in order
    this.queued = 0;                  // calls in here or waiting, not started nor aborted
    this.running = new Set();         // calls whose task is staged (on a worker or about to run here)
    this.staged = 0;                  // sum of taskCost over this.running
    this.peakStaged = 0;
    this.spent = 0;                   // ms encoded here in this turn
    this.turnOpen = false;
    this.working = false;             // a turn of work here is scheduled
    this.settling = false;            // a turn of settling is scheduled
    this.closed = false;
    this.keepAlive = null;
  }

  get maxTasks() {
    return this.workers > 0 ? this.workers * QUEUE_TASKS_PER_WORKER : 1;
  }

  /**
   * Encodes value (kind: its numeric element kind, or -1 for any other
   * value; via: the contract it is encoded through, or null) here or off
   * this call; resolves to the bytes. Calls settle in the order they were
   * made.
   */
  run(kind, value, signal, via = null) {
    let resolve, reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    // Worker calls get their task's fields (cost, task, src, ...) as they queue.
    const call = newCall(kind, value, via, signal, resolve, reject);
    this.order.push(call);
    if (signal?.aborted) {
      this.complete(call, cancelled());
      return promise;
    }
    const offThread = kind >= 0 && value.byteLength >= this.inlineMax && (this.workers > 0 || !this.passesBig(value));
    if (offThread) {
      const err = this.stageable(value);
      if (err !== null) {
        this.complete(call, err);
        return promise;
      }
      call.cost = taskCost(value);
      call.task = 0; call.src = 0; call.onWorker = false; call.alone = false; call.retried = false;
    }
    if (signal) {
      call.onAbort = () => this.abort(call);
      signal.addEventListener('abort', call.onAbort, { once: true });
    }
    if (offThread) {
      this.waiting.push(call);
      this.queued++;
      this.pump();
    } else if (this.here.length === 0 && this.spent < TURN_BUDGET_MS) {
      this.encodeNow(call);
    } else {
      this.here.push(call);
      this.queued++;
      this.schedule();
    }
    return promise;
  }

  /** A call refused before it could be queued (a bad option, a closed
   * instance): it rejects with err in its turn, after every earlier call. */
  refuse(err) {
    let reject;
    const promise = new Promise((_, rej) => { reject = rej; });
    if (this.closed) { reject(err); return promise; }
    const call = newCall(-1, null, null, null, null, reject);
    this.order.push(call);
    this.complete(call, err);
    return promise;
  }

  // Whether view's message may pass bigMessage: then, with no worker, it is
  // encoded here as encode() writes it (in JS memory), not staged in linear
  // memory, which never shrinks.
  passesBig(view) {
    return view.length * (view.BYTES_PER_ELEMENT + 1) + 5 > this.bigMessage;
  }

  // Why a typed array cannot be staged (an error), or null.
  stageable(view) {
    const cost = taskCost(view);
    if (view.byteLength > MAX_BLOCK || cost - view.byteLength > 2 * MAX_BLOCK)
      return new ScratchpackError(codes.NOMEM,
        `a typed array of ${view.byteLength} bytes does not fit in wasm32 memory (4 GiB)`);
    try {
      this.heap.need(view.byteLength, 'staging the array');
    } catch (err) {
      return err;
    }
    return null;
  }

  // Encodes a call here, now, and counts the time against this turn.
  encodeNow(call) {
    call.started = true;
    const t0 = now();
    let out = null, err = null;
    try {
      const lost = moved(call);
      if (lost !== null) throw lost;
      out = this.encodeHere(call.value, call.via);
    } catch (e) {
      err = e;
    }
    this.spent += now() - t0;
    if (!this.turnOpen) {
      this.turnOpen = true;
      later(() => { this.spent = 0; this.turnOpen = false; });
    }
    this.complete(call, err, out);
  }

  schedule() {
    if (this.working) return;
    this.working = true;
    later(() => this.work());
  }

  // A turn's budget of the calls waiting to be encoded here.
  work() {
    this.working = false;
    const t0 = now();
    for (let k = 0; k < TURN_CALLS && this.here.length > 0 && !this.closed;) {
      const call = this.here.shift();
      if (call.done) continue;          // aborted while it waited
      this.queued--;
      this.encodeNow(call);
      k++;
      if (now() - t0 >= TURN_BUDGET_MS) break;    // after every call: one may take far longer than the budget
    }
    if (this.here.length > 0 && !this.closed) this.schedule();
  }

  // A call has its outcome; it settles once every earlier call has.
  complete(call, err, out = null) {
    if (call.done) return;
    call.done = true;
    call.err = err === null ? null : this.explain(err);
    call.out = out;
    call.value = null;
    if (call.onAbort !== null) call.signal.removeEventListener('abort', call.onAbort);
    if (this.order.peek() === call && !this.settling) this.settle();
  }

  // Settles the calls at the head of the order that have their outcome, a
  // batch per turn.
  settle() {
    const order = this.order;
    for (let k = 0; order.length > 0 && order.peek().done; k++) {
      if (k === TURN_CALLS) {
        this.settling = true;
        later(() => { this.settling = false; this.settle(); });
        return;
      }
      const call = order.shift();
      if (call.err !== null) call.reject(call.err); else call.resolve(call.out);
    }
  }

  // Starts waiting calls while the bounds allow; the first call always starts
  // when nothing is in flight, however big it is.
  pump() {
    while (this.waiting.length > 0 && !this.closed) {
      const call = this.waiting.peek();
      if (call.done) { this.waiting.shift(); continue; }     // aborted while it waited
      const busy = this.running.size;
      if (busy > 0 && (call.alone || busy >= this.maxTasks || this.staged + call.cost > this.maxBytes)) break;
      this.waiting.shift();
      this.queued--;
      const lost = moved(call);
      if (lost !== null) {
        this.complete(call, lost);
        continue;
      }
      if (!this.start(call)) {
        if (this.running.size > 0) {    // the heap is full of other tasks: wait for them, then alone
          call.alone = true;
          this.waiting.unshift(call);
          this.queued++;
          break;
        }
        this.complete(call, new ScratchpackError(codes.NOMEM, `no WASM memory to stage ${call.value.byteLength} bytes`));
      }
    }
    this.holdProcess();
  }

  // Stages a call's elements and task in linear memory and sets it going
  // (its array checked by moved() just before).
  // Returns false (nothing held) when the heap cannot give the memory.
  start(call) {
    const { heap, c, F } = this;
    const view = call.value, bytes = view.byteLength;
    const src = c.alloc(bytes) >>> 0;
    const task = src ? c.taskNew() >>> 0 : 0;
    if (!task) {
      if (src) c.free(src, bytes);
      return false;
    }
    heap.check(Math.max(src + bytes, task + F.bytes));         // the allocations may have grown memory
    copyBytes(heap.u8, src, new Uint8Array(view.buffer, view.byteOffset, bytes));
    const w = task >>> 2, u32 = heap.u32;
    u32[w + F.kind] = call.kind; u32[w + F.n] = view.length; u32[w + F.src] = src;
    u32[w + F.scratchSize] = this.scratchSize; u32[w + F.compression] = this.compression;
    call.started = true;
    call.task = task;
    call.src = src;
    this.running.add(call);
    this.staged += call.cost;
    this.peakStaged = Math.max(this.peakStaged, this.staged);
    if (this.workers > 0 && c.taskSubmit(task)) {
      call.onWorker = true;
      waitDone(heap, w + F.state, F.done).then(() => this.finish(call));
    } else {
      later(() => this.runHere(call));
    }
    return true;
  }

  // No worker: the task runs on this thread in a turn of its own.
  runHere(call) {
    if (!this.running.has(call)) return;           // close() settled it
    this.c.taskRun(call.task);
    this.finish(call);
  }

  // A task is done: its result (or error) goes to its caller, its memory back.
  finish(call) {
    if (!this.running.has(call)) return;           // close() settled it
    this.running.delete(call);
    this.staged -= call.cost;
    const { heap, c, F } = this;
    heap.check(call.task + F.bytes);
    const w = call.task >>> 2, u32 = heap.u32;
    const code = u32[w + F.code], ptr = u32[w + F.result] >>> 0, n = u32[w + F.resultLen] >>> 0;
    heap.check(ptr + n);
    const out = code === 0 ? bytesOf(heap.u8, ptr, ptr + n) : null;
    const cause = code === 0 ? '' : heap.cString(u32[w + F.cause] >>> 0);
    if (ptr) c.free(ptr, n);
    c.free(call.src, call.value.byteLength);
    c.taskFree(call.task);
    if (codeFromC(code) === codes.NOMEM && !call.retried && !call.signal?.aborted) {
      call.retried = true;              // other tasks filled the heap: once more, alone
      call.alone = true;
      call.started = false;
      this.waiting.unshift(call);
      this.queued++;
      this.pump();
      return;
    }
    if (call.signal?.aborted) this.complete(call, cancelled());
    else if (code !== 0) this.complete(call, new ScratchpackError(codeFromC(code), cause || 'the C writer failed'));
    else this.complete(call, null, out);
    this.pump();
  }

  // The signal fired: a call not started leaves the queue; a running task
  // is told to stop (it checks its cancel flag before it starts writing).
  abort(call) {
    if (call.done) return;
    if (!call.started) {
      this.queued--;                    // its queue skips it
      this.complete(call, cancelled());
      this.pump();
    } else if (call.task && this.running.has(call)) {
      this.heap.check(call.task + this.F.bytes);
      Atomics.store(this.heap.i32, (call.task >>> 2) + this.F.cancel, 1);
    }
  }

  // Worker tasks are awaited with Atomics.waitAsync, which does not keep a
  // Node process alive, and the pool's workers are unref'd: while calls are
  // queued or in flight, a timer does.
  holdProcess() {
    const busy = this.running.size + this.waiting.length > 0;
    if (busy && this.keepAlive === null) this.keepAlive = setInterval(() => {}, 1 << 30);
    else if (!busy && this.keepAlive !== null) { clearInterval(this.keepAlive); this.keepAlive = null; }
  }

  /** What the queue holds now: calls waiting, tasks in flight, their estimated staging (and its peak). */
  counts() {
    return { waiting: this.queued, running: this.running.size, stagedBytes: this.staged,
      peakStagedBytes: this.peakStaged, maxBytes: this.maxBytes, maxTasks: this.maxTasks };
  }

  /**
   * Every call not settled yet rejects with CLOSED, in order, now; every
   * task in flight is told to stop (its cancel flag). The tasks on workers
   * may still run: the owner stops the workers and waits for them
   * (sp_wasm_workers_stop, _join) before it ends them; nothing of those
   * tasks is freed, as the module is ending.
   */
  close() {
    if (this.closed) return;
    this.closed = true;
    const heap = this.heap;
    heap.refresh();                       // closing: cover every task wherever it is
    for (const call of this.running) Atomics.store(heap.i32, (call.task >>> 2) + this.F.cancel, 1);
    this.running.clear();
    this.staged = 0;
    this.here.take();
    this.waiting.take();
    this.queued = 0;
    for (const call of this.order.take()) {
      if (call.onAbort !== null) call.signal.removeEventListener('abort', call.onAbort);
      if (call.done && call.err !== null) call.reject(call.err);
      else if (call.done) call.resolve(call.out);
      else call.reject(closedError());
    }
    this.holdProcess();
  }
}

const cancelled = () => new ScratchpackError(codes.CANCELLED, 'the encode was cancelled');
const closedError = () => new ScratchpackError(codes.CLOSED, 'the scratchpack was closed before this call completed');

// Resolves once the task's state (the word at index i) is `done`, without
// blocking this thread.
async function waitDone(heap, i, done) {
  for (;;) {
    heap.check(i * 4 + 4);
    const i32 = heap.i32, state = Atomics.load(i32, i);
    if (state === done) return;
    if (typeof Atomics.waitAsync === 'function') {
      const r = Atomics.waitAsync(i32, i, state);
      if (r.async) await r.value;
    } else {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
}
