/*
** sp_reader.h -- reading MessagePack from contiguous memory or a sequence.
** Owns: the reader struct, every format's read, peek, iterative skip and the
** safety limits. Must not touch: allocation (the reader never allocates; the
** value tree and schemas do, after the reader's checks).
**
** Errors are sticky, as in the writer: the first one wins, carries the byte
** offset of the token that failed, and every later read fails with it. A
** read that fails returns 0 and leaves its outputs unchanged.
**
** Limits checked before a caller could allocate: an array header claiming n
** elements needs n bytes left, a map header 2n, a str/bin/ext its length.
** Tokens (headers, numbers) may straddle segments; bodies are read zero-copy
** when they lie in one segment (sp_read_view) or copied (sp_read_raw).
*/
#ifndef SP_READER_H
#define SP_READER_H

#include <stddef.h>
#include <stdint.h>

#include "sp_error.h"
#include "sp_sequence.h"

typedef enum sp_type {
  SP_T_END,            /* no more input, or the reader has failed */
  SP_T_NIL, SP_T_BOOL, SP_T_UINT, SP_T_INT, SP_T_FLOAT, SP_T_DOUBLE,
  SP_T_STR, SP_T_BIN, SP_T_ARRAY, SP_T_MAP, SP_T_EXT
} sp_type;

#define SP_DEPTH_DEFAULT 500

typedef struct sp_reader {
  const uint8_t *cur, *end;     /* unread bytes of the current segment */
  const sp_segment *segs;       /* the input: one or more segments */
  size_t nsegs, seg;            /* current segment index */
  uint64_t seg_offset;          /* offset of segs[seg] in the message */
  uint64_t remaining;           /* unread bytes in total */
  unsigned depth, max_depth;    /* for decoders that nest; skip needs neither */
  sp_segment one;               /* the segment of a contiguous input */
  sp_error err;
} sp_reader;

/* A reader over len bytes at data (borrowed; must outlive the reader). */
void sp_reader_init(sp_reader *r, const void *data, size_t len);

/* A reader over the committed bytes of a sequence (borrowed). */
void sp_reader_init_sequence(sp_reader *r, const sp_sequence *s);

/* Offset of the next unread byte in the message. */
static inline uint64_t sp_reader_offset(const sp_reader *r) {
  return r->seg_offset + (uint64_t)(r->cur - (r->nsegs ? r->segs[r->seg].data : r->cur));
}

/* Records the first error at the current offset and stops reading. Returns
** 0 so that reads can 'return sp_reader_fail(...)'. */
int sp_reader_fail(sp_reader *r, sp_code code, const char *cause, const char *site);

/* Type of the next value without consuming it (SP_T_END at the end of
** input or after an error). 0xc1 fails with SP_E_MALFORMED. */
sp_type sp_peek(sp_reader *r);

/* Each read returns 1 and stores the value, or 0 after recording an error
** (SP_E_TRUNCATED, SP_E_TYPE for another type, SP_E_OVERFLOW when the value
** does not fit the narrower type, SP_E_MALFORMED for 0xc1). */
int sp_read_nil(sp_reader *r);
int sp_read_bool(sp_reader *r, int *out);
int sp_read_int64(sp_reader *r, int64_t *out);
int sp_read_uint64(sp_reader *r, uint64_t *out);
int sp_read_int32(sp_reader *r, int32_t *out);
int sp_read_int16(sp_reader *r, int16_t *out);
int sp_read_int8(sp_reader *r, int8_t *out);
int sp_read_uint32(sp_reader *r, uint32_t *out);
int sp_read_uint16(sp_reader *r, uint16_t *out);
int sp_read_uint8(sp_reader *r, uint8_t *out);
int sp_read_double(sp_reader *r, double *out);   /* float32, float64 or any int */
int sp_read_float(sp_reader *r, float *out);     /* float32, float64 (rounded) or any int */

/* Consumes a nil if one is next: 1 if it did, 0 (and no error) if not. */
int sp_read_nil_if(sp_reader *r);

int sp_read_array_header(sp_reader *r, uint32_t *n);
int sp_read_map_header(sp_reader *r, uint32_t *n);
int sp_read_str_header(sp_reader *r, uint32_t *len);
int sp_read_bin_header(sp_reader *r, uint32_t *len);
int sp_read_ext_header(sp_reader *r, int8_t *type, uint32_t *len);

/* A str or bin as a pointer into the input (zero-copy). Fails with
** SP_E_LENGTH_LIMIT when the body spans segments: read the header and then
** sp_read_raw into memory of your own instead. */
int sp_read_str(sp_reader *r, const char **p, uint32_t *len);
int sp_read_bin(sp_reader *r, const uint8_t **p, uint32_t *len);

/* n body bytes: as a pointer when they lie in one segment (returns 1), or
** 0 with nothing consumed and no error when they span segments. */
int sp_read_view(sp_reader *r, size_t n, const uint8_t **p);

/* Copies n body bytes into dst, across segments. */
int sp_read_raw(sp_reader *r, void *dst, size_t n);

/* Timestamp ext -1 in its 32/64/96-bit forms; any other length, or
** nanoseconds >= 10^9, fails with SP_E_MALFORMED. */
int sp_read_timestamp(sp_reader *r, int64_t *sec, uint32_t *nsec);

/* Skips the next value, however deeply nested, without recursion. */
int sp_skip(sp_reader *r);

/* Depth accounting for decoders that descend into containers: enter fails
** with SP_E_DEPTH_LIMIT past max_depth (default 500). */
int sp_reader_enter(sp_reader *r);
static inline void sp_reader_leave(sp_reader *r) { if (r->depth) r->depth--; }

#endif
