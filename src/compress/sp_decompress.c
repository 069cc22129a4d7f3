/*
** sp_decompress.c -- is this message compressed, and its plain bytes.
** Owns: detecting Lz4Block and Lz4BlockArray at the top of a message,
** checking their lengths against the limits before anything is allocated,
** decompressing into a rented sequence, the plain reader's lifetime. Must
** not touch: the reader's cursor (only its public reads), the LZ4 format
** (sp_lz4.h), pool internals (it rents and gives back).
**
** Only the value a decode starts at is looked at, as MessagePack-CSharp's
** TryDecompress does: the first byte (and, for an array, the one after its
** header) says cheaply whether it can be either form (sp_compress.h, inline);
** only then is the ext type read here, on a copy of the reader, so nothing
** is consumed or failed unless the message really is compressed.
*/
#include <string.h>

#include "sp_compress.h"
#include "sp_lz4.h"

/* An LZ4 byte decodes to at most 255 bytes (one length-extension byte adds
** 255), so a block of n bytes cannot hold more than 255 n. */
#define LZ4_MAX_RATIO 255

/* An error at the token at 'at' of the input (the reader's sticky error). */
#define FAIL_AT(r, at, code, cause) sp_reader_fail_at((r), (at), (code), (cause), __func__)

typedef struct limits {
  uint64_t max_plain;
  sp_seq_pool *pool;
  int contiguous;
} limits;

/* SP_LZ4_EXT_BLOCK, SP_LZ4_EXT_BLOCK_ARRAY or 0, read on a copy of r: no
** byte consumed, no error recorded (a bad header is the decoder's to report). */
static int form_of(const sp_reader *r) {
  sp_reader peek = *r;
  sp_type t = sp_peek(&peek);
  int8_t type;
  uint32_t n, len;
  if (t == SP_T_ARRAY && (!sp_read_array_header(&peek, &n) || n == 0 || sp_peek(&peek) != SP_T_EXT))
    return 0;
  if ((t != SP_T_ARRAY && t != SP_T_EXT) || !sp_read_ext_header(&peek, &type, &len)) return 0;
  if (t == SP_T_EXT) return type == SP_LZ4_EXT_BLOCK ? SP_LZ4_EXT_BLOCK : 0;
  return type == SP_LZ4_EXT_BLOCK_ARRAY ? SP_LZ4_EXT_BLOCK_ARRAY : 0;
}

/* ---- pieces of a compressed message ------------------------------------------ */

/* A plain length: any int form (MessagePack-CSharp reads it with
** ReadInt32), 0 .. 2^31 - 1. */
static int read_length(sp_reader *r, uint64_t at, uint64_t *out) {
  int64_t v;
  sp_type t = sp_peek(r);
  if (t != SP_T_UINT && t != SP_T_INT)
    return r->err.code ? 0 : FAIL_AT(r, at, SP_E_MALFORMED, "an LZ4 plain length is not an int");
  if (!sp_read_int64(r, &v)) return 0;
  if (v < 0 || v > INT32_MAX)
    return FAIL_AT(r, at, SP_E_MALFORMED, "an LZ4 plain length outside 0 .. 2^31-1");
  *out = (uint64_t)v;
  return 1;
}

/* A declared plain length against the limit, before anything is allocated. */
static int check_limit(sp_reader *r, uint64_t at, uint64_t plain, const limits *lim) {
  if (plain > lim->max_plain || plain > SIZE_MAX)
    return FAIL_AT(r, at, SP_E_LENGTH_LIMIT, "plain length over the decompression limit");
  return 1;
}

/* ... and against what a block of n bytes can decode to. */
static int check_block(sp_reader *r, uint64_t at, uint64_t plain, uint64_t n) {
  if (plain > LZ4_MAX_RATIO * n)
    return FAIL_AT(r, at, SP_E_MALFORMED, "plain length more than its LZ4 block can hold");
  return 1;
}

/* A block's n bytes: in place when they lie in one segment of the input,
** else copied into an array rented from 'arrays' (*copy, given back by
** the caller with *cap). */
static const uint8_t *block_bytes(sp_reader *r, size_t n, sp_pool *arrays, uint8_t **copy,
                                  size_t *cap) {
  const uint8_t *p;
  *copy = NULL;
  if (n == 0 || sp_read_view(r, n, &p)) return n ? p : (const uint8_t *)"";
  if (r->err.code != SP_OK) return NULL;
  if ((*copy = sp_pool_rent(arrays, n, cap)) == NULL) {
    sp_reader_fail(r, SP_E_NOMEM, "no memory for an LZ4 block that spans segments", __func__);
    return NULL;
  }
  return sp_read_raw(r, *copy, n) ? *copy : NULL;
}

/* Decompresses the block at the reader (n bytes) into exactly 'plain' more
** bytes of the sequence, asking for a span of 'hint' (>= plain) so that a
** message that fits the pool's largest bucket lands in one segment. */
static int inflate(sp_plain *p, sp_reader *in, uint64_t at, size_t n, size_t plain, size_t hint) {
  sp_pool *arrays = sp_seq_pool_arrays(p->pool);
  uint8_t *copy, *dst = NULL;
  size_t cap = 0, avail;
  const uint8_t *block = block_bytes(in, n, arrays, &copy, &cap);
  sp_code c = SP_OK;
  if (block == NULL) return 0;
  if (plain > 0 && (dst = sp_seq_get_span(p->seq, hint, &avail)) == NULL)
    FAIL_AT(in, at, SP_E_NOMEM, "no memory for the plain message");
  else if ((c = sp_lz4_decompress_exact(block, n, dst, plain)) == SP_E_TRUNCATED)
    FAIL_AT(in, at, SP_E_TRUNCATED, "LZ4 block ends before its stated plain length");
  else if (c == SP_E_LENGTH_LIMIT)
    FAIL_AT(in, at, SP_E_MALFORMED, "LZ4 block decodes to more than its stated plain length");
  else if (c != SP_OK)
    FAIL_AT(in, at, SP_E_MALFORMED, "LZ4 block has an offset outside its output");
  else if (plain > 0)
    sp_seq_advance(p->seq, plain);
  sp_pool_return(arrays, copy, cap);
  return in->err.code == SP_OK;
}

static int rent_sequence(sp_plain *p, sp_reader *in, const limits *lim) {
  if ((p->pool = lim->pool) == NULL || (p->seq = sp_seq_pool_rent(p->pool)) == NULL)
    return sp_reader_fail(in, SP_E_NOMEM, "no sequence for the plain message", __func__);
  return 1;
}

/* ---- the two forms -------------------------------------------------------------- */

/* ext(99, len): the plain length, then the block in the rest of the payload. */
static int open_block(sp_plain *p, sp_reader *in, const limits *lim) {
  uint64_t at = sp_reader_offset(in), body, plain = 0, k;
  int8_t type;
  uint32_t len;
  if (!sp_read_ext_header(in, &type, &len)) return 0;
  body = sp_reader_offset(in);
  if (!read_length(in, at, &plain)) return 0;
  if ((k = sp_reader_offset(in) - body) >= len)
    return FAIL_AT(in, at, SP_E_MALFORMED, "an Lz4Block ext holds no block after its length");
  return check_limit(in, at, plain, lim) && check_block(in, at, plain, len - k) &&
         rent_sequence(p, in, lim) &&
         inflate(p, in, at, len - k, (size_t)plain, (size_t)plain);
}

/* Reads the lengths of an ext 98 header of len bytes, which they must fill
** exactly; *total gets their sum. */
static int read_lengths(sp_reader *in, uint64_t at, uint32_t blocks, uint32_t len,
                        uint64_t *total) {
  uint64_t start = sp_reader_offset(in), v = 0;
  if (blocks > len)     /* each length takes a byte at least */
    return FAIL_AT(in, at, SP_E_MALFORMED, "more blocks than the ext 98 header has lengths for");
  *total = 0;
  for (uint32_t i = 0; i < blocks; i++) {
    if (!read_length(in, at, &v)) return 0;
    *total += v;
  }
  if (sp_reader_offset(in) - start != len)
    return FAIL_AT(in, at, SP_E_MALFORMED, "the block lengths do not fill the ext 98 header");
  return 1;
}

/* One bin block of an Lz4BlockArray, 'plain' bytes once decompressed. */
static int open_bin(sp_plain *p, sp_reader *in, uint64_t plain, size_t hint) {
  uint64_t at = sp_reader_offset(in);
  uint32_t n;
  sp_type t = sp_peek(in);
  if (t != SP_T_BIN) {
    if (in->err.code != SP_OK) return 0;
    return t == SP_T_END ? FAIL_AT(in, at, SP_E_TRUNCATED, "input ends inside an Lz4BlockArray")
                         : FAIL_AT(in, at, SP_E_MALFORMED, "an Lz4BlockArray block is not a bin");
  }
  return sp_read_bin_header(in, &n) && check_block(in, at, plain, n) &&
         inflate(p, in, at, n, (size_t)plain, hint > plain ? hint : (size_t)plain);
}

/* array(N + 1), ext(98, lengths), N bin blocks. The lengths are read twice:
** first to check their sum before anything is allocated, then beside the
** blocks through a second reader (the first pass has checked them), so
** nothing needs to hold them. */
static int open_block_array(sp_plain *p, sp_reader *in, const limits *lim) {
  uint64_t at = sp_reader_offset(in), total = 0, done = 0, plain = 0;
  uint32_t n, len;
  int8_t type;
  size_t bucket;
  sp_reader lengths;
  if (!sp_read_array_header(in, &n) || !sp_read_ext_header(in, &type, &len)) return 0;
  lengths = *in;
  if (!read_lengths(in, at, n - 1, len, &total) || !check_limit(in, at, total, lim) ||
      !rent_sequence(p, in, lim))
    return 0;
  bucket = lim->contiguous ? SIZE_MAX : sp_seq_pool_arrays(p->pool)->max_pooled;
  for (uint32_t i = 0; i + 1 < n; i++, done += plain) {
    read_length(&lengths, at, &plain);
    if (!open_bin(p, in, plain, total - done <= bucket ? (size_t)(total - done) : 0)) return 0;
  }
  return 1;
}

/* ---- open and close ------------------------------------------------------------------ */

sp_reader *sp_plain_open_slow(sp_plain *p, sp_reader *in, const sp_decompress_options *opt) {
  limits lim;
  int form, ok;
  if ((form = form_of(in)) == 0) return in;
  lim.max_plain = opt != NULL && opt->max_plain ? opt->max_plain : SP_DECOMPRESS_MAX_DEFAULT;
  lim.pool = opt != NULL && opt->seq_pool ? opt->seq_pool : sp_seq_pool_default();
  lim.contiguous = opt != NULL && opt->contiguous;
  p->at = sp_reader_offset(in);
  ok = form == SP_LZ4_EXT_BLOCK ? open_block(p, in, &lim) : open_block_array(p, in, &lim);
  if (!ok) return in;
  sp_reader_init_sequence(&p->r, p->seq);
  p->r.depth = in->depth;
  p->r.max_depth = in->max_depth;
  p->compressed = 1;
  return &p->r;
}

const uint8_t *sp_plain_bytes(const sp_plain *p, size_t *len) {
  *len = 0;
  if (!p->compressed || p->seq->nsegs > 1) return NULL;
  if (p->seq->nsegs == 0) return (const uint8_t *)"";
  *len = p->seq->segs[0].used;
  return p->seq->segs[0].data;
}

sp_code sp_plain_close_slow(sp_plain *p, int whole) {
  sp_reader *r = &p->r;
  if (p->compressed) {
    if (whole && r->err.code == SP_OK && sp_reader_remaining(r) != 0)
      sp_reader_fail(r, SP_E_TRAILING_BYTES, "bytes after the value in the decompressed message",
                     __func__);
    if (r->err.code != SP_OK && p->in->err.code == SP_OK) {
      sp_reader_fail_at(p->in, p->at, r->err.code, r->err.cause, r->err.site);
      memcpy(p->in->err.path, r->err.path, sizeof r->err.path);
    }
    p->compressed = 0;
  }
  if (p->seq != NULL) sp_seq_pool_return(p->pool, p->seq);
  p->seq = NULL;
  return p->in->err.code;
}
