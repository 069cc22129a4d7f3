// stream.js -- hands encoded chunks to a Node Writable or a WHATWG WritableStream.
// Owns: telling the two kinds apart, back-pressure (Node: write() returned
// false -> 'drain'; WHATWG: writer.ready) and the stream's errors and early
// close. Must not touch: encoding; it gets finished chunks the stream may keep.

import { ScratchpackError, codes } from './errors.js';

/**
 * The writable as { write(chunk), done(), release() }: write() returns a
 * promise when the caller must wait before the next chunk (back-pressure)
 * and undefined when it may go on; done() resolves once the stream has
 * written every chunk (Node: each write's callback came without an error;
 * WHATWG: the last write's promise resolved), and rejects with the
 * stream's failure if one did not; release() lets go of the stream
 * (listeners, the writer's lock) whatever happened. Throws
 * INVALID_ARGUMENT for anything else.
 */
export function openWritable(writable) {
  if (writable && typeof writable.getWriter === 'function') return new WhatwgOut(writable.getWriter());
  if (writable && typeof writable.write === 'function' && typeof writable.once === 'function')
    return new NodeOut(writable);
  throw new ScratchpackError(codes.INVALID_ARGUMENT,
    'encodeToStream needs a Node Writable or a WHATWG WritableStream');
}

const closedEarly = () =>
  new ScratchpackError(codes.CANCELLED, 'the stream closed before the message was written');

class NodeOut {
  constructor(stream) {
    this.stream = stream;
    this.error = null;
    this.wake = null;                   // the pending wait's (error) => void
    // A Node Writable (one that says how much it buffers) calls back once
    // per write: done() waits for those. A duck-typed writable that may
    // never call back is taken as it was: accepted is written.
    this.tracked = typeof stream.writableLength === 'number';
    this.unwritten = 0;                 // chunks whose write callback has not come
    this.onError = (e) => this.fail(e);
    this.onClose = () => this.fail(closedEarly());
    this.onDrain = () => this.resume(null);
    stream.on('error', this.onError);
    stream.on('close', this.onClose);
    stream.on('drain', this.onDrain);
  }

  // Keeps the first failure (one that only says the stream closed is CANCELLED).
  record(e) {
    if (this.error === null) this.error = closedBy(e) ? closedEarly() : e;
  }

  fail(e) {
    this.record(e);
    this.resume(this.error);
  }

  // A promise that the next resume() settles.
  woken() {
    return new Promise((resolve, reject) => {
      this.wake = (e) => (e ? reject(e) : resolve());
    });
  }

  resume(e) {
    const wake = this.wake;
    this.wake = null;
    if (wake !== null) wake(e);
  }

  check() {
    const s = this.stream;
    if (s.errored) this.record(s.errored);
    if (s.destroyed || s.writableEnded) this.record(closedEarly());
    if (this.error !== null) throw this.error;
  }

  // The callback of one write: counted once, however often it is called.
  written() {
    let called = false;
    return (e) => {
      if (called) return;
      called = true;
      this.unwritten--;
      if (e) this.fail(this.stream.errored ?? e);     // (a destroyed stream's callbacks say only that)
      else if (this.unwritten === 0) this.resume(null);
    };
  }

  write(chunk) {
    this.check();
    let ok;
    if (this.tracked) {
      this.unwritten++;
      ok = this.stream.write(chunk, this.written());
    } else {
      ok = this.stream.write(chunk);
    }
    if (ok) return undefined;
    this.check();                       // a write that failed at once says so here
    return this.woken();
  }

  // Resolves when every chunk's write callback came; a failure of the
  // stream meanwhile (its 'error', a callback's error, close) rejects. A
  // stream corked by its owner calls back only once uncorked, after this
  // call: its chunks were accepted, and that is all it can say now. (An
  // http response corks its socket at each write until the next tick: a
  // cork still there a turn later is the owner's.)
  async done() {
    this.check();
    while (this.unwritten > 0) {
      if (this.stream.writableCorked > 0) {
        await nextTurn();
        this.check();
        if (this.stream.writableCorked > 0) return;
        continue;
      }
      await this.woken();
      this.check();
    }
  }

  /** Stops a wait for 'drain' or for the last writes (the instance was closed): it rejects with e. */
  cancel(e) {
    this.fail(e);
  }

  // A failed stream emits 'error' on a later tick: the caller has that
  // failure already (the call rejected with it), so it must not reach the
  // process as an unhandled 'error' event, as pipeline() also sees to.
  release() {
    const s = this.stream;
    s.off('error', this.onError);
    s.off('close', this.onClose);
    s.off('drain', this.onDrain);
    if (this.error !== null || s.errored) s.on('error', ignore);
  }
}

const ignore = () => {};
const nextTurn = () => new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));

// A write callback's error that only says the stream was closed under it:
// destroyed without an error (ERR_STREAM_DESTROYED), or a socket whose
// pending writes libuv cancelled as it closed (ECANCELED, Node 24 on a
// client's abort). CANCELLED, as 'close' gives when it comes first.
const closedBy = (e) => e?.code === 'ERR_STREAM_DESTROYED' || e?.code === 'ECANCELED';

class WhatwgOut {
  constructor(writer) {
    this.writer = writer;
    this.last = null;                   // the last write's promise
    this.stop = null;                   // rejects when cancel() is called
    this.stopWith = null;
    this.closed = false;                // the stream closed (before or while we wrote)
    writer.closed?.then?.(() => { this.closed = true; }, () => {});
  }

  write(chunk) {
    const w = this.writer;
    let p;
    try {
      p = w.write(chunk);
    } catch (e) {                       // Node 20 throws an internal assertion on a closed stream
      return this.stoppable(Promise.reject(e));
    }
    if (w.ready === undefined)                         // a minimal writer: one chunk at a time
      return typeof p?.then === 'function' ? this.stoppable(p) : undefined;
    p.catch(() => {});                  // its failure shows in ready or in done()
    this.last = p;
    return w.desiredSize > 0 ? undefined : this.stoppable(w.ready);
  }

  // A wait that cancel() ends too. A write refused because the stream had
  // closed is CANCELLED, as a closed Node writable is (the engine's own
  // error for it differs between versions).
  stoppable(wait) {
    return Promise.race([wait, this.stopper()]).catch((e) => {
      throw this.closed && !(e instanceof ScratchpackError) ? closedEarly() : e;
    });
  }

  // The promise cancel() rejects, made when first needed.
  stopper() {
    if (this.stop === null) {
      this.stop = new Promise((_, reject) => { this.stopWith = reject; });
      this.stop.catch(() => {});
    }
    return this.stop;
  }

  async done() {
    if (this.last !== null) await this.stoppable(this.last);
  }

  /** Stops a wait on the writer (the instance was closed): it rejects with e. */
  cancel(e) {
    this.stopper();
    this.stopWith(e);
  }

  release() {
    this.writer.releaseLock();
  }
}
