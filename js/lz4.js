// lz4.js -- the LZ4 block decompressor, in JS, safe on any input.
// Owns: reading an LZ4 block's sequences (literals, then a match) into a
// caller's array. Must not touch: MessagePack (decompress.js reads the
// layouts around the blocks), allocation (the caller gives the output),
// compression (C does it: src/compress/sp_lz4_compress.c, through the WASM module).
//
// The block format only (no frame format), as src/compress/sp_lz4_decompress.c reads
// it: a token (literal count in its high nibble, match length - 4 in its low
// one, 15 meaning "more bytes follow, each adding up to 255"), the literals,
// then a 2-byte little-endian offset back into the output and the match.
// The last sequence is literals only and ends the block exactly.
//
// Safety: every length is checked against what is left of the input and of
// the output before a byte is copied, and every offset against what has
// been written, so nothing is read or written outside src[s, sEnd) and
// dst[d, dEnd) whatever the input (typed arrays would not throw out of
// bounds, they would silently read undefined or drop writes: the checks are
// what keep the result right). Lengths grow only while they fit the output,
// so a run of 255s cannot loop long or overflow.

/** Results below 0: why a block was refused (the caller maps them to codes). */
export const LZ4_TRUNCATED = -1;   // the input ends inside a sequence (or after a match)
export const LZ4_TOO_LONG = -2;    // the block decodes to more than the output's room
export const LZ4_BAD_OFFSET = -3;  // an offset of 0 or before the output's start

// Copies below this many bytes go byte by byte: set()/copyWithin() cost a
// call into the engine that a short loop does not.
const SHORT = 24;

// Where readMore stopped reading.
let moreEnd = 0;

// Adds the length bytes at src[s..] (each adds up to 255; 255 means another
// follows) to n. Returns the length, or LZ4_TRUNCATED / LZ4_TOO_LONG as
// soon as the input ends or the length passes room (so it cannot grow
// without bound); leaves the index after the bytes in moreEnd.
function readMore(src, s, sEnd, n, room) {
  let b;
  do {
    if (s >= sEnd) return LZ4_TRUNCATED;
    b = src[s++];
    n += b;
    if (n > room) return LZ4_TOO_LONG;
  } while (b === 255);
  moreEnd = s;
  return n;
}

/**
 * Decompresses the block src[s, sEnd) into dst from index d, writing at
 * most up to dEnd. Returns the index after the last byte written, or one
 * of LZ4_TRUNCATED, LZ4_TOO_LONG, LZ4_BAD_OFFSET (dst may then hold part
 * of the output). An empty block is LZ4_TRUNCATED (not even a token).
 */
export function lz4DecompressInto(src, s, sEnd, dst, d, dEnd) {
  const start = d;
  for (;;) {
    if (s >= sEnd) return LZ4_TRUNCATED;
    const token = src[s++];
    let n = token >>> 4;
    if (n === 15) {                                   // more literal length bytes
      if ((n = readMore(src, s, sEnd, n, dEnd - d)) < 0) return n;
      s = moreEnd;
    }
    if (n > dEnd - d) return LZ4_TOO_LONG;
    if (n > sEnd - s) return LZ4_TRUNCATED;
    if (n < SHORT) {
      for (let i = 0; i < n; i++) dst[d + i] = src[s + i];
    } else {
      dst.set(src.subarray(s, s + n), d);
    }
    s += n;
    d += n;
    if (s === sEnd) return d;                         // the last sequence: literals only
    if (sEnd - s < 2) return LZ4_TRUNCATED;
    const off = src[s] | (src[s + 1] << 8);
    s += 2;
    if (off === 0 || off > d - start) return LZ4_BAD_OFFSET;
    let m = (token & 15) + 4;
    if (m === 19) {                                   // more match length bytes
      if ((m = readMore(src, s, sEnd, m, dEnd - d)) < 0) return m;
      s = moreEnd;
    }
    if (m > dEnd - d) return LZ4_TOO_LONG;
    const from = d - off;
    if (m < SHORT) {
      for (let i = 0; i < m; i++) dst[d + i] = dst[from + i];   // overlap repeats the pattern
    } else if (off >= m) {
      dst.copyWithin(d, from, from + m);              // no overlap: one move
    } else if (off === 1) {
      dst.fill(dst[from], d, d + m);                  // a run of one byte
    } else {
      // The pattern of 'off' bytes repeats: copy it once, then double what
      // is written (each copy starts at d, a whole number of periods back).
      dst.copyWithin(d, from, d);
      for (let done = off; done < m;) {
        const k = Math.min(done, m - done);
        dst.copyWithin(d + done, d, d + k);
        done += k;
      }
    }
    d += m;
  }
}
