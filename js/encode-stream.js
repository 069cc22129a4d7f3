// encode-stream.js -- encodeToStream: the message goes to the writable while it is encoded.
// Owns: the walk that streams (which containers it enters, element by
// element), when what was written is handed to the writable and the walk
// waits for it, and the paths and offsets of its errors. Must not touch:
// formats (writer.js writes every value and header), where segments come
// from (HeapSink: a to_stream entry over pooled segments) or the writable's
// protocol (stream.js).
//
// The JS walk is synchronous, so back-pressure can only be honoured between
// pieces of it. The pieces are the elements of containers: a big array, map
// or object (at any depth) is written as its header, then element by
// element; a big str or bin as its header, then in slices; anything else in
// one piece (a numeric typed array too: C writes it whole; and a value of
// an extension's class: its encode gives its bytes at once). Through a
// list contract (Rec.array()), the root array goes element by element,
// each element whole through the contract. After a piece, once the writer
// has moved past a segment, everything written goes to the writable as one
// chunk (a copy), the segments go back to the pool, and the walk waits
// while the writable asks it to. So WASM holds at most the largest piece
// plus a segment, and JS the chunks the writable has not taken yet.

import { ScratchpackError, abbreviatePath, codes, finishEncodeError, formatPath, EncodeFailure, indexStep, isStackOverflow,
  keyStep, mapKeyStep, mapStep } from './errors.js';
import { ARRAY, BUFFER, DATE, EXT, MAP, OBJECT, VIEW, binBytes, classifyObject } from './classify.js';
import { halvesAsFloat32, isDetached, numericKind } from './typed.js';
import { utf8Length } from './text.js';
import { StreamPart, encodeWith } from './writer.js';

/** A container with at most this many parts (elements, keys, values, nested) ... */
export const PIECE_PARTS = 64;
/** ... and at most this many bytes of strings and binaries is written in one piece. */
export const PIECE_BYTES = 16 * 1024;

/** A str or bin of more than this many bytes is written in slices of at most SLICE bytes. */
export const BIG_LEAF = 1 << 20;
const SLICE = 128 * 1024;

// The kinds of frame: containers entered element by element, a str or bin in slices.
const ARRAY_FRAME = 0, OBJECT_FRAME = 1, MAP_FRAME = 2, BYTES = 3, TEXT = 4;

/**
 * Writes value to out (stream.js) through sink, a HeapSink the caller owns
 * and releases. Resolves to the bytes handed to out. isClosed() is asked
 * after every wait: a closed instance stops the walk with CANCELLED.
 */
export async function streamEncode(sink, value, out, maxDepth, isClosed, exts = null, list = null) {
  const walk = new StreamWalk(sink, out, maxDepth, isClosed, exts);
  try {
    await walk.run(value, list);
    try {
      await out.done();
    } catch (e) {
      throw sinkFailure(e, walk.sent, '');
    }
    return walk.sent;
  } finally {
    out.release();
  }
}

/**
 * encodeToStream while compressing (compression: sp_compression 1 or 2),
 * or of a contract's value (via: its encoder; compression may be 0): the
 * value is written whole, then handed over.
 * Neither layout can be streamed as it is encoded: both begin with what
 * only the whole plain message tells (Lz4Block its one block's length,
 * Lz4BlockArray the count and plain length of every block). So the value
 * is written whole into the plain writer's pooled segments in WASM, C
 * compresses it at finish (the plain segments go back at once), the
 * compressed segments are copied out to JS and freed, and only then handed
 * to the writable one segment at a time, waiting while it asks to. Memory
 * at the peak: the plain message and the compressed one in WASM, then the
 * compressed one in JS until the writable has taken it.
 */
export async function streamCompressed(sink, value, out, maxDepth, compression, isClosed, exts = null, via = null) {
  try {
    sink.beginStream(compression);
    encodeWith(sink, value, maxDepth, exts, via);
    const chunks = sink.segments();
    sink.release();
    let sent = 0;
    try {
      for (let i = 0; i < chunks.length; i++) {
        sent += chunks[i].length;
        const wait = out.write(chunks[i]);
        chunks[i] = null;               // the writable holds it now
        if (wait !== undefined) await wait;
        if (isClosed())
          throw new ScratchpackError(codes.CANCELLED, 'the scratchpack was closed while the message was written');
      }
      await out.done();
    } catch (e) {
      throw sinkFailure(e, sent, '');   // the whole value: it was written before any chunk went
    }
    return sent;
  } finally {
    out.release();
  }
}

class StreamWalk {
  constructor(sink, out, maxDepth, isClosed, exts) {
    this.sink = sink;
    this.exts = exts;                   // the extensions (ext.js): their values are written whole
    this.out = out;
    this.maxDepth = maxDepth;
    this.isClosed = isClosed;
    this.frames = [];                   // containers being written element by element, outermost first
    this.onPath = new Set();            // their objects: a cycle check per container in O(1), not O(depth)
    this.sent = 0;                      // bytes handed to the writable so far
    this.root = '';                     // '$' when a list contract's elements go one by one, as a contract's paths begin
    this.spanEnd = 0;                   // the end of the first span since the last hand-off
  }

  // list: the list contract (contract.js) the value is written through, or null.
  async run(value, list) {
    const s = this.sink;
    s.beginStream();
    let whole;
    try {
      whole = !(list === null ? this.enter(value, null) : this.enterList(value, list));
    } catch (e) {
      throw this.foreign(e, null);
    }
    if (whole) this.write(value, null, 0, list === null ? null : list._encTop);
    while (this.frames.length > 0) {
      this.step();
      if (s.end !== this.spanEnd) {     // a new span: the writer has moved past a segment
        if (this.spanEnd === 0) this.spanEnd = s.end;
        else await this.handOff(false);
      }
    }
    await this.handOff(true);
  }

  // The next piece of the innermost container, or its end.
  step() {
    const f = this.frames[this.frames.length - 1];
    if (f.i === f.n) {
      this.pop();
      return;
    }
    if (f.kind >= BYTES) {
      this.slice(f);
      return;
    }
    const i = f.i++;
    let v, at = null;
    try {
      if (f.kind === ARRAY_FRAME) {
        at = indexStep(i);
        v = f.v[i];
        if (f.via !== null) {               // a list contract's element: whole, through its contract
          this.write(v, at, f.depth, f.via);
          return;
        }
      } else if (f.kind === OBJECT_FRAME) {
        const k = f.keys[i];
        at = keyStep(k);
        this.write(k, at, f.depth);
        v = f.v[k];
      } else {
        const r = f.entries.next();
        if (r.done) throw this.failure(codes.INVALID_ARGUMENT, `the Map lost entries while it was written (${f.n} at the start)`, null);
        const [k, x] = r.value;
        this.write(k, mapKeyStep(k), f.depth);
        v = x;
        at = mapStep(k);
      }
      if (!this.enter(v, at)) this.write(v, at, f.depth);
    } catch (e) {
      throw this.foreign(e, at);
    }
  }

  // An error the value's own code threw while the walk read it (a getter, a
  // Proxy trap) as the package's error at 'at'; the package's pass.
  foreign(e, at) {
    if (e instanceof ScratchpackError || isStackOverflow(e)) return e;
    return this.rebase(finishEncodeError(e), at);
  }

  // Writes the header of a big container, str or bin and makes it the
  // innermost frame (its elements or slices follow); false when v is to be
  // written in one piece.
  enter(v, at) {
    if (typeof v === 'string') return v.length > BIG_LEAF / 3 && this.enterText(v, at);
    if (typeof v !== 'object' || v === null) return false;
    const c = classifyObject(v, this.exts);
    if (c === VIEW || c === BUFFER) return this.enterBytes(v, at);
    const kind = c === OBJECT ? OBJECT_FRAME : c === ARRAY ? ARRAY_FRAME : c === MAP ? MAP_FRAME : -1;
    if (kind < 0 || isSmall(v)) return false;   // (an extension's value too: its encode gives its bytes at once)
    this.checkDepth(at);
    if (this.onPath.has(v)) {
      const seen = this.frames.findIndex((f) => f.v === v);
      const where = formatPath(this.frames.slice(1, seen + 1).map((f) => f.at)) || 'the root';
      throw this.failure(codes.CYCLE, `cyclic structure: this value is its own ancestor (the one at ${where})`, at);
    }
    const keys = kind === OBJECT_FRAME ? Object.keys(v) : null;
    const n = kind === ARRAY_FRAME ? v.length : kind === MAP_FRAME ? v.size : keys.length;
    return this.push({ kind, v, keys, entries: kind === MAP_FRAME ? v.entries() : null, i: 0, n, at, via: null },
      new StreamPart(kind === ARRAY_FRAME ? 'array' : 'map', n));
  }

  // The root, a big array written through a list contract: its header, then
  // each element through the list's contract. Anything else is written
  // whole, where the contract's checks fail as encode()'s do.
  enterList(v, list) {
    if (!Array.isArray(v) || isSmall(v)) return false;
    this.root = '$';                    // (a list written whole: its contract's errors begin with '$' themselves)
    return this.push({ kind: ARRAY_FRAME, v, keys: null, entries: null, i: 0, n: v.length, at: null, via: list._encElement },
      new StreamPart('array', v.length));
  }

  // A bin (a VIEW that is not a numeric typed array, or a BUFFER) of more than BIG_LEAF bytes.
  enterBytes(v, at) {
    if (isDetached(v) || (ArrayBuffer.isView(v) && (numericKind(v) >= 0 || halvesAsFloat32(v) !== null))) return false;   // (write() says what is wrong)
    const bytes = binBytes(v);
    if (bytes.length <= BIG_LEAF || bytes.length > 0xffffffff) return false;   // (too long: write() says so)
    this.checkDepth(at);
    return this.push({ kind: BYTES, v: bytes, i: 0, n: bytes.length, at }, new StreamPart('bin', bytes.length));
  }

  // A string whose UTF-8 may take more than BIG_LEAF bytes.
  enterText(s, at) {
    const len = utf8Length(s);
    if (len <= BIG_LEAF || len > 0xffffffff) return false;
    return this.push({ kind: TEXT, v: s, i: 0, n: s.length, at }, new StreamPart('str', len));
  }

  // The innermost frame is done.
  pop() {
    const f = this.frames.pop();
    if (f.kind < BYTES) this.onPath.delete(f.v);
  }

  // Objects nest no deeper than encode() lets them.
  checkDepth(at) {
    if (this.frames.length + 1 > this.maxDepth)
      throw this.failure(codes.DEPTH_LIMIT, `nesting deeper than ${this.maxDepth} levels`, at);
  }

  // Makes f the innermost frame and writes its header.
  push(f, header) {
    f.depth = this.frames.length + 1;
    this.frames.push(f);
    if (f.kind < BYTES) this.onPath.add(f.v);
    try {
      this.part(header, null);
    } catch (e) {
      this.pop();
      throw e;
    }
    return true;
  }

  // A header or a slice (a StreamPart); at: as for write().
  part(p, at) {
    try {
      encodeWith(this.sink, p, 1);
    } catch (e) {
      throw this.rebase(e, at);
    }
  }

  // The next slice of a big str or bin (never splitting a surrogate pair).
  slice(f) {
    let k = Math.min(f.kind === BYTES ? SLICE : SLICE / 3, f.n - f.i);   // UTF-8: 3 bytes a unit at most
    let part;
    if (f.kind === BYTES) {
      part = new StreamPart('raw', k, f.v.subarray(f.i, f.i + k));
    } else {
      if (k < f.n - f.i && (f.v.charCodeAt(f.i + k - 1) & 0xfc00) === 0xd800) k--;
      const text = f.v.substring(f.i, f.i + k);
      part = new StreamPart('utf8', utf8Length(text), text);
    }
    f.i += k;
    this.part(part, null);
  }

  // One piece, written whole, as an element of the container at 'depth'
  // (via: a contract's encoder for it, or null).
  write(v, at, depth, via = null) {
    try {
      encodeWith(this.sink, v, this.maxDepth - depth, this.exts, via);
    } catch (e) {
      throw this.rebase(e, at);
    }
  }

  // Everything written since the last hand-off goes to the writable; the
  // segments go back to the pool before the walk waits (nothing is held in
  // WASM meanwhile), and a new entry begins after it.
  async handOff(last) {
    const s = this.sink;
    const chunk = s.copyOut();
    s.release();
    this.spanEnd = 0;
    if (chunk.length > 0) {
      this.sent += chunk.length;
      try {
        const wait = this.out.write(chunk);
        if (wait !== undefined) await wait;
      } catch (e) {
        throw sinkFailure(e, this.sent, last ? '' : this.root + formatPath(this.steps(this.lastStep())));
      }
    }
    if (this.isClosed())
      throw new ScratchpackError(codes.CANCELLED, 'the scratchpack was closed while the message was written');
    if (!last) s.beginStream();
  }

  // The step to the element the walk wrote last in the innermost frame (null
  // for a str or bin, or before its first element).
  lastStep() {
    const f = this.frames[this.frames.length - 1];
    if (f === undefined || f.i === 0 || f.kind >= BYTES) return null;
    if (f.kind === ARRAY_FRAME) return indexStep(f.i - 1);
    return f.kind === OBJECT_FRAME ? keyStep(f.keys[f.i - 1]) : null;   // (a Map's last key is not kept)
  }

  // The steps from the root to the element at 'at' (null: the frame itself).
  steps(at) {
    const steps = [];
    for (let i = 1; i < this.frames.length; i++) steps.push(this.frames[i].at);
    if (at !== null) steps.push(at);
    return steps;
  }

  failure(code, what, at) {
    const f = new EncodeFailure(code, what);
    f.steps = this.steps(at).reverse();         // innermost first, as they unwind
    f.root = this.root;
    return finishEncodeError(f);
  }

  // An error of a piece, its path relative to the piece and its offset to
  // the current entry, rebased to the message.
  rebase(e, at) {
    if (!(e instanceof ScratchpackError) || e.path === null) return e;
    const path = abbreviatePath(this.root + formatPath(this.steps(at)) + e.path);
    const offset = e.offset >= 0 ? e.offset + this.sent : undefined;
    const cut = e.message.lastIndexOf(` at ${e.path === '' ? 'the value itself' : e.path}`);
    const what = cut >= 0 ? e.message.slice(0, cut) : e.message;
    const where = offset >= 0 ? ` (output byte ${offset})` : '';
    return new ScratchpackError(e.code, `${what} at ${path === '' ? 'the value itself' : path}${where}`,
      { path, offset, cause: e.cause });
  }
}

// The writable failed (its write threw or rejected, it emitted 'error', or it
// closed early) after `sent` bytes were handed to it, while the walk was at
// `path`: SINK, its error as the cause; a ScratchpackError (CANCELLED: it
// closed early, or the instance was closed) stays as it is.
function sinkFailure(e, sent, path) {
  if (e instanceof ScratchpackError) return e;
  const said = e instanceof Error ? e.message : String(e);
  const where = path === '' ? '' : ` while writing ${path}`;
  return new ScratchpackError(codes.SINK, `the writable failed after ${sent} bytes${where}: ${said}`,
    { offset: sent, path: abbreviatePath(path), cause: e });
}

// Whether a value is small enough to write in one piece: at most PIECE_PARTS
// parts and PIECE_BYTES bytes of text and binary. Looks no further than that.
const spare = [];                       // isSmall's work list, reused
let spareBusy = false;                  // (a getter it reads may nest an encodeToStream)

function isSmall(root) {
  const todo = spareBusy ? [] : spare;
  const own = todo === spare;
  spareBusy = true;
  try {
    todo.push(root);
    return fits(todo);
  } catch {
    return true;            // the value's own code threw: written in one piece, it throws there with its path
  } finally {
    if (todo.length > 0) todo.length = 0;   // left full only by an early answer
    if (own) spareBusy = false;
  }
}

// A plain object's keys are counted with for-in (no array made; only an
// estimate is wanted), and the commonest kinds are tested first.
function fits(todo) {
  let parts = 0, bytes = 0;
  while (todo.length > 0) {
    const v = todo.pop();
    if (++parts > PIECE_PARTS) return false;
    if (typeof v === 'string') {
      if ((bytes += v.length) > PIECE_BYTES) return false;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const c = classifyObject(v, null);
    if (c === OBJECT) {
      for (const k in v) {
        bytes += k.length;
        todo.push(v[k]);
        if ((parts += 1) + todo.length > PIECE_PARTS) return false;
      }
    } else if (c === ARRAY) {
      if (parts + todo.length + v.length > PIECE_PARTS) return false;
      for (let i = 0; i < v.length; i++) todo.push(v[i]);
    } else if ((bytes += sizeOfOther(v, c, todo)) > PIECE_BYTES || parts + todo.length > PIECE_PARTS) {
      return false;
    }
  }
  return true;
}

// The bytes of a leaf object of kind c; a Map's entries and an instance's values go on todo.
function sizeOfOther(v, c, todo) {
  if (c === VIEW || c === BUFFER) return v.byteLength;
  if (c === EXT) return v.data.length;
  if (c === DATE) return 0;
  if (c === MAP) {
    if (v.size > PIECE_PARTS) return Infinity;
    for (const [k, x] of v) todo.push(k, x);
    return 0;
  }
  const keys = Object.keys(v);
  if (keys.length > PIECE_PARTS) return Infinity;
  for (let i = 0; i < keys.length; i++) todo.push(v[keys[i]]);
  return 0;
}
