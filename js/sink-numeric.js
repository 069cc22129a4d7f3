// sink-numeric.js -- numeric typed arrays written by C into any sink.
// Owns: how a typed array reaches C's bulk writer (staged in the heap's
// staging block, a chunk at a time past ARRAY_CHUNK bytes) and is copied
// into a sink's spans (its putHeap), and the bounds of what an array of a
// kind encodes to. Must not touch: the header's format (writer.js writes
// it), the staging block's allocation (sinks.js, Heap) or a sink's storage.

import { EncodeFailure, codes } from './errors.js';
import { copyBytes } from './sink.js';
import { containerHeaderSize, putContainerHeader } from './writer.js';

// Bigger typed arrays are staged and encoded this many bytes of elements at
// a time, so the staging block stays small whatever the array's size (a
// chunk and its encoding take ~0.6 MiB: small enough to fit between the
// blocks of a fragmented heap).
export const ARRAY_CHUNK = 256 * 1024;

// Bytes per element, most and fewest, by sp_num_kind (js/typed.js KIND):
// integers take their smallest form, floats are never narrowed.
const WORST = [2, 2, 3, 3, 5, 5, 5, 9, 9, 9];
const FEWEST = [1, 1, 1, 1, 1, 1, 5, 9, 1, 1];

/** The fewest bytes a typed array of n elements of kind encodes to. */
export const arrayMinBytes = (kind, n) => containerHeaderSize(n) + FEWEST[kind] * n;

/** The most bytes a typed array of n elements of kind encodes to. */
export const arrayMaxBytes = (kind, n) => WORST[kind] * n + 5;

/**
 * Encodes a typed array (at most ARRAY_CHUNK bytes) of element kind as one
 * MessagePack array in the staging block, through C; returns [address,
 * length]. Allocates nothing in C beyond the staging block.
 */
function encodeChunk(heap, kind, view) {
  const n = view.length, bytes = view.byteLength, room = arrayMaxBytes(kind, n);
  const at = (bytes + 7) & ~7;
  const src = heap.reserve(at + room);
  copyBytes(heap.u8, src, new Uint8Array(view.buffer, view.byteOffset, bytes));
  const len = heap.c.encodeArray(kind, src, n, src + at, room) >>> 0;
  if (len === 0) throw new EncodeFailure(codes.INTERNAL, 'C refused a numeric array');
  return [src + at, len];
}

/**
 * Writes a typed array as a MessagePack array into a sink through C: in one
 * piece when small, else the header from here and the elements a chunk at a
 * time (each chunk encoded as an array of its own, whose header is left
 * out). sink.putHeap(address, n) copies staged bytes into its spans.
 */
export function writeNumeric(sink, heap, kind, view) {
  if (view.byteLength <= ARRAY_CHUNK) {
    const [p, len] = encodeChunk(heap, kind, view);
    sink.putHeap(p, len);
    return;
  }
  const n = view.length;
  if (sink.end - sink.pos < 5) sink.more(5);
  sink.pos += putContainerHeader(sink.u8, sink.pos, n, 0x90, 0xdc);
  const per = Math.floor(ARRAY_CHUNK / view.BYTES_PER_ELEMENT);
  for (let i = 0; i < n; i += per) {
    const k = Math.min(per, n - i);
    const [p, len] = encodeChunk(heap, kind, view.subarray(i, i + k));
    const h = containerHeaderSize(k);
    sink.putHeap(p + h, len - h);
  }
}
