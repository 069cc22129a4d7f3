/*
** sp_compress.h -- MessagePack-CSharp's LZ4 compression of whole messages:
** Lz4Block (ext 99) and Lz4BlockArray (an array led by ext 98).
** Owns: the two layouts, writing a plain message in them (sp_compress.c)
** and, decoding, telling whether a message is compressed and giving its
** plain bytes (sp_decompress.c). Must not touch: the LZ4 block format
** (sp_lz4.h), the entries (sp_serialize.c calls in here at finish), the
** reader's or writer's internals (only their public calls), pool internals.
**
** The layouts, byte for byte as MessagePack-CSharp v3 writes them
** (MessagePackSerializer.ToLZ4BinaryCore):
**
**   plain message shorter than 64 bytes (CompressionMinLength): as it is.
**
**   Lz4Block:       ext(99, 5 + L)  d2 <plain length, int32 big-endian>  <LZ4 block, L bytes>
**                   the ext header in its smallest form for 5 + L (fixext 8 or
**                   16 when L is 3 or 11, else ext 8/16/32), written after
**                   the block, once L is known.
**   Lz4BlockArray:  array(N + 1)
**                     ext(98, sum of the sizes below)  N plain lengths, each in
**                                                      its smallest int form
**                     bin32 (c6 + u32 L1)  <LZ4 block 1>
**                     ...
**                     bin32 (c6 + u32 LN)  <LZ4 block N>
**                   one block per segment of the plain message (32 KiB here:
**                   the sequence's segments; never more than 64 KiB), each
**                   compressed straight into the writer's span.
**
** Decoding takes any int form for the lengths and any bin form for the
** blocks (MessagePack-CSharp reads them with ReadInt32 and ReadBytes).
** Detection is MessagePack-CSharp's: only the value a decode starts at (the
** top of each message), once; an ext 99 or an ext-98-led array deeper in a
** message, or inside a decompressed one, is an ordinary value.
*/
#ifndef SP_COMPRESS_H
#define SP_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "sp_bulk.h"
#include "sp_error.h"
#include "sp_pool.h"
#include "sp_reader.h"
#include "sp_sequence.h"
#include "sp_writer.h"

/* The numbers are stable (the WASM builds pass them as they are). */
typedef enum sp_compression {
  SP_COMPRESSION_NONE = 0,
  SP_COMPRESSION_LZ4_BLOCK = 1,        /* ext 99: the message as one block */
  SP_COMPRESSION_LZ4_BLOCK_ARRAY = 2   /* ext 98: a block per segment (MessagePack-CSharp
                                          recommends it: no contiguous copy of the message) */
} sp_compression;

#define SP_LZ4_EXT_BLOCK 99
#define SP_LZ4_EXT_BLOCK_ARRAY 98
#define SP_COMPRESS_MIN_LENGTH 64      /* shorter messages are written plain */
#define SP_COMPRESS_BLOCK_MAX 65536    /* Lz4BlockArray: longer segments are split */

/* ---- encoding (sp_compress.c) -------------------------------------------- */

/* Writes the plain message -- the committed bytes of 'plain' -- to w in the
** layout 'mode' asks: as it is when mode is NONE or the message is shorter
** than min_length (0 -> SP_COMPRESS_MIN_LENGTH). Each block is compressed
** into a reservation of its LZ4 bound in w (the header bytes besides), so a
** fixed output needs that much room. Working memory -- the compressor's
** 16 KiB state and, for Lz4Block of a message in several segments, one
** contiguous copy -- is rented from 'arrays' (NULL -> sp_pool_default())
** and given back before it returns. Errors stick in w: SP_E_NOMEM,
** SP_E_LENGTH_LIMIT (Lz4Block of more than SP_LZ4_MAX_INPUT bytes),
** SP_E_INVALID_ARGUMENT (an unknown mode), the writer's own; the cancel flag
** is checked before each block. */
void sp_write_compressed(sp_writer *w, sp_compression mode, size_t min_length,
                         const sp_sequence *plain, sp_pool *arrays);

/* The same for a plain message of len contiguous bytes at data. */
void sp_write_compressed_bytes(sp_writer *w, sp_compression mode, size_t min_length,
                               const void *data, size_t len, sp_pool *arrays);

/* ---- decoding (sp_decompress.c) ------------------------------------------ */

/* MessagePack-CSharp's UntrustedData MaximumDecompressedSize. */
#define SP_DECOMPRESS_MAX_DEFAULT ((uint64_t)64 << 20)

typedef struct sp_decompress_options {
  int off;                 /* 1: no detection; ext 98/99 decode as ext values */
  uint64_t max_plain;      /* the largest plain message accepted, checked before
                              anything is allocated; 0 -> SP_DECOMPRESS_MAX_DEFAULT */
  sp_seq_pool *seq_pool;   /* where the plain bytes go; NULL -> sp_seq_pool_default() */
  int contiguous;          /* 1: the plain bytes in one piece (sp_plain_bytes) however
                              long; past the pool's largest bucket that piece is
                              allocated outside the pool. 0: one piece when they fit
                              the bucket, else a segment per block */
} sp_decompress_options;

/* A message that may be compressed, opened for reading. */
typedef struct sp_plain {
  sp_reader r;             /* over the plain bytes, when the message was compressed */
  sp_reader *in;           /* the reader it was opened on */
  sp_sequence *seq;        /* the plain bytes (rented), or NULL */
  sp_seq_pool *pool;
  uint64_t at;             /* offset of the compressed message in 'in' */
  int compressed;          /* 1: the message was compressed and r reads it */
} sp_plain;

/* A byte that starts an ext. */
static inline int sp_is_ext_code(uint8_t b) {
  return (b >= 0xd4 && b <= 0xd8) || (b >= 0xc7 && b <= 0xc9);
}

/* The inline half: 0 when the next value surely is neither form (not an
** ext, nor an array whose first element is one): one or two byte tests.
** Tokens that straddle segments say 1; the slow half reads the types. */
static inline int sp_maybe_compressed(const sp_reader *r) {
  size_t avail, h;
  const uint8_t *p = sp_reader_span(r, &avail);
  if (avail == 0) return sp_reader_remaining(r) > 0;
  if (sp_is_ext_code(p[0])) return 1;
  h = (p[0] & 0xf0) == 0x90 ? 1 : p[0] == 0xdc ? 3 : p[0] == 0xdd ? 5 : 0;
  if (h == 0 || p[0] == 0x90) return 0;
  return avail <= h || sp_is_ext_code(p[h]);
}

/* The out-of-line half of sp_plain_open (sp_decompress.c). */
sp_reader *sp_plain_open_slow(sp_plain *p, sp_reader *in, const sp_decompress_options *opt);

/* Opens the next value of 'in' as a message:
**   - an Lz4Block ext or an Lz4BlockArray: consumes it from 'in',
**     decompresses it into a sequence rented from the options' pool, and
**     returns a reader over the plain bytes (&p->r, with in's depth limit);
**   - anything else, or detection off: returns 'in' itself, untouched;
**   - a compressed message that is corrupt: records the error in 'in' and
**     returns 'in'. Checks, before any allocation: the declared plain
**     length against opt->max_plain (SP_E_LENGTH_LIMIT) and against what
**     its blocks could hold (an LZ4 byte yields at most 255: SP_E_MALFORMED);
**     the lengths must fill the ext 98 header exactly and every element
**     after it must be a bin (SP_E_MALFORMED). A block that decodes to fewer
**     bytes than stated is SP_E_TRUNCATED, to more or with a bad offset
**     SP_E_MALFORMED; errors name the byte offset of the token in 'in'.
** Warm calls allocate nothing: the sequence and its segments are pooled (a
** single Lz4Block over the pool's largest bucket, 128 KiB by default, is
** the one exception, as in MessagePack-CSharp). 'opt' may be NULL. Call
** sp_plain_close whatever it returns. */
static inline sp_reader *sp_plain_open(sp_plain *p, sp_reader *in, const sp_decompress_options *opt) {
  p->in = in;
  p->seq = NULL;
  p->pool = NULL;
  p->at = 0;
  p->compressed = 0;
  if ((opt != NULL && opt->off) || !sp_maybe_compressed(in)) return in;
  return sp_plain_open_slow(p, in, opt);
}

/* The plain bytes of an open compressed message when they lie in one piece
** (always for Lz4Block; for Lz4BlockArray when they fit the pool's largest
** bucket, or with opt.contiguous), valid until sp_plain_close; else NULL
** (not compressed, or in several segments: read them through p->r). */
const uint8_t *sp_plain_bytes(const sp_plain *p, size_t *len);

/* Closes the message: an error met reading the plain bytes is copied to
** 'in', at the offset of the compressed message (offsets always count the
** caller's input); with 'whole', plain bytes left unread are
** SP_E_TRAILING_BYTES. Gives the sequence back. Returns in's code. Safe to
** call twice. */
sp_code sp_plain_close_slow(sp_plain *p, int whole);

static inline sp_code sp_plain_close(sp_plain *p, int whole) {
  if (!p->compressed && p->seq == NULL) return p->in->err.code;
  return sp_plain_close_slow(p, whole);
}

/* Decodes the whole of len bytes at data as one array of 'kind' into dst
** (room for cap elements); *n gets the count. A compressed message
** (Lz4Block or Lz4BlockArray) is decompressed into pooled
** memory and its plain array read (opt may be NULL: detection on, the
** default limit). Bytes after the array are SP_E_TRAILING_BYTES. *err (if
** not NULL) gets the error. (sp_numeric_decode.c) */
sp_code sp_numeric_array_decode(const void *data, size_t len, sp_num_kind kind, void *dst,
                                size_t cap, uint32_t *n, const sp_decompress_options *opt,
                                sp_error *err);

#endif
