/*
** test_reader.c -- the reader: every format reads back, peek of every first
** byte, type mismatches and sticky errors, truncation at every point, 0xc1
** at every value, limits checked before anything could be allocated,
** 10,000,000-deep nesting, segmented input with tokens straddling every
** boundary, and offsets that advance by exactly each token's size.
**
** Inputs are hand-written from the MessagePack spec (all lengths and numbers
** big-endian) or produced by the writer (whose own tests pin its bytes). The
** reader sees exact-size heap copies -- each segment its own block -- so
** ASan reports a read of even one byte past the input (the one exception is
** the pool-backed sequence, whose segments are larger than what they hold).
*/
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#ifndef SP_NO_THREADS
#include <pthread.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"
#include "sp_test.h"
#include "test_util.h"

/* ---- small helpers ------------------------------------------------------ */

#define BYTES(...) (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})

#define BODY_LEN 70000
static uint8_t *BODY;   /* str/bin/ext bodies are cut from here */

/* An exact-size heap copy of the input: nothing readable past its end. */
typedef struct input { uint8_t *p; size_t n; } input;

static input in_copy(const void *src, size_t n) {
  input in;
  in.p = malloc(n);               /* malloc(0) too: ASan makes every byte unreadable */
  in.n = n;
  if (n && in.p == NULL) abort();
  if (n) memcpy(in.p, src, n);
  return in;
}

/* head then tail, exact size */
static input framed(const uint8_t *head, size_t hn, const uint8_t *tail, size_t tn) {
  input in;
  in.n = hn + tn;
  in.p = malloc(in.n);
  if (in.n && in.p == NULL) abort();
  if (hn) memcpy(in.p, head, hn);
  if (tn) memcpy(in.p + hn, tail, tn);
  return in;
}

static void in_free(input *in) { free(in->p); in->p = NULL; in->n = 0; }

static const char *type_name(sp_type t) {
  static const char *const names[] = {"END", "NIL", "BOOL", "UINT", "INT", "FLOAT",
                                      "DOUBLE", "STR", "BIN", "ARRAY", "MAP", "EXT"};
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

/* The reader's sticky error must be 'code' at 'offset'. */
#define EXPECT_ERR(r, code, offset) expect_err((r), (code), (offset), __LINE__)
#define EXPECT_NO_ERR(r) expect_err((r), SP_OK, 0, __LINE__)

static int expect_err(const sp_reader *r, sp_code code, uint64_t offset, int line) {
  int ok = r->err.code == code && (uint64_t)r->err.offset == offset;
  sp_test_checks++;
  if (!ok) {
    sp_test_failures++;
    fprintf(stderr, "    FAIL %s:%d: error %s at %zu (%s), expected %s at %llu\n", __FILE__, line,
            sp_code_name(r->err.code), r->err.offset, r->err.cause ? r->err.cause : "-",
            sp_code_name(code), (unsigned long long)offset);
  }
  return ok;
}

/* ---- every reader, by kind ------------------------------------------------ */

typedef enum rk {
  K_NIL, K_BOOL,
  K_I64, K_U64, K_I32, K_I16, K_I8, K_U32, K_U16, K_U8,   /* the integer readers */
  K_DOUBLE, K_FLOAT,
  K_ARRAY, K_MAP, K_STR_H, K_BIN_H, K_EXT_H, K_STR, K_BIN, K_TS,
  K_COUNT
} rk;

static const char *const RK_NAMES[K_COUNT] = {
  "nil", "bool", "int64", "uint64", "int32", "int16", "int8", "uint32", "uint16", "uint8",
  "double", "float", "array_header", "map_header", "str_header", "bin_header", "ext_header",
  "str", "bin", "timestamp"};

static int is_int_kind(rk k) { return k >= K_I64 && k <= K_U8; }
static int is_signed_kind(rk k) { return k == K_I64 || k == K_I32 || k == K_I16 || k == K_I8; }

/* Ranges of the integer readers, from the C types. */
static int64_t kind_lo(rk k) {
  switch (k) {
    case K_I64: return INT64_MIN;
    case K_I32: return INT32_MIN;
    case K_I16: return INT16_MIN;
    case K_I8: return INT8_MIN;
    default: return 0;
  }
}
static uint64_t kind_hi(rk k) {
  switch (k) {
    case K_I64: return INT64_MAX;
    case K_I32: return INT32_MAX;
    case K_I16: return INT16_MAX;
    case K_I8: return INT8_MAX;
    case K_U64: return UINT64_MAX;
    case K_U32: return UINT32_MAX;
    case K_U16: return UINT16_MAX;
    default: return UINT8_MAX;
  }
}

/* An integer value: negative ones in s, the others in u. */
typedef struct intval { int neg; int64_t s; uint64_t u; } intval;

static int fits(intval v, rk k) { return v.neg ? v.s >= kind_lo(k) : v.u <= kind_hi(k); }
static double intval_double(intval v) { return v.neg ? (double)v.s : (double)v.u; }

/* Reads with integer reader k. *got is what it stored; *untouched says the
** output kept the sentinel it held before the call. */
static int read_int_kind(sp_reader *r, rk k, intval *got, int *untouched) {
  int rc = 0;
  memset(got, 0, sizeof *got);
#define SREAD(fn, T, SENT)                                                   \
  { T v = (SENT); rc = fn(r, &v); got->neg = v < 0; got->s = v; got->u = (uint64_t)v; \
    *untouched = v == (SENT); break; }
#define UREAD(fn, T, SENT)                                                   \
  { T v = (SENT); rc = fn(r, &v); got->u = v; *untouched = v == (SENT); break; }
  switch (k) {
    case K_I64: SREAD(sp_read_int64, int64_t, INT64_C(0x5a5a5a5a5a5a5a5a))
    case K_I32: SREAD(sp_read_int32, int32_t, INT32_C(0x5a5a5a5a))
    case K_I16: SREAD(sp_read_int16, int16_t, (int16_t)0x5a5a)
    case K_I8: SREAD(sp_read_int8, int8_t, (int8_t)0x5a)
    case K_U64: UREAD(sp_read_uint64, uint64_t, UINT64_C(0xa5a5a5a5a5a5a5a5))
    case K_U32: UREAD(sp_read_uint32, uint32_t, UINT32_C(0xa5a5a5a5))
    case K_U16: UREAD(sp_read_uint16, uint16_t, (uint16_t)0xa5a5)
    case K_U8: UREAD(sp_read_uint8, uint8_t, (uint8_t)0xa5)
    default: abort();
  }
#undef SREAD
#undef UREAD
  return rc;
}

static int same_int(intval want, intval got) {
  return want.neg ? got.neg && got.s == want.s : !got.neg && got.u == want.u;
}

/* Calls reader k once, discarding what it reads. */
static int call_reader(sp_reader *r, rk k) {
  intval v;
  int untouched, b;
  uint32_t n;
  int8_t type;
  double d;
  float f;
  const char *s;
  const uint8_t *p;
  int64_t sec;
  uint32_t nsec;
  if (is_int_kind(k)) return read_int_kind(r, k, &v, &untouched);
  switch (k) {
    case K_NIL: return sp_read_nil(r);
    case K_BOOL: return sp_read_bool(r, &b);
    case K_DOUBLE: return sp_read_double(r, &d);
    case K_FLOAT: return sp_read_float(r, &f);
    case K_ARRAY: return sp_read_array_header(r, &n);
    case K_MAP: return sp_read_map_header(r, &n);
    case K_STR_H: return sp_read_str_header(r, &n);
    case K_BIN_H: return sp_read_bin_header(r, &n);
    case K_EXT_H: return sp_read_ext_header(r, &type, &n);
    case K_STR: return sp_read_str(r, &s, &n);
    case K_BIN: return sp_read_bin(r, &p, &n);
    case K_TS: return sp_read_timestamp(r, &sec, &nsec);
    default: abort();
  }
}

/* ---- nil and bool ---------------------------------------------------------- */

static void nil_and_bools_read_back(void) {
  input in = in_copy(BYTES(0xc0, 0xc2, 0xc3));
  sp_reader r;
  int b = 7;
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_nil(&r) == 1);
  CHECK(sp_reader_offset(&r) == 1);
  CHECK(sp_read_bool(&r, &b) == 1 && b == 0);
  CHECK(sp_reader_offset(&r) == 2);
  CHECK(sp_read_bool(&r, &b) == 1 && b == 1);
  CHECK(sp_reader_offset(&r) == 3);
  CHECK(sp_peek(&r) == SP_T_END);
  EXPECT_NO_ERR(&r);
  in_free(&in);
}

static void read_nil_if_consumes_only_a_nil_and_never_fails(void) {
  input in = in_copy(BYTES(0xc0, 0x01));
  sp_reader r;
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_nil_if(&r) == 1);
  CHECK(sp_reader_offset(&r) == 1);
  CHECK(sp_read_nil_if(&r) == 0);
  CHECK(sp_reader_offset(&r) == 1);
  EXPECT_NO_ERR(&r);
  CHECK(sp_peek(&r) == SP_T_UINT);
  in_free(&in);
  in = in_copy(BYTES(0xc1));
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_nil_if(&r) == 0);                  /* not a nil: 0, no error */
  EXPECT_NO_ERR(&r);
  in_free(&in);
  sp_reader_init(&r, NULL, 0);
  CHECK(sp_read_nil_if(&r) == 0);                  /* end of input: 0, no error */
  EXPECT_NO_ERR(&r);
}

/* ---- integers ---------------------------------------------------------------- */

typedef struct int_case { const uint8_t *b; size_t n; intval v; } int_case;

#define UC(v, ...) {BYTES(__VA_ARGS__), {0, 0, (uint64_t)(v)}}
#define SC(v, ...) {BYTES(__VA_ARGS__), {1, (int64_t)(v), 0}}

/* Every form at its boundaries, then forms holding values a smaller form
** would carry (legal: readers must accept any form). */
static const int_case INT_CASES[] = {
  UC(0, 0x00), UC(1, 0x01), UC(127, 0x7f),
  UC(128, 0xcc, 0x80), UC(255, 0xcc, 0xff),
  UC(256, 0xcd, 0x01, 0x00), UC(32767, 0xcd, 0x7f, 0xff), UC(32768, 0xcd, 0x80, 0x00),
  UC(65535, 0xcd, 0xff, 0xff),
  UC(65536, 0xce, 0x00, 0x01, 0x00, 0x00), UC(2147483647, 0xce, 0x7f, 0xff, 0xff, 0xff),
  UC(2147483648u, 0xce, 0x80, 0x00, 0x00, 0x00), UC(4294967295u, 0xce, 0xff, 0xff, 0xff, 0xff),
  UC(UINT64_C(4294967296), 0xcf, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00),
  UC(INT64_MAX, 0xcf, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
  UC(UINT64_C(0x8000000000000000), 0xcf, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00),
  UC(UINT64_MAX, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
  SC(-1, 0xff), SC(-32, 0xe0),
  SC(-33, 0xd0, 0xdf), SC(-128, 0xd0, 0x80),
  SC(-129, 0xd1, 0xff, 0x7f), SC(-32768, 0xd1, 0x80, 0x00),
  SC(-32769, 0xd2, 0xff, 0xff, 0x7f, 0xff), SC(INT32_MIN, 0xd2, 0x80, 0x00, 0x00, 0x00),
  SC((int64_t)INT32_MIN - 1, 0xd3, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff),
  SC(INT64_MIN, 0xd3, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00),
  /* unsigned forms holding small values */
  UC(0, 0xcc, 0x00), UC(5, 0xcd, 0x00, 0x05), UC(127, 0xce, 0x00, 0x00, 0x00, 0x7f),
  UC(5, 0xcf, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05),
  /* signed forms holding non-negative values */
  UC(0, 0xd0, 0x00), UC(127, 0xd0, 0x7f), UC(32767, 0xd1, 0x7f, 0xff),
  UC(2147483647, 0xd2, 0x7f, 0xff, 0xff, 0xff),
  UC(UINT64_C(4294967296), 0xd3, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00),
  UC(INT64_MAX, 0xd3, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
  /* wide signed forms holding -1 */
  SC(-1, 0xd0, 0xff), SC(-1, 0xd1, 0xff, 0xff), SC(-1, 0xd2, 0xff, 0xff, 0xff, 0xff),
  SC(-1, 0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
};
#define N_INT_CASES (sizeof INT_CASES / sizeof INT_CASES[0])

static const uint8_t THREE_NILS[3] = {0xc0, 0xc0, 0xc0};

/* Runs case c through integer reader k after three nils. want_fit selects
** which outcome this test looks at; the other cases are left alone. */
static void int_case_through(const int_case *c, rk k, int want_fit, size_t ci) {
  input in;
  sp_reader r;
  intval got;
  int untouched = 0, rc, ok = 1;
  if (fits(c->v, k) != want_fit) return;
  in = framed(THREE_NILS, 3, c->b, c->n);
  sp_reader_init(&r, in.p, in.n);
  sp_read_nil(&r); sp_read_nil(&r); sp_read_nil(&r);
  rc = read_int_kind(&r, k, &got, &untouched);
  if (want_fit) {
    ok &= CHECK(rc == 1);
    ok &= CHECK(same_int(c->v, got));
    ok &= CHECK(sp_reader_offset(&r) == 3 + c->n);
    ok &= EXPECT_NO_ERR(&r);
    ok &= CHECK(sp_peek(&r) == SP_T_END);
  } else {
    ok &= CHECK(rc == 0);
    ok &= EXPECT_ERR(&r, SP_E_OVERFLOW, 3);       /* the token's start */
    ok &= CHECK(untouched);
    ok &= CHECK(sp_read_nil(&r) == 0);             /* sticky */
    ok &= EXPECT_ERR(&r, SP_E_OVERFLOW, 3);
  }
  if (!ok) fprintf(stderr, "      int case %zu (first byte %02X) through sp_read_%s\n", ci,
                   c->b[0], RK_NAMES[k]);
  in_free(&in);
}

static void every_integer_form_reads_back_through_every_reader_it_fits(void) {
  for (size_t i = 0; i < N_INT_CASES; i++)
    for (int k = K_I64; k <= K_U8; k++) int_case_through(&INT_CASES[i], (rk)k, 1, i);
}

static void narrowing_that_does_not_fit_is_overflow_at_the_token_start(void) {
  size_t overflows = 0;
  for (size_t i = 0; i < N_INT_CASES; i++)
    for (int k = K_I64; k <= K_U8; k++) {
      int_case_through(&INT_CASES[i], (rk)k, 0, i);
      overflows += !fits(INT_CASES[i].v, (rk)k);
    }
  CHECK(overflows > 100);   /* the table really exercises overflow */
}

/* The issue's examples, spelled out. */
static void overflow_examples_128_into_int8_minus1_into_uint32_2pow32_into_uint32(void) {
  const struct { const uint8_t *b; size_t n; rk k; } cases[] = {
    {BYTES(0xcc, 0x80), K_I8},
    {BYTES(0xff), K_U32},
    {BYTES(0xcf, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00), K_U32},
    {BYTES(0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), K_I64},
    {BYTES(0xd0, 0x7f), K_I8},   /* fits: 127 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    input in = framed(BYTES(0xc2), cases[i].b, cases[i].n);
    sp_reader r;
    intval got;
    int untouched, b;
    sp_reader_init(&r, in.p, in.n);
    CHECK(sp_read_bool(&r, &b) == 1);
    if (i < 4) {
      CHECK(read_int_kind(&r, cases[i].k, &got, &untouched) == 0);
      EXPECT_ERR(&r, SP_E_OVERFLOW, 1);
      CHECK(untouched);
    } else {
      CHECK(read_int_kind(&r, cases[i].k, &got, &untouched) == 1);
      CHECK(got.s == 127);
    }
    in_free(&in);
  }
}

static void integers_read_through_double_and_float(void) {
  for (size_t i = 0; i < N_INT_CASES; i++) {
    const int_case *c = &INT_CASES[i];
    input in = in_copy(c->b, c->n);
    sp_reader r;
    double d = 0.5;
    float f = 0.5f;
    sp_reader_init(&r, in.p, in.n);
    CHECK(sp_read_double(&r, &d) == 1);
    if (!CHECK(d == intval_double(c->v))) fprintf(stderr, "      int case %zu\n", i);
    CHECK(sp_reader_offset(&r) == c->n);
    sp_reader_init(&r, in.p, in.n);
    CHECK(sp_read_float(&r, &f) == 1);
    if (!CHECK(f == (float)intval_double(c->v))) fprintf(stderr, "      int case %zu\n", i);
    EXPECT_NO_ERR(&r);
    in_free(&in);
  }
}

/* ---- floats ------------------------------------------------------------------- */

typedef struct float_case { const uint8_t *b; size_t n; double v; } float_case;
#define FC(v, ...) {BYTES(__VA_ARGS__), (v)}

static const float_case FLOAT_CASES[] = {
  FC(1.5, 0xca, 0x3f, 0xc0, 0x00, 0x00),
  FC(0.0, 0xca, 0x00, 0x00, 0x00, 0x00),
  FC(-0.0, 0xca, 0x80, 0x00, 0x00, 0x00),
  FC((double)0.1f, 0xca, 0x3d, 0xcc, 0xcc, 0xcd),
  FC(0x1p-149, 0xca, 0x00, 0x00, 0x00, 0x01),
  FC((double)FLT_MAX, 0xca, 0x7f, 0x7f, 0xff, 0xff),
  FC(INFINITY, 0xca, 0x7f, 0x80, 0x00, 0x00),
  FC(-INFINITY, 0xca, 0xff, 0x80, 0x00, 0x00),
  FC(1.5, 0xcb, 0x3f, 0xf8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00),
  FC(-2.0, 0xcb, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00),
  FC(-0.0, 0xcb, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00),
  FC(0.1, 0xcb, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a),
  FC(0x1p-1074, 0xcb, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01),
  FC(DBL_MAX, 0xcb, 0x7f, 0xef, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
  FC(INFINITY, 0xcb, 0x7f, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00),
};

static void floats_read_back_exactly_as_double_and_float(void) {
  for (size_t i = 0; i < sizeof FLOAT_CASES / sizeof FLOAT_CASES[0]; i++) {
    const float_case *c = &FLOAT_CASES[i];
    input in = in_copy(c->b, c->n);
    sp_reader r;
    double d = 12345;
    float f = 12345;
    int ok = 1;
    sp_reader_init(&r, in.p, in.n);
    CHECK(sp_peek(&r) == (c->n == 5 ? SP_T_FLOAT : SP_T_DOUBLE));
    ok &= CHECK(sp_read_double(&r, &d) == 1);
    ok &= CHECK(d == c->v && !!signbit(d) == !!signbit(c->v));
    ok &= CHECK(sp_reader_offset(&r) == c->n);
    sp_reader_init(&r, in.p, in.n);
    ok &= CHECK(sp_read_float(&r, &f) == 1);
    ok &= CHECK(f == (float)c->v && !!signbit(f) == !!signbit(c->v));
    ok &= EXPECT_NO_ERR(&r);
    if (!ok) fprintf(stderr, "      float case %zu\n", i);
    in_free(&in);
  }
}

static void nan_reads_back_as_nan(void) {
  input in = in_copy(BYTES(0xca, 0x7f, 0xc0, 0x00, 0x00,
                           0xcb, 0x7f, 0xf8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00));
  sp_reader r;
  double d = 0;
  float f = 0;
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_double(&r, &d) == 1 && isnan(d));
  CHECK(sp_read_float(&r, &f) == 1 && isnan(f));
  in_free(&in);
}

/* A float32 is read by its bits: through a double a signalling NaN came
** back quiet (7f800001 as 7fc00001), in the fast and the slow path, and a
** decoded tree re-encoded to other bytes. */
static void a_float32_keeps_its_bits_signalling_nan_too(void) {
  static const uint8_t snan[9] = {0xca, 0x7f, 0x80, 0x00, 0x01, 0xc0, 0xc0, 0xc0, 0xc0};
  for (size_t len = 5; len <= 9; len += 4) {          /* 5: the slow path; 9: the inline one */
    input in = in_copy(snan, len);
    sp_reader r;
    float f = 0;
    uint32_t bits;
    sp_reader_init(&r, in.p, in.n);
    CHECK(sp_read_float(&r, &f) == 1);
    memcpy(&bits, &f, 4);
    if (!CHECK(bits == 0x7f800001u)) fprintf(stderr, "      %zu bytes: %08x\n", len, (unsigned)bits);
    CHECK(sp_reader_offset(&r) == 5);
    in_free(&in);
  }
  {
    sp_doc doc = {0};
    sp_value v;
    sp_error e;
    sp_bytes b = {0};
    CHECK(sp_value_decode(snan, 5, NULL, &doc, &v, &e) == SP_OK);
    CHECK(sp_to_array(sp_format_value, &v, NULL, &b, NULL) == SP_OK);
    CHECK(b.len == 5 && memcmp(b.data, snan, 5) == 0);
    sp_bytes_free(&b);
    sp_doc_free(&doc);
  }
}

/* An integer goes to the nearest float directly: through a double,
** 2^60 + 2^36 + 1 rounded to 2^60 + 2^36 (a tie) and then to 2^60. */
static void an_integer_reads_as_the_nearest_float_rounded_once(void) {
  input in = in_copy(BYTES(0xcf, 0x10, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x01));
  sp_reader r;
  float f = 0;
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_float(&r, &f) == 1);
  CHECK(f == 0x1.000002p60f);                          /* 2^60 + 2^37 */
  in_free(&in);
}

static void float_reader_rounds_a_double_to_nearest_float(void) {
  input in = in_copy(BYTES(0xcb, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a));
  sp_reader r;
  float f = 0;
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_float(&r, &f) == 1);
  CHECK(f == 0.1f);
  in_free(&in);
}

static void integer_readers_reject_floats_with_type_error(void) {
  for (int k = K_I64; k <= K_U8; k++) {
    input in = in_copy(BYTES(0xc0, 0xca, 0x3f, 0xc0, 0x00, 0x00));
    sp_reader r;
    sp_reader_init(&r, in.p, in.n);
    sp_read_nil(&r);
    CHECK(call_reader(&r, (rk)k) == 0);
    EXPECT_ERR(&r, SP_E_TYPE, 1);
    CHECK(sp_reader_offset(&r) == 1);   /* nothing consumed */
    in_free(&in);
  }
}

/* ---- str, bin: headers of every form and zero-copy bodies ------------------- */

typedef struct hdr_case { const uint8_t *h; size_t hn; uint32_t len; } hdr_case;
#define HC(len, ...) {BYTES(__VA_ARGS__), (len)}

static const hdr_case STR_FORMS[] = {
  HC(0, 0xa0), HC(1, 0xa1), HC(31, 0xbf),
  HC(0, 0xd9, 0x00), HC(32, 0xd9, 0x20), HC(255, 0xd9, 0xff),
  HC(5, 0xda, 0x00, 0x05), HC(256, 0xda, 0x01, 0x00), HC(65535, 0xda, 0xff, 0xff),
  HC(3, 0xdb, 0x00, 0x00, 0x00, 0x03), HC(65536, 0xdb, 0x00, 0x01, 0x00, 0x00),
};

static const hdr_case BIN_FORMS[] = {
  HC(0, 0xc4, 0x00), HC(1, 0xc4, 0x01), HC(255, 0xc4, 0xff),
  HC(3, 0xc5, 0x00, 0x03), HC(256, 0xc5, 0x01, 0x00), HC(65535, 0xc5, 0xff, 0xff),
  HC(2, 0xc6, 0x00, 0x00, 0x00, 0x02), HC(65536, 0xc6, 0x00, 0x01, 0x00, 0x00),
};

static void check_body_forms(const hdr_case *cs, size_t n, int bin) {
  for (size_t i = 0; i < n; i++) {
    const hdr_case *c = &cs[i];
    input in = framed(c->h, c->hn, BODY, c->len);
    sp_reader r;
    uint32_t len = 0xdeadbeef;
    const uint8_t *p = NULL;
    const char *s = NULL;
    int ok = 1;
    sp_reader_init(&r, in.p, in.n);
    ok &= CHECK(sp_peek(&r) == (bin ? SP_T_BIN : SP_T_STR));
    ok &= CHECK((bin ? sp_read_bin_header(&r, &len) : sp_read_str_header(&r, &len)) == 1);
    ok &= CHECK(len == c->len);
    ok &= CHECK(sp_reader_offset(&r) == c->hn);
    ok &= CHECK(sp_read_view(&r, len, &p) == 1);
    ok &= CHECK(p == in.p + c->hn);
    ok &= CHECK(sp_reader_offset(&r) == in.n);
    /* zero-copy read: the pointer lies inside the input */
    sp_reader_init(&r, in.p, in.n);
    len = 0xdeadbeef;
    if (bin) {
      ok &= CHECK(sp_read_bin(&r, &p, &len) == 1);
    } else {
      ok &= CHECK(sp_read_str(&r, &s, &len) == 1);
      p = (const uint8_t *)s;
    }
    ok &= CHECK(len == c->len);
    ok &= CHECK(p == in.p + c->hn);
    ok &= CHECK(len == c->len && (len == 0 || (p && memcmp(p, BODY, len) == 0)));
    ok &= CHECK(sp_reader_offset(&r) == in.n);
    ok &= CHECK(sp_peek(&r) == SP_T_END);
    ok &= EXPECT_NO_ERR(&r);
    if (!ok) fprintf(stderr, "      %s form %zu (header %02X, len %u)\n", bin ? "bin" : "str", i,
                     c->h[0], c->len);
    in_free(&in);
  }
}

static void str_headers_of_every_form_and_zero_copy_bodies(void) {
  check_body_forms(STR_FORMS, sizeof STR_FORMS / sizeof STR_FORMS[0], 0);
}

static void bin_headers_of_every_form_and_zero_copy_bodies(void) {
  check_body_forms(BIN_FORMS, sizeof BIN_FORMS / sizeof BIN_FORMS[0], 1);
}

static void str_and_bin_are_not_interchangeable(void) {
  input in = in_copy(BYTES(0xa1, 0x61, 0xc4, 0x01, 0x61));
  sp_reader r;
  const uint8_t *p;
  const char *s;
  uint32_t n;
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_bin(&r, &p, &n) == 0);
  EXPECT_ERR(&r, SP_E_TYPE, 0);
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_str(&r, &s, &n) == 1);
  CHECK(sp_read_str(&r, &s, &n) == 0);
  EXPECT_ERR(&r, SP_E_TYPE, 2);
  in_free(&in);
}

/* ---- array, map headers ------------------------------------------------------- */

static const hdr_case ARRAY_FORMS[] = {
  HC(0, 0x90), HC(1, 0x91), HC(15, 0x9f),
  HC(0, 0xdc, 0x00, 0x00), HC(16, 0xdc, 0x00, 0x10), HC(65535, 0xdc, 0xff, 0xff),
  HC(0, 0xdd, 0x00, 0x00, 0x00, 0x00), HC(1, 0xdd, 0x00, 0x00, 0x00, 0x01),
  HC(65536, 0xdd, 0x00, 0x01, 0x00, 0x00),
};

static const hdr_case MAP_FORMS[] = {
  HC(0, 0x80), HC(1, 0x81), HC(15, 0x8f),
  HC(0, 0xde, 0x00, 0x00), HC(16, 0xde, 0x00, 0x10), HC(65535, 0xde, 0xff, 0xff),
  HC(0, 0xdf, 0x00, 0x00, 0x00, 0x00), HC(1, 0xdf, 0x00, 0x00, 0x00, 0x01),
  HC(65536, 0xdf, 0x00, 0x01, 0x00, 0x00),
};

/* header followed by its elements, all nil */
static void check_container_forms(const hdr_case *cs, size_t n, int map) {
  for (size_t i = 0; i < n; i++) {
    const hdr_case *c = &cs[i];
    size_t elems = (size_t)c->len * (map ? 2 : 1);
    input in;
    sp_reader r;
    uint32_t len = 0xdeadbeef;
    int ok = 1;
    in.n = c->hn + elems;
    in.p = xmalloc(in.n);
    memcpy(in.p, c->h, c->hn);
    memset(in.p + c->hn, 0xc0, elems);
    sp_reader_init(&r, in.p, in.n);
    ok &= CHECK(sp_peek(&r) == (map ? SP_T_MAP : SP_T_ARRAY));
    ok &= CHECK((map ? sp_read_map_header(&r, &len) : sp_read_array_header(&r, &len)) == 1);
    ok &= CHECK(len == c->len);
    ok &= CHECK(sp_reader_offset(&r) == c->hn);
    for (size_t e = 0; e < elems && ok; e++) ok &= CHECK(sp_read_nil(&r) == 1);
    ok &= CHECK(sp_reader_offset(&r) == in.n);
    sp_reader_init(&r, in.p, in.n);
    ok &= CHECK(sp_skip(&r) == 1);
    ok &= CHECK(sp_reader_offset(&r) == in.n);
    ok &= EXPECT_NO_ERR(&r);
    if (!ok) fprintf(stderr, "      %s form %zu (header %02X, n %u)\n", map ? "map" : "array", i,
                     c->h[0], c->len);
    in_free(&in);
  }
}

static void array_headers_of_every_form(void) {
  check_container_forms(ARRAY_FORMS, sizeof ARRAY_FORMS / sizeof ARRAY_FORMS[0], 0);
}

static void map_headers_of_every_form(void) {
  check_container_forms(MAP_FORMS, sizeof MAP_FORMS / sizeof MAP_FORMS[0], 1);
}

/* ---- ext ------------------------------------------------------------------------ */

typedef struct ext_form { const uint8_t *h; size_t hn; int8_t type; uint32_t len; } ext_form;
#define EC(type, len, ...) {BYTES(__VA_ARGS__), (type), (len)}

static const ext_form EXT_FORMS[] = {
  EC(5, 1, 0xd4, 0x05), EC(-1, 1, 0xd4, 0xff), EC(127, 2, 0xd5, 0x7f),
  EC(-128, 4, 0xd6, 0x80), EC(0, 8, 0xd7, 0x00), EC(-2, 16, 0xd8, 0xfe),
  EC(7, 0, 0xc7, 0x00, 0x07), EC(7, 3, 0xc7, 0x03, 0x07), EC(-100, 17, 0xc7, 0x11, 0x9c),
  EC(7, 255, 0xc7, 0xff, 0x07),
  EC(1, 0, 0xc8, 0x00, 0x00, 0x01), EC(-100, 256, 0xc8, 0x01, 0x00, 0x9c),
  EC(7, 65535, 0xc8, 0xff, 0xff, 0x07),
  EC(2, 4, 0xc9, 0x00, 0x00, 0x00, 0x04, 0x02),
  EC(-128, 65536, 0xc9, 0x00, 0x01, 0x00, 0x00, 0x80),
};

static void ext_of_every_form_reads_type_and_body(void) {
  for (size_t i = 0; i < sizeof EXT_FORMS / sizeof EXT_FORMS[0]; i++) {
    const ext_form *c = &EXT_FORMS[i];
    input in = framed(c->h, c->hn, BODY + 100, c->len);
    sp_reader r;
    int8_t type = 99;
    uint32_t len = 0xdeadbeef;
    const uint8_t *p = NULL;
    int ok = 1;
    sp_reader_init(&r, in.p, in.n);
    ok &= CHECK(sp_peek(&r) == SP_T_EXT);
    ok &= CHECK(sp_read_ext_header(&r, &type, &len) == 1);
    ok &= CHECK(type == c->type && len == c->len);
    ok &= CHECK(sp_reader_offset(&r) == c->hn);
    ok &= CHECK(sp_read_view(&r, len, &p) == 1 && p == in.p + c->hn);
    ok &= CHECK(len == c->len && (len == 0 || (p && memcmp(p, BODY + 100, len) == 0)));
    ok &= CHECK(sp_reader_offset(&r) == in.n && sp_peek(&r) == SP_T_END);
    sp_reader_init(&r, in.p, in.n);
    ok &= CHECK(sp_skip(&r) == 1 && sp_reader_offset(&r) == in.n);
    ok &= EXPECT_NO_ERR(&r);
    if (!ok) fprintf(stderr, "      ext form %zu (header %02X, len %u)\n", i, c->h[0], c->len);
    in_free(&in);
  }
}

/* ---- timestamps ------------------------------------------------------------------ */

typedef struct ts_case { const uint8_t *b; size_t n; int64_t sec; uint32_t nsec; } ts_case;
#define TC(sec, nsec, ...) {BYTES(__VA_ARGS__), (sec), (nsec)}

static const ts_case TS_CASES[] = {
  TC(0, 0, 0xd6, 0xff, 0x00, 0x00, 0x00, 0x00),
  TC(1700000000, 0, 0xd6, 0xff, 0x65, 0x53, 0xf1, 0x00),
  TC(0xffffffff, 0, 0xd6, 0xff, 0xff, 0xff, 0xff, 0xff),
  TC(0, 1, 0xd7, 0xff, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00),
  TC(1, 1, 0xd7, 0xff, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01),
  TC((int64_t)1 << 32, 0, 0xd7, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00),
  TC(((int64_t)1 << 34) - 1, 999999999, 0xd7, 0xff, 0xee, 0x6b, 0x27, 0xff, 0xff, 0xff, 0xff,
     0xff),
  TC((int64_t)1 << 34, 0, 0xc7, 0x0c, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
     0x00, 0x00, 0x00),
  TC(-1, 500000000, 0xc7, 0x0c, 0xff, 0x1d, 0xcd, 0x65, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
     0xff, 0xff),
  TC(INT64_MIN, 0, 0xc7, 0x0c, 0xff, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
     0x00, 0x00),
  TC(INT64_MAX, 999999999, 0xc7, 0x0c, 0xff, 0x3b, 0x9a, 0xc9, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff,
     0xff, 0xff, 0xff),
};

static void timestamps_read_back_in_32_64_and_96_bit_forms(void) {
  for (size_t i = 0; i < sizeof TS_CASES / sizeof TS_CASES[0]; i++) {
    const ts_case *c = &TS_CASES[i];
    input in = in_copy(c->b, c->n);
    sp_reader r;
    int64_t sec = 42;
    uint32_t nsec = 42;
    int ok = 1;
    sp_reader_init(&r, in.p, in.n);
    ok &= CHECK(sp_peek(&r) == SP_T_EXT);
    ok &= CHECK(sp_read_timestamp(&r, &sec, &nsec) == 1);
    ok &= CHECK(sec == c->sec && nsec == c->nsec);
    ok &= CHECK(sp_reader_offset(&r) == c->n);
    ok &= EXPECT_NO_ERR(&r);
    if (!ok) fprintf(stderr, "      timestamp case %zu\n", i);
    in_free(&in);
  }
}

/* Each after a nil, so the error offset (the ext's start) is 1. */
static const struct { const uint8_t *b; size_t n; const char *why; } BAD_TS[] = {
  {BYTES(0xc0, 0xc7, 0x05, 0xff, 0x00, 0x00, 0x00, 0x00, 0x01), "ext -1 of length 5"},
  {BYTES(0xc0, 0xc7, 0x00, 0xff), "ext -1 of length 0"},
  {BYTES(0xc0, 0xd4, 0xff, 0x00), "ext -1 of length 1"},
  {BYTES(0xc0, 0xd5, 0xff, 0x00, 0x00), "ext -1 of length 2"},
  {BYTES(0xc0, 0xd8, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), "ext -1 of length 16"},
  {BYTES(0xc0, 0xd6, 0x05, 0x00, 0x00, 0x00, 0x01), "ext 5 of length 4"},
  {BYTES(0xc0, 0xd7, 0x00, 0, 0, 0, 0, 0, 0, 0, 1), "ext 0 of length 8"},
  {BYTES(0xc0, 0xc7, 0x0c, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), "ext 1 of length 12"},
  {BYTES(0xc0, 0xd7, 0xff, 0xee, 0x6b, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00), "64-bit nsec 10^9"},
  {BYTES(0xc0, 0xd7, 0xff, 0xff, 0xff, 0xff, 0xfc, 0x00, 0x00, 0x00, 0x00), "64-bit nsec 2^30-1"},
  {BYTES(0xc0, 0xc7, 0x0c, 0xff, 0x3b, 0x9a, 0xca, 0x00, 0, 0, 0, 0, 0, 0, 0, 0), "96-bit nsec 10^9"},
  {BYTES(0xc0, 0xc7, 0x0c, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0), "96-bit nsec max"},
};

static void timestamp_of_wrong_length_type_or_nsec_is_invalid_at_its_start(void) {
  for (size_t i = 0; i < sizeof BAD_TS / sizeof BAD_TS[0]; i++) {
    input in = in_copy(BAD_TS[i].b, BAD_TS[i].n);
    sp_reader r;
    int64_t sec = 42;
    uint32_t nsec = 42;
    int ok = 1;
    sp_reader_init(&r, in.p, in.n);
    ok &= CHECK(sp_read_nil(&r) == 1);
    ok &= CHECK(sp_read_timestamp(&r, &sec, &nsec) == 0);
    ok &= EXPECT_ERR(&r, SP_E_MALFORMED, 1);
    ok &= CHECK(sec == 42 && nsec == 42);
    ok &= CHECK(sp_read_timestamp(&r, &sec, &nsec) == 0);   /* sticky */
    ok &= EXPECT_ERR(&r, SP_E_MALFORMED, 1);
    if (!ok) fprintf(stderr, "      %s\n", BAD_TS[i].why);
    in_free(&in);
  }
}

/* ---- peek ------------------------------------------------------------------------ */

/* The spec's table of first bytes. 0xc1 is never used. */
static const struct { int lo, hi; sp_type t; } SPEC_FIRST_BYTES[] = {
  {0x00, 0x7f, SP_T_UINT},    /* positive fixint */
  {0x80, 0x8f, SP_T_MAP},     /* fixmap */
  {0x90, 0x9f, SP_T_ARRAY},   /* fixarray */
  {0xa0, 0xbf, SP_T_STR},     /* fixstr */
  {0xc0, 0xc0, SP_T_NIL},
  {0xc1, 0xc1, SP_T_END},     /* (never used) */
  {0xc2, 0xc3, SP_T_BOOL},    /* false, true */
  {0xc4, 0xc6, SP_T_BIN},     /* bin 8/16/32 */
  {0xc7, 0xc9, SP_T_EXT},     /* ext 8/16/32 */
  {0xca, 0xca, SP_T_FLOAT},   /* float 32 */
  {0xcb, 0xcb, SP_T_DOUBLE},  /* float 64 */
  {0xcc, 0xcf, SP_T_UINT},    /* uint 8/16/32/64 */
  {0xd0, 0xd3, SP_T_INT},     /* int 8/16/32/64 */
  {0xd4, 0xd8, SP_T_EXT},     /* fixext 1/2/4/8/16 */
  {0xd9, 0xdb, SP_T_STR},     /* str 8/16/32 */
  {0xdc, 0xdd, SP_T_ARRAY},   /* array 16/32 */
  {0xde, 0xdf, SP_T_MAP},     /* map 16/32 */
  {0xe0, 0xff, SP_T_INT},     /* negative fixint */
};

static void peek_types_every_first_byte_as_the_spec_says(void) {
  sp_type want[256];
  int covered[256] = {0};
  for (size_t i = 0; i < sizeof SPEC_FIRST_BYTES / sizeof SPEC_FIRST_BYTES[0]; i++)
    for (int b = SPEC_FIRST_BYTES[i].lo; b <= SPEC_FIRST_BYTES[i].hi; b++) {
      want[b] = SPEC_FIRST_BYTES[i].t;
      covered[b]++;
    }
  for (int b = 0; b < 256; b++) {
    uint8_t two[2] = {0xc0, (uint8_t)b};
    input in;
    sp_reader r;
    sp_type t;
    int ok = CHECK(covered[b] == 1);
    /* alone (the rest of a longer token missing: peek needs only the first byte) */
    in = in_copy(two + 1, 1);
    sp_reader_init(&r, in.p, in.n);
    t = sp_peek(&r);
    ok &= CHECK(t == want[b]);
    if (b == 0xc1) {
      ok &= EXPECT_ERR(&r, SP_E_MALFORMED, 0);
    } else {
      ok &= EXPECT_NO_ERR(&r);
      ok &= CHECK(sp_reader_offset(&r) == 0);   /* not consumed */
      ok &= CHECK(sp_peek(&r) == t);            /* and the same again */
    }
    in_free(&in);
    /* after a value */
    in = in_copy(two, 2);
    sp_reader_init(&r, in.p, in.n);
    sp_read_nil(&r);
    ok &= CHECK(sp_peek(&r) == want[b]);
    if (b == 0xc1) ok &= EXPECT_ERR(&r, SP_E_MALFORMED, 1);
    else ok &= CHECK(sp_reader_offset(&r) == 1) && EXPECT_NO_ERR(&r);
    if (!ok) fprintf(stderr, "      first byte %02X: got %s, spec says %s\n", b, type_name(t),
                     type_name(want[b]));
    in_free(&in);
  }
}

static void peek_at_end_of_input_is_end_without_error(void) {
  input in = in_copy(BYTES(0xc0));
  sp_reader r;
  sp_reader_init(&r, NULL, 0);
  CHECK(sp_peek(&r) == SP_T_END);
  EXPECT_NO_ERR(&r);
  CHECK(sp_reader_offset(&r) == 0);
  sp_reader_init(&r, in.p, in.n);
  sp_read_nil(&r);
  CHECK(sp_peek(&r) == SP_T_END);
  CHECK(sp_peek(&r) == SP_T_END);
  EXPECT_NO_ERR(&r);
  CHECK(sp_reader_offset(&r) == 1);
  in_free(&in);
}

static void empty_input_and_empty_sequence_fail_reads_with_truncation(void) {
  sp_sequence s;
  sp_reader r;
  sp_seq_init(&s, NULL);
  sp_reader_init_sequence(&r, &s);
  CHECK(sp_peek(&r) == SP_T_END);
  CHECK(sp_skip(&r) == 0);
  EXPECT_ERR(&r, SP_E_TRUNCATED, 0);
  sp_reader_init(&r, NULL, 0);
  CHECK(sp_read_nil(&r) == 0);
  EXPECT_ERR(&r, SP_E_TRUNCATED, 0);
}

/* An empty segment may have no memory (data NULL), first, between others or
** last, and so may an empty input: they read as nothing, with no pointer
** arithmetic on NULL (undefined in C; clang's UBSan reported it here, found
** by tests/fuzz/fuzz_reader_segments.c). */
static void empty_segments_without_memory_read_as_nothing(void) {
  uint8_t a[] = {0x92, 0x01}, b[] = {0xa1, 'x'};
  sp_segment segs[5] = {{NULL, 0, 0}, {a, 2, 2}, {NULL, 0, 0}, {b, 2, 2}, {NULL, 0, 0}};
  sp_sequence seq;
  sp_reader r;
  uint32_t n = 0;
  uint64_t u = 0;
  const char *p = NULL;
  memset(&seq, 0, sizeof seq);
  seq.segs = segs;
  seq.nsegs = seq.cap_segs = 5;
  seq.length = 4;
  sp_reader_init_sequence(&r, &seq);
  CHECK(sp_read_array_header(&r, &n) == 1 && n == 2);
  CHECK(sp_read_uint64(&r, &u) == 1 && u == 1);
  CHECK(sp_read_str(&r, &p, &n) == 1 && n == 1 && p == (const char *)b + 1);
  CHECK(sp_peek(&r) == SP_T_END && sp_reader_offset(&r) == 4);
  CHECK(sp_skip(&r) == 0);
  EXPECT_ERR(&r, SP_E_TRUNCATED, 4);
  seq.nsegs = 1;                                   /* only an empty segment */
  seq.length = 0;
  sp_reader_init_sequence(&r, &seq);
  CHECK(sp_peek(&r) == SP_T_END && sp_reader_offset(&r) == 0);
  CHECK(sp_read_nil(&r) == 0);
  EXPECT_ERR(&r, SP_E_TRUNCATED, 0);
  sp_reader_init(&r, NULL, 0);
  CHECK(sp_read_view(&r, 0, (const uint8_t **)&p) == 1 && sp_reader_remaining(&r) == 0);
  CHECK(sp_read_raw(&r, &u, 0) == 1 && sp_reader_offset(&r) == 0);
  EXPECT_NO_ERR(&r);
}

/* ---- type mismatch, truncation, 0xc1 for every reader ------------------------ */

typedef enum vclass { V_NIL, V_BOOL, V_UINT, V_NEG, V_FLOAT, V_STR, V_BIN, V_ARRAY, V_MAP,
                      V_EXT, V_TS } vclass;

static const struct { vclass v; const uint8_t *b; size_t n; } SAMPLES[] = {
  {V_NIL, BYTES(0xc0)}, {V_BOOL, BYTES(0xc2)}, {V_BOOL, BYTES(0xc3)},
  {V_UINT, BYTES(0x01)}, {V_UINT, BYTES(0xcc, 0x05)}, {V_UINT, BYTES(0xd0, 0x05)},
  {V_NEG, BYTES(0xff)}, {V_NEG, BYTES(0xd1, 0xff, 0xff)},
  {V_FLOAT, BYTES(0xca, 0x3f, 0xc0, 0x00, 0x00)},
  {V_FLOAT, BYTES(0xcb, 0x3f, 0xf8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00)},
  {V_STR, BYTES(0xa1, 0x61)}, {V_STR, BYTES(0xd9, 0x01, 0x61)},
  {V_BIN, BYTES(0xc4, 0x01, 0x61)},
  {V_ARRAY, BYTES(0x91, 0xc0)}, {V_ARRAY, BYTES(0xdc, 0x00, 0x01, 0xc0)},
  {V_MAP, BYTES(0x81, 0xc0, 0xc0)}, {V_MAP, BYTES(0xde, 0x00, 0x01, 0xc0, 0xc0)},
  {V_EXT, BYTES(0xd4, 0x05, 0x00)}, {V_EXT, BYTES(0xc7, 0x01, 0x05, 0x00)},
  {V_TS, BYTES(0xd6, 0xff, 0x00, 0x00, 0x00, 0x01)},
};

/* What reader k must do with a value of class v (from the API's contract). */
static sp_code expected_outcome(vclass v, rk k) {
  switch (v) {
    case V_NIL: return k == K_NIL ? SP_OK : SP_E_TYPE;
    case V_BOOL: return k == K_BOOL ? SP_OK : SP_E_TYPE;
    case V_UINT: return is_int_kind(k) || k == K_DOUBLE || k == K_FLOAT ? SP_OK : SP_E_TYPE;
    case V_NEG:
      if (is_int_kind(k)) return is_signed_kind(k) ? SP_OK : SP_E_OVERFLOW;
      return k == K_DOUBLE || k == K_FLOAT ? SP_OK : SP_E_TYPE;
    case V_FLOAT: return k == K_DOUBLE || k == K_FLOAT ? SP_OK : SP_E_TYPE;
    case V_STR: return k == K_STR_H || k == K_STR ? SP_OK : SP_E_TYPE;
    case V_BIN: return k == K_BIN_H || k == K_BIN ? SP_OK : SP_E_TYPE;
    case V_ARRAY: return k == K_ARRAY ? SP_OK : SP_E_TYPE;
    case V_MAP: return k == K_MAP ? SP_OK : SP_E_TYPE;
    case V_EXT: return k == K_EXT_H ? SP_OK : k == K_TS ? SP_E_MALFORMED : SP_E_TYPE;
    case V_TS: return k == K_EXT_H || k == K_TS ? SP_OK : SP_E_TYPE;
  }
  return SP_E_TYPE;
}

static void every_reader_rejects_other_types_with_type_error_at_the_value(void) {
  for (size_t i = 0; i < sizeof SAMPLES / sizeof SAMPLES[0]; i++)
    for (int k = 0; k < K_COUNT; k++) {
      input in = framed(BYTES(0xc0), SAMPLES[i].b, SAMPLES[i].n);
      sp_reader r;
      sp_code want = expected_outcome(SAMPLES[i].v, (rk)k);
      int rc, ok = 1;
      sp_reader_init(&r, in.p, in.n);
      sp_read_nil(&r);
      rc = call_reader(&r, (rk)k);
      if (want == SP_OK) {
        ok &= CHECK(rc == 1);
        ok &= EXPECT_NO_ERR(&r);
        ok &= CHECK(sp_reader_offset(&r) > 1);
      } else {
        ok &= CHECK(rc == 0);
        ok &= EXPECT_ERR(&r, want, 1);
        if (want == SP_E_TYPE) ok &= CHECK(sp_reader_offset(&r) == 1);   /* nothing consumed */
      }
      if (!ok) fprintf(stderr, "      sample %zu (first byte %02X) through sp_read_%s\n", i,
                       SAMPLES[i].b[0], RK_NAMES[k]);
      in_free(&in);
    }
}

static void every_reader_at_end_of_input_is_truncated(void) {
  for (int k = 0; k < K_COUNT; k++) {
    input in = in_copy(BYTES(0xc0));
    sp_reader r;
    int ok;
    sp_reader_init(&r, in.p, in.n);
    sp_read_nil(&r);
    ok = CHECK(call_reader(&r, (rk)k) == 0);
    ok &= EXPECT_ERR(&r, SP_E_TRUNCATED, 1);
    if (!ok) fprintf(stderr, "      sp_read_%s\n", RK_NAMES[k]);
    in_free(&in);
  }
}

static void every_reader_on_c1_is_invalid(void) {
  for (int k = 0; k < K_COUNT; k++) {
    input in = in_copy(BYTES(0xc0, 0xc1, 0xc0));
    sp_reader r;
    int ok;
    sp_reader_init(&r, in.p, in.n);
    sp_read_nil(&r);
    ok = CHECK(call_reader(&r, (rk)k) == 0);
    ok &= EXPECT_ERR(&r, SP_E_MALFORMED, 1);
    if (!ok) fprintf(stderr, "      sp_read_%s\n", RK_NAMES[k]);
    in_free(&in);
  }
  {
    input in = in_copy(BYTES(0xc0, 0xc1));
    sp_reader r;
    sp_reader_init(&r, in.p, in.n);
    CHECK(sp_skip(&r) == 1);
    CHECK(sp_skip(&r) == 0);
    EXPECT_ERR(&r, SP_E_MALFORMED, 1);
    in_free(&in);
  }
}

/* Every token cut short gives truncation at the token's start. */
static void truncated_token_is_truncation_error_at_the_token_start(void) {
  const struct { const uint8_t *b; size_t n; rk k; } cuts[] = {
    {BYTES(0xc0, 0xcc), K_U8}, {BYTES(0xc0, 0xcd, 0x01), K_U16},
    {BYTES(0xc0, 0xce, 0x00, 0x01, 0x00), K_U32},
    {BYTES(0xc0, 0xcf, 0, 0, 0, 0, 0, 0, 0), K_U64}, {BYTES(0xc0, 0xd0), K_I8},
    {BYTES(0xc0, 0xd3, 0, 0, 0, 0, 0, 0, 0), K_I64},
    {BYTES(0xc0, 0xca, 0x3f, 0xc0, 0x00), K_DOUBLE},
    {BYTES(0xc0, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0), K_FLOAT},
    {BYTES(0xc0, 0xd9), K_STR_H}, {BYTES(0xc0, 0xda, 0x00), K_STR},
    {BYTES(0xc0, 0xdb, 0x00, 0x00, 0x00), K_STR_H},
    {BYTES(0xc0, 0xc4), K_BIN_H}, {BYTES(0xc0, 0xc6, 0x00), K_BIN},
    {BYTES(0xc0, 0xdc, 0x00), K_ARRAY}, {BYTES(0xc0, 0xdd, 0x00, 0x00, 0x00), K_ARRAY},
    {BYTES(0xc0, 0xde), K_MAP}, {BYTES(0xc0, 0xdf, 0x00, 0x00, 0x00), K_MAP},
    {BYTES(0xc0, 0xd4), K_EXT_H}, {BYTES(0xc0, 0xc7, 0x01), K_EXT_H},
    {BYTES(0xc0, 0xc8, 0x00, 0x01), K_EXT_H}, {BYTES(0xc0, 0xc9, 0x00, 0x00, 0x00, 0x01), K_EXT_H},
    {BYTES(0xc0, 0xd6), K_TS}, {BYTES(0xc0, 0xc7, 0x0c), K_TS},
  };
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    input in = in_copy(cuts[i].b, cuts[i].n);
    sp_reader r;
    int ok;
    sp_reader_init(&r, in.p, in.n);
    sp_read_nil(&r);
    ok = CHECK(call_reader(&r, cuts[i].k) == 0);
    ok &= EXPECT_ERR(&r, SP_E_TRUNCATED, 1);
    if (!ok) fprintf(stderr, "      cut %zu through sp_read_%s\n", i, RK_NAMES[cuts[i].k]);
    in_free(&in);
  }
}

/* The same cut tokens through sp_skip: the error carries "the byte offset
** of the token that failed" (sp_reader.h) -- the value's first byte, as the
** typed reads above report it -- not a position inside the token. */
static void skip_truncation_error_points_at_the_cut_value(void) {
  const struct { const uint8_t *b; size_t n; size_t at; } cuts[] = {
    {BYTES(0xc0, 0xcd, 0x01), 1},                  /* uint 16 missing a byte */
    {BYTES(0xc0, 0xcb, 0x3f, 0xf8), 1},            /* float 64 */
    {BYTES(0xc0, 0xdc, 0x00), 1},                  /* array 16 header */
    {BYTES(0xc0, 0xdf, 0x00, 0x00), 1},            /* map 32 header */
    {BYTES(0xc0, 0xc9, 0x00, 0x00, 0x00), 1},      /* ext 32 header */
    {BYTES(0x92, 0x01, 0xd1, 0xff), 2},            /* inside an array */
  };
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    input in = in_copy(cuts[i].b, cuts[i].n);
    sp_reader r;
    int ok;
    sp_reader_init(&r, in.p, in.n);
    if (in.p[0] == 0xc0) sp_read_nil(&r);
    ok = CHECK(sp_skip(&r) == 0);
    ok &= EXPECT_ERR(&r, SP_E_TRUNCATED, cuts[i].at);
    if (!ok) fprintf(stderr, "      skip cut %zu\n", i);
    in_free(&in);
  }
}

static void reading_a_str_where_an_int_is_is_type_error_at_its_offset(void) {
  input in = in_copy(BYTES(0xc0, 0xc0, 0xa3, 'a', 'b', 'c', 0x01));
  sp_reader r;
  int64_t v = 77;
  sp_reader_init(&r, in.p, in.n);
  sp_read_nil(&r);
  sp_read_nil(&r);
  CHECK(sp_peek(&r) == SP_T_STR);
  CHECK(sp_read_int64(&r, &v) == 0);
  CHECK(v == 77);
  EXPECT_ERR(&r, SP_E_TYPE, 2);
  CHECK(r.err.cause != NULL && r.err.site != NULL);
  CHECK(sp_reader_offset(&r) == 2);
  in_free(&in);
}

static void errors_are_sticky_first_error_and_offset_stay(void) {
  input in = in_copy(BYTES(0xc0, 0xa3, 'a', 'b', 'c', 0x01, 0xc1, 0xcc, 0x80));
  sp_reader r;
  int64_t v = 77;
  int8_t i8 = 5;
  const char *s = NULL;
  const uint8_t *p = NULL;
  uint32_t n = 9;
  uint8_t buf[4] = {0};
  const char *cause;
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_nil(&r) == 1);
  CHECK(sp_read_int64(&r, &v) == 0);
  EXPECT_ERR(&r, SP_E_TYPE, 1);
  cause = r.err.cause;
  /* everything after fails, nothing moves, the first error stays */
  CHECK(sp_read_str(&r, &s, &n) == 0 && s == NULL && n == 9);
  CHECK(sp_read_nil(&r) == 0);
  CHECK(sp_read_nil_if(&r) == 0);
  CHECK(sp_skip(&r) == 0);
  CHECK(sp_peek(&r) == SP_T_END);
  CHECK(sp_read_raw(&r, buf, 1) == 0 && buf[0] == 0);
  CHECK(sp_read_view(&r, 1, &p) == 0 && p == NULL);
  CHECK(sp_read_str_header(&r, &n) == 0 && n == 9);
  CHECK(sp_reader_enter(&r) == 0);
  CHECK(sp_read_int8(&r, &i8) == 0 && i8 == 5);
  EXPECT_ERR(&r, SP_E_TYPE, 1);
  CHECK(r.err.cause == cause);
  CHECK(sp_reader_offset(&r) == 1);
  /* a later different error does not replace the first */
  sp_reader_init(&r, in.p, in.n);
  sp_read_nil(&r);
  CHECK(sp_skip(&r) == 1);
  CHECK(sp_read_uint8(&r, (uint8_t *)buf) == 1 && buf[0] == 1);
  CHECK(sp_read_nil(&r) == 0);                     /* 0xc1 */
  EXPECT_ERR(&r, SP_E_MALFORMED, 6);
  CHECK(sp_read_int8(&r, &i8) == 0);               /* would be OVERFLOW at 7 */
  EXPECT_ERR(&r, SP_E_MALFORMED, 6);
  in_free(&in);
}

/* The header's contract: "A read that fails returns 0 and leaves its
** outputs unchanged" -- also when the header itself was whole but claims
** more than is left (SP_E_TRUNCATED), so no caller can act on the count. */
static void failed_header_reads_leave_outputs_unchanged(void) {
  const struct { const uint8_t *b; size_t n; rk k; sp_code code; } cases[] = {
    {BYTES(0x95, 0xc0), K_ARRAY, SP_E_TRUNCATED},
    {BYTES(0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0), K_ARRAY, SP_E_TRUNCATED},
    {BYTES(0x83, 0xc0, 0xc0, 0xc0), K_MAP, SP_E_TRUNCATED},
    {BYTES(0xa5, 'a'), K_STR_H, SP_E_TRUNCATED},
    {BYTES(0xc4, 0x05, 'a'), K_BIN_H, SP_E_TRUNCATED},
    {BYTES(0xd8, 0x07, 0x00), K_EXT_H, SP_E_TRUNCATED},
    {BYTES(0xdc, 0x00), K_ARRAY, SP_E_TRUNCATED},
    {BYTES(0xc7, 0x01), K_EXT_H, SP_E_TRUNCATED},
    {BYTES(0xa1, 'a'), K_ARRAY, SP_E_TYPE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    input in = in_copy(cases[i].b, cases[i].n);
    sp_reader r;
    uint32_t n = 0x5a5a5a5a;
    int8_t type = 0x5a;
    int rc, ok;
    sp_reader_init(&r, in.p, in.n);
    switch (cases[i].k) {
      case K_ARRAY: rc = sp_read_array_header(&r, &n); break;
      case K_MAP: rc = sp_read_map_header(&r, &n); break;
      case K_STR_H: rc = sp_read_str_header(&r, &n); break;
      case K_BIN_H: rc = sp_read_bin_header(&r, &n); break;
      default: rc = sp_read_ext_header(&r, &type, &n); break;
    }
    ok = CHECK(rc == 0);
    ok &= EXPECT_ERR(&r, cases[i].code, 0);
    ok &= CHECK(n == 0x5a5a5a5a);
    ok &= CHECK(type == 0x5a);
    if (!ok) fprintf(stderr, "      case %zu: sp_read_%s stored n=%u type=%d\n", i,
                     RK_NAMES[cases[i].k], n, type);
    in_free(&in);
  }
}

/* ---- inline fast paths against their slow paths ---------------------------------- */

/* Everything a read can store, so two runs can be compared byte for byte. */
typedef union outbuf {
  int b; int64_t i64; uint64_t u64; int32_t i32; uint32_t u32; int16_t i16; uint16_t u16;
  int8_t i8; uint8_t u8; double d; float f; uint32_t n;
  struct { const void *p; uint32_t n; } s;
  uint8_t raw[16];
} outbuf;

/* Reader k through its inline read (slow == 0) or straight through its
** out-of-line half (slow == 1); 0 when k has no inline read. */
static int read_path(sp_reader *r, rk k, int slow, outbuf *o) {
#define PATH(fn, ...) return slow ? fn##_slow(r, __VA_ARGS__) : fn(r, __VA_ARGS__)
  switch (k) {
    case K_NIL: return slow ? sp_read_nil_slow(r) : sp_read_nil(r);
    case K_BOOL: PATH(sp_read_bool, &o->b);
    case K_I64: PATH(sp_read_int64, &o->i64);
    case K_U64: PATH(sp_read_uint64, &o->u64);
    case K_I32: PATH(sp_read_int32, &o->i32);
    case K_I16: PATH(sp_read_int16, &o->i16);
    case K_I8: PATH(sp_read_int8, &o->i8);
    case K_U32: PATH(sp_read_uint32, &o->u32);
    case K_U16: PATH(sp_read_uint16, &o->u16);
    case K_U8: PATH(sp_read_uint8, &o->u8);
    case K_DOUBLE: PATH(sp_read_double, &o->d);
    case K_FLOAT: PATH(sp_read_float, &o->f);
    case K_ARRAY: PATH(sp_read_array_header, &o->n);
    case K_MAP: PATH(sp_read_map_header, &o->n);
    case K_STR_H: PATH(sp_read_str_header, &o->n);
    case K_BIN_H: PATH(sp_read_bin_header, &o->n);
    case K_STR: PATH(sp_read_str, (const char **)&o->s.p, &o->s.n);
    case K_BIN: PATH(sp_read_bin, (const uint8_t **)&o->s.p, &o->s.n);
    default: return -1;
  }
#undef PATH
}

typedef struct outcome { int rc; outbuf out; uint64_t offset, left; sp_code code; size_t at; } outcome;

static outcome outcome_of(const uint8_t *p, size_t n, rk k, int slow) {
  outcome o;
  sp_reader r;
  memset(&o, 0, sizeof o);
  memset(&o.out, 0x5a, sizeof o.out);
  sp_reader_init(&r, p, n);
  o.rc = read_path(&r, k, slow, &o.out);
  o.offset = sp_reader_offset(&r);
  o.left = sp_reader_remaining(&r);
  o.code = r.err.code;
  o.at = r.err.offset;
  return o;
}

/* Every first byte, three payloads (zeros, 0xff, counting up) and every
** length from 1 to 20: each inline read gives exactly what its slow path
** gives -- result, outputs, offset, bytes left, error and its offset. The
** slow path is the general decoder (sp_reader.c), so the fast paths, which
** run whenever 9 bytes are left, decode nothing differently. */
static void inline_reads_agree_with_their_slow_paths_on_every_first_byte(void) {
  size_t compared = 0, fast_hits = 0;
  for (int b = 0; b < 256; b++)
    for (int pay = 0; pay < 3; pay++)
      for (size_t len = 1; len <= 20; len++) {
        uint8_t buf[20];
        input in;
        buf[0] = (uint8_t)b;
        for (size_t i = 1; i < sizeof buf; i++) buf[i] = pay == 0 ? 0 : pay == 1 ? 0xff : (uint8_t)i;
        in = in_copy(buf, len);
        for (int k = 0; k < K_COUNT; k++) {
          outcome f = outcome_of(in.p, in.n, (rk)k, 0), s = outcome_of(in.p, in.n, (rk)k, 1);
          if (f.rc < 0) continue;
          compared++;
          fast_hits += f.rc == 1 && len >= 9;
          if (!CHECK(f.rc == s.rc && !memcmp(&f.out, &s.out, sizeof f.out) && f.offset == s.offset &&
                     f.left == s.left && f.code == s.code && f.at == s.at)) {
            fprintf(stderr, "      first byte %02X, payload %d, %zu bytes, sp_read_%s: fast rc %d %s "
                    "at %zu, slow rc %d %s at %zu\n", b, pay, len, RK_NAMES[k], f.rc,
                    sp_code_name(f.code), f.at, s.rc, sp_code_name(s.code), s.at);
            in_free(&in);
            return;
          }
        }
        in_free(&in);
      }
  CHECK(compared > 100000 && fast_hits > 10000);
}

/* After an error end == cur and rest == 0: no fast path can succeed, so
** every inline read fails with the first error and stores nothing. */
static void a_failed_reader_fails_every_inline_read_and_stores_nothing(void) {
  static const uint8_t msg[32] = {0xa3, 'a', 'b', 'c', 0xc0, 0x01, 0xcb, 0x3f, 0xf0};
  for (int k = 0; k < K_COUNT; k++) {
    sp_reader r;
    outbuf o, untouched;
    const uint8_t *view = NULL;
    uint8_t raw[4] = {7, 7, 7, 7};
    int ok;
    memset(&o, 0x5a, sizeof o);
    untouched = o;
    sp_reader_init(&r, msg, sizeof msg);
    sp_reader_fail(&r, SP_E_CALLBACK, "a decoder's own failure", __func__);
    if (read_path(&r, (rk)k, 0, &o) < 0) continue;
    ok = CHECK(!memcmp(&o, &untouched, sizeof o));
    ok &= CHECK(sp_read_view(&r, 0, &view) == 0 && view == NULL);
    ok &= CHECK(sp_read_raw(&r, raw, 0) == 0 && raw[0] == 7);
    ok &= CHECK(sp_read_nil_if(&r) == 0 && sp_peek(&r) == SP_T_END && sp_skip(&r) == 0);
    ok &= CHECK(sp_reader_enter(&r) == 0 && sp_reader_remaining(&r) == 0);
    ok &= EXPECT_ERR(&r, SP_E_CALLBACK, 0);
    if (!ok) fprintf(stderr, "      sp_read_%s after an error\n", RK_NAMES[k]);
  }
}

/* The reserve/advance of the reader: a span of the current segment, the
** _at decoders over it, and advance; bytes left and offsets follow. */
static void span_at_decoders_and_advance_walk_a_segment(void) {
  static const uint8_t ints[] = {0x05, 0xcd, 0x01, 0x00, 0xd0, 0x80, 0xce, 0xff, 0xff, 0xff, 0xff,
                                 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xa1, 'x', 0, 0, 0, 0, 0, 0, 0, 0};
  sp_reader r;
  size_t avail;
  const uint8_t *p;
  int32_t i32 = 99;
  uint32_t u32 = 99;
  int8_t i8 = 9;
  double d = 0;
  sp_reader_init(&r, ints, sizeof ints);
  p = sp_reader_span(&r, &avail);
  CHECK(p == ints && avail == sizeof ints);
  CHECK(sp_read_int32_at(p, &i32) == 1 && i32 == 5);
  CHECK(sp_read_int32_at(p + 1, &i32) == 3 && i32 == 256);
  CHECK(sp_read_int8_at(p + 1, &i8) == 0 && i8 == 9);           /* 256 does not fit: nothing stored */
  CHECK(sp_read_int8_at(p + 4, &i8) == 2 && i8 == -128);
  CHECK(sp_read_uint32_at(p + 4, &u32) == 0 && u32 == 99);      /* negative */
  CHECK(sp_read_int32_at(p + 6, &i32) == 0 && i32 == 256);     /* 2^32-1 is not an int32 */
  CHECK(sp_read_uint32_at(p + 6, &u32) == 5 && u32 == UINT32_MAX);
  CHECK(sp_read_int32_at(p + 11, &i32) == 0);                   /* a double */
  CHECK(sp_read_double_at(p + 11, &d) == 9 && d == 1.5);
  CHECK(sp_read_double_at(p + 20, &d) == 0 && d == 1.5);        /* a str */
  sp_reader_advance(&r, 20);
  CHECK(sp_reader_offset(&r) == 20 && sp_reader_remaining(&r) == sizeof ints - 20);
  CHECK(sp_peek(&r) == SP_T_STR);
  EXPECT_NO_ERR(&r);
}

/* fail_at names the offset it is given; the first error still wins. */
static void fail_at_records_the_given_offset_once(void) {
  static const uint8_t msg[4] = {0xc0, 0xc0, 0xc0, 0xc0};
  sp_reader r;
  sp_reader_init(&r, msg, sizeof msg);
  sp_read_nil(&r);
  sp_read_nil(&r);
  CHECK(sp_reader_fail_at(&r, 1, SP_E_LENGTH_LIMIT, "names the first nil", __func__) == 0);
  EXPECT_ERR(&r, SP_E_LENGTH_LIMIT, 1);
  sp_reader_fail_at(&r, 3, SP_E_TYPE, "too late", __func__);
  EXPECT_ERR(&r, SP_E_LENGTH_LIMIT, 1);
  CHECK(sp_reader_offset(&r) == 2 && sp_reader_remaining(&r) == 0);
}

/* ---- messages made by the writer, described by a script ------------------------ */

typedef enum op_kind { OP_NIL, OP_BOOL, OP_UINT, OP_INT, OP_FLOAT, OP_DOUBLE, OP_STR, OP_BIN,
                       OP_ARRAY, OP_MAP, OP_EXT, OP_TS } op_kind;

typedef struct op {
  op_kind k;
  rk reader;          /* numbers: which reader reads it back */
  int wide;           /* ints: the 9-byte form (cf/d3); arrays/maps: the 32-bit header */
  int64_t i;          /* OP_INT, OP_BOOL, OP_TS seconds */
  uint64_t u;         /* OP_UINT */
  double d;           /* OP_FLOAT, OP_DOUBLE */
  uint32_t n;         /* body length or element count */
  const uint8_t *p;   /* body */
  int8_t type;        /* OP_EXT */
  uint32_t nsec;      /* OP_TS */
} op;

#define MAX_OPS 256

typedef struct script {
  const char *name;
  op ops[MAX_OPS];
  size_t n;
} script;

static op *add(script *s, op_kind k) {
  op *o;
  if (s->n == MAX_OPS) { fprintf(stderr, "script %s too long\n", s->name); abort(); }
  o = &s->ops[s->n++];
  memset(o, 0, sizeof *o);
  o->k = k;
  return o;
}

static void s_nil(script *s) { add(s, OP_NIL); }
static void s_bool(script *s, int v) { add(s, OP_BOOL)->i = v; }
static void s_uint(script *s, uint64_t v, rk how, int wide) {
  op *o = add(s, OP_UINT);
  o->u = v; o->reader = how; o->wide = wide;
}
static void s_int(script *s, int64_t v, rk how, int wide) {
  op *o = add(s, OP_INT);
  o->i = v; o->reader = how; o->wide = wide;
}
static void s_float(script *s, float v, rk how) {
  op *o = add(s, OP_FLOAT);
  o->d = v; o->reader = how;
}
static void s_double(script *s, double v, rk how) {
  op *o = add(s, OP_DOUBLE);
  o->d = v; o->reader = how;
}
static void s_strn(script *s, const void *p, uint32_t n) {
  op *o = add(s, OP_STR);
  o->p = p; o->n = n;
}
static void s_str(script *s, const char *lit) { s_strn(s, lit, (uint32_t)strlen(lit)); }
static void s_bin(script *s, const uint8_t *p, uint32_t n) {
  op *o = add(s, OP_BIN);
  o->p = p; o->n = n;
}
static void s_ext(script *s, int8_t type, const uint8_t *p, uint32_t n) {
  op *o = add(s, OP_EXT);
  o->type = type; o->p = p; o->n = n;
}
static void s_ts(script *s, int64_t sec, uint32_t nsec) {
  op *o = add(s, OP_TS);
  o->i = sec; o->nsec = nsec;
}
static void s_array(script *s, uint32_t n, int wide) {
  op *o = add(s, OP_ARRAY);
  o->n = n; o->wide = wide;
}
static void s_map(script *s, uint32_t n, int wide) {
  op *o = add(s, OP_MAP);
  o->n = n; o->wide = wide;
}

/* The writer's bytes and where each op's token lies in them. */
typedef struct message {
  const script *sc;
  input bytes;
  uint64_t start[MAX_OPS];      /* first byte of the token */
  uint64_t hdr_end[MAX_OPS];    /* end of the header (== end for numbers, headers) */
  uint64_t end[MAX_OPS];        /* end of the token with its body */
  uint64_t tree_end[MAX_OPS];   /* end of the whole value (containers: with elements) */
  size_t next[MAX_OPS];         /* op after the whole value */
} message;

static void write_op(sp_writer *w, const op *o, uint64_t *hdr_end) {
  uint8_t b[9];
  uint64_t at = sp_writer_length(w);
  *hdr_end = 0;
  switch (o->k) {
    case OP_NIL: sp_write_nil(w); break;
    case OP_BOOL: sp_write_bool(w, (int)o->i); break;
    case OP_UINT:
      if (o->wide) { b[0] = 0xcf; sp_store64(b + 1, o->u); sp_write_raw(w, b, 9); }
      else sp_write_uint(w, o->u);
      break;
    case OP_INT:
      if (o->wide) { b[0] = 0xd3; sp_store64(b + 1, (uint64_t)o->i); sp_write_raw(w, b, 9); }
      else sp_write_int(w, o->i);
      break;
    case OP_FLOAT: sp_write_float(w, (float)o->d); break;
    case OP_DOUBLE: sp_write_double(w, o->d); break;
    case OP_STR:
      sp_write_str_header(w, o->n);
      *hdr_end = sp_writer_length(w);
      sp_write_raw(w, o->p, o->n);
      break;
    case OP_BIN:
      sp_write_bin_header(w, o->n);
      *hdr_end = sp_writer_length(w);
      sp_write_raw(w, o->p, o->n);
      break;
    case OP_EXT:
      sp_write_ext_header(w, o->type, o->n);
      *hdr_end = sp_writer_length(w);
      sp_write_raw(w, o->p, o->n);
      break;
    case OP_TS:
      sp_write_timestamp(w, o->i, o->nsec);
      *hdr_end = at + (sp_writer_length(w) - at == 15 ? 3 : 2);   /* c7 0c ff | d6/d7 ff */
      break;
    case OP_ARRAY: case OP_MAP:
      if (o->wide) {
        b[0] = o->k == OP_ARRAY ? 0xdd : 0xdf;
        sp_store32(b + 1, o->n);
        sp_write_raw(w, b, 5);
      } else if (o->k == OP_ARRAY) {
        sp_write_array_header(w, o->n);
      } else {
        sp_write_map_header(w, o->n);
      }
      break;
  }
  if (*hdr_end == 0) *hdr_end = sp_writer_length(w);
}

static uint64_t children(const op *o) {
  return o->k == OP_ARRAY ? o->n : o->k == OP_MAP ? 2 * (uint64_t)o->n : 0;
}

static size_t layout_tree(message *m, size_t i) {
  const op *o = &m->sc->ops[i];
  size_t j = i + 1;
  uint64_t e = m->end[i];
  for (uint64_t c = 0; c < children(o); c++) {
    size_t child = j;
    if (child >= m->sc->n) { fprintf(stderr, "script %s is short\n", m->sc->name); abort(); }
    j = layout_tree(m, child);
    e = m->tree_end[child];
  }
  m->tree_end[i] = e;
  m->next[i] = j;
  return j;
}

static void message_build(message *m, const script *sc) {
  sp_buffer buf;
  sp_output o;
  sp_writer w;
  memset(m, 0, sizeof *m);
  m->sc = sc;
  sp_buffer_init(&buf);
  o = sp_buffer_output(&buf);
  sp_writer_init_output(&w, &o);
  for (size_t i = 0; i < sc->n; i++) {
    m->start[i] = sp_writer_length(&w);
    write_op(&w, &sc->ops[i], &m->hdr_end[i]);
    m->end[i] = sp_writer_length(&w);
  }
  if (sp_writer_flush(&w) != SP_OK || buf.len != m->end[sc->n - 1]) {
    fprintf(stderr, "writing script %s failed\n", sc->name);
    abort();
  }
  sp_writer_release(&w);
  m->bytes = in_copy(buf.data, buf.len);
  sp_buffer_free(&buf);
  if (layout_tree(m, 0) != sc->n || m->tree_end[0] != m->bytes.n) {
    fprintf(stderr, "script %s is not one value\n", sc->name);
    abort();
  }
}

static sp_type op_type(const op *o) {
  switch (o->k) {
    case OP_NIL: return SP_T_NIL;
    case OP_BOOL: return SP_T_BOOL;
    case OP_UINT: return SP_T_UINT;
    case OP_INT: return o->wide || o->i < 0 ? SP_T_INT : SP_T_UINT;
    case OP_FLOAT: return SP_T_FLOAT;
    case OP_DOUBLE: return SP_T_DOUBLE;
    case OP_STR: return SP_T_STR;
    case OP_BIN: return SP_T_BIN;
    case OP_ARRAY: return SP_T_ARRAY;
    case OP_MAP: return SP_T_MAP;
    case OP_EXT: case OP_TS: return SP_T_EXT;
  }
  return SP_T_END;
}

/* ---- the typed walk: reads a message knowing its structure -------------------- */

typedef struct walk_ctx {
  const message *m;
  int zero_copy;         /* str/bin through sp_read_str/sp_read_bin */
  const uint8_t *base;   /* zero_copy: the input bodies must point into */
  size_t views, spans;   /* bodies read in place / copied because they spanned segments */
  const char *plan;      /* what the input looks like, for messages */
  size_t plan_arg;
} walk_ctx;

static size_t walk_fail(const walk_ctx *c, size_t i, const char *what, int line) {
  sp_test_checks++;
  sp_test_failures++;
  fprintf(stderr, "    FAIL %s:%d: %s at op %zu of '%s' (%s %zu)\n", __FILE__, line, what, i,
          c->m->sc->name, c->plan, c->plan_arg);
  return (size_t)-1;
}
#define WFAIL(what) return walk_fail(c, i, (what), __LINE__)

/* 1: the integer op read back right; 0: the read failed; -1: wrong value. */
static int int_op_is(sp_reader *r, const op *o) {
  intval want = {0, 0, 0}, got;
  int untouched;
  if (o->k == OP_UINT) want.u = o->u;
  else if (o->i < 0) { want.neg = 1; want.s = o->i; }
  else want.u = (uint64_t)o->i;
  if (o->reader == K_DOUBLE) {
    double d;
    if (!sp_read_double(r, &d)) return 0;
    return d == intval_double(want) ? 1 : -1;
  }
  if (o->reader == K_FLOAT) {
    float f;
    if (!sp_read_float(r, &f)) return 0;
    return f == (float)intval_double(want) ? 1 : -1;
  }
  if (!read_int_kind(r, o->reader, &got, &untouched)) return 0;
  return same_int(want, got) ? 1 : -1;
}

/* Reads n body bytes: in place when they lie in one segment, else (only
** where bodies may span segments) copied. 1 ok, 0 read failed, -1 wrong. */
static int body_is(walk_ctx *c, sp_reader *r, size_t i, const uint8_t *want, uint32_t n) {
  const uint8_t *p = NULL;
  uint64_t at = sp_reader_offset(r);
  int ok;
  if (sp_read_view(r, n, &p)) {
    c->views++;
    if (n && c->base && p != c->base + at) { walk_fail(c, i, "view is not in place", __LINE__); return -1; }
    if (n && !c->base && p != r->segs[r->seg].data + (at - r->seg_offset)) {
      walk_fail(c, i, "view is not in its segment", __LINE__);
      return -1;
    }
    return n == 0 || memcmp(p, want, n) == 0 ? 1 : (walk_fail(c, i, "body", __LINE__), -1);
  }
  if (r->err.code != SP_OK) return 0;
  /* spans segments: 0 with nothing consumed and no error */
  c->spans++;
  if (c->base) { walk_fail(c, i, "contiguous body said to span", __LINE__); return -1; }
  if (sp_reader_offset(r) != at) { walk_fail(c, i, "spanning view consumed", __LINE__); return -1; }
  {
    uint8_t *copy = xmalloc(n);
    if (!sp_read_raw(r, copy, n)) { free(copy); return 0; }
    ok = memcmp(copy, want, n) == 0;
    free(copy);
  }
  return ok ? 1 : (walk_fail(c, i, "copied body", __LINE__), -1);
}

/* Reads ops [from, to) and checks each value, the peeked type and the
** offsets before and after each token. Returns 'to', or the op whose read
** failed (the reader holds the error), or (size_t)-1 after a wrong value. */
static size_t walk(walk_ctx *c, sp_reader *r, size_t from, size_t to) {
  const message *m = c->m;
  for (size_t i = from; i < to; i++) {
    const op *o = &m->sc->ops[i];
    sp_type t;
    uint32_t n = 0xdeadbeef;
    int rc;
    if (sp_reader_offset(r) != m->start[i]) WFAIL("offset before the token");
    t = sp_peek(r);
    if (r->err.code != SP_OK) return i;
    if (t != SP_T_END && t != op_type(o)) WFAIL("peeked type");
    switch (o->k) {
      case OP_NIL:
        if (!sp_read_nil(r)) return i;
        break;
      case OP_BOOL: {
        int v = -1;
        if (!sp_read_bool(r, &v)) return i;
        if (v != (o->i != 0)) WFAIL("bool");
        break;
      }
      case OP_UINT: case OP_INT:
        rc = int_op_is(r, o);
        if (rc == 0) return i;
        if (rc < 0) WFAIL("integer");
        break;
      case OP_FLOAT: case OP_DOUBLE:
        if (o->reader == K_FLOAT) {
          float f;
          if (!sp_read_float(r, &f)) return i;
          if (f != (float)o->d) WFAIL("float");
        } else {
          double d;
          if (!sp_read_double(r, &d)) return i;
          if (d != (o->k == OP_FLOAT ? (double)(float)o->d : o->d)) WFAIL("double");
        }
        break;
      case OP_STR: case OP_BIN:
        if (c->zero_copy) {
          const uint8_t *p = NULL;
          const char *s = NULL;
          if (o->k == OP_STR) {
            if (!sp_read_str(r, &s, &n)) return i;
            p = (const uint8_t *)s;
          } else if (!sp_read_bin(r, &p, &n)) {
            return i;
          }
          if (n != o->n) WFAIL("length");
          if (p != c->base + m->hdr_end[i]) WFAIL("zero-copy pointer");
          if (n && memcmp(p, o->p, n) != 0) WFAIL("body");
          c->views++;
        } else {
          if (!(o->k == OP_STR ? sp_read_str_header(r, &n) : sp_read_bin_header(r, &n))) return i;
          if (n != o->n) WFAIL("length");
          if (sp_reader_offset(r) != m->hdr_end[i]) WFAIL("offset after the header");
          rc = body_is(c, r, i, o->p, n);
          if (rc == 0) return i;
          if (rc < 0) return (size_t)-1;
        }
        break;
      case OP_EXT: {
        int8_t type = 0;
        if (!sp_read_ext_header(r, &type, &n)) return i;
        if (type != o->type || n != o->n) WFAIL("ext type or length");
        if (sp_reader_offset(r) != m->hdr_end[i]) WFAIL("offset after the header");
        rc = body_is(c, r, i, o->p, n);
        if (rc == 0) return i;
        if (rc < 0) return (size_t)-1;
        break;
      }
      case OP_TS: {
        int64_t sec = 0;
        uint32_t nsec = 0;
        if (!sp_read_timestamp(r, &sec, &nsec)) return i;
        if (sec != o->i || nsec != o->nsec) WFAIL("timestamp");
        break;
      }
      case OP_ARRAY:
        if (!sp_read_array_header(r, &n)) return i;
        if (n != o->n) WFAIL("array count");
        break;
      case OP_MAP:
        if (!sp_read_map_header(r, &n)) return i;
        if (n != o->n) WFAIL("map count");
        break;
    }
    if (sp_reader_offset(r) != m->end[i]) WFAIL("offset after the token");
  }
  return to;
}

/* Where a typed walk over the first len bytes must stop: the first op whose
** header is cut, or whose header claims more than is left, at that op's
** start -- both SP_E_TRUNCATED (the input ends before the op does). */
static size_t predict_cut(const message *m, uint64_t len, sp_code *code, uint64_t *at) {
  for (size_t i = 0; i < m->sc->n; i++) {
    const op *o = &m->sc->ops[i];
    uint64_t need = children(o);
    if (o->k == OP_STR || o->k == OP_BIN || o->k == OP_EXT || o->k == OP_TS)
      need = m->end[i] - m->hdr_end[i];
    *at = m->start[i];
    if (m->hdr_end[i] > len || len - m->hdr_end[i] < need) { *code = SP_E_TRUNCATED; return i; }
  }
  *code = SP_OK;
  *at = 0;
  return m->sc->n;
}

/* ---- segmented inputs built by hand ------------------------------------------ */

/* Each segment its own exact-size heap block (malloc(0) for empty ones). */
typedef struct segs {
  sp_segment *s;
  size_t n;
  sp_sequence seq;
} segs;

static void segs_build(segs *g, const uint8_t *msg, size_t len, const size_t *sizes, size_t k) {
  size_t at = 0;
  g->s = xmalloc(k * sizeof *g->s);
  g->n = k;
  for (size_t i = 0; i < k; i++) {
    g->s[i].data = malloc(sizes[i]);
    if (sizes[i] && g->s[i].data == NULL) abort();
    if (sizes[i]) memcpy(g->s[i].data, msg + at, sizes[i]);
    g->s[i].used = g->s[i].capacity = sizes[i];
    at += sizes[i];
  }
  if (at != len) { fprintf(stderr, "segment sizes do not add up\n"); abort(); }
  memset(&g->seq, 0, sizeof g->seq);
  g->seq.segs = g->s;
  g->seq.nsegs = g->seq.cap_segs = k;
  g->seq.length = len;
}

static void segs_free(segs *g) {
  for (size_t i = 0; i < g->n; i++) free(g->s[i].data);
  free(g->s);
  g->s = NULL;
  g->n = 0;
}

/* Segment plans: how a message of len bytes is cut into segments. */
typedef enum plan { PLAN_ONE, PLAN_BYTES, PLAN_123, PLAN_SPLIT, PLAN_PAIR, PLAN_EMPTIES } plan;

/* Fills sizes (room for 2*len+3) for plan p with arguments a, b; returns
** how many segments. */
static size_t plan_sizes(plan p, size_t len, size_t a, size_t b, size_t *sizes) {
  size_t k = 0, at = 0;
  switch (p) {
    case PLAN_ONE: sizes[k++] = len; break;
    case PLAN_BYTES: for (; at < len; at++) sizes[k++] = 1; break;
    case PLAN_123:   /* 1, 2, 3, 1, 2, 3, ... starting at phase a */
      for (size_t j = a; at < len; j++) {
        size_t s = 1 + j % 3;
        if (s > len - at) s = len - at;
        sizes[k++] = s;
        at += s;
      }
      break;
    case PLAN_SPLIT: sizes[k++] = a; sizes[k++] = len - a; break;
    case PLAN_PAIR: sizes[k++] = a; sizes[k++] = b - a; sizes[k++] = len - b; break;
    case PLAN_EMPTIES:   /* empty, 1 byte, empty, 1 byte, ..., empty */
      sizes[k++] = 0;
      for (; at < len; at++) { sizes[k++] = 1; sizes[k++] = 0; }
      break;
  }
  return k;
}

static const char *const PLAN_NAMES[] = {"one segment", "1-byte segments", "1,2,3 segments from phase",
                                         "split at", "splits at pair", "empty and 1-byte segments"};

/* ---- what every input plan must satisfy ------------------------------------------ */

/* A reader over the plan's input. */
typedef struct source {
  const uint8_t *contig;   /* contiguous input, or NULL */
  size_t len;
  const sp_sequence *seq;
} source;

static void source_open(sp_reader *r, const source *src) {
  if (src->seq) sp_reader_init_sequence(r, src->seq);
  else sp_reader_init(r, src->contig, src->len);
}

/* The whole message reads back: typed, and by sp_skip consuming exactly all
** bytes. With every_skip, also skips each op's whole value in the middle of
** a typed walk and checks the offset lands on the value's end. */
static void check_full(const message *m, const source *src, walk_ctx *c, int every_skip) {
  sp_reader r;
  size_t n = m->sc->n, L = m->bytes.n;
  int before = sp_test_failures;
  source_open(&r, src);
  CHECK(walk(c, &r, 0, n) == n);
  EXPECT_NO_ERR(&r);
  CHECK(sp_reader_offset(&r) == L && sp_reader_remaining(&r) == 0);
  CHECK(sp_peek(&r) == SP_T_END);
  source_open(&r, src);
  CHECK(sp_skip(&r) == 1);
  CHECK(sp_reader_offset(&r) == L && sp_reader_remaining(&r) == 0);
  EXPECT_NO_ERR(&r);
  for (size_t j = 0; every_skip && j < n && sp_test_failures == before; j++) {
    source_open(&r, src);
    CHECK(walk(c, &r, 0, j) == j);
    CHECK(sp_skip(&r) == 1);
    if (!CHECK(sp_reader_offset(&r) == m->tree_end[j])) fprintf(stderr, "      skipping op %zu\n", j);
    CHECK(walk(c, &r, m->next[j], n) == n);
    CHECK(sp_reader_offset(&r) == L);
    EXPECT_NO_ERR(&r);
  }
  if (sp_test_failures != before)
    fprintf(stderr, "      message '%s', %s %zu\n", m->sc->name, c->plan, c->plan_arg);
}

/* The first len bytes: the typed walk fails exactly where predict_cut says,
** and sp_skip fails the same way -- a cut token and a header claiming more
** than is left are both TRUNCATED at the token's first byte. */
static void check_cut(const message *m, const source *src, walk_ctx *c, size_t len) {
  sp_reader r;
  sp_code code;
  uint64_t at;
  size_t stop = predict_cut(m, len, &code, &at), got;
  int ok = 1;
  source_open(&r, src);
  ok &= CHECK(sp_skip(&r) == 0);
  ok &= EXPECT_ERR(&r, code, at);
  source_open(&r, src);
  got = walk(c, &r, 0, m->sc->n);
  ok &= CHECK(got == stop);
  ok &= EXPECT_ERR(&r, code, at);
  ok &= CHECK(code == SP_E_TRUNCATED);
  if (!ok)
    fprintf(stderr, "      message '%s' cut to %zu of %zu bytes (%s %zu): walk stopped at op %zu, "
            "expected op %zu\n", m->sc->name, len, m->bytes.n, c->plan, c->plan_arg, got, stop);
}

/* ---- the messages ------------------------------------------------------------------ */

static script S_TOKENS, S_EVERY, S_NESTED, S_MAP16, S_BIG;
static message M_TOKENS, M_EVERY, M_NESTED, M_MAP16, M_BIG;

/* Every header and number form once, in an array 16, with 32-bit headers. */
static void build_tokens(script *s) {
  s->name = "tokens";
  s_array(s, 16, 0);
  s_nil(s);
  s_bool(s, 1);
  s_uint(s, 200, K_U8, 0);
  s_uint(s, 60000, K_U16, 0);
  s_uint(s, 70000, K_U32, 0);
  s_uint(s, 5, K_I8, 1);
  s_int(s, -100, K_I8, 0);
  s_int(s, -1000, K_I16, 0);
  s_int(s, -100000, K_I32, 0);
  s_int(s, -5, K_DOUBLE, 1);
  s_float(s, 1.5f, K_FLOAT);
  s_double(s, 0.1, K_DOUBLE);
  s_str(s, "hello");
  s_bin(s, BODY, 3);
  s_ext(s, 9, BODY + 3, 4);
  s_map(s, 1, 1);
  s_str(s, "ts");
  s_array(s, 2, 1);
  s_ts(s, 1, 1);
  s_ts(s, -1, 500000000);
}

/* A map holding every type, every integer boundary, every body form. */
static void build_every(script *s) {
  s->name = "every type";
  s_map(s, 13, 0);
  s_str(s, "nil"); s_nil(s);
  s_str(s, "bool"); s_array(s, 2, 0); s_bool(s, 1); s_bool(s, 0);
  s_str(s, "uint"); s_array(s, 12, 0);
  s_uint(s, 0, K_U8, 0); s_uint(s, 127, K_I8, 0); s_uint(s, 128, K_U8, 0);
  s_uint(s, 255, K_U8, 0); s_uint(s, 256, K_I16, 0); s_uint(s, 65535, K_U16, 0);
  s_uint(s, 65536, K_I32, 0); s_uint(s, 4294967295u, K_U32, 0);
  s_uint(s, UINT64_C(4294967296), K_I64, 0); s_uint(s, INT64_MAX, K_I64, 0);
  s_uint(s, UINT64_MAX, K_U64, 0); s_uint(s, 1000, K_DOUBLE, 0);
  s_str(s, "int"); s_array(s, 11, 0);
  s_int(s, -1, K_I8, 0); s_int(s, -32, K_I8, 0); s_int(s, -33, K_I8, 0);
  s_int(s, -128, K_I8, 0); s_int(s, -129, K_I16, 0); s_int(s, -32768, K_I16, 0);
  s_int(s, -32769, K_I32, 0); s_int(s, INT32_MIN, K_I32, 0);
  s_int(s, (int64_t)INT32_MIN - 1, K_I64, 0); s_int(s, INT64_MIN, K_I64, 0);
  s_int(s, -7, K_FLOAT, 0);
  s_str(s, "f32"); s_float(s, 0.1f, K_DOUBLE);
  s_str(s, "f64"); s_double(s, -2.5, K_FLOAT);
  s_str(s, "str"); s_array(s, 4, 0);
  s_strn(s, BODY, 0); s_strn(s, BODY + 10, 31); s_strn(s, BODY + 20, 32); s_strn(s, BODY + 30, 300);
  s_str(s, "bin"); s_array(s, 4, 0);
  s_bin(s, BODY, 0); s_bin(s, BODY + 1, 1); s_bin(s, BODY + 2, 255); s_bin(s, BODY + 3, 300);
  s_str(s, "ext"); s_array(s, 9, 0);
  s_ext(s, 1, BODY + 40, 1); s_ext(s, 2, BODY + 41, 2); s_ext(s, -3, BODY + 42, 4);
  s_ext(s, 127, BODY + 43, 8); s_ext(s, -128, BODY + 44, 16); s_ext(s, 0, BODY, 0);
  s_ext(s, 5, BODY + 45, 3); s_ext(s, 6, BODY + 46, 17); s_ext(s, 7, BODY + 47, 300);
  s_str(s, "ts"); s_array(s, 3, 0);
  s_ts(s, 1700000000, 0); s_ts(s, ((int64_t)1 << 34) - 1, 999999999); s_ts(s, INT64_MIN, 0);
  s_str(s, "deep"); s_array(s, 1, 0); s_array(s, 1, 0); s_map(s, 1, 0); s_str(s, "k");
  s_array(s, 0, 0);
  s_str(s, "maps"); s_map(s, 2, 0); s_uint(s, 1, K_U8, 0); s_str(s, "one");
  s_int(s, -1, K_I64, 0); s_map(s, 0, 0);
  s_str(s, "tail"); s_nil(s);
}

/* Twenty levels, maps and arrays alternating. */
static void build_nested(script *s) {
  s->name = "nested";
  for (int level = 0; level < 20; level++) {
    if (level % 2 == 0) {
      s_map(s, 2, 0); s_str(s, "v"); s_uint(s, (uint64_t)level, K_U8, 0); s_str(s, "n");
    } else {
      s_array(s, 2, 0); s_int(s, -level, K_I16, 0);
    }
  }
  s_array(s, 0, 0);
}

/* A map 16 (de) of 17 entries whose values include arrays 16 (dc). */
static void build_map16(script *s) {
  s->name = "map16";
  s_map(s, 17, 0);
  for (int key = 0; key < 17; key++) {
    s_uint(s, (uint64_t)key, K_U16, 0);
    if (key % 3 == 0) {
      s_strn(s, BODY + key, (uint32_t)key * 2);
    } else if (key % 3 == 1) {
      s_int(s, -key * 1000, K_I32, 0);
    } else {
      s_array(s, 16, 0);
      for (int e = 0; e < 16; e++) s_uint(s, (uint64_t)(key + e), K_U8, 0);
    }
  }
}

/* Bodies past 64 KiB: str 32, bin 32, ext 32. */
static void build_big(script *s) {
  s->name = "big";
  s_map(s, 3, 0);
  s_str(s, "s"); s_strn(s, BODY, 65537);
  s_str(s, "b"); s_bin(s, BODY + 1, 65600);
  s_str(s, "e"); s_ext(s, 42, BODY + 2, 65540);
}

static message *const SMALL_MESSAGES[] = {&M_TOKENS, &M_EVERY, &M_NESTED, &M_MAP16};
#define N_SMALL (sizeof SMALL_MESSAGES / sizeof SMALL_MESSAGES[0])

static void messages_build(void) {
  build_tokens(&S_TOKENS);
  build_every(&S_EVERY);
  build_nested(&S_NESTED);
  build_map16(&S_MAP16);
  build_big(&S_BIG);
  message_build(&M_TOKENS, &S_TOKENS);
  message_build(&M_EVERY, &S_EVERY);
  message_build(&M_NESTED, &S_NESTED);
  message_build(&M_MAP16, &S_MAP16);
  message_build(&M_BIG, &S_BIG);
}

static void messages_free(void) {
  in_free(&M_TOKENS.bytes);
  in_free(&M_EVERY.bytes);
  in_free(&M_NESTED.bytes);
  in_free(&M_MAP16.bytes);
  in_free(&M_BIG.bytes);
}

/* Positions worth cutting a big message at: every byte near a token's start
** and end (headers, straddles) and every stride-th byte through the bodies. */
static int *interesting_points(const message *m, size_t stride) {
  size_t L = m->bytes.n;
  int *want = calloc(L + 1, sizeof *want);
  if (!want) abort();
  for (size_t i = 0; i < m->sc->n; i++) {
    uint64_t lo = m->start[i] > 2 ? m->start[i] - 2 : 0;
    for (uint64_t x = lo; x <= m->hdr_end[i] + 20 && x <= L; x++) want[x] = 1;
    lo = m->end[i] > 20 ? m->end[i] - 20 : 0;
    for (uint64_t x = lo; x <= m->end[i] + 2 && x <= L; x++) want[x] = 1;
  }
  for (size_t x = 0; x <= L; x += stride) want[x] = 1;
  return want;
}

/* ---- the message tests ---------------------------------------------------------------- */

static void messages_read_back_typed_and_skip_consumes_exactly_all_bytes(void) {
  message *all[] = {&M_TOKENS, &M_EVERY, &M_NESTED, &M_MAP16, &M_BIG};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    const message *m = all[i];
    source src = {m->bytes.p, m->bytes.n, NULL};
    walk_ctx c = {m, 1, m->bytes.p, 0, 0, "contiguous", 0};
    check_full(m, &src, &c, 1);
    CHECK(c.views > 0);
    c.zero_copy = 0;   /* header + sp_read_view: always in place when contiguous */
    c.views = c.spans = 0;
    check_full(m, &src, &c, 0);
    CHECK(c.spans == 0);
  }
}

static void every_truncation_point_fails_with_truncated_never_a_crash(void) {
  for (size_t k = 0; k < N_SMALL; k++) {
    const message *m = SMALL_MESSAGES[k];
    int before = sp_test_failures;
    for (size_t len = 0; len < m->bytes.n && sp_test_failures == before; len++) {
      input cut = in_copy(m->bytes.p, len);
      source src = {cut.p, len, NULL};
      walk_ctx c = {m, 1, cut.p, 0, 0, "contiguous cut", len};
      check_cut(m, &src, &c, len);
      in_free(&cut);
    }
  }
}

static void big_bodies_truncated_near_every_token_and_through_the_bodies(void) {
  const message *m = &M_BIG;
  int *points = interesting_points(m, 401);
  int before = sp_test_failures;
  size_t tried = 0;
  for (size_t len = 0; len < m->bytes.n && sp_test_failures == before; len++) {
    input cut;
    source src;
    walk_ctx c = {m, 1, NULL, 0, 0, "contiguous cut", len};
    if (!points[len]) continue;
    cut = in_copy(m->bytes.p, len);
    src.contig = cut.p; src.len = len; src.seq = NULL;
    c.base = cut.p;
    check_cut(m, &src, &c, len);
    in_free(&cut);
    tried++;
  }
  CHECK(tried > 600);   /* ~490 by stride, ~250 near tokens */
  free(points);
}

/* Truncated and in 1-byte segments: the same errors at the same offsets. */
static void truncation_across_one_byte_segments_fails_the_same_way(void) {
  for (size_t k = 0; k < N_SMALL; k++) {
    const message *m = SMALL_MESSAGES[k];
    int before = sp_test_failures;
    size_t *sizes = xmalloc((2 * m->bytes.n + 3) * sizeof *sizes);
    for (size_t len = 0; len < m->bytes.n && sp_test_failures == before; len++) {
      segs g;
      source src;
      walk_ctx c = {m, 0, NULL, 0, 0, "1-byte segments cut", len};
      segs_build(&g, m->bytes.p, len, sizes, plan_sizes(PLAN_BYTES, len, 0, 0, sizes));
      src.contig = NULL; src.len = len; src.seq = &g.seq;
      check_cut(m, &src, &c, len);
      segs_free(&g);
    }
    free(sizes);
  }
}

static void c1_at_every_value_start_is_invalid_at_that_offset(void) {
  message *all[] = {&M_TOKENS, &M_EVERY, &M_NESTED, &M_MAP16, &M_BIG};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
    const message *m = all[k];
    int before = sp_test_failures;
    for (size_t i = 0; i < m->sc->n && sp_test_failures == before; i++) {
      input bad = in_copy(m->bytes.p, m->bytes.n);
      sp_reader r;
      walk_ctx c = {m, 1, bad.p, 0, 0, "0xc1 at op", i};
      int ok = 1;
      bad.p[m->start[i]] = 0xc1;
      sp_reader_init(&r, bad.p, bad.n);
      ok &= CHECK(sp_skip(&r) == 0);
      ok &= EXPECT_ERR(&r, SP_E_MALFORMED, m->start[i]);
      sp_reader_init(&r, bad.p, bad.n);
      ok &= CHECK(walk(&c, &r, 0, m->sc->n) == i);
      ok &= EXPECT_ERR(&r, SP_E_MALFORMED, m->start[i]);
      if (m == &M_TOKENS) {   /* and in 1-byte segments */
        size_t *sizes = xmalloc((2 * bad.n + 3) * sizeof *sizes);
        segs g;
        segs_build(&g, bad.p, bad.n, sizes, plan_sizes(PLAN_BYTES, bad.n, 0, 0, sizes));
        sp_reader_init_sequence(&r, &g.seq);
        ok &= CHECK(sp_skip(&r) == 0);
        ok &= EXPECT_ERR(&r, SP_E_MALFORMED, m->start[i]);
        segs_free(&g);
        free(sizes);
      }
      if (!ok) fprintf(stderr, "      message '%s', 0xc1 at op %zu (offset %llu)\n", m->sc->name,
                       i, (unsigned long long)m->start[i]);
      in_free(&bad);
    }
  }
}

/* One plan over one message: reads everything as the contiguous reader does. */
static void check_plan(const message *m, plan p, size_t a, size_t b, int every_skip,
                       walk_ctx *out_stats) {
  size_t L = m->bytes.n;
  size_t *sizes = xmalloc((2 * L + 3) * sizeof *sizes);
  segs g;
  source src;
  walk_ctx c = {m, 0, NULL, 0, 0, PLAN_NAMES[p], p == PLAN_PAIR ? a * 100000 + b : a};
  segs_build(&g, m->bytes.p, L, sizes, plan_sizes(p, L, a, b, sizes));
  src.contig = NULL; src.len = L; src.seq = &g.seq;
  check_full(m, &src, &c, every_skip);
  if (out_stats) { out_stats->views += c.views; out_stats->spans += c.spans; }
  segs_free(&g);
  free(sizes);
}

static void segmented_input_reads_like_contiguous_in_tiny_segments(void) {
  for (size_t k = 0; k < N_SMALL; k++) {
    const message *m = SMALL_MESSAGES[k];
    walk_ctx one = {m, 0, NULL, 0, 0, "", 0}, bytes = one;
    check_plan(m, PLAN_ONE, 0, 0, 1, &one);
    CHECK(one.spans == 0 && one.views > 0);       /* one segment: every body in place */
    check_plan(m, PLAN_BYTES, 0, 0, 1, &bytes);
    CHECK(bytes.spans > 0 || m == &M_NESTED);     /* bodies of 2+ bytes span (nested has none) */
    for (size_t phase = 0; phase < 3; phase++) check_plan(m, PLAN_123, phase, 0, 1, NULL);
    check_plan(m, PLAN_EMPTIES, 0, 0, 1, NULL);
  }
}

static void tokens_straddle_a_segment_boundary_at_every_split(void) {
  for (size_t k = 0; k < N_SMALL; k++) {
    const message *m = SMALL_MESSAGES[k];
    int before = sp_test_failures;
    for (size_t at = 0; at <= m->bytes.n && sp_test_failures == before; at++)
      check_plan(m, PLAN_SPLIT, at, 0, 0, NULL);
  }
}

static void tokens_straddle_two_boundaries_at_every_pair_of_splits(void) {
  const message *m = &M_TOKENS;
  int before = sp_test_failures;
  for (size_t a = 0; a <= m->bytes.n && sp_test_failures == before; a++)
    for (size_t b = a; b <= m->bytes.n && sp_test_failures == before; b++)
      check_plan(m, PLAN_PAIR, a, b, 0, NULL);
}

static void big_bodies_across_segments_read_like_contiguous(void) {
  const message *m = &M_BIG;
  int *points = interesting_points(m, 4001);
  int before = sp_test_failures;
  walk_ctx bytes = {m, 0, NULL, 0, 0, "", 0};
  check_plan(m, PLAN_BYTES, 0, 0, 1, &bytes);
  CHECK(bytes.spans > 0);
  for (size_t phase = 0; phase < 3; phase++) check_plan(m, PLAN_123, phase, 0, 0, NULL);
  for (size_t at = 0; at <= m->bytes.n && sp_test_failures == before; at++)
    if (points[at]) check_plan(m, PLAN_SPLIT, at, 0, 0, NULL);
  free(points);
}

/* Segments from a real pool-backed sequence, one segment per 1, 2 or 3 bytes. */
static void pooled_sequence_of_tiny_segments_reads_like_contiguous(void) {
  const message *all[] = {&M_TOKENS, &M_EVERY};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
    const message *m = all[k];
    sp_pool *pool = sp_bucket_pool_create(1024, 1024);
    sp_sequence s;
    size_t at = 0, chunks = 0;
    source src;
    walk_ctx c = {m, 0, NULL, 0, 0, "pooled 1,2,3 segments", 0};
    if (!CHECK(pool != NULL)) return;
    sp_seq_init(&s, pool);
    s.min_span = 1;
    while (at < m->bytes.n) {
      size_t want = 1 + chunks % 3, avail = 0, hint;
      uint8_t *span;
      if (want > m->bytes.n - at) want = m->bytes.n - at;
      /* more than the last segment's free tail: forces a new segment */
      hint = s.nsegs ? s.segs[s.nsegs - 1].capacity - s.segs[s.nsegs - 1].used + 1 : want;
      if (hint < want) hint = want;
      span = sp_seq_get_span(&s, hint, &avail);
      if (!CHECK(span != NULL && avail >= want)) break;
      memcpy(span, m->bytes.p + at, want);
      sp_seq_advance(&s, want);
      at += want;
      chunks++;
    }
    CHECK(s.nsegs == chunks && s.length == m->bytes.n);
    src.contig = NULL; src.len = m->bytes.n; src.seq = &s;
    check_full(m, &src, &c, 1);
    CHECK(c.spans > 0);
    sp_seq_free(&s);
    sp_pool_destroy(pool);
  }
}

/* ---- bodies that span segments -------------------------------------------------------- */

static void view_of_a_spanning_body_is_0_without_error_and_raw_copies_it(void) {
  static const uint8_t msg[] = {0xa5, 'h', 'e', 'l', 'l', 'o', 0xc4, 0x03, 1, 2, 3};
  size_t sizes[] = {3, 5, 3};   /* [a5 h e] [l l o c4 03] [1 2 3] */
  segs g;
  sp_reader r;
  uint32_t n = 0;
  const uint8_t *p = NULL;
  char text[5];
  segs_build(&g, msg, sizeof msg, sizes, 3);
  sp_reader_init_sequence(&r, &g.seq);
  CHECK(sp_read_str_header(&r, &n) == 1 && n == 5);
  CHECK(sp_read_view(&r, n, &p) == 0);
  EXPECT_NO_ERR(&r);
  CHECK(p == NULL);
  CHECK(sp_reader_offset(&r) == 1);              /* nothing consumed */
  CHECK(sp_read_raw(&r, text, n) == 1);
  CHECK(memcmp(text, "hello", 5) == 0);
  CHECK(sp_reader_offset(&r) == 6);
  CHECK(sp_read_bin_header(&r, &n) == 1 && n == 3);
  CHECK(sp_read_view(&r, n, &p) == 1);           /* wholly in the third segment */
  CHECK(p == g.s[2].data);
  CHECK(p != NULL && memcmp(p, msg + 8, 3) == 0);
  CHECK(sp_reader_offset(&r) == sizeof msg);
  CHECK(sp_read_view(&r, 0, &p) == 1);           /* 0 bytes at the end */
  CHECK(sp_read_view(&r, 1, &p) == 0);
  EXPECT_ERR(&r, SP_E_TRUNCATED, sizeof msg);
  segs_free(&g);
}

static void read_str_and_bin_of_a_spanning_body_fail_with_limit(void) {
  static const uint8_t msg[] = {0xa5, 'h', 'e', 'l', 'l', 'o', 0xc4, 0x03, 1, 2, 3};
  size_t split_str[] = {3, 8}, split_bin[] = {9, 2}, whole[] = {1, 10};
  segs g;
  sp_reader r;
  uint32_t n = 77;
  const char *s = NULL;
  const uint8_t *p = NULL;
  segs_build(&g, msg, sizeof msg, split_str, 2);
  sp_reader_init_sequence(&r, &g.seq);
  CHECK(sp_read_str(&r, &s, &n) == 0);
  CHECK(r.err.code == SP_E_LENGTH_LIMIT);
  CHECK(s == NULL && n == 77);
  segs_free(&g);
  segs_build(&g, msg, sizeof msg, split_bin, 2);
  sp_reader_init_sequence(&r, &g.seq);
  CHECK(sp_read_str(&r, &s, &n) == 1 && n == 5 && s == (const char *)g.s[0].data + 1);
  CHECK(sp_read_bin(&r, &p, &n) == 0);
  CHECK(r.err.code == SP_E_LENGTH_LIMIT);
  segs_free(&g);
  /* header in one segment, body wholly in the next: zero-copy works */
  segs_build(&g, msg, sizeof msg, whole, 2);
  sp_reader_init_sequence(&r, &g.seq);
  CHECK(sp_read_str(&r, &s, &n) == 1 && n == 5 && s == (const char *)g.s[1].data);
  CHECK(sp_read_bin(&r, &p, &n) == 1 && n == 3 && p == g.s[1].data + 7);
  EXPECT_NO_ERR(&r);
  segs_free(&g);
}

static void raw_and_view_past_the_end_are_truncated_and_copy_nothing(void) {
  input in = in_copy(BYTES(0x01, 0x02, 0x03));
  sp_reader r;
  uint8_t dst[4] = {9, 9, 9, 9};
  const uint8_t *p = NULL;
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_raw(&r, dst, 4) == 0);
  EXPECT_ERR(&r, SP_E_TRUNCATED, 0);
  CHECK(dst[0] == 9 && dst[3] == 9);
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_view(&r, 4, &p) == 0 && p == NULL);
  EXPECT_ERR(&r, SP_E_TRUNCATED, 0);
  in_free(&in);
}

/* ---- offsets ---------------------------------------------------------------------------- */

/* Token sizes written by hand next to the bytes. */
static const uint8_t OFFSET_MSG[] = {
  0xc0,                                                   /* nil            1 */
  0xc3,                                                   /* true           1 */
  0x05,                                                   /* fixint         1 */
  0xcc, 0x80,                                             /* uint 8         2 */
  0xcd, 0x01, 0x00,                                       /* uint 16        3 */
  0xce, 0x00, 0x01, 0x00, 0x00,                           /* uint 32        5 */
  0xcf, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,   /* uint 64        9 */
  0xd0, 0xdf,                                             /* int 8          2 */
  0xd1, 0xff, 0x7f,                                       /* int 16         3 */
  0xd2, 0xff, 0xff, 0x7f, 0xff,                           /* int 32         5 */
  0xd3, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,   /* int 64         9 */
  0xca, 0x3f, 0xc0, 0x00, 0x00,                           /* float 32       5 */
  0xcb, 0x3f, 0xf8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,   /* float 64       9 */
  0xa3, 'a', 'b', 'c',                                    /* fixstr   1 + body 3 */
  0xd9, 0x01, 'x',                                        /* str 8    2 + body 1 */
  0xda, 0x00, 0x02, 'y', 'z',                             /* str 16   3 + body 2 */
  0xc4, 0x02, 0x01, 0x02,                                 /* bin 8    2 + body 2 */
  0xc6, 0x00, 0x00, 0x00, 0x01, 0x07,                     /* bin 32   5 + body 1 */
  0xd4, 0x07, 0x01,                                       /* fixext 1 2 + body 1 */
  0xc7, 0x03, 0x07, 0x01, 0x02, 0x03,                     /* ext 8    3 + body 3 */
  0xc9, 0x00, 0x00, 0x00, 0x01, 0x07, 0x09,               /* ext 32   6 + body 1 */
  0xd6, 0xff, 0x00, 0x00, 0x00, 0x01,                     /* timestamp 32   6 */
  0xdc, 0x00, 0x01,                                       /* array 16       3 */
  0xdf, 0x00, 0x00, 0x00, 0x01,                           /* map 32         5 */
  0x92, 0x01, 0xa1, 'z',                                  /* skipped [1,"z"] 4 */
  0xc0,                                                   /* nil            1 */
};

typedef struct tok { rk k; size_t size; } tok;
#define K_RAW K_COUNT          /* a body: sp_read_raw of 'size' bytes */
#define K_SKIP (K_COUNT + 1)   /* a whole value: sp_skip */

static const tok OFFSET_TOKS[] = {
  {K_NIL, 1}, {K_BOOL, 1}, {K_U8, 1}, {K_U8, 2}, {K_U16, 3}, {K_U32, 5}, {K_U64, 9},
  {K_I8, 2}, {K_I16, 3}, {K_I32, 5}, {K_I64, 9}, {K_DOUBLE, 5}, {K_FLOAT, 9},
  {K_STR_H, 1}, {(rk)K_RAW, 3}, {K_STR_H, 2}, {(rk)K_RAW, 1}, {K_STR_H, 3}, {(rk)K_RAW, 2},
  {K_BIN_H, 2}, {(rk)K_RAW, 2}, {K_BIN_H, 5}, {(rk)K_RAW, 1},
  {K_EXT_H, 2}, {(rk)K_RAW, 1}, {K_EXT_H, 3}, {(rk)K_RAW, 3}, {K_EXT_H, 6}, {(rk)K_RAW, 1},
  {K_TS, 6}, {K_ARRAY, 3}, {K_MAP, 5}, {(rk)K_SKIP, 4}, {K_NIL, 1},
};

static void walk_offsets(sp_reader *r, const char *what, size_t arg) {
  uint64_t at = 0;
  int before = sp_test_failures;
  for (size_t i = 0; i < sizeof OFFSET_TOKS / sizeof OFFSET_TOKS[0] && sp_test_failures == before; i++) {
    const tok *t = &OFFSET_TOKS[i];
    uint8_t buf[8];
    int rc = (int)t->k == K_RAW ? sp_read_raw(r, buf, t->size)
           : (int)t->k == K_SKIP ? sp_skip(r) : call_reader(r, t->k);
    at += t->size;
    CHECK(rc == 1);
    if (!CHECK(sp_reader_offset(r) == at))
      fprintf(stderr, "      token %zu: offset %llu, expected %llu (%s %zu)\n", i,
              (unsigned long long)sp_reader_offset(r), (unsigned long long)at, what, arg);
  }
  CHECK(at == sizeof OFFSET_MSG);
  CHECK(sp_peek(r) == SP_T_END);
  EXPECT_NO_ERR(r);
}

static void offsets_advance_by_each_token_size_also_across_segments(void) {
  input in = in_copy(OFFSET_MSG, sizeof OFFSET_MSG);
  size_t L = sizeof OFFSET_MSG;
  size_t *sizes = xmalloc((2 * L + 3) * sizeof *sizes);
  sp_reader r;
  segs g;
  sp_reader_init(&r, in.p, in.n);
  walk_offsets(&r, "contiguous", 0);
  segs_build(&g, in.p, L, sizes, plan_sizes(PLAN_BYTES, L, 0, 0, sizes));
  sp_reader_init_sequence(&r, &g.seq);
  walk_offsets(&r, "1-byte segments", 0);
  segs_free(&g);
  for (size_t at = 0; at <= L; at++) {
    segs_build(&g, in.p, L, sizes, plan_sizes(PLAN_SPLIT, L, at, 0, sizes));
    sp_reader_init_sequence(&r, &g.seq);
    walk_offsets(&r, "split at", at);
    segs_free(&g);
  }
  free(sizes);
  in_free(&in);
}

/* ---- limits: checked before a caller could allocate --------------------------------------- */

static sp_alloc_stats allocs(void) {
  sp_alloc_stats a;
  sp_alloc_stats_get(&a);
  return a;
}

static void array_header_claiming_4294967295_in_10_bytes_is_truncated_first(void) {
  input in = in_copy(BYTES(0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0));
  sp_reader r;
  uint32_t n = 0;
  sp_alloc_stats before = allocs(), after;
  CHECK(in.n == 10);
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_array_header(&r, &n) == 0);
  EXPECT_ERR(&r, SP_E_TRUNCATED, 0);
  after = allocs();
  CHECK(after.alloc_calls == before.alloc_calls);   /* the reader allocates nothing */
  in_free(&in);
}

static void map_of_2_pow_31_entries_is_truncated_counting_two_per_entry_in_64_bits(void) {
  /* 2^31 entries: 2^32 values -- wraps to 0 in 32 bits */
  input in = in_copy(BYTES(0xc0, 0xdf, 0x80, 0x00, 0x00, 0x00, 0xc0, 0xc0, 0xc0, 0xc0));
  sp_reader r;
  uint32_t n = 0;
  sp_reader_init(&r, in.p, in.n);
  sp_read_nil(&r);
  CHECK(sp_read_map_header(&r, &n) == 0);
  EXPECT_ERR(&r, SP_E_TRUNCATED, 1);
  in_free(&in);
  in = in_copy(BYTES(0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0));
  sp_reader_init(&r, in.p, in.n);
  CHECK(sp_read_map_header(&r, &n) == 0);
  EXPECT_ERR(&r, SP_E_TRUNCATED, 0);
  in_free(&in);
}

/* An array needs one byte per element, a map two per entry, a str/bin/ext
** its length: exactly enough passes, one byte less is TRUNCATED at the header. */
static void headers_need_their_count_or_length_in_bytes_left(void) {
  const struct { const uint8_t *h; size_t hn; rk k; size_t need; } cases[] = {
    {BYTES(0x93), K_ARRAY, 3}, {BYTES(0xdc, 0x00, 0x03), K_ARRAY, 3},
    {BYTES(0x83), K_MAP, 6}, {BYTES(0xde, 0x00, 0x03), K_MAP, 6},
    {BYTES(0xa5), K_STR_H, 5}, {BYTES(0xd9, 0x05), K_STR_H, 5},
    {BYTES(0xdb, 0x00, 0x00, 0x00, 0x05), K_STR, 5},
    {BYTES(0xc4, 0x05), K_BIN_H, 5}, {BYTES(0xc6, 0x00, 0x00, 0x00, 0x05), K_BIN, 5},
    {BYTES(0xd8, 0x01), K_EXT_H, 16}, {BYTES(0xc7, 0x05, 0x01), K_EXT_H, 5},
    {BYTES(0xc9, 0x00, 0x00, 0x00, 0x05, 0x01), K_EXT_H, 5},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int less = 0; less <= 1; less++) {
      input in;
      sp_reader r;
      int rc, ok, b;
      in.n = 1 + cases[i].hn + cases[i].need - (size_t)less;
      in.p = xmalloc(in.n);
      in.p[0] = 0xc2;
      memcpy(in.p + 1, cases[i].h, cases[i].hn);
      memset(in.p + 1 + cases[i].hn, 0xc0, cases[i].need - (size_t)less);
      sp_reader_init(&r, in.p, in.n);
      sp_read_bool(&r, &b);   /* the header starts at offset 1 */
      rc = call_reader(&r, cases[i].k);
      if (less) ok = CHECK(rc == 0) & EXPECT_ERR(&r, SP_E_TRUNCATED, 1);
      else ok = CHECK(rc == 1) & EXPECT_NO_ERR(&r);
      if (!ok) fprintf(stderr, "      case %zu (header %02X) with %s bytes\n", i, cases[i].h[0],
                       less ? "one too few" : "exactly enough");
      in_free(&in);
    }
}

static void str_bin_ext_lengths_beyond_the_input_are_truncated(void) {
  const struct { const uint8_t *b; size_t n; rk k; } cases[] = {
    {BYTES(0xdb, 0xff, 0xff, 0xff, 0xff, 'a'), K_STR},
    {BYTES(0xdb, 0xff, 0xff, 0xff, 0xff, 'a'), K_STR_H},
    {BYTES(0xda, 0xff, 0xff, 'a'), K_STR},
    {BYTES(0xc6, 0xff, 0xff, 0xff, 0xff, 0x00), K_BIN},
    {BYTES(0xc5, 0x01, 0x00, 0x00), K_BIN_H},
    {BYTES(0xc9, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00), K_EXT_H},
    {BYTES(0xc8, 0x01, 0x00, 0x01, 0x00), K_EXT_H},
    {BYTES(0xc9, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00), K_TS},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    input in = in_copy(cases[i].b, cases[i].n);
    sp_reader r;
    sp_alloc_stats before = allocs(), after;
    int ok;
    sp_reader_init(&r, in.p, in.n);
    ok = CHECK(call_reader(&r, cases[i].k) == 0);
    ok &= EXPECT_ERR(&r, SP_E_TRUNCATED, 0);
    after = allocs();
    ok &= CHECK(after.alloc_calls == before.alloc_calls);
    if (!ok) fprintf(stderr, "      case %zu through sp_read_%s\n", i, RK_NAMES[cases[i].k]);
    in_free(&in);
  }
}

static int decode_any(sp_reader *r);

/* The value at r through the typed reads: a str/bin/ext header, or
** containers descended into. */
static int typed_any(sp_reader *r) {
  uint32_t n;
  int8_t t;
  switch (sp_peek(r)) {
    case SP_T_STR: return sp_read_str_header(r, &n);
    case SP_T_BIN: return sp_read_bin_header(r, &n);
    case SP_T_EXT: return sp_read_ext_header(r, &t, &n);
    default: return decode_any(r);
  }
}

/* A header claiming more than is left: sp_skip says what the typed reads
** and the value tree say (SP_E_TRUNCATED at the header), without walking into
** what follows. */
static void skip_over_oversized_headers_is_truncated_at_the_header_like_typed_reads(void) {
  const struct { const uint8_t *b; size_t n; } cases[] = {
    {BYTES(0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0)},
    {BYTES(0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0)},
    {BYTES(0xdf, 0x80, 0x00, 0x00, 0x00)},        /* 2^32 values: 0 in a 32-bit counter */
    {BYTES(0xdf, 0x80, 0x00, 0x00, 0x00, 0xc0)},
    {BYTES(0xdd, 0xff, 0xff, 0xff, 0xff, 0xdd, 0xff, 0xff, 0xff, 0xff, 0xdf, 0xff, 0xff, 0xff,
           0xff)},
    {BYTES(0xdb, 0xff, 0xff, 0xff, 0xff, 'a')},
    {BYTES(0xc6, 0xff, 0xff, 0xff, 0xff, 0x00)},
    {BYTES(0xc9, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00)},
    {BYTES(0xa5, 'a')},
    {BYTES(0xd8, 0x01, 0x00)},
    {BYTES(0x93, 0xc0, 0xc1)},                    /* claims 3 in 2 bytes: not the 0xc1 */
    {BYTES(0x82, 0xc0, 0xc0, 0xc0)},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    input in = in_copy(cases[i].b, cases[i].n);
    sp_reader r, typed;
    sp_value v;
    sp_doc doc = {0};
    sp_error e;
    int ok;
    sp_reader_init(&r, in.p, in.n);
    ok = CHECK(sp_skip(&r) == 0);
    ok &= EXPECT_ERR(&r, SP_E_TRUNCATED, 0);
    ok &= CHECK(sp_value_decode(in.p, in.n, NULL, &doc, &v, &e) == SP_E_TRUNCATED && e.offset == 0);
    sp_reader_init(&typed, in.p, in.n);
    ok &= CHECK(typed_any(&typed) == 0) && EXPECT_ERR(&typed, SP_E_TRUNCATED, 0);
    if (!ok) fprintf(stderr, "      case %zu: %s\n", i, sp_code_name(r.err.code));
    sp_doc_free(&doc);
    in_free(&in);
  }
}

/* ---- depth ------------------------------------------------------------------------------ */

#define DEEP 10000000u

typedef struct skip_job { const uint8_t *p; size_t n; int rc; sp_error err; uint64_t offset; } skip_job;

static void *skip_thread(void *arg) {
  skip_job *j = arg;
  sp_reader r;
  sp_reader_init(&r, j->p, j->n);
  j->rc = sp_skip(&r);
  j->err = r.err;
  j->offset = sp_reader_offset(&r);
  return NULL;
}

/* Runs sp_skip on a thread with a 256 KiB stack: recursion over millions of
** levels could not fit. Without threads (WASI) it runs on the module's own
** small stack, which no recursion of that depth would fit either. */
static int skip_on_small_stack(skip_job *j) {
#ifdef SP_NO_THREADS
  skip_thread(j);
  return 1;
#else
  pthread_attr_t a;
  pthread_t t;
  int ok;
  pthread_attr_init(&a);
  pthread_attr_setstacksize(&a, 256 * 1024);
  ok = pthread_create(&t, &a, skip_thread, j) == 0;
  if (ok) pthread_join(t, NULL);
  pthread_attr_destroy(&a);
  return ok;
#endif
}

static void skip_of_10_million_nested_arrays_needs_no_recursion(void) {
  uint8_t *deep = xmalloc(DEEP + 1);
  skip_job j;
  memset(deep, 0x91, DEEP);
  deep[DEEP] = 0xc0;
  j.p = deep; j.n = DEEP + 1;
  CHECK(skip_on_small_stack(&j));
  CHECK(j.rc == 1);
  CHECK(j.err.code == SP_OK);
  CHECK(j.offset == DEEP + 1);
  free(deep);
}

/* The innermost [x] has no x: its header claims one value in no bytes. */
static void skip_of_10_million_nested_arrays_without_the_last_byte_is_truncated_at_the_last(void) {
  uint8_t *deep = xmalloc(DEEP);
  skip_job j;
  memset(deep, 0x91, DEEP);
  j.p = deep; j.n = DEEP;
  CHECK(skip_on_small_stack(&j));
  CHECK(j.rc == 0);
  CHECK(j.err.code == SP_E_TRUNCATED);
  CHECK(j.err.offset == DEEP - 1);
  free(deep);
}

static void skip_of_5_million_nested_maps_needs_no_recursion(void) {
  uint8_t *deep = xmalloc(DEEP + 1);
  skip_job j;
  for (size_t i = 0; i < DEEP; i += 2) { deep[i] = 0x81; deep[i + 1] = 0xc0; }   /* {nil: {nil: ...}} */
  deep[DEEP] = 0xc0;
  j.p = deep; j.n = DEEP + 1;
  CHECK(skip_on_small_stack(&j));
  CHECK(j.rc == 1 && j.offset == DEEP + 1);
  j.n = DEEP;   /* the innermost value missing: {nil: } claims 2 values in 1 byte */
  CHECK(skip_on_small_stack(&j));
  CHECK(j.rc == 0 && j.err.code == SP_E_TRUNCATED && j.err.offset == DEEP - 2);
  j.n = DEEP - 1;   /* the innermost key missing as well */
  CHECK(skip_on_small_stack(&j));
  CHECK(j.rc == 0 && j.err.code == SP_E_TRUNCATED && j.err.offset == DEEP - 2);
  free(deep);
}

/* A decoder that descends: header, enter, elements, leave. */
static int decode_any(sp_reader *r) {
  uint32_t n;
  switch (sp_peek(r)) {
    case SP_T_ARRAY:
      if (!sp_read_array_header(r, &n) || !sp_reader_enter(r)) return 0;
      for (uint32_t i = 0; i < n; i++) if (!decode_any(r)) return 0;
      sp_reader_leave(r);
      return 1;
    case SP_T_MAP:
      if (!sp_read_map_header(r, &n) || !sp_reader_enter(r)) return 0;
      for (uint64_t i = 0; i < 2 * (uint64_t)n; i++) if (!decode_any(r)) return 0;
      sp_reader_leave(r);
      return 1;
    default:
      return sp_skip(r);
  }
}

static void enter_fails_with_depth_at_501_by_default(void) {
  sp_reader r;
  sp_reader_init(&r, NULL, 0);
  CHECK(r.max_depth == SP_DEPTH_DEFAULT && SP_DEPTH_DEFAULT == 500);
  for (unsigned d = 1; d <= 500; d++)
    if (!CHECK(sp_reader_enter(&r) == 1)) break;
  CHECK(r.depth == 500);
  CHECK(sp_reader_enter(&r) == 0);
  CHECK(r.err.code == SP_E_DEPTH_LIMIT);
  sp_reader_init(&r, NULL, 0);   /* leave makes room again; never below 0 */
  CHECK(sp_reader_enter(&r) == 1);
  sp_reader_leave(&r);
  sp_reader_leave(&r);
  CHECK(r.depth == 0);
}

static void decoder_over_10_million_deep_input_stops_at_depth_501(void) {
  uint8_t *deep = xmalloc(DEEP + 1);
  sp_reader r;
  memset(deep, 0x91, DEEP);
  deep[DEEP] = 0xc0;
  sp_reader_init(&r, deep, DEEP + 1);
  CHECK(decode_any(&r) == 0);
  EXPECT_ERR(&r, SP_E_DEPTH_LIMIT, 501);   /* after the 501st header */
  CHECK(r.depth == 500);
  free(deep);
}

static void a_changed_max_depth_is_honoured(void) {
  uint8_t *deep = xmalloc(601);
  sp_reader r;
  memset(deep, 0x91, 600);
  deep[600] = 0xc0;
  sp_reader_init(&r, deep, 601);
  r.max_depth = 600;
  CHECK(decode_any(&r) == 1);
  EXPECT_NO_ERR(&r);
  CHECK(r.depth == 0 && sp_reader_offset(&r) == 601);
  sp_reader_init(&r, deep, 601);
  r.max_depth = 599;
  CHECK(decode_any(&r) == 0);
  EXPECT_ERR(&r, SP_E_DEPTH_LIMIT, 600);
  sp_reader_init(&r, deep, 601);
  r.max_depth = 10;
  CHECK(decode_any(&r) == 0);
  EXPECT_ERR(&r, SP_E_DEPTH_LIMIT, 11);
  sp_reader_init(&r, deep + 599, 2);   /* [nil] */
  r.max_depth = 0;
  CHECK(decode_any(&r) == 0);
  EXPECT_ERR(&r, SP_E_DEPTH_LIMIT, 1);
  free(deep);
}

int main(void) {
  BODY = pattern(BODY_LEN, 7);
  messages_build();
  SP_RUN(nil_and_bools_read_back);
  SP_RUN(read_nil_if_consumes_only_a_nil_and_never_fails);
  SP_RUN(every_integer_form_reads_back_through_every_reader_it_fits);
  SP_RUN(narrowing_that_does_not_fit_is_overflow_at_the_token_start);
  SP_RUN(overflow_examples_128_into_int8_minus1_into_uint32_2pow32_into_uint32);
  SP_RUN(integers_read_through_double_and_float);
  SP_RUN(floats_read_back_exactly_as_double_and_float);
  SP_RUN(nan_reads_back_as_nan);
  SP_RUN(float_reader_rounds_a_double_to_nearest_float);
  SP_RUN(a_float32_keeps_its_bits_signalling_nan_too);
  SP_RUN(an_integer_reads_as_the_nearest_float_rounded_once);
  SP_RUN(integer_readers_reject_floats_with_type_error);
  SP_RUN(str_headers_of_every_form_and_zero_copy_bodies);
  SP_RUN(bin_headers_of_every_form_and_zero_copy_bodies);
  SP_RUN(str_and_bin_are_not_interchangeable);
  SP_RUN(array_headers_of_every_form);
  SP_RUN(map_headers_of_every_form);
  SP_RUN(ext_of_every_form_reads_type_and_body);
  SP_RUN(timestamps_read_back_in_32_64_and_96_bit_forms);
  SP_RUN(timestamp_of_wrong_length_type_or_nsec_is_invalid_at_its_start);
  SP_RUN(peek_types_every_first_byte_as_the_spec_says);
  SP_RUN(peek_at_end_of_input_is_end_without_error);
  SP_RUN(empty_input_and_empty_sequence_fail_reads_with_truncation);
  SP_RUN(empty_segments_without_memory_read_as_nothing);
  SP_RUN(every_reader_rejects_other_types_with_type_error_at_the_value);
  SP_RUN(every_reader_at_end_of_input_is_truncated);
  SP_RUN(every_reader_on_c1_is_invalid);
  SP_RUN(truncated_token_is_truncation_error_at_the_token_start);
  SP_RUN(skip_truncation_error_points_at_the_cut_value);
  SP_RUN(reading_a_str_where_an_int_is_is_type_error_at_its_offset);
  SP_RUN(errors_are_sticky_first_error_and_offset_stay);
  SP_RUN(failed_header_reads_leave_outputs_unchanged);
  SP_RUN(inline_reads_agree_with_their_slow_paths_on_every_first_byte);
  SP_RUN(a_failed_reader_fails_every_inline_read_and_stores_nothing);
  SP_RUN(span_at_decoders_and_advance_walk_a_segment);
  SP_RUN(fail_at_records_the_given_offset_once);
  SP_RUN(messages_read_back_typed_and_skip_consumes_exactly_all_bytes);
  SP_RUN(every_truncation_point_fails_with_truncated_never_a_crash);
  SP_RUN(big_bodies_truncated_near_every_token_and_through_the_bodies);
  SP_RUN(truncation_across_one_byte_segments_fails_the_same_way);
  SP_RUN(c1_at_every_value_start_is_invalid_at_that_offset);
  SP_RUN(segmented_input_reads_like_contiguous_in_tiny_segments);
  SP_RUN(tokens_straddle_a_segment_boundary_at_every_split);
  SP_RUN(tokens_straddle_two_boundaries_at_every_pair_of_splits);
  SP_RUN(big_bodies_across_segments_read_like_contiguous);
  SP_RUN(pooled_sequence_of_tiny_segments_reads_like_contiguous);
  SP_RUN(view_of_a_spanning_body_is_0_without_error_and_raw_copies_it);
  SP_RUN(read_str_and_bin_of_a_spanning_body_fail_with_limit);
  SP_RUN(raw_and_view_past_the_end_are_truncated_and_copy_nothing);
  SP_RUN(offsets_advance_by_each_token_size_also_across_segments);
  SP_RUN(array_header_claiming_4294967295_in_10_bytes_is_truncated_first);
  SP_RUN(map_of_2_pow_31_entries_is_truncated_counting_two_per_entry_in_64_bits);
  SP_RUN(headers_need_their_count_or_length_in_bytes_left);
  SP_RUN(str_bin_ext_lengths_beyond_the_input_are_truncated);
  SP_RUN(skip_over_oversized_headers_is_truncated_at_the_header_like_typed_reads);
  SP_RUN(skip_of_10_million_nested_arrays_needs_no_recursion);
  SP_RUN(skip_of_10_million_nested_arrays_without_the_last_byte_is_truncated_at_the_last);
  SP_RUN(skip_of_5_million_nested_maps_needs_no_recursion);
  SP_RUN(enter_fails_with_depth_at_501_by_default);
  SP_RUN(decoder_over_10_million_deep_input_stops_at_depth_501);
  SP_RUN(a_changed_max_depth_is_honoured);
  messages_free();
  free(BODY);
  sp_shutdown();   /* the default pools go, so ASan's leak check sees nothing held */
  return sp_test_summary();
}
