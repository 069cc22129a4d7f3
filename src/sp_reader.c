/*
** sp_reader.c -- reading MessagePack: tokens, bodies, skip, limits.
** Owns: moving through the input segments and decoding every format. Must
** not touch: allocation (never allocates) or what callers build from values.
*/
#include <string.h>

#include "sp_reader.h"

static void start_segment(sp_reader *r, size_t i) {
  r->seg = i;
  r->cur = r->segs[i].data;
  r->end = r->cur + r->segs[i].used;
}

static void init_common(sp_reader *r, const sp_segment *segs, size_t n, uint64_t total) {
  memset(&r->err, 0, sizeof r->err);
  r->segs = segs;
  r->nsegs = n;
  r->seg_offset = 0;
  r->remaining = total;
  r->depth = 0;
  r->max_depth = SP_DEPTH_DEFAULT;
  start_segment(r, 0);
}

void sp_reader_init(sp_reader *r, const void *data, size_t len) {
  r->one.data = (uint8_t *)(uintptr_t)data;   /* read only; sp_segment is shared with writers */
  r->one.used = r->one.capacity = len;
  init_common(r, &r->one, 1, len);
}

void sp_reader_init_sequence(sp_reader *r, const sp_sequence *s) {
  if (s->nsegs == 0) { sp_reader_init(r, NULL, 0); return; }
  init_common(r, s->segs, s->nsegs, s->length);
}

int sp_reader_fail(sp_reader *r, sp_code code, const char *cause, const char *site) {
  if (r->err.code == SP_OK) {
    r->err.code = code;
    r->err.cause = cause;
    r->err.site = site;
    r->err.offset = (size_t)sp_reader_offset(r);
  }
  r->end = r->cur;                  /* every later read takes the slow path and fails */
  r->remaining = 0;
  return 0;
}

/* Moves to the next segment that has bytes; only called when one exists. */
static void next_segment(sp_reader *r) {
  while (r->cur == r->end && r->seg + 1 < r->nsegs) {
    r->seg_offset += r->segs[r->seg].used;
    start_segment(r, r->seg + 1);
  }
}

/* Copies n bytes to dst across segments; the caller checked remaining. */
static void copy_out(sp_reader *r, uint8_t *dst, size_t n) {
  while (n > 0) {
    size_t k;
    next_segment(r);
    k = (size_t)(r->end - r->cur);
    if (k > n) k = n;
    memcpy(dst, r->cur, k);
    r->cur += k;
    r->remaining -= k;
    dst += k;
    n -= k;
  }
}

/* Returns the next n (<= 16) bytes and consumes them; NULL (with an error)
** when fewer are left. A token that straddles segments is assembled in buf. */
static const uint8_t *take(sp_reader *r, size_t n, uint8_t buf[16]) {
  const uint8_t *p = r->cur;
  if ((size_t)(r->end - r->cur) >= n) {
    r->cur += n;
    r->remaining -= n;
    return p;
  }
  if (r->err.code != SP_OK) return NULL;
  if (r->remaining < n) {
    sp_reader_fail(r, SP_E_TRUNCATED, "input ends inside a token", __func__);
    return NULL;
  }
  next_segment(r);
  if ((size_t)(r->end - r->cur) >= n) return take(r, n, buf);
  copy_out(r, buf, n);
  return buf;
}

/* The next byte, not consumed; -1 at the end of input or after an error. */
static int peek_byte(sp_reader *r) {
  if (r->cur == r->end) {
    if (r->remaining == 0) return -1;
    next_segment(r);
  }
  return *r->cur;
}

static uint16_t load16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t load32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t load64(const uint8_t *p) { return (uint64_t)load32(p) << 32 | load32(p + 4); }

static const sp_type type_of_byte[32] = {  /* 0xc0..0xdf */
  SP_T_NIL, SP_T_END, SP_T_BOOL, SP_T_BOOL, SP_T_BIN, SP_T_BIN, SP_T_BIN, SP_T_EXT,
  SP_T_EXT, SP_T_EXT, SP_T_FLOAT, SP_T_DOUBLE, SP_T_UINT, SP_T_UINT, SP_T_UINT, SP_T_UINT,
  SP_T_INT, SP_T_INT, SP_T_INT, SP_T_INT, SP_T_EXT, SP_T_EXT, SP_T_EXT, SP_T_EXT,
  SP_T_EXT, SP_T_STR, SP_T_STR, SP_T_STR, SP_T_ARRAY, SP_T_ARRAY, SP_T_MAP, SP_T_MAP
};

static sp_type type_of(int b) {
  if (b <= 0x7f) return SP_T_UINT;
  if (b <= 0x8f) return SP_T_MAP;
  if (b <= 0x9f) return SP_T_ARRAY;
  if (b <= 0xbf) return SP_T_STR;
  if (b >= 0xe0) return SP_T_INT;
  return type_of_byte[b - 0xc0];
}

sp_type sp_peek(sp_reader *r) {
  int b = peek_byte(r);
  if (b < 0) return SP_T_END;
  if (b == 0xc1) {
    sp_reader_fail(r, SP_E_MALFORMED, "0xc1 is never used", __func__);
    return SP_T_END;
  }
  return type_of(b);
}

/* Fails for a value of another type than asked (or truncation/0xc1). */
static int mismatch(sp_reader *r, const char *cause, const char *site) {
  if (sp_peek(r) == SP_T_END && r->err.code == SP_OK)
    return sp_reader_fail(r, SP_E_TRUNCATED, "input ends where a value was expected", site);
  return sp_reader_fail(r, SP_E_TYPE, cause, site);
}

int sp_read_nil_if(sp_reader *r) {
  uint8_t buf[16];
  if (peek_byte(r) != 0xc0) return 0;
  take(r, 1, buf);
  return 1;
}

int sp_read_nil(sp_reader *r) {
  return sp_read_nil_if(r) ? 1 : mismatch(r, "expected nil", __func__);
}

int sp_read_bool(sp_reader *r, int *out) {
  uint8_t buf[16];
  int b = peek_byte(r);
  if (b != 0xc2 && b != 0xc3) return mismatch(r, "expected a bool", __func__);
  take(r, 1, buf);
  *out = b == 0xc3;
  return 1;
}

/* An integer of any encoding: *neg says whether it is below zero, *u holds
** it (as two's complement when negative). */
static int read_integer(sp_reader *r, uint64_t *u, int *neg) {
  uint8_t buf[16];
  const uint8_t *p;
  int b = peek_byte(r);
  size_t size = 0;
  if (b < 0 || (b > 0x7f && b < 0xe0 && (b < 0xcc || b > 0xd3)))
    return mismatch(r, "expected an integer", __func__);
  if (b <= 0x7f || b >= 0xe0) {
    take(r, 1, buf);
    *u = (uint64_t)(int64_t)(int8_t)b;
    *neg = b >= 0xe0;
    return 1;
  }
  size = (size_t)1 << ((b - 0xcc) & 3);        /* cc..cf, d0..d3: 1, 2, 4, 8 */
  if ((p = take(r, 1 + size, buf)) == NULL) return 0;
  p++;
  if (b <= 0xcf) {
    *u = size == 1 ? p[0] : size == 2 ? load16(p) : size == 4 ? load32(p) : load64(p);
    *neg = 0;
  } else {
    int64_t s = size == 1 ? (int8_t)p[0] : size == 2 ? (int16_t)load16(p)
              : size == 4 ? (int32_t)load32(p) : (int64_t)load64(p);
    *u = (uint64_t)s;
    *neg = s < 0;
  }
  return 1;
}

/* Reads an integer that must lie in [lo, hi]. */
static int read_ranged(sp_reader *r, int64_t lo, uint64_t hi, uint64_t *u, int *neg) {
  uint64_t start = sp_reader_offset(r);
  if (!read_integer(r, u, neg)) return 0;
  if (*neg ? (int64_t)*u < lo : *u > hi) {
    sp_reader_fail(r, SP_E_OVERFLOW, "integer does not fit the target type", __func__);
    r->err.offset = (size_t)start;
    return 0;
  }
  return 1;
}

#define SIGNED_READER(name, type, lo, hi)                              \
  int name(sp_reader *r, type *out) {                                  \
    uint64_t u = 0; int neg = 0;                                       \
    if (!read_ranged(r, (lo), (uint64_t)(hi), &u, &neg)) return 0;     \
    *out = (type)(int64_t)u;                                           \
    return 1;                                                          \
  }
#define UNSIGNED_READER(name, type, hi)                                \
  int name(sp_reader *r, type *out) {                                  \
    uint64_t u = 0; int neg = 0;                                       \
    if (!read_ranged(r, 0, (hi), &u, &neg)) return 0;                  \
    *out = (type)u;                                                    \
    return 1;                                                          \
  }

SIGNED_READER(sp_read_int64, int64_t, INT64_MIN, INT64_MAX)
SIGNED_READER(sp_read_int32, int32_t, INT32_MIN, INT32_MAX)
SIGNED_READER(sp_read_int16, int16_t, INT16_MIN, INT16_MAX)
SIGNED_READER(sp_read_int8, int8_t, INT8_MIN, INT8_MAX)
UNSIGNED_READER(sp_read_uint64, uint64_t, UINT64_MAX)
UNSIGNED_READER(sp_read_uint32, uint32_t, UINT32_MAX)
UNSIGNED_READER(sp_read_uint16, uint16_t, UINT16_MAX)
UNSIGNED_READER(sp_read_uint8, uint8_t, UINT8_MAX)

int sp_read_double(sp_reader *r, double *out) {
  uint8_t buf[16];
  const uint8_t *p;
  int b = peek_byte(r);
  if (b == 0xca || b == 0xcb) {
    if ((p = take(r, b == 0xca ? 5 : 9, buf)) == NULL) return 0;
    if (b == 0xca) { uint32_t bits = load32(p + 1); float f; memcpy(&f, &bits, 4); *out = f; }
    else { uint64_t bits = load64(p + 1); memcpy(out, &bits, 8); }
    return 1;
  } else {
    uint64_t u = 0;
    int neg = 0;
    if (!read_integer(r, &u, &neg)) return 0;
    *out = neg ? (double)(int64_t)u : (double)u;
    return 1;
  }
}

int sp_read_float(sp_reader *r, float *out) {
  double d;
  if (!sp_read_double(r, &d)) return 0;
  *out = (float)d;
  return 1;
}

/* Reads a length-prefixed header: fix form (mask), then 8/16/32-bit codes
** c8, c16, c32 (c8 may be 0 when the type has no 8-bit form). */
static int read_length(sp_reader *r, int b, uint32_t *len, int fix_lo, int fix_hi,
                       int c8, int c16, int c32) {
  uint8_t buf[16];
  const uint8_t *p;
  if (b >= fix_lo && b <= fix_hi) { take(r, 1, buf); *len = (uint32_t)(b - fix_lo); return 1; }
  if (b == c8 && c8) { if ((p = take(r, 2, buf)) == NULL) return 0; *len = p[1]; return 1; }
  if (b == c16) { if ((p = take(r, 3, buf)) == NULL) return 0; *len = load16(p + 1); return 1; }
  if (b == c32) { if ((p = take(r, 5, buf)) == NULL) return 0; *len = load32(p + 1); return 1; }
  return -1;
}

/* Fails unless 'need' more bytes are left: checked before any caller could
** allocate for what a header claims. */
static int require(sp_reader *r, uint64_t need, uint64_t header_at, const char *cause) {
  if (r->remaining >= need) return 1;
  sp_reader_fail(r, SP_E_LENGTH_LIMIT, cause, __func__);
  r->err.offset = (size_t)header_at;
  return 0;
}

/* One counted header (array, map, str or bin): its count lands in *out
** only when the bytes left can hold 'per' bytes for each counted thing. */
typedef struct header_form {
  int fix_lo, fix_hi, c8, c16, c32;
  unsigned per;               /* bytes each counted thing needs at least */
  const char *expected, *too_long;
} header_form;

static int read_header(sp_reader *r, const header_form *f, uint32_t *out, const char *site) {
  uint64_t at = sp_reader_offset(r);
  uint32_t v = 0;
  int rc = read_length(r, peek_byte(r), &v, f->fix_lo, f->fix_hi, f->c8, f->c16, f->c32);
  if (rc < 0) return mismatch(r, f->expected, site);
  if (!rc || !require(r, (uint64_t)f->per * v, at, f->too_long)) return 0;
  *out = v;
  return 1;
}

static const header_form array_form = {0x90, 0x9f, 0, 0xdc, 0xdd, 1, "expected an array",
                                       "array claims more elements than bytes left"};
static const header_form map_form = {0x80, 0x8f, 0, 0xde, 0xdf, 2, "expected a map",
                                     "map claims more entries than bytes left"};
static const header_form str_form = {0xa0, 0xbf, 0xd9, 0xda, 0xdb, 1, "expected a str",
                                     "str longer than the bytes left"};
static const header_form bin_form = {0x100, 0x100, 0xc4, 0xc5, 0xc6, 1, "expected a bin",
                                     "bin longer than the bytes left"};

int sp_read_array_header(sp_reader *r, uint32_t *n) { return read_header(r, &array_form, n, __func__); }
int sp_read_map_header(sp_reader *r, uint32_t *n) { return read_header(r, &map_form, n, __func__); }
int sp_read_str_header(sp_reader *r, uint32_t *len) { return read_header(r, &str_form, len, __func__); }
int sp_read_bin_header(sp_reader *r, uint32_t *len) { return read_header(r, &bin_form, len, __func__); }

int sp_read_ext_header(sp_reader *r, int8_t *type, uint32_t *len) {
  static const uint8_t fixed[5] = {1, 2, 4, 8, 16};
  uint64_t at = sp_reader_offset(r);
  uint8_t buf[16];
  const uint8_t *p;
  uint32_t n;
  int b = peek_byte(r);
  if (b >= 0xd4 && b <= 0xd8) {
    if ((p = take(r, 2, buf)) == NULL) return 0;
    n = fixed[b - 0xd4];
  } else if (b >= 0xc7 && b <= 0xc9) {
    size_t hs = b == 0xc7 ? 2 : b == 0xc8 ? 3 : 5;
    if ((p = take(r, hs + 1, buf)) == NULL) return 0;
    n = hs == 2 ? p[1] : hs == 3 ? load16(p + 1) : load32(p + 1);
    p += hs - 1;                               /* type byte follows the length */
  } else {
    return mismatch(r, "expected an ext", __func__);
  }
  if (!require(r, n, at, "ext longer than the bytes left")) return 0;
  *type = (int8_t)p[1];
  *len = n;
  return 1;
}

int sp_read_view(sp_reader *r, size_t n, const uint8_t **p) {
  if (r->err.code != SP_OK) return 0;
  if (r->remaining < n)
    return sp_reader_fail(r, SP_E_TRUNCATED, "input ends inside a body", __func__);
  if (n == 0) { *p = r->cur; return 1; }
  if (r->cur == r->end) next_segment(r);
  if ((size_t)(r->end - r->cur) < n) return 0;   /* spans segments: not an error */
  *p = r->cur;
  r->cur += n;
  r->remaining -= n;
  return 1;
}

int sp_read_raw(sp_reader *r, void *dst, size_t n) {
  if (r->err.code != SP_OK) return 0;
  if (r->remaining < n)
    return sp_reader_fail(r, SP_E_TRUNCATED, "input ends inside a body", __func__);
  copy_out(r, dst, n);
  return 1;
}

static int read_body_view(sp_reader *r, uint32_t len, const uint8_t **p) {
  if (sp_read_view(r, len, p)) return 1;
  if (r->err.code != SP_OK) return 0;
  return sp_reader_fail(r, SP_E_LENGTH_LIMIT, "body spans segments: read it with sp_read_raw", __func__);
}

int sp_read_str(sp_reader *r, const char **p, uint32_t *len) {
  uint32_t n = 0;
  const uint8_t *body;
  if (!sp_read_str_header(r, &n) || !read_body_view(r, n, &body)) return 0;
  *p = (const char *)body;
  *len = n;
  return 1;
}

int sp_read_bin(sp_reader *r, const uint8_t **p, uint32_t *len) {
  uint32_t n = 0;
  const uint8_t *body;
  if (!sp_read_bin_header(r, &n) || !read_body_view(r, n, &body)) return 0;
  *p = body;
  *len = n;
  return 1;
}

int sp_read_timestamp(sp_reader *r, int64_t *sec, uint32_t *nsec) {
  uint64_t at = sp_reader_offset(r);
  uint8_t body[12];
  uint32_t len = 0, ns;
  int8_t type = 0;
  int64_t s;
  if (!sp_read_ext_header(r, &type, &len)) return 0;
  if (type != -1 || (len != 4 && len != 8 && len != 12)) {
    sp_reader_fail(r, SP_E_MALFORMED, "timestamp must be ext -1 of 4, 8 or 12 bytes", __func__);
    r->err.offset = (size_t)at;
    return 0;
  }
  if (!sp_read_raw(r, body, len)) return 0;
  if (len == 4) { s = load32(body); ns = 0; }
  else if (len == 8) { uint64_t d = load64(body); ns = (uint32_t)(d >> 34); s = (int64_t)(d & 0x3ffffffffull); }
  else { ns = load32(body); s = (int64_t)load64(body + 4); }
  if (ns >= 1000000000u) {
    sp_reader_fail(r, SP_E_MALFORMED, "timestamp nanoseconds >= 10^9", __func__);
    r->err.offset = (size_t)at;
    return 0;
  }
  *sec = s;
  *nsec = ns;
  return 1;
}

/* Bytes to skip after the first byte b of a value, and values it contains
** (*items: array n, map 2n). Returns -1 for 0xc1. */
static int64_t skip_size(sp_reader *r, int b, uint64_t *items) {
  uint8_t buf[16];
  const uint8_t *p;
  *items = 0;
  if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) return 0;
  if (b <= 0x8f) { *items = 2u * (uint64_t)(b & 0x0f); return 0; }
  if (b <= 0x9f) { *items = (uint64_t)(b & 0x0f); return 0; }
  if (b <= 0xbf) return b & 0x1f;
  switch (b) {
    case 0xc4: case 0xc7: case 0xd9: if (!(p = take(r, 1, buf))) return -2; return p[0] + (b == 0xc7);
    case 0xc5: case 0xc8: case 0xda: if (!(p = take(r, 2, buf))) return -2; return load16(p) + (b == 0xc8);
    case 0xc6: case 0xc9: case 0xdb: if (!(p = take(r, 4, buf))) return -2; return (int64_t)load32(p) + (b == 0xc9);
    case 0xca: return 4;
    case 0xcb: return 8;
    case 0xcc: case 0xd0: return 1;
    case 0xcd: case 0xd1: return 2;
    case 0xce: case 0xd2: return 4;
    case 0xcf: case 0xd3: return 8;
    case 0xd4: return 2;
    case 0xd5: return 3;
    case 0xd6: return 5;
    case 0xd7: return 9;
    case 0xd8: return 17;
    case 0xdc: if (!(p = take(r, 2, buf))) return -2; *items = load16(p); return 0;
    case 0xdd: if (!(p = take(r, 4, buf))) return -2; *items = load32(p); return 0;
    case 0xde: if (!(p = take(r, 2, buf))) return -2; *items = 2u * load16(p); return 0;
    case 0xdf: if (!(p = take(r, 4, buf))) return -2; *items = 2u * (uint64_t)load32(p); return 0;
    default: return -1;                       /* 0xc1 */
  }
}

/* Drops n body bytes (which are known to be present). */
static void drop(sp_reader *r, uint64_t n) {
  while (n > 0) {
    size_t k;
    next_segment(r);
    k = (size_t)(r->end - r->cur);
    if (k > n) k = (size_t)n;
    r->cur += k;
    r->remaining -= k;
    n -= k;
  }
}

int sp_skip(sp_reader *r) {
  uint64_t pending = 1;                      /* values still to skip: 64-bit, never wraps */
  uint8_t buf[16];
  while (pending > 0) {
    uint64_t items;
    int64_t body;
    int b = peek_byte(r);
    uint64_t at = sp_reader_offset(r);       /* errors name the value's first byte */
    if (b < 0) return r->err.code ? 0 : sp_reader_fail(r, SP_E_TRUNCATED, "input ends inside a value", __func__);
    if (b == 0xc1) return sp_reader_fail(r, SP_E_MALFORMED, "0xc1 is never used", __func__);
    take(r, 1, buf);
    if ((body = skip_size(r, b, &items)) < 0) { r->err.offset = (size_t)at; return 0; }
    if ((uint64_t)body > r->remaining) {
      sp_reader_fail(r, SP_E_TRUNCATED, "input ends inside a body", __func__);
      r->err.offset = (size_t)at;
      return 0;
    }
    drop(r, (uint64_t)body);
    pending += items - 1;
  }
  return 1;
}

int sp_reader_enter(sp_reader *r) {
  if (r->err.code != SP_OK) return 0;
  if (r->depth >= r->max_depth)
    return sp_reader_fail(r, SP_E_DEPTH_LIMIT, "nesting deeper than the depth limit", __func__);
  r->depth++;
  return 1;
}
