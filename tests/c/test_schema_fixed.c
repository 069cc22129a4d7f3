/*
** test_schema_fixed.c -- the fixed-size fast path (MemoryPack's
** IFixedSizeMemoryPackable, 002_*.txt): a schema whose every field has a
** fixed encoded size is written straight into one allocation of exactly
** that size -- no scratch (not even on a thread's first call), no pool, no
** copy -- and its bytes equal the normal path's.
*/
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"
#include "sp_test.h"

/* ---- types ---------------------------------------------------------------- */

typedef struct point { int32_t x, y; } point;

static const sp_field point_fields[] = {
  SP_MEMBER_KEY(0, point, x, SP_F_I32),
  SP_MEMBER_KEY(1, point, y, SP_F_I32),
};
static sp_schema point_fixed = SP_SCHEMA(point, point_fields, SP_FIXED_WIDTH);
static sp_schema point_plain = SP_SCHEMA(point, point_fields, 0);

/* Every fixed kind: wide integers, floats, bools, timestamps, a nested
** fixed struct, inline arrays of both, a gap. */
typedef struct sample {
  int8_t i8; int16_t i16; int32_t i32; int64_t i64;
  uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
  float f; double d; bool ok;
  sp_ts_field when;
  point at;
  int16_t hist[20];
  point path[3];
} sample;

static const sp_field sample_fields[] = {
  SP_MEMBER_KEY(0, sample, i8, SP_F_I8), SP_MEMBER_KEY(1, sample, i16, SP_F_I16),
  SP_MEMBER_KEY(2, sample, i32, SP_F_I32), SP_MEMBER_KEY(3, sample, i64, SP_F_I64),
  SP_MEMBER_KEY(4, sample, u8, SP_F_U8), SP_MEMBER_KEY(5, sample, u16, SP_F_U16),
  SP_MEMBER_KEY(6, sample, u32, SP_F_U32), SP_MEMBER_KEY(7, sample, u64, SP_F_U64),
  SP_MEMBER_KEY(8, sample, f, SP_F_FLOAT), SP_MEMBER_KEY(9, sample, d, SP_F_DOUBLE),
  SP_MEMBER_KEY(10, sample, ok, SP_F_BOOL),
  SP_MEMBER_KEY(12, sample, when, SP_F_TIMESTAMP),                     /* 11 is a gap */
  SP_MEMBER_KEY(13, sample, at, SP_F_STRUCT, .schema = &point_fixed),
  SP_MEMBER_KEY(14, sample, hist, SP_F_I16, .count = 20),
  SP_MEMBER_KEY(15, sample, path, SP_F_STRUCT, .schema = &point_fixed, .count = 3),
};
static sp_schema sample_schema = SP_SCHEMA(sample, sample_fields, SP_FIXED_WIDTH);

/* String keys can be fixed too: the keys are pre-encoded. */
static const sp_field named_fields[] = {
  SP_MEMBER(point, x, SP_F_I32, .flags = SP_FIXED_WIDTH),
  SP_MEMBER(point, y, SP_F_I32, .flags = SP_FIXED_WIDTH),
};
static sp_schema named_point = SP_SCHEMA(point, named_fields, 0);

/* Larger than one span: 1,000 doubles. */
typedef struct bulk { double m[1000]; } bulk;
static const sp_field bulk_fields[] = {SP_MEMBER_KEY(0, bulk, m, SP_F_DOUBLE, .count = 1000)};
static sp_schema bulk_schema = SP_SCHEMA(bulk, bulk_fields, 0);

/* ---- private pools, so their counters are this test's alone ------------------ */

static sp_pool *arrays;
static sp_seq_pool *seqs;

static void pools_open(sp_options *o, size_t scratch) {
  arrays = sp_bucket_pool_create(80 * 1024, 100);
  seqs = sp_seq_pool_create(4, arrays);
  memset(o, 0, sizeof *o);
  o->seq_pool = seqs;
  o->scratch_size = scratch;
}

static void pools_close(void) {
  sp_seq_pool_destroy(seqs);
  sp_pool_destroy(arrays);
  sp_thread_cleanup();
}

static uint64_t seq_rents(void) {
  sp_seq_pool_stats s;
  sp_seq_pool_stats_get(seqs, &s);
  return s.rents;
}

static uint64_t array_rents(void) {
  sp_pool_stats s;
  sp_pool_stats_get(arrays, &s);
  return s.rents;
}

static sp_alloc_stats stats_now(void) {
  sp_alloc_stats s;
  sp_alloc_stats_get(&s);
  return s;
}

/* The normal path: the generic formatter through sp_to_array. */
static sp_code normal_path(sp_schema *s, const void *obj, const sp_options *o, sp_bytes *b) {
  sp_schema_obj so;
  so.schema = s;
  so.obj = obj;
  return sp_to_array(sp_schema_format, &so, o, b, NULL);
}

static void sample_fill(sample *s, int k) {
  memset(s, 0, sizeof *s);
  s->i8 = (int8_t)(k ? INT8_MIN : 1); s->i16 = (int16_t)(k ? INT16_MIN : 2);
  s->i32 = k ? INT32_MIN : 3; s->i64 = k ? INT64_MIN : 4;
  s->u8 = (uint8_t)(k ? 255 : 0); s->u16 = (uint16_t)(k ? 65535 : 1);
  s->u32 = k ? UINT32_MAX : 2; s->u64 = k ? UINT64_MAX : 3;
  s->f = k ? -1.5f : 0.25f; s->d = k ? 1e-300 : 2.0; s->ok = k != 0;
  s->when.sec = k ? -62135596800 : 0;
  s->when.nsec = k ? 999999999u : 0;
  s->at.x = k ? -1 : 1;
  s->at.y = 7;
  for (int i = 0; i < 20; i++) s->hist[i] = (int16_t)(k ? -i * 1000 : i);
  for (int i = 0; i < 3; i++) { s->path[i].x = i * k; s->path[i].y = -i; }
}

/* ---- tests -------------------------------------------------------------------- */

static void a_fixed_point_writes_its_exact_bytes(void) {
  point p = {1, -2}, back = {0, 0};
  static const uint8_t want[] = {0x92, 0xD2, 0, 0, 0, 1, 0xD2, 0xFF, 0xFF, 0xFF, 0xFE};
  sp_bytes b;
  CHECK(sp_schema_fixed_size(&point_fixed) == 11);
  CHECK(sp_schema_to_array(&point_fixed, &p, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, want, sizeof want);
  CHECK(sp_schema_decode(&point_plain, b.data, b.len, &back, 0, NULL) == SP_OK);   /* any reader */
  CHECK(back.x == 1 && back.y == -2);
  sp_bytes_free(&b);
}

static void fixed_size_is_detected_only_when_no_size_depends_on_a_value(void) {
  typedef struct mix { int32_t a; sp_str_field s; sp_array_field v; sp_ts_field t; double d; bool b; } mix;
  static const sp_field ints[] = {SP_MEMBER_KEY(0, mix, a, SP_F_I32)};
  static const sp_field strs[] = {SP_MEMBER_KEY(0, mix, s, SP_F_STR)};
  static const sp_field arrays_[] = {SP_MEMBER_KEY(0, mix, v, SP_F_I32, .flags = SP_FIELD_ARRAY)};
  static const sp_field stamps[] = {SP_MEMBER_KEY(0, mix, t, SP_F_TIMESTAMP)};
  static const sp_field floaty[] = {SP_MEMBER_KEY(0, mix, d, SP_F_DOUBLE), SP_MEMBER_KEY(1, mix, b, SP_F_BOOL)};
  static const sp_field gaps[] = {SP_MEMBER_KEY(0, mix, a, SP_F_I32), SP_MEMBER_KEY(3, mix, d, SP_F_DOUBLE)};
  static const sp_field holds_str[] = {SP_MEMBER_KEY(0, mix, s, SP_F_STR)};
  static sp_schema s_ints = SP_SCHEMA(mix, ints, 0), s_ints_w = SP_SCHEMA(mix, ints, SP_FIXED_WIDTH);
  static sp_schema s_strs = SP_SCHEMA(mix, strs, SP_FIXED_WIDTH);
  static sp_schema s_arrays = SP_SCHEMA(mix, arrays_, SP_FIXED_WIDTH);
  static sp_schema s_stamps = SP_SCHEMA(mix, stamps, 0), s_stamps_w = SP_SCHEMA(mix, stamps, SP_FIXED_WIDTH);
  static sp_schema s_floaty = SP_SCHEMA(mix, floaty, 0);
  static sp_schema s_gaps = SP_SCHEMA(mix, gaps, SP_FIXED_WIDTH);
  static sp_schema s_inner_var = SP_SCHEMA(mix, holds_str, 0);
  typedef struct wrap { mix m; } wrap;
  static const sp_field wraps_var[] = {SP_MEMBER_KEY(0, wrap, m, SP_F_STRUCT, .schema = &s_inner_var)};
  static sp_schema s_wrap_var = SP_SCHEMA(wrap, wraps_var, SP_FIXED_WIDTH);
  CHECK(sp_schema_fixed_size(&s_ints) == 0);               /* smallest form varies */
  CHECK(sp_schema_fixed_size(&s_ints_w) == 1 + 5);
  CHECK(sp_schema_fixed_size(&s_strs) == 0);
  CHECK(sp_schema_fixed_size(&s_arrays) == 0);
  CHECK(sp_schema_fixed_size(&s_stamps) == 0);
  CHECK(sp_schema_fixed_size(&s_stamps_w) == 1 + 15);
  CHECK(sp_schema_fixed_size(&s_floaty) == 1 + 9 + 1);     /* fixed without asking */
  CHECK(sp_schema_fixed_size(&s_gaps) == 1 + 5 + 1 + 1 + 9);
  CHECK(sp_schema_fixed_size(&s_wrap_var) == 0);
  CHECK(sp_schema_fixed_size(&named_point) == 1 + (2 + 5) * 2);
  CHECK(sp_schema_fixed_size(&bulk_schema) == 1 + 3 + 9000);
  /* sample: header dc 00 10, wide ints, f, d, bool, nil gap, ts, point,
  ** hist (dc 00 14 + 20 x d1), path (93 + 3 points) */
  CHECK(sp_schema_fixed_size(&sample_schema) ==
        3 + (2 + 3 + 5 + 9) * 2 + 5 + 9 + 1 + 1 + 15 + 11 + (3 + 20 * 3) + (1 + 3 * 11));
}

/* 002_*.txt: "fixed-size AlcPoint, first call: 40 B" against 262,536 B for
** a type that needs the workspace. Here: the result alone, on a thread
** whose scratch was never allocated. */
static void the_first_call_on_a_thread_allocates_only_the_result(void) {
  point p = {1, 2};
  sp_bytes b;
  sp_alloc_stats fixed, plain;
  sp_schema_resolve(&point_fixed, NULL);      /* first registration, as the document does */
  sp_schema_resolve(&point_plain, NULL);
  sp_thread_cleanup();                        /* this thread has no scratch now */
  sp_alloc_stats_reset();
  CHECK(sp_schema_to_array(&point_fixed, &p, NULL, &b, NULL) == SP_OK);
  fixed = stats_now();
  CHECK(fixed.alloc_calls == 1 && fixed.alloc_bytes == 11 && b.len == 11);
  sp_bytes_free(&b);
  sp_thread_cleanup();
  sp_alloc_stats_reset();
  CHECK(sp_schema_to_array(&point_plain, &p, NULL, &b, NULL) == SP_OK);
  plain = stats_now();
  CHECK(plain.alloc_calls == 2 && plain.alloc_bytes == SP_SCRATCH_DEFAULT + 3);
  printf("       first call on a thread: fixed-size point %llu B in %llu allocation,"
         " smallest-form point %llu B in %llu\n",
         (unsigned long long)fixed.alloc_bytes, (unsigned long long)fixed.alloc_calls,
         (unsigned long long)plain.alloc_bytes, (unsigned long long)plain.alloc_calls);
  sp_bytes_free(&b);
  sp_thread_cleanup();
}

/* With an 8-byte scratch the normal path migrates to a pooled sequence;
** the fast path rents nothing and writes the same bytes. */
static void the_fast_path_never_touches_the_scratch_or_the_pools(void) {
  sample s;
  sp_options o;
  sp_bytes fast, normal;
  sp_alloc_stats a;
  size_t size = sp_schema_fixed_size(&sample_schema);
  pools_open(&o, 8);
  sample_fill(&s, 1);
  sp_alloc_stats_reset();
  CHECK(sp_schema_to_array(&sample_schema, &s, &o, &fast, NULL) == SP_OK);
  a = stats_now();
  CHECK(a.alloc_calls == 1 && a.alloc_bytes == size && fast.len == size);
  CHECK(seq_rents() == 0 && array_rents() == 0);
  CHECK(normal_path(&sample_schema, &s, &o, &normal) == SP_OK);
  CHECK(seq_rents() == 1);                       /* the scratch was too small for it */
  CHECK_BYTES(fast.data, fast.len, normal.data, normal.len);
  sp_bytes_free(&fast);
  sp_bytes_free(&normal);
  pools_close();
}

static void fast_and_normal_bytes_are_equal_and_decode_back(void) {
  sp_schema *schemas[] = {&point_fixed, &named_point, &sample_schema, &bulk_schema};
  static sample s;
  static bulk big;
  point p = {-70000, 70000};
  for (int i = 0; i < 1000; i++) big.m[i] = i * 0.5 - 3;
  for (int k = 0; k < 2; k++) {
    const void *objs[] = {&p, &p, &s, &big};
    sample_fill(&s, k);
    for (int i = 0; i < 4; i++) {
      sp_bytes fast, normal;
      static union { point p; sample s; bulk b; } back;
      CHECK(sp_schema_to_array(schemas[i], objs[i], NULL, &fast, NULL) == SP_OK);
      CHECK(normal_path(schemas[i], objs[i], NULL, &normal) == SP_OK);
      CHECK(fast.len == sp_schema_fixed_size(schemas[i]));
      CHECK_BYTES(fast.data, fast.len, normal.data, normal.len);
      memset(&back, 0, sizeof back);
      CHECK(sp_schema_decode(schemas[i], fast.data, fast.len, &back, 0, NULL) == SP_OK);
      CHECK(memcmp(&back, objs[i], i < 2 ? sizeof(point) : i == 2 ? sizeof(sample) : sizeof(bulk)) == 0);
      sp_bytes_free(&fast);
      sp_bytes_free(&normal);
    }
  }
  sp_thread_cleanup();
}

/* Counts the spans a writer asks the caller's output for. */
typedef struct counting {
  sp_buffer buf;
  sp_output inner;
  int spans;
  size_t first_min;
} counting;

static uint8_t *count_span(void *ctx, size_t min, size_t *avail) {
  counting *c = ctx;
  if (c->spans++ == 0) c->first_min = min;
  return c->inner.get_span(c->inner.ctx, min, avail);
}

static void count_advance(void *ctx, size_t n) {
  counting *c = ctx;
  c->inner.advance(c->inner.ctx, n);
}

static void to_output_asks_for_one_span_of_the_exact_size(void) {
  sample s;
  counting c;
  sp_output out = {count_span, count_advance, &c};
  sp_buffer_init(&c.buf);
  c.inner = sp_buffer_output(&c.buf);
  c.spans = 0;
  sample_fill(&s, 1);
  CHECK(sp_schema_to_output(&out, &sample_schema, &s, NULL, NULL) == SP_OK);
  CHECK(c.spans == 1);                        /* the entry's first span (any size) held it */
  CHECK(c.buf.len == sp_schema_fixed_size(&sample_schema));
  sp_buffer_free(&c.buf);
}

static void a_bad_value_or_a_cancel_leaves_nothing_allocated(void) {
  sample s;
  sp_bytes b;
  sp_error err;
  sp_options o;
  atomic_int cancel = 1;
  int64_t live = sp_alloc_live_bytes();
  sample_fill(&s, 0);
  s.when.nsec = 1000000000u;
  CHECK(sp_schema_to_array(&sample_schema, &s, NULL, &b, &err) == SP_E_VALUE_RANGE);
  CHECK(strcmp(err.path, ".when") == 0);
  CHECK(b.data == NULL && b.len == 0 && sp_alloc_live_bytes() == live);
  sample_fill(&s, 0);
  memset(&o, 0, sizeof o);
  o.cancel = &cancel;
  sp_alloc_stats_reset();
  CHECK(sp_schema_to_array(&sample_schema, &s, &o, &b, &err) == SP_E_CANCELLED);
  CHECK(stats_now().alloc_calls == 0 && b.data == NULL);
}

/* 000_*.txt's trap: a to_array inside a formatter, with the legacy shared
** scratch. The fast path has no scratch to overwrite. */
typedef struct envelope {
  sp_schema *schema;
  const point *p;
  const sp_options *opt;
} envelope;

static int envelope_format(sp_writer *w, const void *value) {
  const envelope *e = value;
  sp_bytes inner;
  if (sp_schema_to_array(e->schema, e->p, e->opt, &inner, NULL) != SP_OK) return 1;
  sp_write_bin(w, inner.data, inner.len);
  sp_bytes_free(&inner);
  return 0;
}

static void a_nested_fixed_call_cannot_overwrite_the_outer_scratch(void) {
  point p = {7, 8};
  sp_options legacy;
  envelope env = {&point_fixed, &p, &legacy};
  sp_value items[3];
  sp_value root;
  sp_bytes b;
  static const uint8_t head[] = {0x93, 0xA6, 'b', 'e', 'f', 'o', 'r', 'e', 0xC4, 11, 0x92};
  memset(&legacy, 0, sizeof legacy);
  legacy.legacy_nested_scratch = 1;
  items[0] = sp_str("before");
  items[1] = sp_custom(envelope_format, &env);
  items[2] = sp_int(99);
  root = sp_array(items, 3);
  CHECK(sp_to_array(sp_format_value, &root, &legacy, &b, NULL) == SP_OK);
  CHECK(b.len == sizeof head + 10 + 1 && memcmp(b.data, head, sizeof head) == 0);
  CHECK(b.data[b.len - 1] == 99);
  sp_bytes_free(&b);
  env.schema = &point_plain;            /* the same call through the scratch is overwritten */
  CHECK(sp_to_array(sp_format_value, &root, &legacy, &b, NULL) == SP_OK);
  CHECK(memcmp(b.data, head, 8) != 0);
  sp_bytes_free(&b);
  sp_thread_cleanup();
}

int main(void) {
  SP_RUN(a_fixed_point_writes_its_exact_bytes);
  SP_RUN(fixed_size_is_detected_only_when_no_size_depends_on_a_value);
  SP_RUN(the_first_call_on_a_thread_allocates_only_the_result);
  SP_RUN(the_fast_path_never_touches_the_scratch_or_the_pools);
  SP_RUN(fast_and_normal_bytes_are_equal_and_decode_back);
  SP_RUN(to_output_asks_for_one_span_of_the_exact_size);
  SP_RUN(a_bad_value_or_a_cancel_leaves_nothing_allocated);
  SP_RUN(a_nested_fixed_call_cannot_overwrite_the_outer_scratch);
  sp_shutdown();
  return sp_test_summary();
}
