/*
** sp_compress.c -- writing a plain message as Lz4Block or Lz4BlockArray.
** Owns: the two layouts' headers (sp_compress.h draws them), cutting the
** message into blocks, compressing each straight into the writer's span.
** Must not touch: the LZ4 format (sp_lz4.h), the entries (they call in at
** finish), pool internals (it only rents and gives back).
*/
#include <string.h>

#include "sp_compress.h"
#include "sp_lz4.h"

#define D2_SIZE 5      /* d2 + int32: the plain length, in the form WriteInt32 always uses */
#define BIN32_SIZE 5   /* c6 + u32 */

/* The plain message: a sequence's segments, or one span made to look like one. */
typedef struct plain_view {
  const sp_segment *segs;
  size_t nsegs;
  uint64_t length;
} plain_view;

/* Bytes of the smallest form of a non-negative int (MessagePack-CSharp's
** GetUInt32WriteSize): fixint 1, cc 2, cd 3, ce 5. */
static size_t uint_size(uint64_t v) {
  return v <= 0x7f ? 1 : v <= 0xff ? 2 : v <= 0xffff ? 3 : 5;
}

static void write_plain(sp_writer *w, const plain_view *v) {
  for (size_t i = 0; i < v->nsegs; i++) sp_write_raw(w, v->segs[i].data, v->segs[i].used);
}

/* ---- Lz4Block ---------------------------------------------------------------- */

/* ext(99, 5 + L), d2 + the plain length, the block. The header's size
** depends on L, known only after compressing, so the block goes where the
** largest header the bound allows would end and moves back over the
** difference when the real header is smaller (MessagePack-CSharp compresses
** into a rented array and copies it instead). The bound is at least 16, so
** the guess is never a fixext and never smaller than the real header. */
static void put_block(sp_writer *w, const uint8_t *src, size_t n, sp_lz4_state *st) {
  size_t bound = sp_lz4_bound(n), guess, h, clen;
  uint8_t *p;
  if (n > SP_LZ4_MAX_INPUT) {
    sp_writer_fail(w, SP_E_LENGTH_LIMIT, "message too long for one LZ4 block (use Lz4BlockArray)", __func__);
    return;
  }
  guess = sp_ext_header_size((uint32_t)(D2_SIZE + bound));
  if ((p = sp_writer_reserve(w, guess + D2_SIZE + bound)) == NULL) return;
  if (sp_lz4_compress(src, n, p + guess + D2_SIZE, bound, st, &clen) != SP_OK) {
    sp_writer_fail(w, SP_E_INVALID_ARGUMENT, "LZ4 refused the message", __func__);
    return;
  }
  h = sp_put_ext_header(p, SP_LZ4_EXT_BLOCK, (uint32_t)(D2_SIZE + clen));
  p[h] = 0xd2;
  sp_store32(p + h + 1, (uint32_t)n);
  if (h < guess) memmove(p + h + D2_SIZE, p + guess + D2_SIZE, clen);
  sp_writer_advance(w, h + D2_SIZE + clen);
}

/* The whole message is one block, so a message in several segments is
** copied into one rented array first (as MessagePack-CSharp does). */
static void write_block(sp_writer *w, const plain_view *v, sp_lz4_state *st, sp_pool *arrays) {
  size_t n = (size_t)v->length, cap = 0;
  uint8_t *flat = NULL, *at;
  const uint8_t *src = NULL;
  for (size_t i = 0; i < v->nsegs && src == NULL; i++)
    if (v->segs[i].used == n) src = v->segs[i].data;      /* the only non-empty one */
  if (src == NULL) {
    if ((flat = sp_pool_rent(arrays, n, &cap)) == NULL) {
      sp_writer_fail(w, SP_E_NOMEM, "no memory for a contiguous copy of the message", __func__);
      return;
    }
    at = flat;
    for (size_t i = 0; i < v->nsegs; i++) {
      if (v->segs[i].used) memcpy(at, v->segs[i].data, v->segs[i].used);
      at += v->segs[i].used;
    }
    src = flat;
  }
  if (!sp_writer_stopped(w)) put_block(w, src, n, st);
  sp_pool_return(arrays, flat, cap);
}

/* ---- Lz4BlockArray ------------------------------------------------------------ */

/* A walk over the blocks: the segments, each cut into pieces of at most
** SP_COMPRESS_BLOCK_MAX (so each block's reservation stays inside the
** pool's buckets). Start it with {v, 0, 0}. */
typedef struct pieces {
  const plain_view *v;
  size_t seg, off;
} pieces;

static int next_piece(pieces *it, const uint8_t **p, size_t *len) {
  const sp_segment *s;
  while (it->seg < it->v->nsegs && it->off == it->v->segs[it->seg].used) {
    it->seg++;
    it->off = 0;
  }
  if (it->seg == it->v->nsegs) return 0;
  s = &it->v->segs[it->seg];
  *len = s->used - it->off < SP_COMPRESS_BLOCK_MAX ? s->used - it->off : SP_COMPRESS_BLOCK_MAX;
  *p = s->data + it->off;
  it->off += *len;
  return 1;
}

/* bin32 header, then the block compressed right after it in the span. */
static void put_bin32_block(sp_writer *w, const uint8_t *src, size_t n, sp_lz4_state *st) {
  size_t bound = sp_lz4_bound(n), clen;
  uint8_t *p = sp_writer_reserve(w, BIN32_SIZE + bound);
  if (p == NULL) return;
  if (sp_lz4_compress(src, n, p + BIN32_SIZE, bound, st, &clen) != SP_OK) {
    sp_writer_fail(w, SP_E_INVALID_ARGUMENT, "LZ4 refused a segment", __func__);
    return;
  }
  p[0] = 0xc6;
  sp_store32(p + 1, (uint32_t)clen);
  sp_writer_advance(w, BIN32_SIZE + clen);
}

/* array(N + 1), ext(98, the lengths' sizes), the N lengths, N bin32 blocks. */
static void write_block_array(sp_writer *w, const plain_view *v, sp_lz4_state *st) {
  uint64_t blocks = 0, lengths = 0;
  const uint8_t *p;
  size_t len;
  pieces it = {v, 0, 0};
  while (next_piece(&it, &p, &len)) {
    blocks++;
    lengths += uint_size(len);
  }
  if (blocks >= UINT32_MAX || lengths > UINT32_MAX) {
    sp_writer_fail(w, SP_E_LENGTH_LIMIT, "too many LZ4 blocks for one array", __func__);
    return;
  }
  sp_write_array_header(w, (uint32_t)blocks + 1);
  sp_write_ext_header(w, SP_LZ4_EXT_BLOCK_ARRAY, (uint32_t)lengths);
  for (it = (pieces){v, 0, 0}; next_piece(&it, &p, &len);) sp_write_uint(w, len);
  for (it = (pieces){v, 0, 0}; next_piece(&it, &p, &len) && !sp_writer_stopped(w);)
    put_bin32_block(w, p, len, st);
}

/* ---- entry points ---------------------------------------------------------------- */

static void write_view(sp_writer *w, sp_compression mode, size_t min_length, const plain_view *v,
                       sp_pool *arrays) {
  sp_lz4_state *st;
  size_t cap;
  if (sp_writer_stopped(w)) return;
  if (mode != SP_COMPRESSION_NONE && mode != SP_COMPRESSION_LZ4_BLOCK &&
      mode != SP_COMPRESSION_LZ4_BLOCK_ARRAY) {
    sp_writer_fail(w, SP_E_INVALID_ARGUMENT, "unknown compression", __func__);
    return;
  }
  if (mode == SP_COMPRESSION_NONE || v->length < (min_length ? min_length : SP_COMPRESS_MIN_LENGTH)) {
    write_plain(w, v);
    return;
  }
  if (arrays == NULL && (arrays = sp_pool_default()) == NULL) {
    sp_writer_fail(w, SP_E_NOMEM, "no pool for the LZ4 state", __func__);
    return;
  }
  if ((st = sp_pool_rent(arrays, sizeof *st, &cap)) == NULL) {   /* not the stack: 16 KiB */
    sp_writer_fail(w, SP_E_NOMEM, "no memory for the LZ4 state", __func__);
    return;
  }
  if (mode == SP_COMPRESSION_LZ4_BLOCK) write_block(w, v, st, arrays);
  else write_block_array(w, v, st);
  sp_pool_return(arrays, st, cap);
}

void sp_write_compressed(sp_writer *w, sp_compression mode, size_t min_length,
                         const sp_sequence *plain, sp_pool *arrays) {
  plain_view v;
  v.segs = plain->segs;
  v.nsegs = plain->nsegs;
  v.length = plain->length;
  write_view(w, mode, min_length, &v, arrays);
}

void sp_write_compressed_bytes(sp_writer *w, sp_compression mode, size_t min_length,
                               const void *data, size_t len, sp_pool *arrays) {
  sp_segment one;
  plain_view v;
  one.data = (uint8_t *)(uintptr_t)data;   /* read only */
  one.used = one.capacity = len;
  v.segs = &one;
  v.nsegs = len > 0;
  v.length = len;
  write_view(w, mode, min_length, &v, arrays);
}
