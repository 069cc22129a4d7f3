// decompress.js -- decoding messages that may be compressed as MessagePack-CSharp compresses them.
// Owns: detecting Lz4Block (ext 99) and Lz4BlockArray (an array led by ext
// 98) at the top of a message, reading their framing, the limits checked
// before the plain bytes are allocated, decompressing them (lz4.js), and
// the decode entries that wrap decoder.js with that detection (decodeTop
// for one message, decodeAt for concatenated ones). Must not touch: the
// decoder's own loop (the plain message goes through it unchanged, never
// detected again), the LZ4 format (lz4.js), the WASM module.
//
// As C's sp_decompress.c and MessagePack-CSharp's TryDecompress: only the
// value a decode starts at is looked at, once; an ext 99 or ext-98-led array
// deeper in a message, or inside a decompressed one, is an ordinary value.
// Detection costs one byte test (two for an array) on a plain message.
// Errors in the framing name the offset of the token at fault in the input;
// errors inside the plain message keep their code and name the offset of
// the compressed message (and, in the text, the offset in the plain bytes).

import { codes, decodeError, plural, ScratchpackError } from './errors.js';
import { INFLATE } from './decode-options.js';
import { asBytes, decodeEnd, decodeFrom, decodeValue } from './decoder.js';
import { LZ4_TOO_LONG, LZ4_TRUNCATED, lz4DecompressInto } from './lz4.js';

export const EXT_LZ4_BLOCK = 99;
export const EXT_LZ4_BLOCK_ARRAY = 98;
/** MessagePack-CSharp's UntrustedData MaximumDecompressedSize, and C's default. */
export const DECOMPRESS_MAX_DEFAULT = 64 * 1024 * 1024;
// An LZ4 byte decodes to at most 255 bytes: a block of n bytes holds at most 255 n.
const LZ4_MAX_RATIO = 255;
const INT32_MAX = 0x7fffffff;

const isExtCode = (b) => (b >= 0xd4 && b <= 0xd8) || (b >= 0xc7 && b <= 0xc9);

/** Where the value decodeAt read last ends (an index into its bytes). */
export let topEnd = 0;

/** Decodes exactly one message (compressed or not) from bytes. */
export function decodeTop(bytes, opt) {
  const src = asBytes(bytes);
  if (opt.decompress === false || !mayBeCompressed(src, 0)) return decodeValue(src, opt);
  const form = formOf(src, 0);
  if (form === 0) return decodeValue(src, opt);
  const plain = inflate(src, 0, form, opt);
  const v = decodePlain(plain, opt, 0);
  if (inflatedEnd !== src.length)
    throw decodeError(codes.TRAILING_BYTES, inflatedEnd, `${plural(src.length - inflatedEnd, 'byte')} left after the value`);
  return v;
}

/**
 * Decodes the message that starts at bytes[at] (a Uint8Array), compressed
 * or not; topEnd says where it ends. TRUNCATED means it goes on past the
 * end of bytes (or, for a compressed one, that a block is short).
 */
export function decodeAt(bytes, at, opt) {
  let form = 0;
  if (opt.decompress !== false && mayBeCompressed(bytes, at)) form = formOf(bytes, at);
  if (form === 0) {
    const v = decodeFrom(bytes, at, opt);
    topEnd = decodeEnd;
    return v;
  }
  const plain = inflate(bytes, at, form, opt);
  const end = inflatedEnd;
  const v = decodePlain(plain, opt, at);
  topEnd = end;
  return v;
}

// The plain message's value; its errors moved to the compressed message at 'at'.
function decodePlain(plain, opt, at) {
  try {
    return decodeValue(plain, opt);
  } catch (e) {
    if (!(e instanceof ScratchpackError) || !(e.offset >= 0)) throw e;
    const what = e.message.replace(/ \(at byte \d+\)$/, '');
    throw new ScratchpackError(e.code,
      `${what} at byte ${e.offset} of the decompressed message (at byte ${at})`, { offset: at, cause: e });
  }
}

// ---- detection -------------------------------------------------------------

// False when the value at src[at] surely is neither form: not an ext, nor a
// non-empty array whose first element is one. A header cut short says true
// (formOf then reads it, or leaves it to the decoder).
export function mayBeCompressed(src, at) {
  if (at >= src.length) return false;
  const b = src[at];
  if (isExtCode(b)) return true;
  const h = (b & 0xf0) === 0x90 ? 1 : b === 0xdc ? 3 : b === 0xdd ? 5 : 0;
  if (h === 0 || b === 0x90) return false;
  return at + h >= src.length || isExtCode(src[at + h]);
}

/**
 * Decode options for framing a message that may be compressed (a framer
 * skipping its tokens before it is whole): the limits on bins, exts and
 * arrays raised to what a compressed message within maxDecompressedLength
 * can need (its blocks, at most the LZ4 bound of that length; a block per
 * plain byte at most), since they apply to the plain message's values.
 */
export function framingOptions(opt) {
  const most = Math.min(0xffffffff, opt.maxDecompressedLength + Math.floor(opt.maxDecompressedLength / 255) + 32);
  return Object.freeze({ ...opt, maxBinLength: Math.max(opt.maxBinLength, most),
    maxExtLength: Math.max(opt.maxExtLength, most),
    maxArrayLength: Math.max(opt.maxArrayLength, Math.min(0xffffffff, opt.maxDecompressedLength + 1)) });
}

// The ext header at src[at]: sets extType, extLength, extBody (where its
// payload starts); false when it is cut short.
let extType = 0, extLength = 0, extBody = 0;

function extHeader(src, at) {
  const b = src[at], n = src.length;
  let h, len;
  if (b >= 0xd4 && b <= 0xd8) { h = 2; len = 1 << (b - 0xd4); }
  else if (b === 0xc7) { h = 3; if (at + 2 > n) return false; len = src[at + 1]; }
  else if (b === 0xc8) { h = 4; if (at + 3 > n) return false; len = (src[at + 1] << 8) | src[at + 2]; }
  else { h = 6; if (at + 5 > n) return false; len = u32(src, at + 1); }
  if (at + h > n) return false;
  extType = (src[at + h - 1] << 24) >> 24;
  extLength = len;
  extBody = at + h;
  return true;
}

const u32 = (src, p) => ((src[p] << 24) | (src[p + 1] << 16) | (src[p + 2] << 8) | src[p + 3]) >>> 0;

// The size of the array header at src[at] (its first byte says it is one).
const arrayHeaderSize = (b) => (b === 0xdc ? 3 : b === 0xdd ? 5 : 1);

// The element count of the array header at src[at] (all of it in src).
function arrayCount(src, at) {
  const h = arrayHeaderSize(src[at]);
  return h === 1 ? src[at] & 15 : h === 3 ? (src[at + 1] << 8) | src[at + 2] : u32(src, at + 1);
}

// EXT_LZ4_BLOCK, EXT_LZ4_BLOCK_ARRAY or 0 for the value at src[at]; reads,
// never throws (a header cut short is the decoder's to report).
function formOf(src, at) {
  const b = src[at];
  if (isExtCode(b)) return extHeader(src, at) && extType === EXT_LZ4_BLOCK ? EXT_LZ4_BLOCK : 0;
  const h = arrayHeaderSize(b);
  if (at + h >= src.length || arrayCount(src, at) === 0) return 0;
  return extHeader(src, at + h) && extType === EXT_LZ4_BLOCK_ARRAY ? EXT_LZ4_BLOCK_ARRAY : 0;
}

// ---- the framing -------------------------------------------------------------

// Where the message inflate read ends.
let inflatedEnd = 0;

const malformed = (at, what) => decodeError(codes.MALFORMED, at, what);
const truncated = (at, what) => decodeError(codes.TRUNCATED, at, what);

// A plain length at src[p] (any int form, as MessagePack-CSharp's
// ReadInt32), which must end by 'end': returns it and leaves its end in
// lengthEnd. 'at' is where errors point.
let lengthEnd = 0;

function readLength(src, p, end, at) {
  if (p >= end) throw malformed(at, 'an LZ4 plain length is missing');
  const b = src[p];
  let v, k;
  if (b <= 0x7f) { v = b; k = 1; }
  else if (b >= 0xe0) { v = b - 256; k = 1; }
  else if (b === 0xcc || b === 0xd0) { k = 2; }
  else if (b === 0xcd || b === 0xd1) { k = 3; }
  else if (b === 0xce || b === 0xd2) { k = 5; }
  else if (b === 0xcf || b === 0xd3) { k = 9; }
  else throw malformed(at, 'an LZ4 plain length is not an int');
  if (p + k > end) throw malformed(at, 'an LZ4 plain length runs past its header');
  if (k > 1) v = intAt(src, p, b, k);
  if (v < 0 || v > INT32_MAX) throw malformed(at, 'an LZ4 plain length outside 0 .. 2^31-1');
  lengthEnd = p + k;
  return v;
}

// The int of k bytes after the byte b at src[p] (signed for d0..d3); a
// 64-bit one as a number only as far as the range check needs.
function intAt(src, p, b, k) {
  const signed = b >= 0xd0;
  if (k === 2) return signed ? (src[p + 1] << 24) >> 24 : src[p + 1];
  if (k === 3) { const v = (src[p + 1] << 8) | src[p + 2]; return signed ? (v << 16) >> 16 : v; }
  if (k === 5) { const v = u32(src, p + 1); return signed ? v | 0 : v; }
  const hi = u32(src, p + 1), lo = u32(src, p + 5);
  if (signed && hi >= 0x80000000) return -1;          // negative: out of range either way
  return hi !== 0 ? Infinity : lo;
}

// The declared plain length against the limit, before anything is allocated.
function checkLimit(plain, opt, at) {
  const max = opt.maxDecompressedLength ?? DECOMPRESS_MAX_DEFAULT;
  if (plain > max)
    throw decodeError(codes.LENGTH_LIMIT, at,
      `a compressed message of ${plain} plain bytes, over the limit of ${max} (maxDecompressedLength)`);
}

// ... and against what a block of n bytes can decode to.
function checkBlock(plain, n, at) {
  if (plain > LZ4_MAX_RATIO * n) throw malformed(at, 'a plain length more than its LZ4 block can hold');
}

// The array for n plain bytes (checked against the limits already): NOMEM
// when the engine cannot allocate it (a limit raised past what it can).
function plainArray(n, at) {
  try {
    return new Uint8Array(n);
  } catch (e) {
    throw new ScratchpackError(codes.NOMEM, `no memory for ${n} plain bytes (at byte ${at})`, { offset: at, cause: e });
  }
}

// Decompresses src[s, sEnd) into exactly out[d, d + plain): by the
// instance's C decompressor when opt.inflate offers it (it returns null to
// leave a block to JS), else by lz4.js; the two return the same.
function inflateBlock(src, s, sEnd, out, d, plain, at, opt) {
  let r = opt[INFLATE] !== undefined ? opt[INFLATE](src, s, sEnd, out, d, plain) : null;
  if (r === null) r = lz4DecompressInto(src, s, sEnd, out, d, d + plain);
  if (r === LZ4_TOO_LONG) throw malformed(at, 'an LZ4 block decodes to more than its stated plain length');
  if (r === LZ4_TRUNCATED || (r >= 0 && r !== d + plain))
    throw truncated(at, 'an LZ4 block ends before its stated plain length');
  if (r < 0) throw malformed(at, 'an LZ4 block has an offset outside its output');
}

// The plain bytes of the compressed message at src[at] (of the given form);
// leaves where it ends in inflatedEnd.
function inflate(src, at, form, opt) {
  return form === EXT_LZ4_BLOCK ? inflateBlock1(src, at, opt) : inflateBlockArray(src, at, opt);
}

// ext(99, n): the plain length, then one block filling the rest of the payload.
function inflateBlock1(src, at, opt) {
  extHeader(src, at);
  const body = extBody, end = body + extLength;
  if (end > src.length) throw truncated(at, 'input ends inside an Lz4Block ext');
  const plain = readLength(src, body, end, at);
  if (lengthEnd >= end) throw malformed(at, 'an Lz4Block ext holds no block after its length');
  checkLimit(plain, opt, at);
  checkBlock(plain, end - lengthEnd, at);
  const out = plainArray(plain, at);
  inflateBlock(src, lengthEnd, end, out, 0, plain, at, opt);
  inflatedEnd = end;
  return out;
}

// array(N + 1), ext(98, the N plain lengths), N bin blocks. Every block's
// header is read and checked (it must be a bin, lie in the input, and be
// able to hold its plain length) before the plain bytes are allocated.
function inflateBlockArray(src, at, opt) {
  const h = arrayHeaderSize(src[at]);
  const blocks = arrayCount(src, at) - 1;             // formOf saw at least one element
  extHeader(src, at + h);
  const body = extBody, lengthsEnd = body + extLength;
  if (lengthsEnd > src.length) throw truncated(at, 'input ends inside the ext 98 header of an Lz4BlockArray');
  if (blocks > extLength) throw malformed(at, 'more blocks than the ext 98 header has lengths for');
  const plains = new Array(blocks);
  let total = 0, p = body;
  for (let i = 0; i < blocks; i++) {
    plains[i] = readLength(src, p, lengthsEnd, at);
    total += plains[i];
    p = lengthEnd;
  }
  if (p !== lengthsEnd) throw malformed(at, 'the block lengths do not fill the ext 98 header');
  checkLimit(total, opt, at);
  const heads = new Array(blocks), starts = new Array(blocks), ends = new Array(blocks);
  for (let i = 0; i < blocks; i++) {
    const b = p;
    if (p >= src.length) throw truncated(p, 'input ends inside an Lz4BlockArray');
    const c = src[p], hb = c === 0xc4 ? 2 : c === 0xc5 ? 3 : c === 0xc6 ? 5 : 0;
    if (hb === 0) throw malformed(p, 'an Lz4BlockArray block is not a bin');
    if (p + hb > src.length) throw truncated(p, 'input ends inside a bin header');
    const n = hb === 2 ? src[p + 1] : hb === 3 ? (src[p + 1] << 8) | src[p + 2] : u32(src, p + 1);
    p += hb;
    if (n > src.length - p) throw truncated(b, 'input ends inside an LZ4 block');
    checkBlock(plains[i], n, b);
    heads[i] = b;
    starts[i] = p;
    ends[i] = p += n;
  }
  const out = plainArray(total, at);
  for (let i = 0, d = 0; i < blocks; d += plains[i++])
    inflateBlock(src, starts[i], ends[i], out, d, plains[i], heads[i], opt);
  inflatedEnd = p;
  return out;
}
