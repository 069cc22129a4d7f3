/*
** sp_reader.h -- reading MessagePack from contiguous memory or a sequence.
** Owns: the reader struct, the inline fast paths of the common reads and
** the declarations of their out-of-line slow paths (sp_reader.c: segments,
** errors, offsets, the rarer forms), peek, iterative skip and the safety
** limits. Must not touch: allocation (the reader never allocates; the value
** tree and schemas do, after the reader's checks).
**
** The fast paths mirror the writer's: the reader keeps 'cur' and 'end' of
** the current segment, and an inline read checks once that its whole token
** (and a str/bin body) lies in [cur, end), decodes it and moves 'cur'. It
** touches nothing else: the bytes left are (end - cur) plus 'rest', the
** bytes of the later segments, and the offset of an error is computed only
** when one is recorded. Anything else -- a token that straddles segments,
** the end of the input, an error, a form the fast path leaves out -- goes to
** the slow path, which starts the read again from scratch.
**
** Errors are sticky, as in the writer: the first one wins, carries the byte
** offset of the token that failed, and every later read fails with it
** (after an error end == cur and rest == 0, so every fast path falls
** through to a slow path that sees the error). A read that fails returns 0
** and leaves its outputs unchanged.
**
** Limits checked before a caller could allocate: an array header claiming n
** elements needs n bytes left, a map header 2n, a str/bin/ext its length;
** a header claiming more is SP_E_TRUNCATED at the header (the input ends
** before what it announces), for the typed reads and sp_skip alike. Tokens (headers, numbers) may straddle segments; bodies are
** read zero-copy when they lie in one segment (sp_read_view) or copied
** (sp_read_raw).
*/
#ifndef SP_READER_H
#define SP_READER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sp_endian.h"
#include "sp_error.h"
#include "sp_sequence.h"

typedef enum sp_type {
  SP_T_END,            /* no more input, or the reader has failed */
  SP_T_NIL, SP_T_BOOL, SP_T_UINT, SP_T_INT, SP_T_FLOAT, SP_T_DOUBLE,
  SP_T_STR, SP_T_BIN, SP_T_ARRAY, SP_T_MAP, SP_T_EXT
} sp_type;

#define SP_DEPTH_DEFAULT 500

typedef struct sp_reader {
  const uint8_t *cur, *end;     /* unread bytes of the current segment (end == cur after an error) */
  uint64_t rest;                /* bytes in the segments after the current one (0 after an error) */
  const sp_segment *segs;       /* the input: one or more segments */
  size_t nsegs, seg;            /* current segment index */
  uint64_t seg_offset;          /* offset of segs[seg] in the message */
  unsigned depth, max_depth;    /* for decoders that nest; skip needs neither */
  sp_segment one;               /* the segment of a contiguous input */
  sp_error err;
} sp_reader;

/* A reader over len bytes at data (borrowed; must outlive the reader). */
void sp_reader_init(sp_reader *r, const void *data, size_t len);

/* A reader over the committed bytes of a sequence (borrowed). */
void sp_reader_init_sequence(sp_reader *r, const sp_sequence *s);

/* Unread bytes in total (0 after an error). */
static inline uint64_t sp_reader_remaining(const sp_reader *r) {
  return (uint64_t)(r->end - r->cur) + r->rest;
}

/* Offset of the next unread byte in the message. */
static inline uint64_t sp_reader_offset(const sp_reader *r) {
  return r->seg_offset + (uint64_t)(r->cur - r->segs[r->seg].data);
}

/* Records the first error at the current offset and stops reading. Returns
** 0 so that reads can 'return sp_reader_fail(...)'. */
int sp_reader_fail(sp_reader *r, sp_code code, const char *cause, const char *site);

/* The same, naming the byte at 'offset' (a token the caller has already
** read past, e.g. a header whose count turned out too large). */
int sp_reader_fail_at(sp_reader *r, uint64_t offset, sp_code code, const char *cause,
                      const char *site);

/* ---- peek ------------------------------------------------------------------- */

/* The type each first byte starts (SP_T_END for 0xc1, which is never used). */
extern const uint8_t sp_reader_types[256];

sp_type sp_peek_slow(sp_reader *r);

/* Type of the next value without consuming it (SP_T_END at the end of
** input or after an error). 0xc1 fails with SP_E_MALFORMED. */
static inline sp_type sp_peek(sp_reader *r) {
  if (r->cur < r->end && *r->cur != 0xc1) return (sp_type)sp_reader_types[*r->cur];
  return sp_peek_slow(r);
}

/* ---- nil and bool ----------------------------------------------------------- */

/* Each read returns 1 and stores the value, or 0 after recording an error
** (SP_E_TRUNCATED, SP_E_TYPE for another type, SP_E_OVERFLOW when the value
** does not fit the narrower type, SP_E_MALFORMED for 0xc1). The *_slow
** functions are the out-of-line halves; call the inline reads instead. */

int sp_read_nil_slow(sp_reader *r);
int sp_read_nil_if_slow(sp_reader *r);
int sp_read_bool_slow(sp_reader *r, int *out);

static inline int sp_read_nil(sp_reader *r) {
  if (r->cur < r->end && *r->cur == 0xc0) { r->cur++; return 1; }
  return sp_read_nil_slow(r);
}

/* Consumes a nil if one is next: 1 if it did, 0 (and no error) if not. */
static inline int sp_read_nil_if(sp_reader *r) {
  if (r->cur == r->end) return sp_read_nil_if_slow(r);
  if (*r->cur != 0xc0) return 0;
  r->cur++;
  return 1;
}

static inline int sp_read_bool(sp_reader *r, int *out) {
  if (r->cur < r->end && (*r->cur & 0xfe) == 0xc2) { *out = *r->cur++ & 1; return 1; }
  return sp_read_bool_slow(r, out);
}

/* ---- integers ------------------------------------------------------------------ */

/* The integer at p, any of its forms, when all 9 bytes from p are readable:
** returns its size and stores its value in *v (two's complement when *neg),
** or returns 0 when p starts anything else. */
static inline size_t sp_int_at(const uint8_t *p, uint64_t *v, int *neg) {
  uint8_t b = p[0];
  int64_t s;
  *neg = 0;
  if (b <= 0x7f) { *v = b; return 1; }
  if (b >= 0xe0) { *v = (uint64_t)(int64_t)(int8_t)b; *neg = 1; return 1; }
  switch (b) {    /* constant sizes per form: the next token's address is then known early */
    case 0xcc: *v = p[1]; return 2;
    case 0xcd: *v = sp_load16(p + 1); return 3;
    case 0xce: *v = sp_load32(p + 1); return 5;
    case 0xcf: *v = sp_load64(p + 1); return 9;
    case 0xd0: s = (int8_t)p[1]; *v = (uint64_t)s; *neg = s < 0; return 2;
    case 0xd1: s = (int16_t)sp_load16(p + 1); *v = (uint64_t)s; *neg = s < 0; return 3;
    case 0xd2: s = (int32_t)sp_load32(p + 1); *v = (uint64_t)s; *neg = s < 0; return 5;
    case 0xd3: s = (int64_t)sp_load64(p + 1); *v = (uint64_t)s; *neg = s < 0; return 9;
    default: return 0;
  }
}

/* One inline read per type. sp_read_<type>_at decodes the integer at p (9
** readable bytes) when it fits the type: returns its size, or 0 (storing
** nothing). The read's fast path is that, when 9 bytes are left in the
** segment; the slow path takes everything else. */
#define SP_INT_READ_(name, type, fits, value)                                  \
  static inline size_t name##_at(const uint8_t *p, type *out) {                \
    uint64_t v;                                                                \
    int neg;                                                                   \
    size_t k = sp_int_at(p, &v, &neg);                                         \
    if (k == 0 || !(fits)) return 0;                                           \
    *out = (value);                                                            \
    return k;                                                                  \
  }                                                                            \
  int name##_slow(sp_reader *r, type *out);                                    \
  static inline int name(sp_reader *r, type *out) {                            \
    size_t k;                                                                  \
    if (r->end - r->cur >= 9 && (k = name##_at(r->cur, out)) != 0) {           \
      r->cur += k;                                                             \
      return 1;                                                                \
    }                                                                          \
    return name##_slow(r, out);                                                \
  }
#define SP_SIGNED_IN_(lo, hi) (neg ? (int64_t)v >= (lo) : v <= (uint64_t)(hi))

SP_INT_READ_(sp_read_int64, int64_t, neg || v <= (uint64_t)INT64_MAX, (int64_t)v)
SP_INT_READ_(sp_read_int32, int32_t, SP_SIGNED_IN_(INT32_MIN, INT32_MAX), (int32_t)(int64_t)v)
SP_INT_READ_(sp_read_int16, int16_t, SP_SIGNED_IN_(INT16_MIN, INT16_MAX), (int16_t)(int64_t)v)
SP_INT_READ_(sp_read_int8, int8_t, SP_SIGNED_IN_(INT8_MIN, INT8_MAX), (int8_t)(int64_t)v)
SP_INT_READ_(sp_read_uint64, uint64_t, !neg, v)
SP_INT_READ_(sp_read_uint32, uint32_t, !neg && v <= UINT32_MAX, (uint32_t)v)
SP_INT_READ_(sp_read_uint16, uint16_t, !neg && v <= UINT16_MAX, (uint16_t)v)
SP_INT_READ_(sp_read_uint8, uint8_t, !neg && v <= UINT8_MAX, (uint8_t)v)
#undef SP_INT_READ_
#undef SP_SIGNED_IN_

/* ---- floating point --------------------------------------------------------------- */

/* A float32 or float64 at p (9 readable bytes) as a double or a float
** (rounded to nearest): its size, or 0 for anything else. */
static inline size_t sp_read_double_at(const uint8_t *p, double *out) {
  if (p[0] == 0xcb) { uint64_t bits = sp_load64(p + 1); memcpy(out, &bits, 8); return 9; }
  if (p[0] == 0xca) { uint32_t bits = sp_load32(p + 1); float f; memcpy(&f, &bits, 4); *out = f; return 5; }
  return 0;
}
/* A float32's bits are copied, not converted through a double: the
** conversion would set a signalling NaN's quiet bit. */
static inline size_t sp_read_float_at(const uint8_t *p, float *out) {
  if (p[0] == 0xca) { uint32_t bits = sp_load32(p + 1); memcpy(out, &bits, 4); return 5; }
  if (p[0] == 0xcb) { uint64_t bits = sp_load64(p + 1); double d; memcpy(&d, &bits, 8); *out = (float)d; return 9; }
  return 0;
}

int sp_read_double_slow(sp_reader *r, double *out);
int sp_read_float_slow(sp_reader *r, float *out);

/* float32, float64 or any int. */
static inline int sp_read_double(sp_reader *r, double *out) {
  size_t k;
  if (r->end - r->cur >= 9 && (k = sp_read_double_at(r->cur, out)) != 0) { r->cur += k; return 1; }
  return sp_read_double_slow(r, out);
}

/* float32, float64 (rounded to nearest) or any int. */
static inline int sp_read_float(sp_reader *r, float *out) {
  size_t k;
  if (r->end - r->cur >= 9 && (k = sp_read_float_at(r->cur, out)) != 0) { r->cur += k; return 1; }
  return sp_read_float_slow(r, out);
}

/* ---- runs of small tokens ------------------------------------------------------ */

/* For loops over many small values (the bulk readers), the reader's
** reserve/advance: the unread bytes of the current segment start at the
** pointer returned and *avail of them are readable, so the first *avail / 9
** tokens of up to 9 bytes surely lie in it. Decode them in place with the
** sp_read_*_at functions (no bounds check each), then give the bytes used
** back with sp_reader_advance (at most *avail). The last tokens, segment
** boundaries and anything the _at functions refuse go through the reads. */
static inline const uint8_t *sp_reader_span(const sp_reader *r, size_t *avail) {
  *avail = (size_t)(r->end - r->cur);
  return r->cur;
}
static inline void sp_reader_advance(sp_reader *r, size_t n) { r->cur += n; }

/* ---- headers ------------------------------------------------------------------------ */

int sp_read_array_header_slow(sp_reader *r, uint32_t *n);
int sp_read_map_header_slow(sp_reader *r, uint32_t *n);
int sp_read_str_header_slow(sp_reader *r, uint32_t *len);
int sp_read_bin_header_slow(sp_reader *r, uint32_t *len);

/* The fast path takes the fix forms whose count is surely within the bytes
** left in this segment. */
static inline int sp_read_array_header(sp_reader *r, uint32_t *n) {
  const uint8_t *p = r->cur;
  if (p < r->end && (*p & 0xf0) == 0x90 && (ptrdiff_t)(*p & 0x0f) < r->end - p) {
    *n = *p & 0x0fu;
    r->cur = p + 1;
    return 1;
  }
  return sp_read_array_header_slow(r, n);
}

static inline int sp_read_map_header(sp_reader *r, uint32_t *n) {
  const uint8_t *p = r->cur;
  if (p < r->end && (*p & 0xf0) == 0x80 && (ptrdiff_t)(2 * (*p & 0x0f)) < r->end - p) {
    *n = *p & 0x0fu;
    r->cur = p + 1;
    return 1;
  }
  return sp_read_map_header_slow(r, n);
}

/* A fixstr or str8 (bin8 when 'bin') at p whose header and body lie before
** end: returns the header's size and stores the body's length, or returns 0
** and stores nothing (a failed read leaves its outputs unchanged). */
static inline size_t sp_short_at(const uint8_t *p, const uint8_t *end, int bin, uint32_t *n) {
  size_t avail = (size_t)(end - p), h, len;
  if (avail == 0) return 0;
  if (!bin && (p[0] & 0xe0) == 0xa0) { h = 1; len = p[0] & 0x1fu; }
  else if (avail >= 2 && p[0] == (bin ? 0xc4 : 0xd9)) { h = 2; len = p[1]; }
  else return 0;
  if (len > avail - h) return 0;
  *n = (uint32_t)len;
  return h;
}

static inline int sp_read_str_header(sp_reader *r, uint32_t *len) {
  size_t h = sp_short_at(r->cur, r->end, 0, len);
  if (h) { r->cur += h; return 1; }
  return sp_read_str_header_slow(r, len);
}

static inline int sp_read_bin_header(sp_reader *r, uint32_t *len) {
  size_t h = sp_short_at(r->cur, r->end, 1, len);
  if (h) { r->cur += h; return 1; }
  return sp_read_bin_header_slow(r, len);
}

int sp_read_ext_header(sp_reader *r, int8_t *type, uint32_t *len);

/* ---- bodies ----------------------------------------------------------------------------- */

int sp_read_str_slow(sp_reader *r, const char **p, uint32_t *len);
int sp_read_bin_slow(sp_reader *r, const uint8_t **p, uint32_t *len);
int sp_read_view_slow(sp_reader *r, size_t n, const uint8_t **p);
int sp_read_raw_slow(sp_reader *r, void *dst, size_t n);

/* A str or bin as a pointer into the input (zero-copy). Fails with
** SP_E_LENGTH_LIMIT when the body spans segments: read the header and then
** sp_read_raw into memory of your own instead. */
static inline int sp_read_str(sp_reader *r, const char **p, uint32_t *len) {
  size_t h = sp_short_at(r->cur, r->end, 0, len);
  if (h) { *p = (const char *)r->cur + h; r->cur += h + *len; return 1; }
  return sp_read_str_slow(r, p, len);
}

static inline int sp_read_bin(sp_reader *r, const uint8_t **p, uint32_t *len) {
  size_t h = sp_short_at(r->cur, r->end, 1, len);
  if (h) { *p = r->cur + h; r->cur += h + *len; return 1; }
  return sp_read_bin_slow(r, p, len);
}

/* n body bytes: as a pointer when they lie in one segment (returns 1), or
** 0 with nothing consumed and no error when they span segments. (n - 1 <
** avail is n <= avail for n > 0; n == 0 and a failed reader, whose avail
** is 0, take the slow path.) */
static inline int sp_read_view(sp_reader *r, size_t n, const uint8_t **p) {
  if (n - 1 < (size_t)(r->end - r->cur)) { *p = r->cur; r->cur += n; return 1; }
  return sp_read_view_slow(r, n, p);
}

/* Copies n body bytes into dst, across segments. */
static inline int sp_read_raw(sp_reader *r, void *dst, size_t n) {
  if (n - 1 < (size_t)(r->end - r->cur)) { memcpy(dst, r->cur, n); r->cur += n; return 1; }
  return sp_read_raw_slow(r, dst, n);
}

/* Timestamp ext -1 in its 32/64/96-bit forms; any other length, or
** nanoseconds >= 10^9, fails with SP_E_MALFORMED. */
int sp_read_timestamp(sp_reader *r, int64_t *sec, uint32_t *nsec);

/* Skips the next value, however deeply nested, without recursion. */
int sp_skip(sp_reader *r);

/* ---- depth ---------------------------------------------------------------------------- */

int sp_reader_enter_slow(sp_reader *r);

/* Depth accounting for decoders that descend into containers: enter fails
** with SP_E_DEPTH_LIMIT past max_depth (default 500), and after any error. */
static inline int sp_reader_enter(sp_reader *r) {
  if (r->depth < r->max_depth && r->err.code == SP_OK) { r->depth++; return 1; }
  return sp_reader_enter_slow(r);
}
static inline void sp_reader_leave(sp_reader *r) { if (r->depth) r->depth--; }

#endif
