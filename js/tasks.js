// tasks.js -- numeric arrays encoded off the calling thread, queued, awaited with a promise.
// Owns: the queue of encodeAsync calls and its bounds (bytes staged in WASM
// and tasks in flight at once), staging a typed array for a task, submitting
// it to a worker (or running it here, one per event-loop turn, when there is
// no worker), waiting without blocking the event loop, taking the result out
// and freeing everything, cancellation of queued and running tasks. Must not
// touch: the worker threads themselves (wasm/sp_wasm.c runs them).
//
// Why a queue: every task holds its input staged in linear memory, and the
// worker's to_array holds its segments and then the result, until the task
// is taken. Unbounded, 1,000 concurrent calls of 800 KB each asked for more
// than the heap and most failed with NOMEM. Queued, a call waits for its
// turn: at most `maxBytes` of estimated staging (but always one task, however
// big) and `maxTasks` tasks are in flight; the rest wait in order, holding
// nothing in WASM.

import { ScratchpackError, codes, codeFromC } from './errors.js';

const DONE = 2;
// Field offsets of sp_wasm_task, in 32-bit words.
const F = { state: 0, cancel: 1, kind: 2, n: 3, src: 4, result: 5, resultLen: 6, code: 7, cause: 8, scratch: 9, compression: 10 };

/** Estimated bytes staged in WASM at once for all tasks in flight (one task may exceed it alone). */
export const QUEUE_MAX_BYTES = 64 * 1024 * 1024;
/** Tasks in flight per worker thread: one running, one ready behind it. */
export const QUEUE_TASKS_PER_WORKER = 2;
// A staged block, a task and its result must each fit wasm32's 32-bit sizes.
const MAX_BLOCK = 2 ** 32 - 1;

// Calls waiting their turn yield to the event loop between tasks run here.
const later = typeof setImmediate === 'function' ? setImmediate : (fn) => setTimeout(fn, 0);

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
  constructor(heap, scratchSize, compression = 0) {
    this.heap = heap;
    this.m = heap.m;
    this.scratchSize = scratchSize;
    this.compression = compression;   // sp_compression: the worker's to_array writes that layout
    this.workers = 0;                 // set by the owner once its workers run
    this.maxBytes = QUEUE_MAX_BYTES;
    this.waiting = [];                // calls not started, in order
    this.running = new Set();         // calls whose task is staged (on a worker or about to run here)
    this.staged = 0;                  // sum of taskCost over this.running
    this.peakStaged = 0;
    this.closed = false;
    this.keepAlive = null;
  }

  get maxTasks() {
    return this.workers > 0 ? this.workers * QUEUE_TASKS_PER_WORKER : 1;
  }

  /** Encodes view (a numeric typed array of element kind) off this call; resolves to the bytes. */
  run(kind, view, signal) {
    if (signal?.aborted) return Promise.reject(cancelled());
    const cost = taskCost(view);
    if (view.byteLength > MAX_BLOCK || cost - view.byteLength > 2 * MAX_BLOCK)
      return Promise.reject(new ScratchpackError(codes.NOMEM,
        `a typed array of ${view.byteLength} bytes does not fit in wasm32 memory (4 GiB)`));
    try {
      this.heap.need(view.byteLength, 'staging the array');
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      const call = { kind, view, cost, signal, resolve, reject, onAbort: null, task: 0, src: 0,
        onWorker: false, alone: false, retried: false };
      if (signal) {
        call.onAbort = () => this.abort(call);
        signal.addEventListener('abort', call.onAbort, { once: true });
      }
      this.waiting.push(call);
      this.pump();
    });
  }

  // Starts waiting calls while the bounds allow; the first call always starts
  // when nothing is in flight, however big it is.
  pump() {
    while (this.waiting.length > 0 && !this.closed) {
      const call = this.waiting[0];
      const busy = this.running.size;
      if (busy > 0 && (call.alone || busy >= this.maxTasks || this.staged + call.cost > this.maxBytes)) break;
      this.waiting.shift();
      if (!this.start(call)) {
        if (this.running.size > 0) {    // the heap is full of other tasks: wait for them, then alone
          call.alone = true;
          this.waiting.unshift(call);
          break;
        }
        this.settle(call, new ScratchpackError(codes.NOMEM, `no WASM memory to stage ${call.view.byteLength} bytes`));
      }
    }
    this.holdProcess();
  }

  // Stages a call's elements and task in linear memory and sets it going.
  // Returns false (nothing held) when the heap cannot give the memory.
  start(call) {
    const { heap, m } = this;
    const bytes = call.view.byteLength;
    const src = m._sp_wasm_alloc(bytes) >>> 0;
    const task = src ? m._sp_wasm_task_new() >>> 0 : 0;
    if (!task) {
      if (src) m._sp_wasm_free(src, bytes);
      return false;
    }
    heap.check(Math.max(src + bytes, task + 64));         // the allocations may have grown memory
    heap.u8.set(new Uint8Array(call.view.buffer, call.view.byteOffset, bytes), src);
    const w = task >>> 2, u32 = heap.u32;
    u32[w + F.kind] = call.kind; u32[w + F.n] = call.view.length; u32[w + F.src] = src;
    u32[w + F.scratch] = this.scratchSize; u32[w + F.compression] = this.compression;
    call.task = task;
    call.src = src;
    this.running.add(call);
    this.staged += call.cost;
    this.peakStaged = Math.max(this.peakStaged, this.staged);
    if (this.workers > 0 && m._sp_wasm_task_submit(task)) {
      call.onWorker = true;
      waitDone(heap, w + F.state).then(() => this.finish(call));
    } else {
      later(() => this.runHere(call));
    }
    return true;
  }

  // No worker: the task runs on this thread in a turn of its own.
  runHere(call) {
    if (!this.running.has(call)) return;           // close() settled it
    this.m._sp_wasm_task_run(call.task);
    this.finish(call);
  }

  // A task is done: its result (or error) goes to its caller, its memory back.
  finish(call) {
    if (!this.running.has(call)) return;
    this.running.delete(call);
    this.staged -= call.cost;
    if (this.closed) {                  // the module may be ending: leave its memory be
      this.settle(call, closedError());
      this.holdProcess();
      return;
    }
    const { heap, m } = this;
    heap.check(call.task + 64);
    const w = call.task >>> 2, u32 = heap.u32;
    const code = u32[w + F.code], ptr = u32[w + F.result] >>> 0, n = u32[w + F.resultLen] >>> 0;
    heap.check(ptr + n);
    const out = code === 0 ? heap.u8.slice(ptr, ptr + n) : null;
    const cause = code === 0 ? '' : heap.cString(u32[w + F.cause] >>> 0);
    if (ptr) m._sp_wasm_free(ptr, n);
    m._sp_wasm_free(call.src, call.view.byteLength);
    m._sp_wasm_task_free(call.task);
    if (codeFromC(code) === codes.NOMEM && !call.retried && !call.signal?.aborted) {
      call.retried = true;              // other tasks filled the heap: once more, alone
      call.alone = true;
      this.waiting.unshift(call);
      this.pump();
      return;
    }
    if (call.signal?.aborted) this.settle(call, cancelled());
    else if (code !== 0) this.settle(call, new ScratchpackError(codeFromC(code), cause || 'the C writer failed'));
    else this.settle(call, null, out);
    this.pump();
  }

  settle(call, err, value) {
    call.signal?.removeEventListener('abort', call.onAbort);
    if (err) call.reject(err); else call.resolve(value);
  }

  // The signal fired: a waiting call leaves the queue; a running task is told
  // to stop (it checks its cancel flag before it starts writing).
  abort(call) {
    const i = this.waiting.indexOf(call);
    if (i >= 0) {
      this.waiting.splice(i, 1);
      this.settle(call, cancelled());
      this.pump();
    } else if (call.task && this.running.has(call)) {
      this.heap.check(call.task + 64);
      Atomics.store(this.heap.i32, (call.task >>> 2) + F.cancel, 1);
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
    return { waiting: this.waiting.length, running: this.running.size, stagedBytes: this.staged,
      peakStagedBytes: this.peakStaged, maxBytes: this.maxBytes, maxTasks: this.maxTasks };
  }

  /**
   * Rejects every waiting call with CANCELLED, cancels every task in flight
   * and waits until none runs on a worker, so that the worker threads can be
   * ended safely: ending a thread inside a task could leave the allocator's
   * lock held for ever. (A running bulk array checks its cancel flag only
   * before it starts, so this waits for it to end.) Returns true when no task
   * runs any more; false when this thread may not block (a browser's main
   * thread) -- then call settled() until it is true. The tasks' promises
   * reject with CANCELLED.
   */
  close() {
    this.closed = true;
    for (const call of this.waiting.splice(0)) this.settle(call, closedError());
    const heap = this.heap;
    heap.refresh();                       // closing: cover every task wherever it is
    for (const call of this.running) Atomics.store(heap.i32, (call.task >>> 2) + F.cancel, 1);
    for (const call of this.running) {
      if (call.onWorker) continue;
      this.running.delete(call);        // not run yet: it never will be
      this.settle(call, closedError());
    }
    this.holdProcess();
    try {
      for (const { task } of this.running) {
        const i = (task >>> 2) + F.state;
        for (let st; (st = Atomics.load(heap.i32, i)) !== DONE;) Atomics.wait(heap.i32, i, st, 1000);
      }
    } catch {
      return this.settled();
    }
    return true;
  }

  /** Whether no task is running or queued on a worker. */
  settled() {
    this.heap.refresh();
    for (const { task } of this.running)
      if (Atomics.load(this.heap.i32, (task >>> 2) + F.state) !== DONE) return false;
    return true;
  }
}

const cancelled = () => new ScratchpackError(codes.CANCELLED, 'the encode was cancelled');
const closedError = () => new ScratchpackError(codes.CANCELLED, 'the scratchpack was closed');

// Resolves once the task's state is DONE, without blocking this thread.
async function waitDone(heap, i) {
  for (;;) {
    heap.check(i * 4 + 4);
    const i32 = heap.i32, state = Atomics.load(i32, i);
    if (state === DONE) return;
    if (typeof Atomics.waitAsync === 'function') {
      const r = Atomics.waitAsync(i32, i, state);
      if (r.async) await r.value;
    } else {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
}
