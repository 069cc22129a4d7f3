/*
** sp_lz4_decompress.c -- the LZ4 block decompressor, safe on any input.
** Owns: reading sequences and copying literals and matches. Must not
** touch: compression (sp_lz4_compress.c), allocation.
**
** Safety: before any copy, the length is checked against what is left of
** the input (literals) and of the output (both), and an offset against what
** has been written. Copies in whole 8- or 16-byte chunks ("wild", writing
** past the end of the sequence) happen only when that many bytes are left
** in the buffer they touch; near the ends, copies are exact. Lengths are
** accumulated only while they fit the output, so they cannot overflow.
*/
#include <string.h>

#include "sp_lz4.h"
#include "sp_lz4_internal.h"

/* Adds the extra length bytes at *pip to *len. 'room' is the output left:
** a length beyond it cannot be decoded, so reading stops there. */
static sp_code read_more(const uint8_t **pip, const uint8_t *iend, size_t *len, size_t room) {
  const uint8_t *ip = *pip;
  size_t v = *len;
  unsigned b;
  if (v > room) return SP_E_LENGTH_LIMIT;
  do {
    if (ip == iend) return SP_E_TRUNCATED;
    b = *ip++;
    if (b > room - v) return SP_E_LENGTH_LIMIT;
    v += b;
  } while (b == 255);
  *pip = ip;
  *len = v;
  return SP_OK;
}

/* The literals of a sequence, out of line: long runs, and any run near the
** end of either buffer. */
static sp_code copy_literals(const uint8_t **pip, const uint8_t *iend, uint8_t **pop,
                             const uint8_t *oend, size_t nlit) {
  const uint8_t *ip = *pip;
  uint8_t *op = *pop;
  if (nlit == LZ4_NIBBLE_MORE) {
    sp_code rc = read_more(&ip, iend, &nlit, (size_t)(oend - op));
    if (rc != SP_OK) return rc;
  }
  if (nlit > (size_t)(oend - op)) return SP_E_LENGTH_LIMIT;
  if (nlit > (size_t)(iend - ip)) return SP_E_TRUNCATED;
  memcpy(op, ip, nlit);
  *pip = ip + nlit;
  *pop = op + nlit;
  return SP_OK;
}

/* Distance to copy from after the first 8 bytes of a match with offset
** 2..7: the smallest multiple of the offset that is at least 8, so the
** repeating pattern stays in phase and 8-byte chunks never overlap. */
static const uint8_t spread_distance[8] = {0, 0, 8, 9, 8, 10, 12, 14};

/* A match of len bytes from off back (1 <= off <= written, len fits the
** output). Overlapping matches repeat their pattern, as the format says. */
static void copy_match(uint8_t *op, size_t off, size_t len, const uint8_t *oend) {
  const uint8_t *m = op - off;
  uint8_t *const end = op + len;
  if (off == 1) {            /* a run of one byte */
    memset(op, *m, len);
    return;
  }
  if ((size_t)(oend - end) >= 16) {   /* room for the chunks' overshoot */
    if (off < 8) {
      for (int i = 0; i < 8; i++) op[i] = m[i];   /* byte by byte: m overlaps op */
      op += 8;
      m = op - spread_distance[off];
    }
    if (off >= 16) {
      do { lz4_copy16(op, m); op += 16; m += 16; } while (op < end);
    } else {
      while (op < end) { lz4_copy8(op, m); op += 8; m += 8; }
    }
    return;
  }
  if (off >= 8) {
    while ((size_t)(end - op) >= 8) { lz4_copy8(op, m); op += 8; m += 8; }
  }
  while (op < end) *op++ = *m++;
}

/* The sequences of [ip, iend) into [ostart, oend). Far from both ends,
** fewer than 15 literals take one wild 16-byte copy, and a match 16-byte
** chunks (offset 16 or more) or three 8-byte ones (offset 8..15, shorter
** than 19 bytes); the rest goes through the careful paths. */
static sp_code decode(const uint8_t *ip, const uint8_t *const iend, uint8_t *const ostart,
                      const uint8_t *const oend, size_t *out_len) {
  uint8_t *op = ostart;
  for (;;) {
    unsigned token;
    size_t nlit, off, mlen, room;
    if (ip == iend) return SP_E_TRUNCATED;
    token = *ip++;
    nlit = token >> 4;
    if (nlit < LZ4_NIBBLE_MORE && (size_t)(iend - ip) >= 16 && (size_t)(oend - op) >= 16) {
      lz4_copy16(op, ip);   /* leaves >= 2 input bytes: the offset is there */
      ip += nlit;
      op += nlit;
    } else {
      sp_code rc = copy_literals(&ip, iend, &op, oend, nlit);
      if (rc != SP_OK) return rc;
      if (ip == iend) break;   /* the last sequence: literals only */
      if (iend - ip < 2) return SP_E_TRUNCATED;
    }
    off = lz4_read_offset(ip);
    ip += 2;
    if (off - 1 >= (size_t)(op - ostart)) return SP_E_MALFORMED;   /* 0, or before the start */
    mlen = (token & 15) + LZ4_MIN_MATCH;
    if (mlen == LZ4_NIBBLE_MORE + LZ4_MIN_MATCH) {
      sp_code rc = read_more(&ip, iend, &mlen, (size_t)(oend - op));
      if (rc != SP_OK) return rc;
    }
    room = (size_t)(oend - op);
    if (off >= 16 && mlen <= room && room - mlen >= 16) {   /* 16-byte chunks, no overlap */
      const uint8_t *m = op - off;
      uint8_t *end = op + mlen;
      do { lz4_copy16(op, m); op += 16; m += 16; } while (op < end);
      op = end;
      continue;
    }
    if (off >= 8 && mlen < LZ4_NIBBLE_MORE + LZ4_MIN_MATCH && room >= 24) {
      const uint8_t *m = op - off;
      lz4_copy8(op, m);
      lz4_copy8(op + 8, m + 8);
      lz4_copy8(op + 16, m + 16);
      op += mlen;
      continue;
    }
    if (mlen > room) return SP_E_LENGTH_LIMIT;
    copy_match(op, off, mlen, oend);
    op += mlen;
  }
  *out_len = (size_t)(op - ostart);
  return SP_OK;
}

sp_code sp_lz4_decompress(const void *src, size_t src_len, void *dst, size_t dst_cap,
                          size_t *out_len) {
  uint8_t none;   /* the output when dst is NULL: no arithmetic on NULL */
  uint8_t *o;
  if (out_len == NULL) return SP_E_INVALID_ARGUMENT;
  *out_len = 0;
  if ((src == NULL && src_len != 0) || (dst == NULL && dst_cap != 0)) return SP_E_INVALID_ARGUMENT;
  if (src_len == 0) return SP_E_TRUNCATED;   /* not even a token */
  o = dst != NULL ? (uint8_t *)dst : &none;
  return decode(src, (const uint8_t *)src + src_len, o, o + dst_cap, out_len);
}

sp_code sp_lz4_decompress_exact(const void *src, size_t src_len, void *dst, size_t len) {
  size_t got;
  sp_code rc = sp_lz4_decompress(src, src_len, dst, len, &got);
  if (rc == SP_OK && got != len) rc = SP_E_TRUNCATED;
  return rc;
}
