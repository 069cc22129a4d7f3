// lease.js -- a view of linear memory that the caller holds until release().
// Owns: the lease's life (live -> released, once). Must not touch: what is
// under the view; the entry that made it gives it a release callback.

/**
 * { bytes, release() }: bytes is a Uint8Array over the module's shared
 * memory. Nothing writes over it until release(); after release() it must
 * not be read (the memory goes back to the scratch or the pool).
 */
export class Lease {
  constructor(bytes, onRelease) {
    this.bytes = bytes;
    this._onRelease = onRelease;
  }

  /** Whether release() has not been called yet. */
  get live() {
    return this._onRelease !== null;
  }

  /** Gives the memory back. Calling it again does nothing. */
  release() {
    const f = this._onRelease;
    if (f === null) return;
    this._onRelease = null;
    f(this);
  }
}
