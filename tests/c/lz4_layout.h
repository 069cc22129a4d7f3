/*
** lz4_layout.h -- MessagePack-CSharp's compressed layouts read by the
** tests (test_compression.c, interop_lz4.c) straight from their
** description (../shared/reference/msgpack-csharp.md, "ToLZ4BinaryCore";
** sp_compress.h draws it), sharing nothing with sp_decompress.c:
**   Lz4Block       ext(99, 5 + L) d2 <u32 plain length> <L bytes of LZ4>
**   Lz4BlockArray  array(N + 1) ext(98, lengths) N x (c6 <u32 L> <L bytes>)
** A parser fills a 'layout' with each block and its stated plain length;
** inflate_layout decompresses them with sp_lz4.
*/
#ifndef SP_LZ4_LAYOUT_H
#define SP_LZ4_LAYOUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"
#include "test_util.h"

/* The 64-byte message c4 3e + 62 zeros (a bin of 62 zeros) and its LZ4
** block, by the format's rules: the literals c4 3e 00, a match at offset 1
** running to 5 bytes before the end (56 bytes: nibble 15 + 37), then the
** last 5 literals. (interop_lz4.c checks that liblz4 makes the same.) */
static const uint8_t lz4_block64[13] = {0x3f, 0xc4, 0x3e, 0x00, 0x01, 0x00, 0x25,
                                        0x50, 0x00, 0x00, 0x00, 0x00, 0x00};

static inline uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* An ext header at b: its size (0 if none), body length and type. */
static inline size_t ext_at(const uint8_t *b, size_t n, uint32_t *len, int *type) {
  if (n >= 2 && b[0] >= 0xd4 && b[0] <= 0xd8) { *len = 1u << (b[0] - 0xd4); *type = (int8_t)b[1]; return 2; }
  if (n >= 3 && b[0] == 0xc7) { *len = b[1]; *type = (int8_t)b[2]; return 3; }
  if (n >= 4 && b[0] == 0xc8) { *len = (uint32_t)b[1] << 8 | b[2]; *type = (int8_t)b[3]; return 4; }
  if (n >= 6 && b[0] == 0xc9) { *len = be32(b + 1); *type = (int8_t)b[5]; return 6; }
  return 0;
}

/* A non-negative int at b in its fixint/cc/cd/ce form: its size, or 0. */
static inline size_t uint_at(const uint8_t *b, size_t n, uint64_t *v) {
  if (n >= 1 && b[0] <= 0x7f) { *v = b[0]; return 1; }
  if (n >= 2 && b[0] == 0xcc) { *v = b[1]; return 2; }
  if (n >= 3 && b[0] == 0xcd) { *v = (uint64_t)b[1] << 8 | b[2]; return 3; }
  if (n >= 5 && b[0] == 0xce) { *v = be32(b + 1); return 5; }
  return 0;
}

#define MAX_BLOCKS 64

typedef struct layout {
  int ext;                          /* 99 or 98 */
  size_t header;                    /* bytes before the first block (Lz4Block: ext + d2) */
  size_t nblocks;
  uint64_t plain[MAX_BLOCKS];       /* each block's stated plain length */
  const uint8_t *block[MAX_BLOCKS];
  size_t block_len[MAX_BLOCKS];
} layout;

/* ext(99, 5 + L) d2 <u32 plain> <L bytes>, exactly n bytes. */
static inline int parse_lz4block(const uint8_t *b, size_t n, layout *l) {
  uint32_t len;
  int type;
  size_t h = ext_at(b, n, &len, &type);
  if (h == 0 || type != 99 || n != h + len || len < 6 || b[h] != 0xd2) return 0;
  l->ext = 99;
  l->header = h + 5;
  l->nblocks = 1;
  l->plain[0] = be32(b + h + 1);
  l->block[0] = b + h + 5;
  l->block_len[0] = len - 5;
  return 1;
}

/* array(N + 1) ext(98, lengths) N x (c6 <u32 L> <L bytes>), exactly n bytes. */
static inline int parse_lz4blockarray(const uint8_t *b, size_t n, layout *l) {
  size_t at, h, count, end;
  uint32_t len;
  int type;
  if (n >= 1 && (b[0] & 0xf0) == 0x90) { count = b[0] & 15u; at = 1; }
  else if (n >= 3 && b[0] == 0xdc) { count = (size_t)b[1] << 8 | b[2]; at = 3; }
  else return 0;
  if (count < 1 || count - 1 > MAX_BLOCKS || (h = ext_at(b + at, n - at, &len, &type)) == 0 || type != 98)
    return 0;
  l->ext = 98;
  l->nblocks = count - 1;
  at += h;
  end = at + len;
  for (size_t i = 0; i < l->nblocks; i++) {
    size_t k = uint_at(b + at, end - at, &l->plain[i]);
    if (k == 0 || at + k > end) return 0;
    at += k;
  }
  if (at != end) return 0;
  l->header = at;
  for (size_t i = 0; i < l->nblocks; i++) {
    if (n - at < 5 || b[at] != 0xc6 || n - at - 5 < be32(b + at + 1)) return 0;
    l->block_len[i] = be32(b + at + 1);
    l->block[i] = b + at + 5;
    at += 5 + l->block_len[i];
  }
  return at == n;
}

/* The plain message a layout holds, each block decompressed to exactly its
** stated length, in *out (freed by the caller). */
static inline int inflate_layout(const layout *l, sp_bytes *out) {
  uint64_t total = 0;
  int ok = 1;
  for (size_t i = 0; i < l->nblocks; i++) total += l->plain[i];
  out->len = (size_t)total;
  out->data = xmalloc(out->len);
  total = 0;
  for (size_t i = 0; i < l->nblocks && ok; i++) {
    ok = sp_lz4_decompress_exact(l->block[i], l->block_len[i], out->data + total,
                                 (size_t)l->plain[i]) == SP_OK;
    total += l->plain[i];
  }
  return ok;
}

#endif
