// sink.js -- the sink interface: what the writer asks of whatever supplies its spans.
// Owns: the interface every sink implements (below), and the two things
// every sink does the same way on top of it: copying bytes in, a piece at
// a time through more() (copyIn), and a message's bytes out as an array of
// their own (bytesOf). Must not touch: formats (writer.js), linear memory's
// rules (sinks.js, Heap) or any one sink's storage (sink-*.js).
//
// A sink is { u8, dv, pos, end, fixed, shared, more(n), view(), sync(), array(kind, view)? }:
// - u8 / dv view the span's memory; bytes go at u8[pos..end). dv may be
//   null until view() makes it. shared: whether u8 is shared memory (the
//   pthread build's linear memory), where long copies go by copyBytes.
// - more(n) leaves at least n bytes between pos and end (or throws), after
//   the writer stored its pos; it may move the span (u8, dv, pos, end).
// - fixed: true when more() cannot grow the span past a fixed end.
// - sync() re-makes u8 / dv when linear memory grew meanwhile (a nested
//   encode, a decode from a getter).
// - array(kind, view), when present, writes a numeric typed array as a
//   MessagePack array (through C, sink-numeric.js) and returns null, or
//   returns the bytes to copy; a sink without it (GrowSink) has the writer
//   write the elements itself.
// - big (optional): past this many bytes the sink moves the message to JS
//   memory; onePiece (optional): the writer asks for a str or bin body past
//   this many bytes in one piece, and reserves a string's worst case (3
//   bytes a unit) only up to it.
// - deferMin, defer(bytes, at), textDeferMin, deferText(s, at) (optional,
//   encodeInto's sink): bodies and strings that long are not written into
//   the span but into the target by the sink when the message ends.

const nodeBuffer = typeof globalThis.Buffer === 'function' ? globalThis.Buffer : null;

/**
 * An ArrayBuffer of n bytes, not zeroed where the host can skip it (Node:
 * Buffer.allocUnsafeSlow, which is not pooled: exactly n bytes), for memory
 * written in full before anything reads it. Zeroing is most of what a new
 * buffer of 100 KB or more costs.
 */
export function unzeroedBuffer(n) {
  return nodeBuffer !== null ? nodeBuffer.allocUnsafeSlow(n).buffer : new ArrayBuffer(n);
}

/** Bytes asked of a sink at once while copying a long run of bytes in. */
export const PIECE = 64 * 1024;

/** The most asked of a C entry in one piece that its pool's 128 KiB buckets still give. */
export const POOLED_PIECE_MAX = 120 * 1024;

/**
 * Copies n bytes from src[at..] into the sink's spans, asking more() for
 * room a piece at a time. src: a Uint8Array, or null for linear memory
 * (sink.heap.u8, read again after each reservation: memory may grow).
 */
export function copyIn(sink, src, at, n) {
  while (n > 0) {
    if (sink.pos >= sink.end) sink.more(Math.min(n, PIECE));
    const k = Math.min(n, sink.end - sink.pos);
    const from = src === null ? sink.heap.u8 : src;
    if (from === sink.u8) copyWithin(sink.u8, sink.pos, at, at + k);
    else copyBytes(sink.u8, sink.pos, from.subarray(at, at + k));
    sink.pos += k;
    at += k;
    n -= k;
  }
}

// V8 copies into or out of shared memory (the pthread build's linear
// memory) a word at a time only where source and destination sit at the
// same offset modulo 8, and else a byte at a time: 8-10x slower (a 100 KB
// bin into a lease: 35 us against 4). A long copy whose ends disagree goes
// through a bounce buffer in two copies that each agree: ordinary memory
// copies at any alignment.
const BOUNCE_FROM = 256;
/** Whether a Uint8Array views shared memory. */
const SAB = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : null;
export const isShared = SAB !== null ? (u8) => u8.buffer instanceof SAB : () => false;
let bounce = null;

const disagree = (dst, at, src, from) => ((dst.byteOffset + at - src.byteOffset - from) & 7) !== 0;

/** dst.set(src, at), at word speed when either side is shared memory. */
export function copyBytes(dst, at, src) {
  const n = src.length;
  if (n < BOUNCE_FROM || !disagree(dst, at, src, 0) || !(isShared(dst) || isShared(src))) {
    dst.set(src, at);
    return;
  }
  bounced(dst, at, src, 0, n);
}

/** u8.copyWithin(to, from, end), at word speed in shared memory too. */
export function copyWithin(u8, to, from, end) {
  const n = end - from;
  if (n < BOUNCE_FROM || !disagree(u8, to, u8, from) || !isShared(u8) || (to < end && from < to + n)) {
    u8.copyWithin(to, from, end);               // (overlapping moves stay V8's)
    return;
  }
  bounced(u8, to, u8, from, n);
}

// src[from..from+n) to dst[at..]: into the bounce buffer at src's offset
// modulo 8, moved (plain memory) to dst's, and out.
// A plain side needs no agreement: one move less.
function bounced(dst, at, src, from, n) {
  const b = (bounce ??= new Uint8Array(PIECE + 16));
  const srcShared = isShared(src), dstShared = isShared(dst);
  for (let i = 0; i < n; i += PIECE) {
    const k = Math.min(PIECE, n - i), d = 8 + ((dst.byteOffset + at + i) & 7);
    const s = srcShared ? (src.byteOffset + from + i) & 7 : d;
    b.set(src.subarray(from + i, from + i + k), s);
    if (!dstShared) { dst.set(b.subarray(s, s + k), at + i); continue; }
    if (s !== d) b.copyWithin(d, s, s + k);
    dst.set(b.subarray(d, d + k), at + i);
  }
}

// Up to this many bytes a loop copies faster than slice().
const SLICE_FROM = 48;

/** A new Uint8Array holding u8[from..to). */
export function bytesOf(u8, from, to) {
  const n = to - from;
  if (n >= BOUNCE_FROM && ((u8.byteOffset + from) & 7) !== 0 && isShared(u8)) {
    const out = new Uint8Array(n);
    bounced(out, 0, u8, from, n);
    return out;
  }
  if (n > SLICE_FROM) return u8.slice(from, to);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = u8[from + i];
  return out;
}
