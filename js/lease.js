// lease.js -- a view of linear memory that the caller holds until release().
// Owns: the lease's life (live -> released, once). Must not touch: what is
// under the view; the entry that made it takes it back in _endLease.

/**
 * { bytes, release() }: bytes is a Uint8Array over the module's shared
 * memory. Nothing writes over it until release(); after release() it must
 * not be read (the memory goes back to the scratch or the pool).
 */
export class Lease {
  /** owner._endLease(holder) gives the memory back (no closure per lease). */
  constructor(bytes, owner, holder) {
    this.bytes = bytes;
    this._owner = owner;
    this._holder = holder;
  }

  /** Whether release() has not been called yet. */
  get live() {
    return this._owner !== null;
  }

  /** Gives the memory back. Calling it again does nothing. */
  release() {
    const owner = this._owner;
    if (owner === null) return;
    this._owner = null;
    owner._endLease(this._holder);
    this._holder = null;
  }
}
