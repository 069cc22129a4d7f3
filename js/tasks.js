// tasks.js -- numeric arrays encoded on a pthread, awaited with a promise.
// Owns: staging a typed array for a task, submitting it (or running it here
// when there is no worker), waiting without blocking the event loop, taking
// the result out and freeing everything, cancellation. Must not touch: the
// worker threads themselves (wasm/sp_wasm.c runs them).

import { ScratchpackError, codes, codeFromC } from './errors.js';

const DONE = 2;
// Field offsets of sp_wasm_task, in 32-bit words.
const F = { state: 0, cancel: 1, kind: 2, n: 3, src: 4, result: 5, resultLen: 6, code: 7, cause: 8, scratch: 9 };

/** Tasks in flight for one module. */
export class Tasks {
  constructor(heap, scratchSize) {
    this.heap = heap;
    this.m = heap.m;
    this.scratchSize = scratchSize;
    this.pending = new Set();
    this.closed = false;
  }

  /** Encodes view (a numeric typed array of element kind) off the calling thread. */
  async run(kind, view, signal) {
    const { heap, m } = this;
    if (signal?.aborted) throw cancelled();
    const bytes = view.byteLength;
    heap.need(bytes, 'staging the array');
    const src = m._sp_wasm_alloc(bytes) >>> 0;
    const task = src ? m._sp_wasm_task_new() >>> 0 : 0;
    if (!task) {
      if (src) m._sp_wasm_free(src, bytes);
      throw new ScratchpackError(codes.NOMEM, `no WASM memory to stage ${bytes} bytes`);
    }
    heap.check(Math.max(src + bytes, task + 64));
    heap.u8.set(new Uint8Array(view.buffer, view.byteOffset, bytes), src);
    const w = task >>> 2, u32 = heap.u32;
    u32[w + F.kind] = kind; u32[w + F.n] = view.length; u32[w + F.src] = src;
    u32[w + F.scratch] = this.scratchSize;
    const onAbort = () => Atomics.store(heap.i32, w + F.cancel, 1);
    signal?.addEventListener('abort', onAbort, { once: true });
    const entry = { task };
    this.pending.add(entry);
    const keepAlive = setInterval(() => {}, 1 << 30);   // the pool's workers are unref'd
    try {
      if (!m._sp_wasm_task_submit(task)) m._sp_wasm_task_run(task);
      heap.check(task + 64);                       // running it here may have grown memory
      await waitDone(heap.i32, w + F.state);
      if (this.closed) throw new ScratchpackError(codes.CANCELLED, 'the scratchpack was closed');
      return this.take(task, signal);
    } finally {
      clearInterval(keepAlive);
      signal?.removeEventListener('abort', onAbort);
      this.pending.delete(entry);
      if (!this.closed) {
        m._sp_wasm_free(src, bytes);
        m._sp_wasm_task_free(task);
      }
    }
  }

  take(task, signal) {
    const { heap, m } = this;
    heap.check(task + 64);
    const w = task >>> 2, u32 = heap.u32;
    const code = u32[w + F.code], ptr = u32[w + F.result], n = u32[w + F.resultLen];
    heap.check(ptr + n);
    const out = code === 0 ? heap.u8.slice(ptr, ptr + n) : null;
    if (ptr) m._sp_wasm_free(ptr, n);
    if (signal?.aborted) throw cancelled();
    if (code !== 0)
      throw new ScratchpackError(codeFromC(code), heap.cString(u32[w + F.cause]) || 'the C writer failed');
    return out;
  }

  /**
   * Cancels every task in flight and waits until none runs, so that the
   * worker threads can be ended safely: ending a thread inside a task could
   * leave the allocator's lock held for ever. (A running bulk array checks
   * its cancel flag only before it starts, so this waits for it to end.)
   * Returns true when no task runs any more; false when this thread may not
   * block (a browser's main thread) -- then call settled() until it is true.
   * The tasks' promises reject with CANCELLED.
   */
  close() {
    this.closed = true;
    for (const { task } of this.pending) Atomics.store(this.heap.i32, (task >>> 2) + F.cancel, 1);
    try {
      for (const { task } of this.pending) {
        const i = (task >>> 2) + F.state;
        for (let st; (st = Atomics.load(this.heap.i32, i)) !== DONE;) Atomics.wait(this.heap.i32, i, st, 1000);
      }
    } catch {
      return this.settled();
    }
    return true;
  }

  /** Whether no task is running or queued. */
  settled() {
    for (const { task } of this.pending)
      if (Atomics.load(this.heap.i32, (task >>> 2) + F.state) !== DONE) return false;
    return true;
  }
}

const cancelled = () => new ScratchpackError(codes.CANCELLED, 'the encode was cancelled');

async function waitDone(i32, i) {
  for (;;) {
    const state = Atomics.load(i32, i);
    if (state === DONE) return;
    if (typeof Atomics.waitAsync === 'function') {
      const r = Atomics.waitAsync(i32, i, state);
      if (r.async) await r.value;
    } else {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
}
