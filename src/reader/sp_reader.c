/*
** sp_reader.c -- reading MessagePack: the slow paths, skip and the limits.
** Owns: moving through the input segments, tokens that straddle them,
** every format's general decoding (the inline fast paths of sp_reader.h
** fall back to it), error offsets, sp_skip. Must not touch: allocation
** (never allocates) or what callers build from values.
**
** A slow path starts the read again from the token's first byte, so it
** may compute offsets freely: it runs at segment boundaries, at the end of
** the input, after an error and for the forms the fast paths leave out.
*/
#include <string.h>

#include "sp_reader.h"

#define X4(t) t, t, t, t
#define X16(t) X4(t), X4(t), X4(t), X4(t)

const uint8_t sp_reader_types[256] = {
  X16(SP_T_UINT), X16(SP_T_UINT), X16(SP_T_UINT), X16(SP_T_UINT),      /* 00..3f */
  X16(SP_T_UINT), X16(SP_T_UINT), X16(SP_T_UINT), X16(SP_T_UINT),      /* 40..7f */
  X16(SP_T_MAP), X16(SP_T_ARRAY), X16(SP_T_STR), X16(SP_T_STR),        /* 80..bf */
  SP_T_NIL, SP_T_END, SP_T_BOOL, SP_T_BOOL, SP_T_BIN, SP_T_BIN, SP_T_BIN, SP_T_EXT,      /* c0 */
  SP_T_EXT, SP_T_EXT, SP_T_FLOAT, SP_T_DOUBLE, SP_T_UINT, SP_T_UINT, SP_T_UINT, SP_T_UINT,
  SP_T_INT, SP_T_INT, SP_T_INT, SP_T_INT, SP_T_EXT, SP_T_EXT, SP_T_EXT, SP_T_EXT,        /* d0 */
  SP_T_EXT, SP_T_STR, SP_T_STR, SP_T_STR, SP_T_ARRAY, SP_T_ARRAY, SP_T_MAP, SP_T_MAP,
  X16(SP_T_INT), X16(SP_T_INT)                                         /* e0..ff */
};
#undef X16
#undef X4

/* ---- segments ------------------------------------------------------------ */

/* An empty segment may have no memory at all (data NULL): NULL + 0 is
** undefined behaviour in C, so its end is its start without arithmetic. */
static void start_segment(sp_reader *r, size_t i) {
  r->seg = i;
  r->cur = r->segs[i].data;
  r->end = r->segs[i].used ? r->cur + r->segs[i].used : r->cur;
}

static void init_common(sp_reader *r, const sp_segment *segs, size_t n, uint64_t total) {
  memset(&r->err, 0, sizeof r->err);
  r->segs = segs;
  r->nsegs = n;
  r->seg_offset = 0;
  r->depth = 0;
  r->max_depth = SP_DEPTH_DEFAULT;
  start_segment(r, 0);
  r->rest = total - segs[0].used;
}

void sp_reader_init(sp_reader *r, const void *data, size_t len) {
  static const uint8_t nothing[1];            /* what (NULL, 0) reads: no NULL arithmetic later */
  if (data == NULL && len == 0) data = nothing;
  r->one.data = (uint8_t *)(uintptr_t)data;   /* read only; sp_segment is shared with writers */
  r->one.used = r->one.capacity = len;
  init_common(r, &r->one, 1, len);
}

void sp_reader_init_sequence(sp_reader *r, const sp_sequence *s) {
  if (s->nsegs == 0) { sp_reader_init(r, NULL, 0); return; }
  init_common(r, s->segs, s->nsegs, s->length);
}

/* Moves past exhausted segments while later ones hold bytes ('rest' > 0:
** never after an error, which zeroes it). */
static void next_segment(sp_reader *r) {
  while (r->cur == r->end && r->rest > 0) {
    r->seg_offset += r->segs[r->seg].used;
    start_segment(r, r->seg + 1);
    r->rest -= r->segs[r->seg].used;
  }
}

/* ---- errors ------------------------------------------------------------------ */

int sp_reader_fail_at(sp_reader *r, uint64_t offset, sp_code code, const char *cause,
                      const char *site) {
  if (r->err.code == SP_OK) {
    r->err.code = code;
    r->err.cause = cause;
    r->err.site = site;
    r->err.offset = (size_t)offset;
  }
  r->end = r->cur;                  /* every later read takes the slow path and fails */
  r->rest = 0;
  return 0;
}

int sp_reader_fail(sp_reader *r, sp_code code, const char *cause, const char *site) {
  return sp_reader_fail_at(r, sp_reader_offset(r), code, cause, site);
}

/* ---- tokens -------------------------------------------------------------------- */

/* Copies n bytes to dst across segments; the caller checked they are there. */
static void copy_out(sp_reader *r, uint8_t *dst, size_t n) {
  while (n > 0) {
    size_t k;
    next_segment(r);
    k = (size_t)(r->end - r->cur);
    if (k > n) k = n;
    memcpy(dst, r->cur, k);
    r->cur += k;
    dst += k;
    n -= k;
  }
}

/* Returns the next n (<= 16) bytes and consumes them; NULL (with an error
** at the token's start) when fewer are left. A token that straddles
** segments is assembled in buf. */
static const uint8_t *take(sp_reader *r, size_t n, uint8_t buf[16]) {
  const uint8_t *p;
  if ((size_t)(r->end - r->cur) < n) {
    if (r->err.code != SP_OK) return NULL;
    if (sp_reader_remaining(r) < n) {
      sp_reader_fail(r, SP_E_TRUNCATED, "input ends inside a token", __func__);
      return NULL;
    }
    next_segment(r);
    if ((size_t)(r->end - r->cur) < n) {
      copy_out(r, buf, n);
      return buf;
    }
  }
  p = r->cur;
  r->cur += n;
  return p;
}

/* The next byte, not consumed; -1 at the end of input or after an error. */
static int peek_byte(sp_reader *r) {
  if (r->cur == r->end) {
    if (r->rest == 0) return -1;
    next_segment(r);
  }
  return *r->cur;
}

sp_type sp_peek_slow(sp_reader *r) {
  int b = peek_byte(r);
  if (b < 0) return SP_T_END;
  if (b == 0xc1) {
    sp_reader_fail(r, SP_E_MALFORMED, "0xc1 is never used", __func__);
    return SP_T_END;
  }
  return (sp_type)sp_reader_types[b];
}

/* Fails for a value of another type than asked (or truncation/0xc1). */
static int mismatch(sp_reader *r, const char *cause, const char *site) {
  if (sp_peek(r) == SP_T_END && r->err.code == SP_OK)
    return sp_reader_fail(r, SP_E_TRUNCATED, "input ends where a value was expected", site);
  return sp_reader_fail(r, SP_E_TYPE, cause, site);
}

/* ---- nil, bool, numbers ------------------------------------------------------------ */

int sp_read_nil_if_slow(sp_reader *r) {
  uint8_t buf[16];
  if (peek_byte(r) != 0xc0) return 0;
  take(r, 1, buf);
  return 1;
}

int sp_read_nil_slow(sp_reader *r) {
  return sp_read_nil_if_slow(r) ? 1 : mismatch(r, "expected nil", "sp_read_nil");
}

int sp_read_bool_slow(sp_reader *r, int *out) {
  uint8_t buf[16];
  int b = peek_byte(r);
  if (b != 0xc2 && b != 0xc3) return mismatch(r, "expected a bool", "sp_read_bool");
  take(r, 1, buf);
  *out = b == 0xc3;
  return 1;
}

/* An integer of any encoding: *neg says whether it is below zero, *u holds
** it (as two's complement when negative). */
static int read_integer(sp_reader *r, uint64_t *u, int *neg) {
  uint8_t buf[16], tok[9] = {0};
  const uint8_t *p;
  int b = peek_byte(r);
  size_t size;
  if (b < 0 || (b > 0x7f && b < 0xe0 && (b < 0xcc || b > 0xd3)))
    return mismatch(r, "expected an integer", __func__);
  size = b <= 0x7f || b >= 0xe0 ? 1 : 1 + ((size_t)1 << ((b - 0xcc) & 3));
  if ((p = take(r, size, buf)) == NULL) return 0;
  memcpy(tok, p, size);                       /* sp_int_at reads 9 bytes */
  sp_int_at(tok, u, neg);
  return 1;
}

/* Reads an integer that must lie in [lo, hi]; overflow names its start. */
static int read_ranged(sp_reader *r, int64_t lo, uint64_t hi, uint64_t *u, int *neg,
                       const char *site) {
  uint64_t start = sp_reader_offset(r);
  if (!read_integer(r, u, neg)) return 0;
  if (*neg ? (int64_t)*u < lo : *u > hi)
    return sp_reader_fail_at(r, start, SP_E_OVERFLOW, "integer does not fit the target type", site);
  return 1;
}

#define SIGNED_SLOW(name, type, lo, hi)                                      \
  int name##_slow(sp_reader *r, type *out) {                                 \
    uint64_t u = 0; int neg = 0;                                             \
    if (!read_ranged(r, (lo), (uint64_t)(hi), &u, &neg, #name)) return 0;    \
    *out = (type)(int64_t)u;                                                 \
    return 1;                                                                \
  }
#define UNSIGNED_SLOW(name, type, hi)                                        \
  int name##_slow(sp_reader *r, type *out) {                                 \
    uint64_t u = 0; int neg = 0;                                             \
    if (!read_ranged(r, 0, (hi), &u, &neg, #name)) return 0;                 \
    *out = (type)u;                                                          \
    return 1;                                                                \
  }

SIGNED_SLOW(sp_read_int64, int64_t, INT64_MIN, INT64_MAX)
SIGNED_SLOW(sp_read_int32, int32_t, INT32_MIN, INT32_MAX)
SIGNED_SLOW(sp_read_int16, int16_t, INT16_MIN, INT16_MAX)
SIGNED_SLOW(sp_read_int8, int8_t, INT8_MIN, INT8_MAX)
UNSIGNED_SLOW(sp_read_uint64, uint64_t, UINT64_MAX)
UNSIGNED_SLOW(sp_read_uint32, uint32_t, UINT32_MAX)
UNSIGNED_SLOW(sp_read_uint16, uint16_t, UINT16_MAX)
UNSIGNED_SLOW(sp_read_uint8, uint8_t, UINT8_MAX)

int sp_read_double_slow(sp_reader *r, double *out) {
  uint8_t buf[16];
  const uint8_t *p;
  uint64_t u = 0;
  int neg = 0, b = peek_byte(r);
  if (b == 0xca || b == 0xcb) {
    if ((p = take(r, b == 0xca ? 5 : 9, buf)) == NULL) return 0;
    if (b == 0xca) { uint32_t bits = sp_load32(p + 1); float f; memcpy(&f, &bits, 4); *out = f; }
    else { uint64_t bits = sp_load64(p + 1); memcpy(out, &bits, 8); }
    return 1;
  }
  if (!read_integer(r, &u, &neg)) return 0;
  *out = neg ? (double)(int64_t)u : (double)u;
  return 1;
}

/* As sp_read_float_at: a float32 by its bits; an integer straight to the
** nearest float (through a double it could round twice). */
int sp_read_float_slow(sp_reader *r, float *out) {
  uint8_t buf[16];
  const uint8_t *p;
  uint64_t u = 0;
  int neg = 0, b = peek_byte(r);
  if (b == 0xca || b == 0xcb) {
    if ((p = take(r, b == 0xca ? 5 : 9, buf)) == NULL) return 0;
    sp_read_float_at(p, out);
    return 1;
  }
  if (!read_integer(r, &u, &neg)) return 0;
  *out = neg ? (float)(int64_t)u : (float)u;
  return 1;
}

/* ---- headers ------------------------------------------------------------------------ */

/* Reads a length-prefixed header: fix form [fix_lo, fix_hi], then the 8, 16
** and 32-bit codes c8, c16, c32 (c8 is 0 when the type has no 8-bit form).
** Returns -1, consuming nothing, when b starts none of them. */
static int read_length(sp_reader *r, int b, uint32_t *len, int fix_lo, int fix_hi,
                       int c8, int c16, int c32) {
  uint8_t buf[16];
  const uint8_t *p;
  if (b >= fix_lo && b <= fix_hi) { take(r, 1, buf); *len = (uint32_t)(b - fix_lo); return 1; }
  if (b == c8 && c8) { if ((p = take(r, 2, buf)) == NULL) return 0; *len = p[1]; return 1; }
  if (b == c16) { if ((p = take(r, 3, buf)) == NULL) return 0; *len = sp_load16(p + 1); return 1; }
  if (b == c32) { if ((p = take(r, 5, buf)) == NULL) return 0; *len = sp_load32(p + 1); return 1; }
  return -1;
}

/* Fails unless 'need' more bytes are left: checked before any caller could
** allocate for what a header claims. The input ends before what the header
** announces, so it is SP_E_TRUNCATED at the header (as the JS decoder says,
** and what a streaming caller needs: more bytes may complete it). */
static int require(sp_reader *r, uint64_t need, uint64_t header_at, const char *cause) {
  if (sp_reader_remaining(r) >= need) return 1;
  return sp_reader_fail_at(r, header_at, SP_E_TRUNCATED, cause, __func__);
}

/* One counted header (array, map, str or bin): its count lands in *out
** only when the bytes left can hold 'per' bytes for each counted thing. */
typedef struct header_form {
  int fix_lo, fix_hi, c8, c16, c32;
  unsigned per;               /* bytes each counted thing needs at least */
  const char *expected, *too_long, *site;
} header_form;

static int read_header(sp_reader *r, const header_form *f, uint32_t *out) {
  uint64_t at = sp_reader_offset(r);
  uint32_t v = 0;
  int rc = read_length(r, peek_byte(r), &v, f->fix_lo, f->fix_hi, f->c8, f->c16, f->c32);
  if (rc < 0) return mismatch(r, f->expected, f->site);
  if (!rc || !require(r, (uint64_t)f->per * v, at, f->too_long)) return 0;
  *out = v;
  return 1;
}

static const header_form array_form = {0x90, 0x9f, 0, 0xdc, 0xdd, 1, "expected an array",
                                       "array claims more elements than bytes left",
                                       "sp_read_array_header"};
static const header_form map_form = {0x80, 0x8f, 0, 0xde, 0xdf, 2, "expected a map",
                                     "map claims more entries than bytes left",
                                     "sp_read_map_header"};
static const header_form str_form = {0xa0, 0xbf, 0xd9, 0xda, 0xdb, 1, "expected a str",
                                     "str longer than the bytes left", "sp_read_str_header"};
static const header_form bin_form = {0x100, 0x100, 0xc4, 0xc5, 0xc6, 1, "expected a bin",
                                     "bin longer than the bytes left", "sp_read_bin_header"};

int sp_read_array_header_slow(sp_reader *r, uint32_t *n) { return read_header(r, &array_form, n); }
int sp_read_map_header_slow(sp_reader *r, uint32_t *n) { return read_header(r, &map_form, n); }
int sp_read_str_header_slow(sp_reader *r, uint32_t *len) { return read_header(r, &str_form, len); }
int sp_read_bin_header_slow(sp_reader *r, uint32_t *len) { return read_header(r, &bin_form, len); }

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
    n = hs == 2 ? p[1] : hs == 3 ? sp_load16(p + 1) : sp_load32(p + 1);
    p += hs - 1;                               /* type byte follows the length */
  } else {
    return mismatch(r, "expected an ext", __func__);
  }
  if (!require(r, n, at, "ext longer than the bytes left")) return 0;
  *type = (int8_t)p[1];
  *len = n;
  return 1;
}

/* ---- bodies ---------------------------------------------------------------------------- */

int sp_read_view_slow(sp_reader *r, size_t n, const uint8_t **p) {
  if (r->err.code != SP_OK) return 0;
  if (sp_reader_remaining(r) < n)
    return sp_reader_fail(r, SP_E_TRUNCATED, "input ends inside a body", "sp_read_view");
  if (n == 0) { *p = r->cur; return 1; }
  next_segment(r);
  if ((size_t)(r->end - r->cur) < n) return 0;   /* spans segments: not an error */
  *p = r->cur;
  r->cur += n;
  return 1;
}

int sp_read_raw_slow(sp_reader *r, void *dst, size_t n) {
  if (r->err.code != SP_OK) return 0;
  if (sp_reader_remaining(r) < n)
    return sp_reader_fail(r, SP_E_TRUNCATED, "input ends inside a body", "sp_read_raw");
  copy_out(r, dst, n);
  return 1;
}

static int read_body_view(sp_reader *r, uint32_t len, const uint8_t **p) {
  if (sp_read_view(r, len, p)) return 1;
  if (r->err.code != SP_OK) return 0;
  return sp_reader_fail(r, SP_E_LENGTH_LIMIT, "body spans segments: read it with sp_read_raw", __func__);
}

int sp_read_str_slow(sp_reader *r, const char **p, uint32_t *len) {
  uint32_t n = 0;
  const uint8_t *body;
  if (!sp_read_str_header(r, &n) || !read_body_view(r, n, &body)) return 0;
  *p = (const char *)body;
  *len = n;
  return 1;
}

int sp_read_bin_slow(sp_reader *r, const uint8_t **p, uint32_t *len) {
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
  if (type != -1 || (len != 4 && len != 8 && len != 12))
    return sp_reader_fail_at(r, at, SP_E_MALFORMED, "timestamp must be ext -1 of 4, 8 or 12 bytes",
                             __func__);
  if (!sp_read_raw(r, body, len)) return 0;
  if (len == 4) { s = sp_load32(body); ns = 0; }
  else if (len == 8) { uint64_t d = sp_load64(body); ns = (uint32_t)(d >> 34); s = (int64_t)(d & 0x3ffffffffull); }
  else { ns = sp_load32(body); s = (int64_t)sp_load64(body + 4); }
  if (ns >= 1000000000u)
    return sp_reader_fail_at(r, at, SP_E_MALFORMED, "timestamp nanoseconds >= 10^9", __func__);
  *sec = s;
  *nsec = ns;
  return 1;
}

/* ---- skip ------------------------------------------------------------------------------- */

/* Bytes of the header a value starting with b takes: the whole token for
** numbers, the length bytes and the type byte for ext. Its body (what
** head() counts) follows. */
static size_t head_size(int b) {
  static const uint8_t size[32] = {   /* c0..df */
    1, 1, 1, 1, 2, 3, 5, 3, 4, 6, 5, 9, 2, 3, 5, 9,
    2, 3, 5, 9, 2, 2, 2, 2, 2, 2, 3, 5, 3, 5, 3, 5
  };
  return b < 0xc0 || b >= 0xe0 ? 1 : size[b - 0xc0];
}

/* What the header at p (head_size bytes, readable) claims: values inside
** (*items: array n, map 2n) and body bytes after it (str, bin, ext). */
static void head(const uint8_t *p, uint64_t *items, uint64_t *body) {
  int b = p[0];
  *items = *body = 0;
  if (b <= 0x7f || b >= 0xe0) return;
  if (b <= 0x8f) { *items = 2u * (uint64_t)(b & 0x0f); return; }
  if (b <= 0x9f) { *items = (uint64_t)(b & 0x0f); return; }
  if (b <= 0xbf) { *body = (uint64_t)(b & 0x1f); return; }
  switch (b) {
    case 0xc4: case 0xc7: case 0xd9: *body = p[1]; return;
    case 0xc5: case 0xc8: case 0xda: *body = sp_load16(p + 1); return;
    case 0xc6: case 0xc9: case 0xdb: *body = sp_load32(p + 1); return;
    case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: *body = (uint64_t)1 << (b - 0xd4); return;
    case 0xdc: *items = sp_load16(p + 1); return;
    case 0xdd: *items = sp_load32(p + 1); return;
    case 0xde: *items = 2u * (uint64_t)sp_load16(p + 1); return;
    case 0xdf: *items = 2u * (uint64_t)sp_load32(p + 1); return;
    default: return;                          /* nil, bools, numbers: all in the header */
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
    n -= k;
  }
}

/* One value's header and body through the general path: the end of the
** input, segment boundaries, 0xc1 and headers claiming more than is left
** (SP_E_TRUNCATED at the header, as the typed reads say). */
static int skip_one_slow(sp_reader *r, uint64_t *items) {
  uint8_t buf[16], hdr[9] = {0};
  const uint8_t *p;
  uint64_t at, body, left;
  size_t h;
  int b = peek_byte(r);
  if (b < 0)
    return r->err.code ? 0 : sp_reader_fail(r, SP_E_TRUNCATED, "input ends where a value was expected", "sp_skip");
  if (b == 0xc1) return sp_reader_fail(r, SP_E_MALFORMED, "0xc1 is never used", "sp_skip");
  at = sp_reader_offset(r);
  h = head_size(b);
  if ((p = take(r, h, buf)) == NULL) return 0;
  memcpy(hdr, p, h);
  head(hdr, items, &body);
  left = sp_reader_remaining(r);
  if (*items > left || body > left)
    return sp_reader_fail_at(r, at, SP_E_TRUNCATED, "header claims more than the bytes left", "sp_skip");
  drop(r, body);
  return 1;
}

int sp_skip(sp_reader *r) {
  uint64_t pending = 1;                      /* values still to skip: 64-bit, never wraps */
  while (pending > 0) {
    const uint8_t *p = r->cur;
    size_t avail = (size_t)(r->end - p), h;
    uint64_t items, body;
    if (avail >= 9 && p[0] != 0xc1) {        /* the header is readable here */
      h = head_size(p[0]);
      head(p, &items, &body);
      if (items <= avail - h && body <= avail - h) {
        r->cur = p + h + body;
        pending += items - 1;
        continue;
      }
    }
    if (!skip_one_slow(r, &items)) return 0;
    pending += items - 1;
  }
  return 1;
}

/* ---- depth ---------------------------------------------------------------------------- */

int sp_reader_enter_slow(sp_reader *r) {
  if (r->err.code != SP_OK) return 0;
  return sp_reader_fail(r, SP_E_DEPTH_LIMIT, "nesting deeper than the depth limit", "sp_reader_enter");
}
