/*
** test_writer_formats.c -- every MessagePack format the writer produces is
** byte-exact at its boundaries, in all three writer modes.
**
** Expected bytes are written out by hand from the MessagePack spec (all
** lengths and numbers big-endian); the code under test never computes them.
** Bodies (str/bin/ext payloads, UTF-8 of UTF-16 text) are inputs or are
** assembled from hand-written per-character byte sequences.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"
#include "sp_test.h"
#include "test_util.h"

/* ---- small helpers ------------------------------------------------------ */

#define BYTES(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})
#define UNITS(...) \
  (const uint16_t[]){__VA_ARGS__}, sizeof((const uint16_t[]){__VA_ARGS__}) / sizeof(uint16_t)

/* Appends n bytes to a growable buffer through its own sp_output. */
static uint8_t *buffer_room(sp_buffer *b, size_t n) {
  sp_output o = sp_buffer_output(b);
  size_t avail = 0;
  uint8_t *dst = o.get_span(o.ctx, n, &avail);
  if (dst == NULL || avail < n) { fprintf(stderr, "buffer growth failed\n"); abort(); }
  return dst;
}

static void buffer_append(sp_buffer *b, const void *src, size_t n) {
  if (n == 0) return;
  memcpy(buffer_room(b, n), src, n);
  b->len += n;
}

/* ---- running one case through a fresh writer in a given mode ------------ */

typedef void (*write_fn)(sp_writer *w, const void *ctx);

typedef enum run_mode { RUN_OUTPUT, RUN_ARRAY, RUN_SEQUENCE } run_mode;

typedef struct run {
  run_mode mode;
  size_t array_size;   /* RUN_ARRAY: bytes in the caller's array */
  size_t prefix;       /* nils written first, so migration lands mid-value elsewhere */
} run;

typedef struct result {
  sp_code code;
  uint64_t length;     /* sp_writer_length before the flush */
  size_t nsegs;        /* segments of the writer's sequence (0 when none) */
} result;

/* Tiny arrays make the scratch migrate inside a value; 64 keeps small values
** in the array; prefixes with size 8 move the migration point around. */
static const run RUNS[] = {
  {RUN_OUTPUT, 0, 0},   {RUN_SEQUENCE, 0, 0}, {RUN_ARRAY, 1, 0},  {RUN_ARRAY, 2, 0},
  {RUN_ARRAY, 3, 0},    {RUN_ARRAY, 4, 0},    {RUN_ARRAY, 5, 0},  {RUN_ARRAY, 6, 0},
  {RUN_ARRAY, 7, 0},    {RUN_ARRAY, 8, 0},    {RUN_ARRAY, 64, 0}, {RUN_ARRAY, 8, 1},
  {RUN_ARRAY, 8, 2},    {RUN_ARRAY, 8, 3},    {RUN_ARRAY, 8, 4},  {RUN_ARRAY, 8, 5},
  {RUN_ARRAY, 8, 6},    {RUN_ARRAY, 8, 7},    {RUN_OUTPUT, 0, 3}, {RUN_SEQUENCE, 0, 5},
};
#define NRUNS (sizeof RUNS / sizeof RUNS[0])

static const char *mode_name(run_mode m) {
  return m == RUN_OUTPUT ? "output" : m == RUN_ARRAY ? "array" : "sequence";
}

/* After a flush a migrated writer holds everything in its sequence; one that
** never migrated still has its bytes at the start of the caller's array. */
static void collect(const sp_writer *w, const uint8_t *array, sp_buffer *out) {
  if (w->seq != NULL) {
    size_t n = (size_t)w->seq->length;
    if (n == 0) return;
    sp_seq_copy_to(w->seq, buffer_room(out, n));
    out->len += n;
  } else if (w->mode == SP_MODE_SCRATCH) {
    buffer_append(out, array, (size_t)(w->cur - w->base));
  }
}

static void writer_init(sp_writer *w, const run *r, const sp_output *o, uint8_t *array) {
  if (r->mode == RUN_OUTPUT) sp_writer_init_output(w, o);
  else if (r->mode == RUN_SEQUENCE) sp_writer_init_sequence(w, NULL);
  else sp_writer_init_array(w, array, r->array_size, NULL);
}

/* Runs fn in a fresh writer; leaves the produced (committed) bytes in out. */
static result produce(const run *r, write_fn fn, const void *ctx, sp_buffer *out) {
  sp_writer w;
  sp_output o = sp_buffer_output(out);
  /* exact-size heap array: ASan reports any write past it */
  uint8_t *array = r->mode == RUN_ARRAY ? xmalloc(r->array_size) : NULL;
  result res;
  sp_buffer_clear(out);
  writer_init(&w, r, &o, array);
  for (size_t i = 0; i < r->prefix; i++) sp_write_nil(&w);
  fn(&w, ctx);
  res.length = sp_writer_length(&w);
  res.code = sp_writer_flush(&w);
  if (r->mode != RUN_OUTPUT) collect(&w, array, out);
  res.nsegs = w.seq ? w.seq->nsegs : 0;
  if (res.code == SP_OK) CHECK(out->len == res.length);
  sp_writer_release(&w);
  free(array);
  return res;
}

static void check_run(const run *r, write_fn fn, const void *ctx, const uint8_t *want,
                      size_t n, int line) {
  sp_buffer out;
  uint8_t *full = xmalloc(r->prefix + n);
  result res;
  int ok;
  memset(full, 0xc0, r->prefix);   /* the nils written first */
  if (n) memcpy(full + r->prefix, want, n);
  sp_buffer_init(&out);
  res = produce(r, fn, ctx, &out);
  ok = CHECK(res.code == SP_OK);
  ok &= CHECK_BYTES(out.data, out.len, full, r->prefix + n);
  if (!ok)
    fprintf(stderr, "      in %s mode (array %zu, %zu nils first), case at line %d\n",
            mode_name(r->mode), r->array_size, r->prefix, line);
  sp_buffer_free(&out);
  free(full);
}

static void w_utf16(sp_writer *w, const void *c);

/* ---- a fixed output --------------------------------------------------------- */

#define GUARD 16

/* Runs 'prefix' nils, then fn, over a fixed output of 'cap' bytes followed
** by guard bytes. Returns the code; *len gets what the output committed. */
static sp_code run_fixed(size_t cap, size_t prefix, write_fn fn, const void *ctx, uint8_t *mem,
                         size_t *len) {
  sp_buffer fixed;
  sp_output o;
  sp_writer w;
  sp_code code;
  memset(mem, 0xa5, cap + GUARD);
  sp_buffer_init(&fixed);
  fixed.data = mem;
  fixed.cap = cap;
  o = sp_fixed_output(&fixed);
  sp_writer_init_output(&w, &o);
  for (size_t i = 0; i < prefix; i++) sp_write_nil(&w);
  fn(&w, ctx);
  code = sp_writer_flush(&w);
  sp_writer_release(&w);
  *len = fixed.len;
  return code;
}

static int guard_intact(const uint8_t *mem, size_t cap) {
  for (size_t i = cap; i < cap + GUARD; i++)
    if (mem[i] != 0xa5) return 0;
  return 1;
}

/* The nils, then fn, into a fixed output of exactly their size. */
static void check_fixed_exact(write_fn fn, const void *ctx, const uint8_t *want, size_t n,
                              size_t prefix, int line) {
  uint8_t *mem = xmalloc(prefix + n + GUARD);
  size_t len = 0;
  int ok = CHECK(run_fixed(prefix + n, prefix, fn, ctx, mem, &len) == SP_OK);
  ok &= CHECK(len == prefix + n) && CHECK_BYTES(mem + prefix, len - prefix, want, n);
  ok &= CHECK(guard_intact(mem, prefix + n));
  if (!ok) fprintf(stderr, "      in a fixed output of exactly %zu bytes, case at line %d\n", prefix + n, line);
  free(mem);
}

/* The same bytes in every mode and migration point, and into a fixed
** output of exactly the message's size (sp_write_str_utf16 too, whose
** guess reserves 3 bytes a unit: on a short output it counts first). */
static void expect_all(write_fn fn, const void *ctx, const uint8_t *want, size_t n, int line) {
  for (size_t i = 0; i < NRUNS; i++) check_run(&RUNS[i], fn, ctx, want, n, line);
  check_fixed_exact(fn, ctx, want, n, 0, line);
  check_fixed_exact(fn, ctx, want, n, 3, line);
}

/* Expected = a header written by hand, then the body as given. */
static void expect_framed(write_fn fn, const void *ctx, const uint8_t *hdr, size_t hn,
                          const uint8_t *body, size_t bn, int line) {
  uint8_t *want = xmalloc(hn + bn);
  memcpy(want, hdr, hn);
  if (bn) memcpy(want + hn, body, bn);
  expect_all(fn, ctx, want, hn + bn, line);
  free(want);
}

/* Every mode fails with 'code'; nothing reaches the output. */
static void expect_error_all(write_fn fn, const void *ctx, sp_code code, int line) {
  sp_buffer out;
  sp_buffer_init(&out);
  for (size_t i = 0; i < NRUNS; i++) {
    const run *r = &RUNS[i];
    result res = produce(r, fn, ctx, &out);
    int ok = CHECK(res.code == code);
    ok &= CHECK(res.length == r->prefix);   /* only the nils before the failure */
    if (!ok)
      fprintf(stderr, "      in %s mode (array %zu, %zu nils first), case at line %d: %s\n",
              mode_name(r->mode), r->array_size, r->prefix, line, sp_code_name(res.code));
  }
  sp_buffer_free(&out);
}

/* ---- write callbacks ------------------------------------------------------ */

typedef struct span { const void *p; size_t n; } span;
typedef struct ext_case { int8_t type; const void *p; size_t n; } ext_case;
typedef struct ts_case { int64_t sec; uint32_t nsec; } ts_case;

static void w_nil(sp_writer *w, const void *c) { (void)c; sp_write_nil(w); }
static void w_bool(sp_writer *w, const void *c) { sp_write_bool(w, *(const int *)c); }
static void w_uint(sp_writer *w, const void *c) { sp_write_uint(w, *(const uint64_t *)c); }
static void w_int(sp_writer *w, const void *c) { sp_write_int(w, *(const int64_t *)c); }
static void w_float(sp_writer *w, const void *c) { sp_write_float(w, *(const float *)c); }
static void w_double(sp_writer *w, const void *c) { sp_write_double(w, *(const double *)c); }
static void w_arr(sp_writer *w, const void *c) { sp_write_array_header(w, *(const uint32_t *)c); }
static void w_map(sp_writer *w, const void *c) { sp_write_map_header(w, *(const uint32_t *)c); }

static void w_str(sp_writer *w, const void *c) {
  const span *s = c;
  sp_write_str(w, s->p, s->n);
}
static void w_bin(sp_writer *w, const void *c) {
  const span *s = c;
  sp_write_bin(w, s->p, s->n);
}
static void w_raw(sp_writer *w, const void *c) {
  const span *s = c;
  sp_write_raw(w, s->p, s->n);
}
static void w_utf16(sp_writer *w, const void *c) {
  const span *s = c;
  sp_write_str_utf16(w, s->p, s->n);
}
static void w_ext(sp_writer *w, const void *c) {
  const ext_case *e = c;
  sp_write_ext(w, e->type, e->p, e->n);
}
static void w_ts(sp_writer *w, const void *c) {
  const ts_case *t = c;
  sp_write_timestamp(w, t->sec, t->nsec);
}

/* ---- case shorthands: the value, then its expected bytes by hand ---------- */

static void uint_is(uint64_t v, const uint8_t *want, size_t n, int line) {
  expect_all(w_uint, &v, want, n, line);
}
static void int_is(int64_t v, const uint8_t *want, size_t n, int line) {
  expect_all(w_int, &v, want, n, line);
}
static void float_is(float v, const uint8_t *want, size_t n, int line) {
  expect_all(w_float, &v, want, n, line);
}
static void double_is(double v, const uint8_t *want, size_t n, int line) {
  expect_all(w_double, &v, want, n, line);
}
static void arr_is(uint32_t v, const uint8_t *want, size_t n, int line) {
  expect_all(w_arr, &v, want, n, line);
}
static void map_is(uint32_t v, const uint8_t *want, size_t n, int line) {
  expect_all(w_map, &v, want, n, line);
}
static void ts_is(int64_t sec, uint32_t nsec, const uint8_t *want, size_t n, int line) {
  ts_case t = {sec, nsec};
  expect_all(w_ts, &t, want, n, line);
}

#define UINT_IS(v, ...) uint_is((v), BYTES(__VA_ARGS__), __LINE__)
#define INT_IS(v, ...) int_is((v), BYTES(__VA_ARGS__), __LINE__)
#define FLOAT_IS(v, ...) float_is((v), BYTES(__VA_ARGS__), __LINE__)
#define DOUBLE_IS(v, ...) double_is((v), BYTES(__VA_ARGS__), __LINE__)
#define ARR_IS(v, ...) arr_is((v), BYTES(__VA_ARGS__), __LINE__)
#define MAP_IS(v, ...) map_is((v), BYTES(__VA_ARGS__), __LINE__)
#define TS_IS(sec, nsec, ...) ts_is((sec), (nsec), BYTES(__VA_ARGS__), __LINE__)

/* A payload of len pattern bytes written by fn; expected = hdr + payload. */
static void payload_is(write_fn fn, size_t len, const uint8_t *hdr, size_t hn, int line) {
  uint8_t *body = pattern(len, (uint32_t)len);
  span s = {body, len};
  expect_framed(fn, &s, hdr, hn, body, len, line);
  free(body);
}

static void ext_is(int8_t type, size_t len, const uint8_t *hdr, size_t hn, int line) {
  uint8_t *body = pattern(len, (uint32_t)len + 7u);
  ext_case e = {type, body, len};
  expect_framed(w_ext, &e, hdr, hn, body, len, line);
  free(body);
}

#define STR_IS(len, ...) payload_is(w_str, (len), BYTES(__VA_ARGS__), __LINE__)
#define BIN_IS(len, ...) payload_is(w_bin, (len), BYTES(__VA_ARGS__), __LINE__)
#define EXT_IS(type, len, ...) ext_is((type), (len), BYTES(__VA_ARGS__), __LINE__)

/* ---- UTF-16 text with its UTF-8 written by hand, character by character --- */

typedef struct text {
  uint16_t *u; size_t nu, cap_u;
  uint8_t *b; size_t nb, cap_b;
} text;

static text text_new(size_t max_units) {
  text t = {xmalloc(max_units * 2), 0, max_units, xmalloc(max_units * 3), 0, max_units * 3};
  return t;
}

static void text_free(text *t) { free(t->u); free(t->b); }

/* Appends 'times' copies of one character: its units and its UTF-8 bytes. */
static void text_add(text *t, size_t times, const uint16_t *u, size_t nu, const uint8_t *b,
                     size_t nb) {
  if (t->nu + times * nu > t->cap_u || t->nb + times * nb > t->cap_b) abort();
  for (size_t i = 0; i < times; i++) {
    memcpy(t->u + t->nu, u, nu * 2); t->nu += nu;
    memcpy(t->b + t->nb, b, nb); t->nb += nb;
  }
}

#define ASCII(c) UNITS(c), BYTES(c)
#define E_ACUTE UNITS(0x00e9), BYTES(0xc3, 0xa9)                    /* U+00E9 */
#define HAN UNITS(0xd55c), BYTES(0xed, 0x95, 0x9c)                  /* U+D55C */
#define GRIN UNITS(0xd83d, 0xde00), BYTES(0xf0, 0x9f, 0x98, 0x80)   /* U+1F600 */
#define LONE_HIGH UNITS(0xd800), BYTES(0xef, 0xbf, 0xbd)            /* -> U+FFFD */
#define LONE_LOW UNITS(0xdc00), BYTES(0xef, 0xbf, 0xbd)             /* -> U+FFFD */

/* The text's UTF-8 must be 'nbytes' long (counted by hand) and come after
** the hand-written header. */
static void utf16_is(const text *t, size_t nbytes, const uint8_t *hdr, size_t hn, int line) {
  span s = {t->u, t->nu};
  if (!CHECK(t->nb == nbytes)) fprintf(stderr, "      test text at line %d\n", line);
  expect_framed(w_utf16, &s, hdr, hn, t->b, t->nb, line);
}

#define UTF16_IS(t, nbytes, ...) utf16_is((t), (nbytes), BYTES(__VA_ARGS__), __LINE__)

/* ---- nil, bool ------------------------------------------------------------ */

static void nil_is_c0(void) { expect_all(w_nil, NULL, BYTES(0xc0), __LINE__); }

static void bools_are_c2_and_c3_any_nonzero_is_true(void) {
  int f = 0, t = 1, other = 2;
  expect_all(w_bool, &f, BYTES(0xc2), __LINE__);
  expect_all(w_bool, &t, BYTES(0xc3), __LINE__);
  expect_all(w_bool, &other, BYTES(0xc3), __LINE__);
}

/* ---- unsigned ------------------------------------------------------------- */

static void uint_uses_positive_fixint_up_to_127(void) {
  UINT_IS(0, 0x00);
  UINT_IS(1, 0x01);
  UINT_IS(127, 0x7f);
}

static void uint_uses_cc_from_128(void) {
  UINT_IS(128, 0xcc, 0x80);
  UINT_IS(255, 0xcc, 0xff);
}

static void uint_uses_cd_from_256(void) {
  UINT_IS(256, 0xcd, 0x01, 0x00);
  UINT_IS(65535, 0xcd, 0xff, 0xff);
}

static void uint_uses_ce_from_65536(void) {
  UINT_IS(65536, 0xce, 0x00, 0x01, 0x00, 0x00);
  UINT_IS(0xffffffffu, 0xce, 0xff, 0xff, 0xff, 0xff);
}

static void uint_uses_cf_from_2_pow_32_to_max(void) {
  UINT_IS((uint64_t)1 << 32, 0xcf, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00);
  UINT_IS(0x0123456789abcdefu, 0xcf, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef);
  UINT_IS(UINT64_MAX, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
}

/* ---- signed --------------------------------------------------------------- */

static void int_uses_negative_fixint_down_to_minus_32(void) {
  INT_IS(-1, 0xff);
  INT_IS(-32, 0xe0);
}

static void int_uses_d0_from_minus_33_to_minus_128(void) {
  INT_IS(-33, 0xd0, 0xdf);
  INT_IS(-128, 0xd0, 0x80);
}

static void int_uses_d1_from_minus_129_to_minus_32768(void) {
  INT_IS(-129, 0xd1, 0xff, 0x7f);
  INT_IS(-32768, 0xd1, 0x80, 0x00);
}

static void int_uses_d2_from_minus_32769_to_int32_min(void) {
  INT_IS(-32769, 0xd2, 0xff, 0xff, 0x7f, 0xff);
  INT_IS(INT32_MIN, 0xd2, 0x80, 0x00, 0x00, 0x00);
}

static void int_uses_d3_below_int32_min_to_int64_min(void) {
  INT_IS((int64_t)INT32_MIN - 1, 0xd3, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff);
  INT_IS(INT64_MIN, 0xd3, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
}

/* A non-negative int is written exactly like the same uint (smallest form). */
static void nonnegative_int_takes_unsigned_forms(void) {
  INT_IS(0, 0x00);
  INT_IS(127, 0x7f);
  INT_IS(128, 0xcc, 0x80);
  INT_IS(200, 0xcc, 0xc8);
  INT_IS(255, 0xcc, 0xff);
  INT_IS(256, 0xcd, 0x01, 0x00);
  INT_IS(65535, 0xcd, 0xff, 0xff);
  INT_IS(65536, 0xce, 0x00, 0x01, 0x00, 0x00);
  INT_IS(0xffffffff, 0xce, 0xff, 0xff, 0xff, 0xff);
  INT_IS((int64_t)1 << 32, 0xcf, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00);
  INT_IS(INT64_MAX, 0xcf, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
}

/* ---- floats --------------------------------------------------------------- */

static void float_is_ca_with_big_endian_ieee754_bits(void) {
  FLOAT_IS(1.5f, 0xca, 0x3f, 0xc0, 0x00, 0x00);
  FLOAT_IS(0.0f, 0xca, 0x00, 0x00, 0x00, 0x00);
  FLOAT_IS(-0.0f, 0xca, 0x80, 0x00, 0x00, 0x00);
  FLOAT_IS(0.1f, 0xca, 0x3d, 0xcc, 0xcc, 0xcd);
  FLOAT_IS(0x1p-149f, 0xca, 0x00, 0x00, 0x00, 0x01);           /* smallest subnormal */
  FLOAT_IS(0x1.fffffep127f, 0xca, 0x7f, 0x7f, 0xff, 0xff);      /* FLT_MAX */
  FLOAT_IS(INFINITY, 0xca, 0x7f, 0x80, 0x00, 0x00);
}

/* A double that a float could hold exactly is still written as a double. */
static void double_is_cb_and_never_narrowed(void) {
  DOUBLE_IS(1.5, 0xcb, 0x3f, 0xf8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
  DOUBLE_IS(1.0, 0xcb, 0x3f, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
  DOUBLE_IS(0.0, 0xcb, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
  DOUBLE_IS(-0.0, 0xcb, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
  DOUBLE_IS(-2.0, 0xcb, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
  DOUBLE_IS(0.1, 0xcb, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a);
  DOUBLE_IS(0x1p-1074, 0xcb, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01);
  DOUBLE_IS(0x1.fffffffffffffp1023, 0xcb, 0x7f, 0xef, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
  DOUBLE_IS((double)INFINITY, 0xcb, 0x7f, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
}

/* ---- str from UTF-8 bytes ------------------------------------------------- */

static void str_uses_fixstr_up_to_31_bytes(void) {
  STR_IS(0, 0xa0);
  STR_IS(1, 0xa1);
  STR_IS(31, 0xbf);
}

static void str_uses_d9_from_32_to_255_bytes(void) {
  STR_IS(32, 0xd9, 0x20);
  STR_IS(255, 0xd9, 0xff);
}

static void str_uses_da_from_256_to_65535_bytes(void) {
  STR_IS(256, 0xda, 0x01, 0x00);
  STR_IS(65535, 0xda, 0xff, 0xff);
}

static void str_uses_db_from_65536_bytes(void) {
  STR_IS(65536, 0xdb, 0x00, 0x01, 0x00, 0x00);
}

/* Every length across the inline word copies (1-3, 4-7, 8-15, 16-31 bytes)
** and the fixstr/d9 edge: the header, then the bytes, none more. The body is
** copied to an exact-size heap block, so a word read past its end is an
** ASan report. */
/* The str header for n bytes, written by hand (fixstr, d9, da, db); returns its size. */
static size_t str_header(size_t n, uint8_t hdr[5]) {
  if (n <= 31) { hdr[0] = (uint8_t)(0xa0 | n); return 1; }
  if (n <= 255) { hdr[0] = 0xd9; hdr[1] = (uint8_t)n; return 2; }
  if (n <= 65535) { hdr[0] = 0xda; hdr[1] = (uint8_t)(n >> 8); hdr[2] = (uint8_t)n; return 3; }
  hdr[0] = 0xdb; hdr[1] = (uint8_t)(n >> 24); hdr[2] = (uint8_t)(n >> 16);
  hdr[3] = (uint8_t)(n >> 8); hdr[4] = (uint8_t)n;
  return 5;
}

static void str_of_every_length_to_40_is_its_header_and_bytes(void) {
  for (size_t n = 0; n <= 40; n++) {
    uint8_t hdr[5];
    size_t hn = str_header(n, hdr);
    payload_is(w_str, n, hdr, hn, __LINE__);
  }
}

/* w_put_str: one reservation of the worst case, then sp_put_str. */
static void w_put_str(sp_writer *w, const void *c) {
  const span *s = c;
  uint8_t *p = sp_writer_reserve(w, s->n + 5);
  if (p) sp_writer_advance(w, (size_t)(sp_put_str(p, s->p, s->n) - p));
}

/* hdr + n pattern bytes written by w_put_str in every mode and migration
** point (not into an exact-size fixed output: the reservation asks for the
** worst case, 5 header bytes). */
static void put_str_is(size_t n, const uint8_t *hdr, size_t hn, int line) {
  uint8_t *body = pattern(n, (uint32_t)n), *want = xmalloc(hn + n);
  span s = {body, n};
  memcpy(want, hdr, hn);
  if (n) memcpy(want + hn, body, n);
  for (size_t i = 0; i < NRUNS; i++) check_run(&RUNS[i], w_put_str, &s, want, hn + n, line);
  free(want);
  free(body);
}

/* sp_put_str (the reservation contract) writes the same bytes as
** sp_write_str at every length across its inline copies and each header
** form. */
static void put_str_writes_what_write_str_writes_at_every_length(void) {
  static const size_t lens[] = {300, 65535, 65536};
  uint8_t hdr[5];
  for (size_t n = 0; n <= 260; n++) put_str_is(n, hdr, str_header(n, hdr), __LINE__);
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
    put_str_is(lens[i], hdr, str_header(lens[i], hdr), __LINE__);
}

/* ---- str from UTF-16 units: encoding -------------------------------------- */

static void str_utf16_ascii_is_one_byte_per_unit(void) {
  text t = text_new(4);
  UTF16_IS(&t, 0, 0xa0);                         /* empty string */
  text_add(&t, 1, ASCII('H'));
  text_add(&t, 1, ASCII('i'));
  text_add(&t, 1, ASCII(0x7f));                  /* last one-byte code point */
  UTF16_IS(&t, 3, 0xa3);
  text_free(&t);
}

static void str_utf16_encodes_2_byte_chars(void) {
  text t = text_new(4);
  text_add(&t, 1, UNITS(0x0080), BYTES(0xc2, 0x80));   /* first two-byte code point */
  text_add(&t, 1, E_ACUTE);
  text_add(&t, 1, UNITS(0x07ff), BYTES(0xdf, 0xbf));   /* last two-byte code point */
  UTF16_IS(&t, 6, 0xa6);
  text_free(&t);
}

static void str_utf16_encodes_3_byte_chars_like_korean(void) {
  text t = text_new(4);
  text_add(&t, 1, UNITS(0x0800), BYTES(0xe0, 0xa0, 0x80));   /* first three-byte */
  text_add(&t, 1, HAN);
  text_add(&t, 1, UNITS(0xffff), BYTES(0xef, 0xbf, 0xbf));   /* last BMP code point */
  UTF16_IS(&t, 9, 0xa9);
  text_free(&t);
}

static void str_utf16_encodes_surrogate_pairs_as_4_bytes(void) {
  text t = text_new(8);
  text_add(&t, 1, UNITS(0xd800, 0xdc00), BYTES(0xf0, 0x90, 0x80, 0x80));   /* U+10000 */
  text_add(&t, 1, GRIN);
  text_add(&t, 1, UNITS(0xdbff, 0xdfff), BYTES(0xf4, 0x8f, 0xbf, 0xbf));   /* U+10FFFF */
  UTF16_IS(&t, 12, 0xac);
  text_free(&t);
}

static void str_utf16_lone_surrogates_become_ef_bf_bd(void) {
  text t = text_new(8);
  text_add(&t, 1, LONE_HIGH);       /* high followed by a non-surrogate */
  text_add(&t, 1, ASCII('A'));
  text_add(&t, 1, LONE_LOW);        /* low with no high before it */
  text_add(&t, 1, UNITS(0xdc00), BYTES(0xef, 0xbf, 0xbd));   /* reversed pair: low ... */
  text_add(&t, 1, UNITS(0xd800), BYTES(0xef, 0xbf, 0xbd));   /* ... then high */
  text_add(&t, 1, ASCII('B'));
  text_add(&t, 1, LONE_HIGH);       /* high as the very last unit */
  UTF16_IS(&t, 17, 0xb1);
  text_free(&t);
}

/* ---- str from UTF-16 units: the header guessed from the unit count -------- */

static void str_guess_moves_body_when_utf16_grows_header_from_1_to_2(void) {
  text t = text_new(40);
  text_add(&t, 10, HAN);            /* 30 bytes: the fixstr guess holds */
  UTF16_IS(&t, 30, 0xbe);
  text_add(&t, 1, HAN);             /* 11 units, 33 bytes: guess 1, needs 2 */
  UTF16_IS(&t, 33, 0xd9, 0x21);
  text_add(&t, 20, HAN);            /* 31 units, 93 bytes */
  UTF16_IS(&t, 93, 0xd9, 0x5d);
  text_free(&t);
}

static void str_guess_moves_body_for_one_extra_byte(void) {
  text t = text_new(40);
  text_add(&t, 30, ASCII('a'));
  text_add(&t, 1, E_ACUTE);         /* 31 units, 32 bytes */
  UTF16_IS(&t, 32, 0xd9, 0x20);
  text_free(&t);
}

static void str_guess_moves_body_when_utf16_grows_header_from_2_to_3(void) {
  text t = text_new(300);
  text_add(&t, 100, HAN);           /* 100 units, 300 bytes */
  UTF16_IS(&t, 300, 0xda, 0x01, 0x2c);
  text_free(&t);
  t = text_new(300);
  text_add(&t, 254, ASCII('a'));
  text_add(&t, 1, E_ACUTE);         /* 255 units, 256 bytes */
  UTF16_IS(&t, 256, 0xda, 0x01, 0x00);
  text_free(&t);
}

static void str_guess_holds_when_pairs_double_the_bytes(void) {
  text t = text_new(40);
  text_add(&t, 16, GRIN);           /* 32 units, 64 bytes: guess d9 holds */
  UTF16_IS(&t, 64, 0xd9, 0x40);
  text_free(&t);
}

static void str_utf16_at_255_and_256_unit_edges(void) {
  text t = text_new(300);
  text_add(&t, 31, ASCII('a'));
  UTF16_IS(&t, 31, 0xbf);
  text_add(&t, 1, ASCII('a'));
  UTF16_IS(&t, 32, 0xd9, 0x20);
  text_add(&t, 223, ASCII('a'));
  UTF16_IS(&t, 255, 0xd9, 0xff);
  text_add(&t, 1, ASCII('a'));
  UTF16_IS(&t, 256, 0xda, 0x01, 0x00);
  text_free(&t);
  t = text_new(300);
  text_add(&t, 85, HAN);            /* 85 units, 255 bytes: still d9 */
  UTF16_IS(&t, 255, 0xd9, 0xff);
  text_add(&t, 170, HAN);           /* 255 units, 765 bytes */
  UTF16_IS(&t, 765, 0xda, 0x02, 0xfd);
  text_add(&t, 1, HAN);             /* 256 units, 768 bytes */
  UTF16_IS(&t, 768, 0xda, 0x03, 0x00);
  text_free(&t);
}

/* 8192 units is the largest string encoded in one guessed reservation. */
static void str_utf16_guess_path_at_8192_units(void) {
  text t = text_new(8192);
  text_add(&t, 8192, HAN);          /* 24576 bytes */
  UTF16_IS(&t, 24576, 0xda, 0x60, 0x00);
  text_free(&t);
}

/* ---- str from UTF-16 units: counted first, encoded in 4096-unit chunks ---- */

static void str_utf16_counted_path_from_8193_units(void) {
  text t = text_new(8193);
  text_add(&t, 4096, HAN);          /* units 0..4095: exactly the first chunk */
  text_add(&t, 1, LONE_LOW);        /* unit 4096: a low surrogate opening chunk 2 */
  text_add(&t, 4096, ASCII('z'));   /* 8193 units, 12288 + 3 + 4096 = 16387 bytes */
  UTF16_IS(&t, 16387, 0xda, 0x40, 0x03);
  text_free(&t);
}

/* Pairs at units 4095/4096 and (after the first chunk shrank by one) at
** 8190/8191 straddle chunk edges; lone surrogates sit right behind them. */
static void str_utf16_chunks_keep_pairs_that_straddle_chunk_edges(void) {
  text t = text_new(9996);
  text_add(&t, 4095, ASCII('a'));   /* 4095 bytes */
  text_add(&t, 1, GRIN);            /* units 4095-4096, 4 bytes */
  text_add(&t, 4093, HAN);          /* units 4097-8189, 12279 bytes */
  text_add(&t, 1, GRIN);            /* units 8190-8191, 4 bytes */
  text_add(&t, 1, LONE_HIGH);       /* unit 8192, 3 bytes */
  text_add(&t, 1, ASCII('x'));      /* unit 8193, 1 byte */
  text_add(&t, 1, LONE_LOW);        /* unit 8194, 3 bytes */
  text_add(&t, 1800, E_ACUTE);      /* units 8195-9994, 3600 bytes */
  text_add(&t, 1, LONE_HIGH);       /* unit 9995, last: 3 bytes */
  CHECK(t.nu == 9996);
  UTF16_IS(&t, 19992, 0xda, 0x4e, 0x18);
  text_free(&t);
}

static void str_utf16_counted_path_uses_db_past_65535_bytes(void) {
  text t = text_new(21846);
  text_add(&t, 21845, HAN);         /* 65535 bytes */
  UTF16_IS(&t, 65535, 0xda, 0xff, 0xff);
  text_add(&t, 1, HAN);             /* 65538 bytes */
  UTF16_IS(&t, 65538, 0xdb, 0x00, 0x01, 0x00, 0x02);
  text_free(&t);
}

/* ---- bin ------------------------------------------------------------------ */

static void bin_uses_c4_up_to_255_bytes(void) {
  BIN_IS(0, 0xc4, 0x00);
  BIN_IS(1, 0xc4, 0x01);
  BIN_IS(255, 0xc4, 0xff);
}

static void bin_uses_c5_from_256_to_65535_bytes(void) {
  BIN_IS(256, 0xc5, 0x01, 0x00);
  BIN_IS(65535, 0xc5, 0xff, 0xff);
}

static void bin_uses_c6_from_65536_bytes(void) {
  BIN_IS(65536, 0xc6, 0x00, 0x01, 0x00, 0x00);
}

/* ---- array and map headers ------------------------------------------------ */

static void array_header_is_fixarray_up_to_15_then_dc_dd(void) {
  ARR_IS(0, 0x90);
  ARR_IS(15, 0x9f);
  ARR_IS(16, 0xdc, 0x00, 0x10);
  ARR_IS(65535, 0xdc, 0xff, 0xff);
  ARR_IS(65536, 0xdd, 0x00, 0x01, 0x00, 0x00);
  ARR_IS(UINT32_MAX, 0xdd, 0xff, 0xff, 0xff, 0xff);
}

static void map_header_is_fixmap_up_to_15_then_de_df(void) {
  MAP_IS(0, 0x80);
  MAP_IS(15, 0x8f);
  MAP_IS(16, 0xde, 0x00, 0x10);
  MAP_IS(65535, 0xde, 0xff, 0xff);
  MAP_IS(65536, 0xdf, 0x00, 0x01, 0x00, 0x00);
  MAP_IS(UINT32_MAX, 0xdf, 0xff, 0xff, 0xff, 0xff);
}

/* ---- ext ------------------------------------------------------------------ */

static void ext_uses_fixext_for_1_2_4_8_16_bytes(void) {
  EXT_IS(5, 1, 0xd4, 0x05);
  EXT_IS(5, 2, 0xd5, 0x05);
  EXT_IS(5, 4, 0xd6, 0x05);
  EXT_IS(5, 8, 0xd7, 0x05);
  EXT_IS(5, 16, 0xd8, 0x05);
}

static void ext_uses_c7_for_other_lengths_up_to_255(void) {
  EXT_IS(7, 0, 0xc7, 0x00, 0x07);
  EXT_IS(7, 3, 0xc7, 0x03, 0x07);
  EXT_IS(7, 5, 0xc7, 0x05, 0x07);
  EXT_IS(7, 17, 0xc7, 0x11, 0x07);
  EXT_IS(7, 255, 0xc7, 0xff, 0x07);
}

static void ext_uses_c8_from_256_to_65535(void) {
  EXT_IS(7, 256, 0xc8, 0x01, 0x00, 0x07);
  EXT_IS(7, 65535, 0xc8, 0xff, 0xff, 0x07);
}

static void ext_uses_c9_from_65536(void) {
  EXT_IS(7, 65536, 0xc9, 0x00, 0x01, 0x00, 0x00, 0x07);
}

static void ext_type_is_a_twos_complement_byte(void) {
  EXT_IS(-1, 1, 0xd4, 0xff);
  EXT_IS(-128, 4, 0xd6, 0x80);
  EXT_IS(127, 8, 0xd7, 0x7f);
  EXT_IS(-2, 3, 0xc7, 0x03, 0xfe);
  EXT_IS(-100, 256, 0xc8, 0x01, 0x00, 0x9c);
  EXT_IS(-128, 65536, 0xc9, 0x00, 0x01, 0x00, 0x00, 0x80);
}

/* ---- timestamp ext -1 ------------------------------------------------------ */

static void timestamp_32bit_for_whole_seconds_below_2_pow_32(void) {
  TS_IS(0, 0, 0xd6, 0xff, 0x00, 0x00, 0x00, 0x00);
  TS_IS(1700000000, 0, 0xd6, 0xff, 0x65, 0x53, 0xf1, 0x00);
  TS_IS(0xffffffff, 0, 0xd6, 0xff, 0xff, 0xff, 0xff, 0xff);
}

/* 64-bit form: nsec in the top 30 bits, sec in the low 34. */
static void timestamp_64bit_for_nsec_or_seconds_below_2_pow_34(void) {
  TS_IS(0, 1, 0xd7, 0xff, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00);
  TS_IS(1, 1, 0xd7, 0xff, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01);
  TS_IS((int64_t)1 << 32, 0, 0xd7, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00);
  TS_IS(((int64_t)1 << 34) - 1, 0, 0xd7, 0xff, 0x00, 0x00, 0x00, 0x03, 0xff, 0xff, 0xff,
        0xff);
  /* 999999999 = 0x3B9AC9FF; << 34 = 0xEE6B27FC_00000000 */
  TS_IS(((int64_t)1 << 34) - 1, 999999999, 0xd7, 0xff, 0xee, 0x6b, 0x27, 0xff, 0xff, 0xff,
        0xff, 0xff);
}

static void timestamp_96bit_for_negative_or_from_2_pow_34(void) {
  TS_IS((int64_t)1 << 34, 0, 0xc7, 0x0c, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x04, 0x00, 0x00, 0x00, 0x00);
  TS_IS(-1, 0, 0xc7, 0x0c, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff);
  /* 500000000 = 0x1DCD6500 */
  TS_IS(-1, 500000000, 0xc7, 0x0c, 0xff, 0x1d, 0xcd, 0x65, 0x00, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff);
  TS_IS(INT64_MIN, 0, 0xc7, 0x0c, 0xff, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00);
  TS_IS(INT64_MAX, 999999999, 0xc7, 0x0c, 0xff, 0x3b, 0x9a, 0xc9, 0xff, 0x7f, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff);
}

static void timestamp_nsec_of_a_second_or_more_is_value_error(void) {
  ts_case at_1e9 = {0, 1000000000u}, max = {5, UINT32_MAX};
  expect_error_all(w_ts, &at_1e9, SP_E_VALUE_RANGE, __LINE__);
  expect_error_all(w_ts, &max, SP_E_VALUE_RANGE, __LINE__);
}

/* ---- big payloads across segments ----------------------------------------- */

/* 30,000 bytes leave a small tail in the first 32 KiB segment, so the
** 100,000 and 300,000 that follow must continue across segments. */
static void w_three_raws(sp_writer *w, const void *c) {
  const uint8_t *body = c;
  sp_write_raw(w, body, 30000);
  sp_write_raw(w, body + 30000, 100000);
  sp_write_raw(w, body + 130000, 300000);
}

static void raw_100k_and_300k_span_segments_and_come_back_identical(void) {
  uint8_t *body = pattern(430000, 99);
  span s100 = {body, 100000}, s300 = {body, 300000};
  sp_buffer out;
  run seq = {RUN_SEQUENCE, 0, 0};
  result res;
  expect_all(w_raw, &s100, body, 100000, __LINE__);
  expect_all(w_raw, &s300, body, 300000, __LINE__);
  expect_all(w_three_raws, body, body, 430000, __LINE__);
  sp_buffer_init(&out);
  res = produce(&seq, w_three_raws, body, &out);
  CHECK(res.code == SP_OK);
  CHECK(res.nsegs >= 3);            /* the point: they did span segments */
  sp_buffer_free(&out);
  free(body);
}

static void big_str_and_bin_keep_header_and_body_across_segments(void) {
  STR_IS(100000, 0xdb, 0x00, 0x01, 0x86, 0xa0);
  STR_IS(300000, 0xdb, 0x00, 0x04, 0x93, 0xe0);
  BIN_IS(100000, 0xc6, 0x00, 0x01, 0x86, 0xa0);
  BIN_IS(300000, 0xc6, 0x00, 0x04, 0x93, 0xe0);
}

/* ---- a fixed output that is too small --------------------------------------- */

/* Too small: SP_E_BUFFER_TOO_SMALL, nothing past the array, and whatever was
** committed is a true prefix of the full encoding. */
static void fixed_too_small(size_t cap, write_fn fn, const void *ctx, const uint8_t *want,
                            size_t n, int line) {
  uint8_t *mem = xmalloc(cap + GUARD);
  size_t len = 0;
  sp_code code = run_fixed(cap, 0, fn, ctx, mem, &len);
  int ok = CHECK(code == SP_E_BUFFER_TOO_SMALL);
  ok &= CHECK(len <= cap && len < n);
  ok &= CHECK(guard_intact(mem, cap));
  ok &= CHECK_BYTES(mem, len, want, len <= n ? len : n);
  if (!ok) fprintf(stderr, "      fixed output of %zu, case at line %d\n", cap, line);
  free(mem);
}

static void fixed_output_too_small_is_output_error_and_never_overruns(void) {
  uint64_t big = (uint64_t)1 << 32;
  uint32_t count = 70000;
  uint8_t *body = pattern(1000, 3);
  uint8_t want[1005] = {0xc5, 0x03, 0xe8};          /* bin 16: length 1000 */
  span s10 = {body, 10}, s1000 = {body, 1000};
  ts_case ts = {-1, 0};
  memcpy(want + 3, body, 1000);
  fixed_too_small(4, w_uint, &big, BYTES(0xcf, 0, 0, 0, 1, 0, 0, 0, 0), __LINE__);
  fixed_too_small(2, w_arr, &count, BYTES(0xdd, 0x00, 0x01, 0x11, 0x70), __LINE__);
  fixed_too_small(8, w_ts, &ts, BYTES(0xc7, 0x0c, 0xff, 0, 0, 0, 0, 0xff), __LINE__);
  fixed_too_small(100, w_bin, &s1000, want, 1003, __LINE__);
  want[0] = 0xaa;                                   /* fixstr of 10 bytes */
  memcpy(want + 1, body, 10);
  fixed_too_small(8, w_str, &s10, want, 11, __LINE__);
  free(body);
}

static void fixed_output_too_small_for_utf16_never_overruns(void) {
  text t = text_new(8193);
  span s;
  uint8_t *want;
  text_add(&t, 31, HAN);                            /* guessed path: 93 bytes */
  s.p = t.u; s.n = t.nu;
  want = xmalloc(2 + t.nb);
  want[0] = 0xd9; want[1] = 0x5d;
  memcpy(want + 2, t.b, t.nb);
  fixed_too_small(16, w_utf16, &s, want, 2 + t.nb, __LINE__);
  free(want);
  text_free(&t);
  t = text_new(8193);
  text_add(&t, 8193, HAN);                          /* counted path: 24579 bytes */
  s.p = t.u; s.n = t.nu;
  want = xmalloc(3 + t.nb);
  want[0] = 0xda; want[1] = 0x60; want[2] = 0x03;
  memcpy(want + 3, t.b, t.nb);
  fixed_too_small(1000, w_utf16, &s, want, 3 + t.nb, __LINE__);
  free(want);
  text_free(&t);
}

/* A str whose header and body exactly fill the array succeeds. */
static void fixed_output_can_fill_to_its_last_byte(void) {
  uint8_t *body = pattern(40, 5), *mem = xmalloc(42 + GUARD), want[42] = {0xd9, 40};
  span s = {body, 40};
  size_t len = 0;
  memcpy(want + 2, body, 40);
  CHECK(run_fixed(42, 0, w_str, &s, mem, &len) == SP_OK);
  CHECK_BYTES(mem, len, want, 42);
  CHECK(guard_intact(mem, 42));
  free(mem);
  free(body);
}

/* ---- sticky errors ---------------------------------------------------------- */

/* A value the worst case of which does not fit is staged in the writer:
** the output error comes when its real size is known (the next span or the
** flush), and then stays. */
static void error_stays_output_after_fixed_output_failure(void) {
  uint8_t mem[4 + GUARD], body[20] = {0};
  sp_buffer fixed;
  sp_output o;
  sp_writer w;
  uint64_t at;
  memset(mem, 0xa5, sizeof mem);
  sp_buffer_init(&fixed);
  fixed.data = mem;
  fixed.cap = 4;
  o = sp_fixed_output(&fixed);
  sp_writer_init_output(&w, &o);
  sp_write_nil(&w);
  sp_write_uint(&w, (uint64_t)1 << 32);             /* 5 bytes: 6 in all, 4 fit */
  CHECK(w.err.code == SP_OK);
  sp_write_raw(&w, body, sizeof body);              /* the next span: SP_E_BUFFER_TOO_SMALL */
  CHECK(w.err.code == SP_E_BUFFER_TOO_SMALL);
  at = sp_writer_length(&w);
  sp_write_timestamp(&w, 0, 2000000000u);           /* would be SP_E_VALUE_RANGE */
  sp_write_nil(&w);
  sp_write_str(&w, "abc", 3);
  sp_write_bin(&w, "abc", 3);
  sp_write_ext(&w, 1, "abcd", 4);
  sp_write_raw(&w, "x", 1);
  CHECK(w.err.code == SP_E_BUFFER_TOO_SMALL);
  CHECK(sp_writer_length(&w) == at);                /* nothing written after it */
  CHECK(sp_writer_flush(&w) == SP_E_BUFFER_TOO_SMALL);
  CHECK(fixed.len == 1 && mem[0] == 0xc0);
  CHECK(mem[1] == 0xa5 && mem[2] == 0xa5 && mem[3] == 0xa5);   /* nothing after the nil */
  CHECK(guard_intact(mem, 4));
  sp_writer_release(&w);
}

/* [1] is 91 01: a 5-byte array header reservation and a 9-byte int one,
** neither of which a 2-byte output can give. */
static void w_one_array(sp_writer *w, const void *c) {
  (void)c;
  sp_write_array_header(w, 1);
  sp_write_int(w, 1);
}

static void one_element_array_fills_a_two_byte_fixed_output(void) {
  static const uint8_t want[] = {0x91, 0x01};
  uint8_t mem[2 + GUARD];
  size_t len = 0;
  CHECK(run_fixed(2, 0, w_one_array, NULL, mem, &len) == SP_OK);
  CHECK_BYTES(mem, len, want, sizeof want);
  CHECK(guard_intact(mem, 2));
}

/* Inside every mode: the first error (SP_E_VALUE_RANGE) stays, and nothing more
** is written. */
static void w_value_error_then_more(sp_writer *w, const void *c) {
  static const uint16_t units[] = {0xd55c, 0x41};
  uint64_t before;
  (void)c;
  sp_write_timestamp(w, 0, 1000000000u);
  before = sp_writer_length(w);
  sp_write_nil(w);
  sp_write_uint(w, UINT64_MAX);
  sp_write_str(w, "hello", 5);
  sp_write_str_utf16(w, units, 2);
  sp_write_bin(w, "abc", 3);
  sp_write_ext(w, -1, "abcd", 4);
  sp_write_array_header(w, 3);
  sp_write_timestamp(w, 1, 0);
  sp_write_timestamp(w, 1, 1000000000u);
  CHECK(w->err.code == SP_E_VALUE_RANGE);
  CHECK(sp_writer_length(w) == before);
}

static void first_error_wins_and_later_writes_are_noops(void) {
  expect_error_all(w_value_error_then_more, NULL, SP_E_VALUE_RANGE, __LINE__);
}

#if SIZE_MAX > 0xffffffffu
/* Lengths past 2^32-1 are refused before a byte of the source is read
** (the source is one real byte: ASan would catch a read). */
static const uint8_t one_byte[1] = {0};
/* Huge length, opaque to the optimizer: gcc -O3 otherwise warns about the
** fast path's memcpy that the length check makes unreachable. */
static volatile size_t huge_len = (size_t)1 << 32;
static void w_huge_str(sp_writer *w, const void *c) {
  (void)c;
  sp_write_str(w, (const char *)one_byte, huge_len);
}
static void w_huge_bin(sp_writer *w, const void *c) {
  (void)c;
  sp_write_bin(w, one_byte, huge_len);
}
static void w_huge_ext(sp_writer *w, const void *c) {
  (void)c;
  sp_write_ext(w, 1, one_byte, huge_len);
}
#endif

static void lengths_past_4gib_are_limit_errors_without_reading(void) {
#if SIZE_MAX > 0xffffffffu
  expect_error_all(w_huge_str, NULL, SP_E_LENGTH_LIMIT, __LINE__);
  expect_error_all(w_huge_bin, NULL, SP_E_LENGTH_LIMIT, __LINE__);
  expect_error_all(w_huge_ext, NULL, SP_E_LENGTH_LIMIT, __LINE__);
#endif
}

/* The fixed-size schema path starts a writer over no memory at all. Clang's
** UBSan reports NULL + 0 (it is undefined), so the writer must not compute
** it; the first reservation then migrates as with any full scratch. */
static void array_writer_over_no_memory_starts_empty_and_migrates(void) {
  sp_writer w;
  sp_buffer out;
  sp_writer_init_array(&w, NULL, 0, NULL);
  CHECK(w.cur == NULL && w.end == NULL && w.base == NULL && sp_writer_length(&w) == 0);
  sp_write_nil(&w);
  CHECK(sp_writer_flush(&w) == SP_OK && w.mode == SP_MODE_SEQUENCE);
  sp_buffer_init(&out);
  collect(&w, NULL, &out);
  CHECK(out.len == 1 && out.data[0] == 0xc0);
  sp_buffer_free(&out);
  sp_writer_release(&w);
}

int main(void) {
  SP_RUN(nil_is_c0);
  SP_RUN(bools_are_c2_and_c3_any_nonzero_is_true);
  SP_RUN(uint_uses_positive_fixint_up_to_127);
  SP_RUN(uint_uses_cc_from_128);
  SP_RUN(uint_uses_cd_from_256);
  SP_RUN(uint_uses_ce_from_65536);
  SP_RUN(uint_uses_cf_from_2_pow_32_to_max);
  SP_RUN(int_uses_negative_fixint_down_to_minus_32);
  SP_RUN(int_uses_d0_from_minus_33_to_minus_128);
  SP_RUN(int_uses_d1_from_minus_129_to_minus_32768);
  SP_RUN(int_uses_d2_from_minus_32769_to_int32_min);
  SP_RUN(int_uses_d3_below_int32_min_to_int64_min);
  SP_RUN(nonnegative_int_takes_unsigned_forms);
  SP_RUN(float_is_ca_with_big_endian_ieee754_bits);
  SP_RUN(double_is_cb_and_never_narrowed);
  SP_RUN(str_uses_fixstr_up_to_31_bytes);
  SP_RUN(str_of_every_length_to_40_is_its_header_and_bytes);
  SP_RUN(put_str_writes_what_write_str_writes_at_every_length);
  SP_RUN(str_uses_d9_from_32_to_255_bytes);
  SP_RUN(str_uses_da_from_256_to_65535_bytes);
  SP_RUN(str_uses_db_from_65536_bytes);
  SP_RUN(str_utf16_ascii_is_one_byte_per_unit);
  SP_RUN(str_utf16_encodes_2_byte_chars);
  SP_RUN(str_utf16_encodes_3_byte_chars_like_korean);
  SP_RUN(str_utf16_encodes_surrogate_pairs_as_4_bytes);
  SP_RUN(str_utf16_lone_surrogates_become_ef_bf_bd);
  SP_RUN(str_guess_moves_body_when_utf16_grows_header_from_1_to_2);
  SP_RUN(str_guess_moves_body_for_one_extra_byte);
  SP_RUN(str_guess_moves_body_when_utf16_grows_header_from_2_to_3);
  SP_RUN(str_guess_holds_when_pairs_double_the_bytes);
  SP_RUN(str_utf16_at_255_and_256_unit_edges);
  SP_RUN(str_utf16_guess_path_at_8192_units);
  SP_RUN(str_utf16_counted_path_from_8193_units);
  SP_RUN(str_utf16_chunks_keep_pairs_that_straddle_chunk_edges);
  SP_RUN(str_utf16_counted_path_uses_db_past_65535_bytes);
  SP_RUN(bin_uses_c4_up_to_255_bytes);
  SP_RUN(bin_uses_c5_from_256_to_65535_bytes);
  SP_RUN(bin_uses_c6_from_65536_bytes);
  SP_RUN(array_header_is_fixarray_up_to_15_then_dc_dd);
  SP_RUN(map_header_is_fixmap_up_to_15_then_de_df);
  SP_RUN(ext_uses_fixext_for_1_2_4_8_16_bytes);
  SP_RUN(ext_uses_c7_for_other_lengths_up_to_255);
  SP_RUN(ext_uses_c8_from_256_to_65535);
  SP_RUN(ext_uses_c9_from_65536);
  SP_RUN(ext_type_is_a_twos_complement_byte);
  SP_RUN(timestamp_32bit_for_whole_seconds_below_2_pow_32);
  SP_RUN(timestamp_64bit_for_nsec_or_seconds_below_2_pow_34);
  SP_RUN(timestamp_96bit_for_negative_or_from_2_pow_34);
  SP_RUN(timestamp_nsec_of_a_second_or_more_is_value_error);
  SP_RUN(raw_100k_and_300k_span_segments_and_come_back_identical);
  SP_RUN(big_str_and_bin_keep_header_and_body_across_segments);
  SP_RUN(fixed_output_too_small_is_output_error_and_never_overruns);
  SP_RUN(fixed_output_too_small_for_utf16_never_overruns);
  SP_RUN(fixed_output_can_fill_to_its_last_byte);
  SP_RUN(error_stays_output_after_fixed_output_failure);
  SP_RUN(one_element_array_fills_a_two_byte_fixed_output);
  SP_RUN(array_writer_over_no_memory_starts_empty_and_migrates);
  SP_RUN(first_error_wins_and_later_writes_are_noops);
  SP_RUN(lengths_past_4gib_are_limit_errors_without_reading);
  sp_shutdown();   /* the default pools go, so ASan's leak check sees nothing held */
  return sp_test_summary();
}
