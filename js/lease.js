// lease.js -- a finished message that the caller holds until release().
// Owns: the lease's life (live -> released, once, by release(), by
// Symbol.dispose or, for a lease nobody can reach any more, by the garbage
// collector) and its view (of a block of linear memory of exactly the
// message's size, or of JS memory of its own; re-made if memory grew under
// a view of a non-shared memory). Must not touch: what is under the view;
// the entry that made it takes it back in _endLease.

import { ScratchpackError, codes } from './errors.js';

const released = () => new ScratchpackError(codes.RELEASED,
  'this lease was released: its memory may hold another message now (copy lease.bytes before release() to keep it)');

const dispose = typeof Symbol.dispose === 'symbol' ? Symbol.dispose : Symbol.for('Symbol.dispose');

const EMPTY = new Uint8Array(0);

/**
 * { bytes, release() }: bytes is the message. In the pthread build it is a
 * Uint8Array over the module's shared linear memory (a block of exactly the
 * message's size: a worker it is posted to reads it without a copy); in the
 * single-threaded build, and for messages past the instance's bigMessage,
 * it is a Uint8Array of its own (posting it copies the message's bytes and
 * no more). Nothing writes over it until the lease ends: release() (which
 * works detached: `const { bytes, release } = sp.encodeView(v)`), a `using`
 * declaration (Symbol.dispose), or the garbage collector once neither the
 * lease nor a view it handed out can be reached. After that it must not be
 * read (a block of linear memory goes back to malloc; an array of its own
 * is let go), and lease.bytes throws RELEASED.
 *
 * Views and growth: shared memory keeps a view made before memory grew
 * valid (its buffer keeps its old length, which covers the message).
 */
export class Lease {
  /** owner._endLease(lease) gives the memory back (ptr: the block's address; -1: JS memory of its own). */
  constructor(owner, ptr, length, view) {
    this._owner = owner;
    this._ptr = ptr;
    this._length = length;
    this._view = view;
    this._views = null;       // views made after growth (single-threaded build), kept alive with the lease
    this._grip = null;        // set once the lease is watched by the garbage collector (owner._watch)
    this.release = () => this._end();
  }

  /**
   * The message (a view of linear memory; see above). RELEASED once the
   * lease has ended: its memory may hold another message by then.
   */
  get bytes() {
    if (this._owner === null) throw released();
    const v = this._view;
    if (v.length === this._length) return v;
    return this._remake();
  }

  _remake() {
    const v = this._owner._viewAt(this._ptr, this._length);
    (this._views ??= []).push(v);
    this._view = v;
    if (this._grip !== null) this._owner._watchView(v, this._grip);
    return v;
  }

  /** Whether the lease has not ended yet. */
  get live() {
    return this._owner !== null;
  }

  // Ends the lease once; later calls do nothing.
  _end() {
    const owner = this._owner;
    if (owner === null) return;
    this._owner = null;
    if (this._ptr >= 0) owner._endLease(this);
    else this._view = EMPTY;            // the garbage collector may have the message now
  }

  /** `using lease = sp.encodeView(v)` releases it at the end of the block. */
  [dispose]() {
    this._end();
  }
}
