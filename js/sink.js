// sink.js -- the sink interface: what the writer asks of whatever supplies its spans.
// Owns: the interface every sink implements (below), and the two things
// every sink does the same way on top of it: copying bytes in, a piece at
// a time through more() (copyIn), and a message's bytes out as an array of
// their own (bytesOf). Must not touch: formats (writer.js), linear memory's
// rules (sinks.js, Heap) or any one sink's storage (sink-*.js).
//
// A sink is { u8, dv, pos, end, fixed, more(n), view(), sync(), array(kind, view)? }:
// - u8 / dv view the span's memory; bytes go at u8[pos..end). dv may be
//   null until view() makes it.
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
//   memory; whole (optional): the writer asks for a str or bin body past
//   this many bytes in one piece.

/** Bytes asked of a sink at once while copying a long run of bytes in. */
export const PIECE = 64 * 1024;

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
    if (from === sink.u8) sink.u8.copyWithin(sink.pos, at, at + k);
    else sink.u8.set(from.subarray(at, at + k), sink.pos);
    sink.pos += k;
    at += k;
    n -= k;
  }
}

// Up to this many bytes a loop copies faster than slice().
const SLICE_FROM = 48;

/** A new Uint8Array holding u8[from..to). */
export function bytesOf(u8, from, to) {
  const n = to - from;
  if (n > SLICE_FROM) return u8.slice(from, to);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = u8[from + i];
  return out;
}
