/*
** test_bulk.c -- numeric arrays as standard MessagePack arrays.
** Smallest forms per element, SIMD output equal to scalar on every range,
** chunked reservations that never leave the pool (the document's 30,000
** ints), and reading back into caller arrays with range checks.
*/
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "sp_test.h"

typedef struct i32s { const int32_t *v; size_t n; } i32s;

static int write_i32s(sp_writer *w, const void *value) {
  const i32s *a = value;
  sp_write_i32_array(w, a->v, a->n);
  return 0;
}

static void i32_array_uses_smallest_forms(void) {
  static const int32_t v[6] = {0, -32, 128, 256, 65536, INT32_MIN};
  static const uint8_t want[] = {0x96, 0x00, 0xE0, 0xCC, 0x80, 0xCD, 0x01, 0x00,
                                 0xCE, 0x00, 0x01, 0x00, 0x00, 0xD2, 0x80, 0x00, 0x00, 0x00};
  i32s a = {v, 6};
  sp_bytes b;
  CHECK(sp_to_array(write_i32s, &a, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, want, sizeof want);
  sp_bytes_free(&b);
}

/* Values drawn from every form's range, so groups of four mix kinds. */
static int32_t mixed_value(unsigned i, unsigned seed) {
  unsigned h = (i * 2654435761u) ^ seed;
  switch ((h >> 3) % 7) {
    case 0: return (int32_t)(h % 160) - 32;          /* one byte */
    case 1: return 128 + (int32_t)(h % 128);          /* cc */
    case 2: return 256 + (int32_t)(h % 65280);        /* cd */
    case 3: return (int32_t)h;                        /* anything */
    case 4: return -(int32_t)(h % 40000);             /* d0/d1 */
    case 5: return 65536 + (int32_t)(h % 1000000);    /* ce */
    default: return (int32_t)(i % 128);               /* runs of fixints */
  }
}

static void simd_output_equals_scalar_output(void) {
  static const unsigned lengths[] = {0, 1, 3, 4, 5, 7, 8, 4095, 4096, 4097, 30000, 100003};
  for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
    unsigned n = lengths[l];
    int32_t *v = malloc((n ? n : 1) * sizeof *v);
    i32s a = {v, n};
    sp_bytes s, d;
    for (unsigned i = 0; i < n; i++) v[i] = l % 2 ? mixed_value(i, l) : (int32_t)i;
    sp_bulk_force_scalar(1);
    CHECK(sp_to_array(write_i32s, &a, NULL, &s, NULL) == SP_OK);
    sp_bulk_force_scalar(0);
    CHECK(sp_to_array(write_i32s, &a, NULL, &d, NULL) == SP_OK);
    CHECK_BYTES(d.data, d.len, s.data, s.len);
    sp_bytes_free(&s);
    sp_bytes_free(&d);
    free(v);
  }
}

/* The SIMD kernel runs a loop per kind while groups keep their kind: runs
** of 1 to 3 groups of every pair of values at the kinds' edges (and past
** them), so every run starts, stops and changes kind at each edge, and the
** last run ends at the array's end or 1 to 3 lanes before it. */
static void simd_runs_change_kind_at_every_edge(void) {
  static const int32_t edge[] = {INT32_MIN, -33, -32, -1, 0, 127, 128, 255, 256,
                                 65535, 65536, INT32_MAX};
  enum { NE = sizeof edge / sizeof edge[0] };
  static int32_t v[NE * NE * 32];
  i32s a = {v, 0};
  int bad = 0;
  for (unsigned tail = 0; tail < 4; tail++) {
    size_t k = 0;
    sp_bytes s, d;
    for (unsigned e1 = 0; e1 < NE; e1++)
      for (unsigned e2 = 0; e2 < NE; e2++)
        for (unsigned g = 0; g < 4 * (1 + (e1 + e2) % 3); g++)     /* 1-3 groups of each */
          v[k++] = edge[g % 8 < 4 ? e1 : e2];
    a.n = k + tail;
    for (unsigned t = 0; t < tail; t++) v[k + t] = edge[(t * 5) % NE];
    sp_bulk_force_scalar(1);
    CHECK(sp_to_array(write_i32s, &a, NULL, &s, NULL) == SP_OK);
    sp_bulk_force_scalar(0);
    CHECK(sp_to_array(write_i32s, &a, NULL, &d, NULL) == SP_OK);
    bad += s.len != d.len || memcmp(s.data, d.data, s.len) != 0;
    sp_bytes_free(&s);
    sp_bytes_free(&d);
  }
  CHECK(bad == 0);
}

static void thirty_thousand_ints_make_no_unpooled_allocation(void) {
  static int32_t v[30000];
  i32s a = {v, 30000};
  sp_bytes b;
  sp_alloc_stats st;
  for (int i = 0; i < 30000; i++) v[i] = i;
  CHECK(sp_to_array(write_i32s, &a, NULL, &b, NULL) == SP_OK);     /* warm-up */
  sp_bytes_free(&b);
  sp_alloc_stats_reset();
  CHECK(sp_to_array(write_i32s, &a, NULL, &b, NULL) == SP_OK);
  sp_alloc_stats_get(&st);
  CHECK(b.len == 89619);
  CHECK(st.unpooled_calls == 0);
  CHECK(st.alloc_calls == 1 && st.alloc_bytes == 89619);         /* only the result */
  sp_bytes_free(&b);
}

static void i32_array_reads_back_into_a_caller_array(void) {
  static int32_t v[30000], back[30000];
  i32s a = {v, 30000};
  sp_bytes b;
  sp_reader r;
  uint32_t n;
  for (int i = 0; i < 30000; i++) v[i] = mixed_value((unsigned)i, 9);
  CHECK(sp_to_array(write_i32s, &a, NULL, &b, NULL) == SP_OK);
  sp_reader_init(&r, b.data, b.len);
  CHECK(sp_read_i32_array(&r, back, 30000, &n) && n == 30000 && sp_reader_remaining(&r) == 0);
  CHECK(memcmp(v, back, sizeof v) == 0);
  sp_reader_init(&r, b.data, b.len);
  CHECK(!sp_read_i32_array(&r, back, 29999, &n) && r.err.code == SP_E_LENGTH_LIMIT);
  sp_bytes_free(&b);
}

/* Every other element type, written and read back at its extremes. */
typedef struct all_types {
  int8_t i8[3]; int16_t i16[3]; int64_t i64[3];
  uint8_t u8[3]; uint16_t u16[3]; uint32_t u32[3]; uint64_t u64[3];
  float f32[3]; double f64[3];
} all_types;

static int write_all(sp_writer *w, const void *value) {
  const all_types *t = value;
  sp_write_i8_array(w, t->i8, 3);
  sp_write_i16_array(w, t->i16, 3);
  sp_write_i64_array(w, t->i64, 3);
  sp_write_u8_array(w, t->u8, 3);
  sp_write_u16_array(w, t->u16, 3);
  sp_write_u32_array(w, t->u32, 3);
  sp_write_u64_array(w, t->u64, 3);
  sp_write_f32_array(w, t->f32, 3);
  sp_write_f64_array(w, t->f64, 3);
  return 0;
}

static void every_element_type_round_trips_at_its_extremes(void) {
  all_types t = {{INT8_MIN, -1, INT8_MAX}, {INT16_MIN, 0, INT16_MAX},
                 {INT64_MIN, -33, INT64_MAX}, {0, 127, UINT8_MAX}, {0, 256, UINT16_MAX},
                 {0, 65536, UINT32_MAX}, {0, 1ull << 32, UINT64_MAX},
                 {-1.5f, 0.0f, 3.25f}, {-1e300, 0.5, 1e-300}};
  all_types back;
  sp_bytes b;
  sp_reader r;
  uint32_t n;
  int ok = 1;
  memset(&back, 0, sizeof back);
  CHECK(sp_to_array(write_all, &t, NULL, &b, NULL) == SP_OK);
  sp_reader_init(&r, b.data, b.len);
  ok &= sp_read_i8_array(&r, back.i8, 3, &n);
  ok &= sp_read_i16_array(&r, back.i16, 3, &n);
  ok &= sp_read_i64_array(&r, back.i64, 3, &n);
  ok &= sp_read_u8_array(&r, back.u8, 3, &n);
  ok &= sp_read_u16_array(&r, back.u16, 3, &n);
  ok &= sp_read_u32_array(&r, back.u32, 3, &n);
  ok &= sp_read_u64_array(&r, back.u64, 3, &n);
  ok &= sp_read_f32_array(&r, back.f32, 3, &n);
  ok &= sp_read_f64_array(&r, back.f64, 3, &n);
  CHECK(ok && sp_reader_remaining(&r) == 0);
  CHECK(!memcmp(t.i8, back.i8, sizeof t.i8) && !memcmp(t.i16, back.i16, sizeof t.i16));
  CHECK(!memcmp(t.i64, back.i64, sizeof t.i64) && !memcmp(t.u8, back.u8, sizeof t.u8));
  CHECK(!memcmp(t.u16, back.u16, sizeof t.u16) && !memcmp(t.u32, back.u32, sizeof t.u32));
  CHECK(!memcmp(t.u64, back.u64, sizeof t.u64) && !memcmp(t.f32, back.f32, sizeof t.f32));
  CHECK(!memcmp(t.f64, back.f64, sizeof t.f64));
  CHECK(b.data[0] == 0x93 && b.data[1] == 0xD0 && b.data[2] == 0x80);   /* -128 as d0 */
  sp_bytes_free(&b);
}

static void out_of_range_element_is_an_overflow_at_its_offset(void) {
  static const uint8_t bytes[] = {0x92, 0x01, 0xCC, 0xC8};   /* [1, 200] */
  int8_t dst[2];
  sp_reader r;
  uint32_t n;
  sp_reader_init(&r, bytes, sizeof bytes);
  CHECK(!sp_read_i8_array(&r, dst, 2, &n));
  CHECK(r.err.code == SP_E_OVERFLOW && r.err.offset == 2);
}

/* A reader over 'len' bytes cut into segments at the given sizes (each its
** own exact-size block, so ASan sees any read past a segment). */
typedef struct cut { sp_segment segs[400]; sp_sequence seq; } cut;

static void cut_open(cut *c, sp_reader *r, const uint8_t *p, size_t len, const size_t *sizes,
                     size_t k) {
  size_t at = 0;
  for (size_t i = 0; i < k; i++) {
    c->segs[i].data = malloc(sizes[i] ? sizes[i] : 1);
    memcpy(c->segs[i].data, p + at, sizes[i]);
    c->segs[i].used = c->segs[i].capacity = sizes[i];
    at += sizes[i];
  }
  memset(&c->seq, 0, sizeof c->seq);
  c->seq.segs = c->segs;
  c->seq.nsegs = c->seq.cap_segs = k;
  c->seq.length = len;
  sp_reader_init_sequence(r, &c->seq);
}

static void cut_close(cut *c) {
  for (size_t i = 0; i < c->seq.nsegs; i++) free(c->segs[i].data);
}

/* The element runs stop at every segment end: an array of every int32 form
** split in two at every byte, and in segments of 1 to 9 bytes, reads back
** exactly as from contiguous memory. */
static void i32_arrays_split_anywhere_read_back_like_contiguous(void) {
  static int32_t v[60], back[60];
  i32s a = {v, 60};
  sp_bytes b;
  for (int i = 0; i < 60; i++) v[i] = mixed_value((unsigned)i, 3);
  CHECK(sp_to_array(write_i32s, &a, NULL, &b, NULL) == SP_OK);
  for (size_t plan = 0; plan < b.len + 9; plan++) {
    size_t sizes[400], k = 0, at = 0;
    cut c;
    sp_reader r;
    uint32_t n = 0;
    if (plan <= b.len) { sizes[k++] = plan; sizes[k++] = b.len - plan; }
    else for (size_t step = plan - b.len; at < b.len; at += step)
      sizes[k++] = b.len - at < step ? b.len - at : step;
    cut_open(&c, &r, b.data, b.len, sizes, k);
    memset(back, 0, sizeof back);
    if (!CHECK(sp_read_i32_array(&r, back, 60, &n) && n == 60 && !memcmp(v, back, sizeof v) &&
               sp_reader_offset(&r) == b.len))
      fprintf(stderr, "      plan %zu: %s at %zu\n", plan, sp_code_name(r.err.code), r.err.offset);
    cut_close(&c);
  }
  sp_bytes_free(&b);
}

/* Inside a run, an element that does not fit the type, or is no number,
** stops the run and fails through the read: the error names the element,
** and every element before it is stored. */
static void a_bad_element_inside_a_run_fails_at_its_offset(void) {
  uint8_t msg[3 + 100 + 1];
  int8_t dst[100];
  double d[100];
  sp_reader r;
  uint32_t n;
  msg[0] = 0xdc; msg[1] = 0; msg[2] = 100;
  msg[sizeof msg - 1] = 0xc0;
  for (int i = 0; i < 100; i++) msg[3 + i] = (uint8_t)(i % 100);
  msg[3 + 60] = 0xcc;                          /* element 60: 200, too big for int8 */
  msg[3 + 61] = 200;
  memset(dst, 0, sizeof dst);
  sp_reader_init(&r, msg, sizeof msg);
  CHECK(!sp_read_i8_array(&r, dst, 100, &n) && r.err.code == SP_E_OVERFLOW && r.err.offset == 63);
  CHECK(dst[59] == 59 && dst[60] == 0);
  msg[3 + 60] = 0xa1;                          /* element 60: the str "\xc8" */
  sp_reader_init(&r, msg, sizeof msg);
  CHECK(!sp_read_f64_array(&r, d, 100, &n) && r.err.code == SP_E_TYPE && r.err.offset == 63);
  CHECK(d[59] == 59.0);
}

/* A value of form f (0 fixint, 1 negative fixint, 2 cc, 3 cd, 4 ce, 5 d0,
** 6 d1, 7 d2) as the writer's smallest form writes it, varied by i. */
static int32_t in_form(int f, unsigned i) {
  switch (f) {
    case 0: return (int32_t)(i % 128);
    case 1: return -1 - (int32_t)(i % 32);
    case 2: return 128 + (int32_t)(i % 128);
    case 3: return 256 + (int32_t)(i * 977 % 65280);
    case 4: return 65536 + (int32_t)(i * 7919 % 2000000000);
    case 5: return -33 - (int32_t)(i % 96);
    case 6: return -129 - (int32_t)(i * 31 % 32000);
    default: return -32769 - (int32_t)(i * 7919 % 2000000000);
  }
}

/* int32 arrays are read four at a time where four share a form: runs of
** 1 to 9 of every pair of forms, so groups start, stop and break at every
** phase, read back exactly. */
static void i32_runs_of_every_form_and_length_read_back(void) {
  static int32_t v[4000], back[4000];
  i32s a = {v, 0};
  int bad = 0;
  for (int f1 = 0; f1 < 8; f1++)
    for (int f2 = 0; f2 < 8; f2++) {
      sp_bytes b;
      sp_reader r;
      uint32_t n = 0;
      size_t k = 0;
      for (unsigned len = 1; len <= 9; len++)
        for (unsigned j = 0; j < 2 * len + 1; j++) v[k++] = in_form(j < len ? f1 : f2, j + len);
      a.n = k;
      CHECK(sp_to_array(write_i32s, &a, NULL, &b, NULL) == SP_OK);
      sp_reader_init(&r, b.data, b.len);
      memset(back, 0, sizeof back);
      if (!sp_read_i32_array(&r, back, 4000, &n) || n != k || memcmp(v, back, k * sizeof v[0])) {
        if (bad++ == 0) fprintf(stderr, "      forms %d, %d: %s\n", f1, f2, sp_code_name(r.err.code));
      }
      sp_bytes_free(&b);
    }
  CHECK(bad == 0);
}

/* Forms the writer would not choose (signed forms of positive values, wide
** forms of small ones) in runs of four read back as their values; a run
** broken by a value too big for int32 stops the group, and that element is
** an overflow at its offset. */
static void non_canonical_and_broken_runs_read_back_or_fail_at_the_element(void) {
  static const uint8_t odd[] = {0x9c,
    0xd0, 0x05, 0xd0, 0x7f, 0xd0, 0x00, 0xd0, 0x80,                               /* 5 127 0 -128 */
    0xd1, 0x00, 0x05, 0xd1, 0x7f, 0xff, 0xd1, 0xff, 0xff, 0xd1, 0x80, 0x00,       /* 5 32767 -1 -32768 */
    0xcc, 0x05, 0xcd, 0x00, 0x06, 0xce, 0x00, 0x00, 0x00, 0x07, 0xd3, 0, 0, 0, 0, 0, 0, 0, 8};
  static const int32_t want[12] = {5, 127, 0, -128, 5, 32767, -1, -32768, 5, 6, 7, 8};
  static const uint8_t broken[] = {0x94, 0xcd, 0x01, 0x00, 0xcd, 0x01, 0x01, 0xcd, 0x01, 0x02,
                                   0xce, 0x80, 0x00, 0x00, 0x00, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0,
                                   0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0};
  int32_t back[12];
  uint8_t padded[sizeof odd + 40];
  sp_reader r;
  uint32_t n;
  memset(padded, 0xc0, sizeof padded);        /* room for the runs: the group path is taken */
  memcpy(padded, odd, sizeof odd);
  sp_reader_init(&r, padded, sizeof padded);
  CHECK(sp_read_i32_array(&r, back, 12, &n) && n == 12 && !memcmp(back, want, sizeof want));
  memset(back, 0, sizeof back);
  sp_reader_init(&r, broken, sizeof broken);
  CHECK(!sp_read_i32_array(&r, back, 12, &n) && r.err.code == SP_E_OVERFLOW && r.err.offset == 10);
  CHECK(back[0] == 256 && back[2] == 258 && back[3] == 0);
}

static void cancelled_before_a_bulk_write_writes_no_element(void) {
  static const int32_t v[4] = {1, 2, 3, 4};
  atomic_int cancel = 1;
  sp_writer w;
  sp_buffer buf;
  sp_output out = sp_buffer_output(&buf);
  sp_buffer_init(&buf);
  sp_writer_init_output(&w, &out);
  w.cancel = &cancel;
  sp_write_i32_array(&w, v, 4);
  CHECK(sp_writer_flush(&w) == SP_E_CANCELLED);
  CHECK(sp_writer_length(&w) <= 1);           /* at most the header */
  sp_buffer_free(&buf);
}

/* ---- by kind: sp_write_numeric_array / sp_read_numeric_array -------------- */

/* Two elements of a kind: its minimum (a negative number for floats), then
** its maximum (a positive one), and the array MessagePack makes of them. */
typedef struct kind_case {
  sp_num_kind kind;
  size_t size;
  union {
    int8_t i8[2]; uint8_t u8[2]; int16_t i16[2]; uint16_t u16[2]; int32_t i32[2];
    uint32_t u32[2]; float f32[2]; double f64[2]; int64_t i64[2]; uint64_t u64[2];
  } v;
  const char *want;
  size_t want_len;
} kind_case;

#define WANT(s) s, sizeof(s) - 1

static void kind_cases(kind_case c[SP_NUM_KINDS]) {
  static const kind_case k[SP_NUM_KINDS] = {
    {SP_NUM_I8, 1, .v.i8 = {INT8_MIN, INT8_MAX}, WANT("\x92\xD0\x80\x7F")},
    {SP_NUM_U8, 1, .v.u8 = {0, UINT8_MAX}, WANT("\x92\x00\xCC\xFF")},
    {SP_NUM_I16, 2, .v.i16 = {INT16_MIN, INT16_MAX}, WANT("\x92\xD1\x80\x00\xCD\x7F\xFF")},
    {SP_NUM_U16, 2, .v.u16 = {0, UINT16_MAX}, WANT("\x92\x00\xCD\xFF\xFF")},
    {SP_NUM_I32, 4, .v.i32 = {INT32_MIN, INT32_MAX},
     WANT("\x92\xD2\x80\x00\x00\x00\xCE\x7F\xFF\xFF\xFF")},
    {SP_NUM_U32, 4, .v.u32 = {0, UINT32_MAX}, WANT("\x92\x00\xCE\xFF\xFF\xFF\xFF")},
    {SP_NUM_F32, 4, .v.f32 = {-1.5f, 3.25f}, WANT("\x92\xCA\xBF\xC0\x00\x00\xCA\x40\x50\x00\x00")},
    {SP_NUM_F64, 8, .v.f64 = {-1.5, 0.5},
     WANT("\x92\xCB\xBF\xF8\x00\x00\x00\x00\x00\x00\xCB\x3F\xE0\x00\x00\x00\x00\x00\x00")},
    {SP_NUM_I64, 8, .v.i64 = {INT64_MIN, INT64_MAX},
     WANT("\x92\xD3\x80\x00\x00\x00\x00\x00\x00\x00\xCF\x7F\xFF\xFF\xFF\xFF\xFF\xFF\xFF")},
    {SP_NUM_U64, 8, .v.u64 = {0, UINT64_MAX}, WANT("\x92\x00\xCF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF")},
  };
  memcpy(c, k, sizeof k);
}

static int write_kind(sp_writer *w, const void *value) {
  const kind_case *c = value;
  sp_write_numeric_array(w, c->kind, &c->v, 2);
  return 0;
}

static void each_kind_writes_and_reads_its_own_element_type(void) {
  kind_case c[SP_NUM_KINDS];
  kind_cases(c);
  for (int i = 0; i < SP_NUM_KINDS; i++) {
    sp_bytes b;
    sp_reader r;
    uint32_t n = 0;
    uint64_t back[2] = {0, 0};
    CHECK(c[i].kind == (sp_num_kind)i && sp_num_kind_size(c[i].kind) == c[i].size);
    CHECK(sp_to_array(write_kind, &c[i], NULL, &b, NULL) == SP_OK);
    CHECK_BYTES(b.data, b.len, c[i].want, c[i].want_len);
    sp_reader_init(&r, b.data, b.len);
    CHECK(sp_read_numeric_array(&r, c[i].kind, back, 2, &n) && n == 2 && sp_reader_remaining(&r) == 0);
    CHECK(memcmp(back, &c[i].v, 2 * c[i].size) == 0);
    sp_bytes_free(&b);
  }
}

static void an_unknown_kind_is_an_invalid_argument_in_both_directions(void) {
  static const int32_t v[2] = {1, 2};
  static const uint8_t bytes[] = {0x92, 0x01, 0x02};
  static const int bad[] = {SP_NUM_KINDS, -1, 1000};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    sp_buffer buf;
    sp_output out = sp_buffer_output(&buf);
    sp_writer w;
    sp_reader r;
    int32_t dst[2] = {0, 0};
    uint32_t n = 7;
    sp_buffer_init(&buf);
    sp_writer_init_output(&w, &out);
    sp_write_numeric_array(&w, (sp_num_kind)bad[i], v, 2);
    CHECK(sp_writer_flush(&w) == SP_E_INVALID_ARGUMENT && buf.len == 0);
    sp_buffer_free(&buf);
    sp_reader_init(&r, bytes, sizeof bytes);
    CHECK(!sp_read_numeric_array(&r, (sp_num_kind)bad[i], dst, 2, &n));
    CHECK(r.err.code == SP_E_INVALID_ARGUMENT && r.err.offset == 0 && n == 7);   /* nothing read */
    CHECK(sp_num_kind_size((sp_num_kind)bad[i]) == 0);
  }
}

/* n elements of one kind, small values (one byte each where the kind allows)
** so that what they take is far below their worst case. */
typedef struct numeric_run { sp_num_kind kind; const void *v; size_t n; } numeric_run;

static int write_run(sp_writer *w, const void *value) {
  const numeric_run *r = value;
  sp_write_numeric_array(w, r->kind, r->v, r->n);
  return 0;
}

/* A caller's fixed output of exactly the message's size takes it whole: the
** chunks ask for no more than the output has (they asked for each
** element's worst case, and a 103-byte message needed about 600 bytes). */
static void a_fixed_output_of_exactly_the_message_size_takes_every_kind(void) {
  static uint64_t zeros[300];
  static uint8_t mem[300 * 9 + 8];
  for (int kind = 0; kind < SP_NUM_KINDS; kind++) {
    for (size_t n = 0; n <= 300; n += n < 20 ? 1 : 47) {
      numeric_run run = {(sp_num_kind)kind, zeros, n};
      sp_bytes want;
      sp_buffer fixed = {mem, 0, 0, 0};
      sp_output out;
      CHECK(sp_to_array(write_run, &run, NULL, &want, NULL) == SP_OK);
      fixed.cap = want.len;
      out = sp_fixed_output(&fixed);
      CHECK(sp_to_output(&out, write_run, &run, NULL, NULL) == SP_OK);
      CHECK_BYTES(fixed.data, fixed.len, want.data, want.len);
      fixed.len = 0;
      fixed.cap = want.len - 1;
      out = sp_fixed_output(&fixed);
      CHECK(sp_to_output(&out, write_run, &run, NULL, NULL) == SP_E_BUFFER_TOO_SMALL);
      sp_bytes_free(&want);
    }
  }
}

int main(void) {
  SP_RUN(i32_array_uses_smallest_forms);
  SP_RUN(simd_output_equals_scalar_output);
  SP_RUN(simd_runs_change_kind_at_every_edge);
  SP_RUN(thirty_thousand_ints_make_no_unpooled_allocation);
  SP_RUN(i32_array_reads_back_into_a_caller_array);
  SP_RUN(every_element_type_round_trips_at_its_extremes);
  SP_RUN(out_of_range_element_is_an_overflow_at_its_offset);
  SP_RUN(i32_arrays_split_anywhere_read_back_like_contiguous);
  SP_RUN(a_bad_element_inside_a_run_fails_at_its_offset);
  SP_RUN(i32_runs_of_every_form_and_length_read_back);
  SP_RUN(non_canonical_and_broken_runs_read_back_or_fail_at_the_element);
  SP_RUN(cancelled_before_a_bulk_write_writes_no_element);
  SP_RUN(each_kind_writes_and_reads_its_own_element_type);
  SP_RUN(an_unknown_kind_is_an_invalid_argument_in_both_directions);
  SP_RUN(a_fixed_output_of_exactly_the_message_size_takes_every_kind);
  printf("int32 kernel: %s\n", sp_bulk_i32_kernel());
  sp_shutdown();
  return sp_test_summary();
}
