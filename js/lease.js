// lease.js -- a view of linear memory that the caller holds until release().
// Owns: the lease's life (live -> released, once, by release(), by
// Symbol.dispose or, for a lease nobody can reach any more, by the garbage
// collector) and its view (re-made when memory grew under a single-threaded
// build). Must not touch: what is under the view; the entry that made it
// takes it back in _endLease.

import { ScratchpackError, codes } from './errors.js';

const released = () => new ScratchpackError(codes.RELEASED,
  'this lease was released: its memory may hold another message now (copy lease.bytes before release() to keep it)');

const dispose = typeof Symbol.dispose === 'symbol' ? Symbol.dispose : Symbol.for('Symbol.dispose');

/**
 * { bytes, release() }: bytes is a Uint8Array over the module's linear
 * memory. Nothing writes over it until the lease ends: release() (which
 * works detached: `const { bytes, release } = sp.encodeView(v)`), a `using`
 * declaration (Symbol.dispose), or the garbage collector once neither the
 * lease nor a view it handed out can be reached. After that it must not be
 * read (the memory goes back to the scratch or the pool).
 *
 * Views and growth: in the pthread build memory is shared, and a view made
 * before memory grew stays valid (its buffer keeps its old length, which
 * covers the message). In the single-threaded build growth detaches the old
 * buffer: a view made before reads as empty, and `bytes` makes a new one --
 * so read lease.bytes again after any other call on the instance.
 */
export class Lease {
  /** owner._endLease(lease) gives the memory back (holder: what holds it, the entry's sink). */
  constructor(owner, holder, ptr, length, view) {
    this._owner = owner;
    this._holder = holder;
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
    owner._endLease(this);
    this._holder = null;
  }

  /** `using lease = sp.encodeView(v)` releases it at the end of the block. */
  [dispose]() {
    this._end();
  }
}
