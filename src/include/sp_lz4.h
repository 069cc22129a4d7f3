/*
** sp_lz4.h -- the LZ4 block format: compress into a caller's buffer,
** decompress any input safely.
** Owns: the block codec (sp_lz4_compress.c, sp_lz4_decompress.c). Must not
** touch: the LZ4 frame format, MessagePack (ext 98/99 framing belongs to the
** entries), allocation (neither direction ever allocates).
**
** A block is a run of sequences: a token (high nibble: literal count, low
** nibble: match length - 4; 15 means "more follows" as bytes of 255 ended by
** one below 255), the literals, a 2-byte little-endian offset (1..65535) and
** the match length's extra bytes. The last sequence is literals only. Blocks
** made here also keep the format's end rules (the last 5 bytes are literals,
** the last match starts at least 12 bytes before the end), so every LZ4
** decoder reads them; liblz4 1.9.4 is checked in tests/c/interop_lz4.c.
**
** Usage (MessagePack-CSharp's Lz4Block keeps the plain length beside it):
**   sp_lz4_state st;                              16 KiB: stack or static
**   size_t cap = sp_lz4_bound(n), clen, plen;
**   uint8_t *z = malloc(cap);
**   sp_lz4_compress(plain, n, z, cap, &st, &clen);
**   sp_lz4_decompress_exact(z, clen, out, n);     out holds exactly n
*/
#ifndef SP_LZ4_H
#define SP_LZ4_H

#include <stddef.h>
#include <stdint.h>

#include "sp_error.h"

/* The largest input the compressor takes: liblz4's limit (LZ4_MAX_INPUT_SIZE),
** which also keeps lengths inside MessagePack-CSharp's int32 and the bound
** inside a 32-bit size_t. */
#define SP_LZ4_MAX_INPUT ((size_t)0x7E000000)

/* The compressor's hash table: 2^12 32-bit offsets (16 KiB), as liblz4's
** default; inputs of at most 64 KiB use the same bytes as 2^13 16-bit ones. */
#define SP_LZ4_HASH_LOG 12

/* The compressor's working memory. The caller owns it (a local, a static
** or a heap block; no alignment beyond uint32_t's) and may reuse it for any
** number of calls, but not from two threads at once. Its contents between
** calls mean nothing: each call starts afresh. */
typedef struct sp_lz4_state {
  union {                                      /* input offsets by hash of 5 bytes */
    uint32_t u32[1u << SP_LZ4_HASH_LOG];       /* inputs over 64 KiB */
    uint16_t u16[2u << SP_LZ4_HASH_LOG];       /* inputs up to 64 KiB */
  } table;
} sp_lz4_state;

/* Worst-case compressed size of n bytes: n + n/255 + 16 (all literals, one
** length byte per 255 of them, the token and a margin). 0 when n exceeds
** SP_LZ4_MAX_INPUT. */
size_t sp_lz4_bound(size_t n);

/* Compresses n bytes at src into dst, which has room for dst_cap >=
** sp_lz4_bound(n) bytes (the compressor checks that once instead of at every
** byte), using 'state' as scratch. *out_len gets the block's length (>= 1;
** n = 0 gives the one-byte block 00). Returns SP_OK; SP_E_LENGTH_LIMIT when n >
** SP_LZ4_MAX_INPUT; SP_E_BUFFER_TOO_SMALL when dst_cap is below the bound; SP_E_INVALID_ARGUMENT
** for a NULL pointer (src may be NULL when n is 0). On failure nothing is
** written to dst and *out_len is 0. src and dst must not overlap. */
sp_code sp_lz4_compress(const void *src, size_t n, void *dst, size_t dst_cap,
                        sp_lz4_state *state, size_t *out_len);

/* Decompresses the block of src_len bytes at src into dst (dst_cap bytes);
** *out_len gets the bytes produced. Any input is safe: nothing is read
** outside src[0, src_len) or written outside dst[0, dst_cap). Bytes of dst
** past *out_len may have been overwritten. Returns
**   SP_OK          a whole block was decoded;
**   SP_E_LENGTH_LIMIT     the block decodes to more than dst_cap bytes (a block
**                  claiming more than its stated plain length lands here);
**   SP_E_TRUNCATED the input ends inside a sequence (or is empty);
**   SP_E_MALFORMED   an offset of 0 or reaching before the start of the output;
**   SP_E_INVALID_ARGUMENT    a NULL pointer (src/dst may be NULL when their size is 0).
** On failure *out_len is 0. src and dst must not overlap.
** A block cut off right after a run of literals is itself a valid, shorter
** block; a caller that knows the plain length uses sp_lz4_decompress_exact. */
sp_code sp_lz4_decompress(const void *src, size_t src_len, void *dst, size_t dst_cap,
                          size_t *out_len);

/* sp_lz4_decompress into exactly 'len' bytes: a block that decodes to fewer
** fails with SP_E_TRUNCATED, to more with SP_E_LENGTH_LIMIT. */
sp_code sp_lz4_decompress_exact(const void *src, size_t src_len, void *dst, size_t len);

#endif
