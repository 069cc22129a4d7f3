/*
** sp_lz4_compress.c -- the LZ4 block compressor: greedy matching through a
** hash table of 5-byte prefixes.
** Owns: finding matches and writing sequences. Must not touch: decoding
** (sp_lz4_decompress.c), allocation (the table is the caller's sp_lz4_state).
**
** The search: hash the 5 bytes at the cursor, look up the last position
** with that hash, remember the cursor there, and take the candidate when its
** 4 bytes are equal and it lies within 65,535 bytes. Each miss moves the
** cursor on; after every 64 misses in a row the step grows by one byte, so
** incompressible input is crossed quickly. A match found is extended
** backwards over pending literals and forwards 8 bytes at a time.
*/
#include <string.h>

#include "sp_lz4.h"
#include "sp_lz4_internal.h"

#define SKIP_TRIGGER 6   /* misses before the step grows: 2^6 */

size_t sp_lz4_bound(size_t n) {
  if (n > SP_LZ4_MAX_INPUT) return 0;
  return n + n / 255 + 16;
}

/* Fibonacci hashing of the 5 bytes at p: the top bits of their product
** with 2^64 / phi. Five bytes, not the four a match needs: in text, chance
** 4-byte repeats are everywhere, and taking them costs time (each resets
** the skip) and gains almost nothing. */
static inline uint32_t hash5(const uint8_t *p, unsigned shift) {
  uint64_t v = lz4_load64(p);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v >>= 24;
#else
  v <<= 24;
#endif
  return (uint32_t)((v * 0x9E3779B97F4A7C15ull) >> shift);
}

/* Bytes equal before the first difference of two 8-byte loads (x != 0). */
static inline size_t equal_bytes(uint64_t x) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return (size_t)__builtin_clzll(x) >> 3;
#else
  return (size_t)__builtin_ctzll(x) >> 3;
#endif
}

/* How many bytes from p equal those from ref (ref < p), reading no further
** than limit. 16 bytes a step while far from the limit: long matches (runs,
** repeated records) are where the compressor spends its time. */
static inline size_t match_length(const uint8_t *p, const uint8_t *ref, const uint8_t *limit) {
  const uint8_t *start = p;
  while ((size_t)(limit - p) >= 16) {
    uint64_t x = lz4_load64(p) ^ lz4_load64(ref);
    uint64_t y = lz4_load64(p + 8) ^ lz4_load64(ref + 8);
    if ((x | y) != 0)
      return (size_t)(p - start) + (x != 0 ? equal_bytes(x) : 8 + equal_bytes(y));
    p += 16;
    ref += 16;
  }
  while ((size_t)(limit - p) >= 8) {
    uint64_t x = lz4_load64(p) ^ lz4_load64(ref);
    if (x != 0) return (size_t)(p - start) + equal_bytes(x);
    p += 8;
    ref += 8;
  }
  while (p < limit && *p == *ref) { p++; ref++; }
  return (size_t)(p - start);
}

/* The extra bytes of a length whose nibble is 15: 255s, then the rest. */
static uint8_t *put_length(uint8_t *op, size_t more) {
  if (more >= 255) {
    size_t full = more / 255;
    memset(op, 255, full);
    op += full;
    more -= full * 255;
  }
  *op++ = (uint8_t)more;
  return op;
}

/* Copies n literals; whole 16-byte chunks when both buffers have room for
** the overshoot (the input almost always does; the output while it is
** smaller than the bound). */
static inline uint8_t *put_literals(uint8_t *op, const uint8_t *lit, size_t n,
                                    const uint8_t *iend, const uint8_t *oend) {
  uint8_t *end = op + n;
  if ((size_t)(iend - lit) >= n + 16 && (size_t)(oend - op) >= n + 16) {
    do {
      lz4_copy16(op, lit);
      op += 16;
      lit += 16;
    } while (op < end);
  } else {
    memcpy(op, lit, n);
  }
  return end;
}

/* One sequence: token, literal count, literals, offset, match length. */
static inline uint8_t *put_sequence(uint8_t *op, const uint8_t *lit, size_t nlit, size_t off,
                                    size_t mlen, const uint8_t *iend, const uint8_t *oend) {
  uint8_t *token = op++;
  size_t m = mlen - LZ4_MIN_MATCH;
  unsigned t;
  if (nlit >= LZ4_NIBBLE_MORE) {
    t = LZ4_NIBBLE_MORE << 4;
    op = put_length(op, nlit - LZ4_NIBBLE_MORE);
  } else {
    t = (unsigned)nlit << 4;
  }
  op = put_literals(op, lit, nlit, iend, oend);
  op = lz4_write_offset(op, off);
  if (m >= LZ4_NIBBLE_MORE) {
    t |= LZ4_NIBBLE_MORE;
    op = put_length(op, m - LZ4_NIBBLE_MORE);
  } else {
    t |= (unsigned)m;
  }
  *token = (uint8_t)t;
  return op;
}

/* The last sequence: literals only. */
static uint8_t *put_last(uint8_t *op, const uint8_t *lit, size_t nlit) {
  if (nlit >= LZ4_NIBBLE_MORE) {
    *op++ = LZ4_NIBBLE_MORE << 4;
    op = put_length(op, nlit - LZ4_NIBBLE_MORE);
  } else {
    *op++ = (uint8_t)(nlit << 4);
  }
  memcpy(op, lit, nlit);
  return op + nlit;
}

/* The table has two forms in the same 16 KiB: inputs of at most 64 KiB keep
** 16-bit offsets in twice the slots (fewer collisions, better matches: most
** messages are small), larger ones 32-bit offsets. 'small' is a constant at
** each call of compress_block, which is always inlined, so each form gets
** its own copy of the loop with no test inside. */
#define SMALL_INPUT 65536
#define ALWAYS_INLINE inline __attribute__((always_inline))

static ALWAYS_INLINE uint32_t slot_get(const sp_lz4_state *st, int small, uint32_t h) {
  return small ? st->table.u16[h] : st->table.u32[h];
}

static ALWAYS_INLINE void slot_set(sp_lz4_state *st, int small, uint32_t h, size_t pos) {
  if (small) st->table.u16[h] = (uint16_t)pos;
  else st->table.u32[h] = (uint32_t)pos;
}

/* Bits of table used for n bytes of input: about 2n slots, at most the
** whole table, so a small input clears a small table. */
static unsigned table_log(size_t n, int small) {
  unsigned log = 8, max = small ? SP_LZ4_HASH_LOG + 1 : SP_LZ4_HASH_LOG;
  while (log < max && ((size_t)1 << log) < 2 * n) log++;
  return log;
}

/* Looks for a match from *pip on; returns the candidate (and moves *pip to
** the position it matches) or NULL when the cursor passes 'last'. */
static ALWAYS_INLINE const uint8_t *find_match(const uint8_t **pip, const uint8_t *src,
                                               const uint8_t *last, sp_lz4_state *st,
                                               int small, unsigned shift) {
  const uint8_t *ip = *pip;
  uint32_t tries = 1u << SKIP_TRIGGER;
  for (;;) {
    uint32_t h = hash5(ip, shift);
    const uint8_t *ref = src + slot_get(st, small, h);
    size_t step;
    slot_set(st, small, h, (size_t)(ip - src));
    if ((size_t)(ip - ref) <= LZ4_MAX_OFFSET && lz4_load32(ref) == lz4_load32(ip)) {
      *pip = ip;
      return ref;
    }
    step = tries++ >> SKIP_TRIGGER;
    if (step > (size_t)(last - ip)) return NULL;
    ip += step;
  }
}

/* The block for src[0, n), n >= 1, into dst (room for the bound). Every
** table entry starts at 0 (position 0), so a candidate always lies before
** the cursor. */
static ALWAYS_INLINE size_t compress_block(const uint8_t *src, size_t n, uint8_t *dst,
                                           size_t cap, sp_lz4_state *st, int small) {
  const uint8_t *const iend = src + n;
  const uint8_t *const oend = dst + cap;
  const uint8_t *ip = src, *anchor = src;
  uint8_t *op = dst;
  if (n > LZ4_MATCH_END_GAP) {
    const uint8_t *const last = iend - LZ4_MATCH_END_GAP;     /* latest match start */
    const uint8_t *const match_end = iend - LZ4_LAST_LITERALS; /* latest match end */
    const unsigned log = table_log(n, small), shift = 64 - log;
    memset(&st->table, 0, (size_t)(small ? 2 : 4) << log);
    ip++;
    for (;;) {
      const uint8_t *ref = find_match(&ip, src, last, st, small, shift);
      size_t mlen;
      if (ref == NULL) break;
      while (ip > anchor && ref > src && ip[-1] == ref[-1]) { ip--; ref--; }
      mlen = LZ4_MIN_MATCH + match_length(ip + LZ4_MIN_MATCH, ref + LZ4_MIN_MATCH, match_end);
      op = put_sequence(op, anchor, (size_t)(ip - anchor), (size_t)(ip - ref), mlen, iend, oend);
      ip += mlen;
      anchor = ip;
      if (ip > last) break;
      /* Remember a position inside the match too: the next repeat of this
      ** text is likely to start there. */
      slot_set(st, small, hash5(ip - 2, shift), (size_t)(ip - 2 - src));
    }
  }
  op = put_last(op, anchor, (size_t)(iend - anchor));
  return (size_t)(op - dst);
}

sp_code sp_lz4_compress(const void *src, size_t n, void *dst, size_t dst_cap,
                        sp_lz4_state *state, size_t *out_len) {
  if (out_len == NULL) return SP_E_INVALID_ARGUMENT;
  *out_len = 0;
  if ((src == NULL && n != 0) || dst == NULL || state == NULL) return SP_E_INVALID_ARGUMENT;
  if (n > SP_LZ4_MAX_INPUT) return SP_E_LENGTH_LIMIT;
  if (dst_cap < sp_lz4_bound(n)) return SP_E_BUFFER_TOO_SMALL;
  if (n == 0) {
    *(uint8_t *)dst = 0;   /* a token of no literals and no match */
    *out_len = 1;
    return SP_OK;
  }
  *out_len = n <= SMALL_INPUT ? compress_block(src, n, dst, dst_cap, state, 1)
                              : compress_block(src, n, dst, dst_cap, state, 0);
  return SP_OK;
}
