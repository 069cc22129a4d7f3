/*
** test_schema.c -- structs described by schemas: every field type round
** trip, the array and map forms, resolve errors, decode errors with offsets
** and paths, truncation at every byte, failed allocations, borrowing,
** segmented input, and decode into an existing value (the MemoryPack List
** traps of 002_*.txt: 3 -> 3 reuses every element, 3 -> 2 leaves nothing
** stale). Every test ends with the live byte count back where it started.
*/
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"
#include "sp_test.h"

#if !defined(SP_NO_THREADS) && !(defined(__wasi__) && !defined(_REENTRANT))
#define HAVE_THREADS 1
#include <pthread.h>
#endif

/* ---- types under test ------------------------------------------------------- */

typedef struct kid {
  int32_t id;
  sp_str_field name;
} kid;

static const sp_field kid_fields[] = {
  SP_MEMBER(kid, id, SP_F_I32),
  SP_MEMBER(kid, name, SP_F_STR),
};
static sp_schema kid_schema = SP_SCHEMA(kid, kid_fields, 0);

/* Every field type and shape, string keys. */
typedef struct all {
  int8_t i8; int16_t i16; int32_t i32; int64_t i64;
  uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
  float f; double d; bool b;
  sp_str_field s;
  sp_bin_field bin;
  sp_ts_field ts;
  kid one;                   /* inline struct */
  int16_t three[3];          /* inline array */
  kid pair[2];               /* inline array of structs */
  sp_array_field ints;       /* int32_t */
  sp_array_field doubles;    /* double */
  sp_array_field strs;       /* sp_str_field */
  sp_array_field kids;       /* kid */
  sp_array_field bools;      /* bool */
  sp_array_field stamps;     /* sp_ts_field */
  sp_array_field bins;       /* sp_bin_field */
  sp_array_field u8s;        /* uint8_t */
  int64_t wide;              /* SP_FIXED_WIDTH */
} all;

static const sp_field all_fields[] = {
  SP_MEMBER(all, i8, SP_F_I8), SP_MEMBER(all, i16, SP_F_I16),
  SP_MEMBER(all, i32, SP_F_I32), SP_MEMBER(all, i64, SP_F_I64),
  SP_MEMBER(all, u8, SP_F_U8), SP_MEMBER(all, u16, SP_F_U16),
  SP_MEMBER(all, u32, SP_F_U32), SP_MEMBER(all, u64, SP_F_U64),
  SP_MEMBER(all, f, SP_F_FLOAT), SP_MEMBER(all, d, SP_F_DOUBLE),
  SP_MEMBER(all, b, SP_F_BOOL),
  SP_MEMBER(all, s, SP_F_STR),
  SP_MEMBER(all, bin, SP_F_BIN),
  SP_MEMBER(all, ts, SP_F_TIMESTAMP),
  SP_MEMBER(all, one, SP_F_STRUCT, .schema = &kid_schema),
  SP_MEMBER(all, three, SP_F_I16, .count = 3),
  SP_MEMBER(all, pair, SP_F_STRUCT, .schema = &kid_schema, .count = 2),
  SP_MEMBER(all, ints, SP_F_I32, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(all, doubles, SP_F_DOUBLE, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(all, strs, SP_F_STR, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(all, kids, SP_F_STRUCT, .schema = &kid_schema, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(all, bools, SP_F_BOOL, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(all, stamps, SP_F_TIMESTAMP, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(all, bins, SP_F_BIN, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(all, u8s, SP_F_U8, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(all, wide, SP_F_I64, .flags = SP_FIXED_WIDTH),
};
static sp_schema all_schema = SP_SCHEMA(all, all_fields, 0);

/* Integer keys with gaps: [a, nil, b, nil, nil, c]. */
typedef struct gappy {
  int32_t a;
  sp_str_field b;
  double c;
} gappy;

static const sp_field gappy_fields[] = {
  SP_MEMBER_KEY(0, gappy, a, SP_F_I32),
  SP_MEMBER_KEY(5, gappy, c, SP_F_DOUBLE),   /* declaration order does not matter */
  SP_MEMBER_KEY(2, gappy, b, SP_F_STR),
};
static sp_schema gappy_schema = SP_SCHEMA(gappy, gappy_fields, 0);

/* A recursive type: nodes holding arrays of nodes. */
typedef struct node {
  int32_t v;
  sp_array_field kids;
} node;

static sp_schema node_schema;
static const sp_field node_fields[] = {
  SP_MEMBER_KEY(0, node, v, SP_F_I32),
  SP_MEMBER_KEY(1, node, kids, SP_F_STRUCT, .schema = &node_schema, .flags = SP_FIELD_ARRAY),
};
static sp_schema node_schema = SP_SCHEMA(node, node_fields, 0);

/* The document's Parent { List<Child> Children } with Child { Value }. */
typedef struct child {
  int32_t value;
  sp_str_field label;
} child;

typedef struct parent {
  sp_array_field children;
} parent;

static const sp_field child_fields[] = {
  SP_MEMBER_KEY(0, child, value, SP_F_I32),
  SP_MEMBER_KEY(1, child, label, SP_F_STR),
};
static sp_schema child_schema = SP_SCHEMA(child, child_fields, 0);
static const sp_field parent_fields[] = {
  SP_MEMBER_KEY(0, parent, children, SP_F_STRUCT, .schema = &child_schema, .flags = SP_FIELD_ARRAY),
};
static sp_schema parent_schema = SP_SCHEMA(parent, parent_fields, 0);

/* ---- helpers ------------------------------------------------------------------ */

/* A message built with the writer into a growable buffer. */
typedef struct msg {
  sp_buffer buf;
  sp_output out;
  sp_writer w;
} msg;

static sp_writer *msg_begin(msg *m) {
  sp_buffer_init(&m->buf);
  m->out = sp_buffer_output(&m->buf);
  sp_writer_init_output(&m->w, &m->out);
  return &m->w;
}

static void msg_end(msg *m) { CHECK(sp_writer_flush(&m->w) == SP_OK); }

static void msg_free(msg *m) { sp_buffer_free(&m->buf); }

static int str_is(const sp_str_field *s, const char *want) {
  if (want == NULL) return s->ptr == NULL && s->len == 0;
  return s->ptr != NULL && s->len == strlen(want) && memcmp(s->ptr, want, s->len) == 0 &&
         (s->cap == 0 || s->ptr[s->len] == '\0');
}

static int is_zero(const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) if (b[i]) return 0;
  return 1;
}

static sp_alloc_stats stats_now(void) {
  sp_alloc_stats s;
  sp_alloc_stats_get(&s);
  return s;
}

/* ---- a filled 'all' ------------------------------------------------------------ */

static int32_t src_ints[] = {0, -1, 127, -33, INT32_MAX, INT32_MIN};
static double src_doubles[] = {1.5, -0.0, 1e300};
static sp_str_field src_strs[] = {SP_STR_LIT("x"), SP_STR_LIT(""), {NULL, 0, 0},
                                  SP_STR_LIT("a string longer than thirty-one bytes")};
static kid src_kids[] = {{1, SP_STR_LIT("kid one")}, {-2, SP_STR_LIT("kid two")}, {3, {NULL, 0, 0}}};
static bool src_bools[] = {true, false, true};
static sp_ts_field src_stamps[] = {{0, 0}, {1, 500}, {-1, 999999999}, {(int64_t)1 << 40, 1}};
static uint8_t bin_bytes[] = {0, 1, 2, 0xff};
static sp_bin_field src_bins[] = {{bin_bytes, 4, 0}, {NULL, 0, 0}, {bin_bytes, 0, 0}};
static uint8_t src_u8s[] = {0, 200, 255};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void all_fill(all *a) {
  memset(a, 0, sizeof *a);
  a->i8 = -128; a->i16 = -300; a->i32 = 70000; a->i64 = INT64_MIN;
  a->u8 = 255; a->u16 = 65535; a->u32 = 4294967295u; a->u64 = UINT64_MAX;
  a->f = 3.25f; a->d = -2.5e-300; a->b = true;
  a->s = (sp_str_field)SP_STR_LIT("héllo");
  a->bin = (sp_bin_field){bin_bytes, 4, 0};
  a->ts = (sp_ts_field){1700000000, 123456789};
  a->one = (kid){42, SP_STR_LIT("inline kid")};
  a->three[0] = -1; a->three[1] = 0; a->three[2] = 32767;
  a->pair[0] = (kid){7, SP_STR_LIT("p0")};
  a->pair[1] = (kid){8, {NULL, 0, 0}};
  a->ints = (sp_array_field)SP_ARRAY_OF(src_ints, COUNT(src_ints));
  a->doubles = (sp_array_field)SP_ARRAY_OF(src_doubles, COUNT(src_doubles));
  a->strs = (sp_array_field)SP_ARRAY_OF(src_strs, COUNT(src_strs));
  a->kids = (sp_array_field)SP_ARRAY_OF(src_kids, COUNT(src_kids));
  a->bools = (sp_array_field)SP_ARRAY_OF(src_bools, COUNT(src_bools));
  a->stamps = (sp_array_field)SP_ARRAY_OF(src_stamps, COUNT(src_stamps));
  a->bins = (sp_array_field)SP_ARRAY_OF(src_bins, COUNT(src_bins));
  a->u8s = (sp_array_field)SP_ARRAY_OF(src_u8s, COUNT(src_u8s));
  a->wide = 5;
}

static int str_eq(const sp_str_field *x, const sp_str_field *y) {
  if (x->ptr == NULL || y->ptr == NULL) return x->ptr == y->ptr;
  return x->len == y->len && memcmp(x->ptr, y->ptr, x->len) == 0;
}

static int bin_eq(const sp_bin_field *x, const sp_bin_field *y) {
  if (x->ptr == NULL || y->ptr == NULL) return x->ptr == y->ptr;
  return x->len == y->len && (x->len == 0 || memcmp(x->ptr, y->ptr, x->len) == 0);
}

static int kid_eq(const kid *x, const kid *y) { return x->id == y->id && str_eq(&x->name, &y->name); }

static int ts_eq(const sp_ts_field *x, const sp_ts_field *y) {
  return x->sec == y->sec && x->nsec == y->nsec;
}

/* Arrays: same count, and each element equal by 'eq' (or bytes for plain types). */
static int array_eq(const sp_array_field *x, const sp_array_field *y, size_t es,
                    int (*eq)(const void *, const void *)) {
  if (x->count != y->count) return 0;
  for (size_t i = 0; i < x->count; i++) {
    const uint8_t *a = (const uint8_t *)x->ptr + i * es, *b = (const uint8_t *)y->ptr + i * es;
    if (eq ? !eq(a, b) : memcmp(a, b, es) != 0) return 0;
  }
  return 1;
}

static int str_eq_v(const void *x, const void *y) { return str_eq(x, y); }
static int bin_eq_v(const void *x, const void *y) { return bin_eq(x, y); }
static int kid_eq_v(const void *x, const void *y) { return kid_eq(x, y); }
static int ts_eq_v(const void *x, const void *y) { return ts_eq(x, y); }
static int double_eq_v(const void *x, const void *y) {
  double a, b;
  memcpy(&a, x, 8);
  memcpy(&b, y, 8);
  return a == b && signbit(a) == signbit(b);
}

static void check_all_equal(const all *x, const all *y) {
  CHECK(x->i8 == y->i8 && x->i16 == y->i16 && x->i32 == y->i32 && x->i64 == y->i64);
  CHECK(x->u8 == y->u8 && x->u16 == y->u16 && x->u32 == y->u32 && x->u64 == y->u64);
  CHECK(x->f == y->f && x->d == y->d && x->b == y->b);
  CHECK(str_eq(&x->s, &y->s));
  CHECK(bin_eq(&x->bin, &y->bin));
  CHECK(ts_eq(&x->ts, &y->ts));
  CHECK(kid_eq(&x->one, &y->one));
  CHECK(memcmp(x->three, y->three, sizeof x->three) == 0);
  CHECK(kid_eq(&x->pair[0], &y->pair[0]) && kid_eq(&x->pair[1], &y->pair[1]));
  CHECK(array_eq(&x->ints, &y->ints, sizeof(int32_t), NULL));
  CHECK(array_eq(&x->doubles, &y->doubles, sizeof(double), double_eq_v));
  CHECK(array_eq(&x->strs, &y->strs, sizeof(sp_str_field), str_eq_v));
  CHECK(array_eq(&x->kids, &y->kids, sizeof(kid), kid_eq_v));
  CHECK(array_eq(&x->bools, &y->bools, sizeof(bool), NULL));
  CHECK(array_eq(&x->stamps, &y->stamps, sizeof(sp_ts_field), ts_eq_v));
  CHECK(array_eq(&x->bins, &y->bins, sizeof(sp_bin_field), bin_eq_v));
  CHECK(array_eq(&x->u8s, &y->u8s, 1, NULL));
  CHECK(x->wide == y->wide);
}

/* ---- round trips ------------------------------------------------------------------ */

static void every_field_type_round_trips(void) {
  all in, out;
  sp_bytes b;
  sp_error err;
  int64_t live;
  all_fill(&in);
  CHECK(sp_schema_to_array(&all_schema, &in, NULL, &b, &err) == SP_OK);
  live = sp_alloc_live_bytes();
  memset(&out, 0, sizeof out);
  CHECK(sp_schema_decode(&all_schema, b.data, b.len, &out, 0, &err) == SP_OK);
  check_all_equal(&in, &out);
  CHECK(out.s.cap == out.s.len + 1 && out.s.ptr[out.s.len] == '\0');   /* owned, terminated */
  CHECK(out.ints.cap == COUNT(src_ints) && out.ints.ptr != (void *)src_ints);
  CHECK(((sp_str_field *)out.strs.ptr)[1].len == 0 && ((sp_str_field *)out.strs.ptr)[1].ptr != NULL);
  CHECK(((sp_str_field *)out.strs.ptr)[2].ptr == NULL);                /* nil stays nil */
  CHECK(((sp_bin_field *)out.bins.ptr)[2].ptr != NULL && ((sp_bin_field *)out.bins.ptr)[2].len == 0);
  sp_schema_release(&all_schema, &out);
  CHECK(out.s.ptr == NULL && out.kids.ptr == NULL && out.ints.count == 0);
  CHECK(sp_alloc_live_bytes() == live);
  sp_bytes_free(&b);
}

static int append_sink(void *ctx, const uint8_t *bytes, size_t len) {
  sp_buffer *dst = ctx;
  size_t avail;
  sp_output o = sp_buffer_output(dst);
  uint8_t *p = o.get_span(dst, len, &avail);
  if (p == NULL) return 1;
  memcpy(p, bytes, len);
  o.advance(dst, len);
  return 0;
}

/* Numeric array fields of every type, keyed by their numeric kind: each
** writes what the bulk writer of its kind writes (sp_ftype's numbers are
** sp_num_kind's plus one) and reads back bit for bit. */
typedef struct nums { sp_array_field a[SP_NUM_KINDS]; } nums;

static const sp_field nums_fields[] = {
  SP_MEMBER_KEY(SP_NUM_I8, nums, a[0], SP_F_I8, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(SP_NUM_U8, nums, a[1], SP_F_U8, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(SP_NUM_I16, nums, a[2], SP_F_I16, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(SP_NUM_U16, nums, a[3], SP_F_U16, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(SP_NUM_I32, nums, a[4], SP_F_I32, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(SP_NUM_U32, nums, a[5], SP_F_U32, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(SP_NUM_F32, nums, a[6], SP_F_FLOAT, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(SP_NUM_F64, nums, a[7], SP_F_DOUBLE, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(SP_NUM_I64, nums, a[8], SP_F_I64, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(SP_NUM_U64, nums, a[9], SP_F_U64, .flags = SP_FIELD_ARRAY),
};
static sp_schema nums_schema = SP_SCHEMA(nums, nums_fields, 0);

typedef struct nums_src { uint64_t elems[SP_NUM_KINDS][3]; } nums_src;

static int write_nums_by_kind(sp_writer *w, const void *value) {
  const nums_src *src = value;
  sp_write_array_header(w, SP_NUM_KINDS);
  for (int k = 0; k < SP_NUM_KINDS; k++) sp_write_numeric_array(w, (sp_num_kind)k, src->elems[k], 3);
  return 0;
}

static void numeric_array_fields_write_what_their_kind_writes(void) {
  nums_src src;
  nums obj, back;
  sp_bytes want, got;
  int64_t live;
  memset(&back, 0, sizeof back);
  for (int k = 0; k < SP_NUM_KINDS; k++) {
    uint8_t *p = (uint8_t *)src.elems[k];
    /* A byte pattern whose floats are never NaN (no exponent of all ones). */
    for (size_t b = 0; b < sizeof src.elems[k]; b++) p[b] = (uint8_t)(b * 7 + (size_t)k + 1);
    obj.a[k] = (sp_array_field)SP_ARRAY_OF(src.elems[k], 3);
  }
  CHECK(sp_to_array(write_nums_by_kind, &src, NULL, &want, NULL) == SP_OK);
  CHECK(sp_schema_to_array(&nums_schema, &obj, NULL, &got, NULL) == SP_OK);
  CHECK_BYTES(got.data, got.len, want.data, want.len);
  live = sp_alloc_live_bytes();
  CHECK(sp_schema_decode(&nums_schema, got.data, got.len, &back, 0, NULL) == SP_OK);
  for (int k = 0; k < SP_NUM_KINDS; k++)
    CHECK(back.a[k].count == 3 &&
          memcmp(back.a[k].ptr, src.elems[k], 3 * sp_num_kind_size((sp_num_kind)k)) == 0);
  sp_schema_release(&nums_schema, &back);
  CHECK(sp_alloc_live_bytes() == live);
  sp_bytes_free(&want);
  sp_bytes_free(&got);
}

static void every_entry_writes_the_same_bytes(void) {
  all in;
  sp_schema_obj o = {&all_schema, &in};
  sp_bytes a, tiny;
  sp_buffer out, stream;
  sp_output so;
  sp_options small;
  memset(&small, 0, sizeof small);
  small.scratch_size = 8;                    /* migrates to a sequence mid-struct */
  all_fill(&in);
  sp_buffer_init(&out);
  sp_buffer_init(&stream);
  so = sp_buffer_output(&out);
  CHECK(sp_schema_to_array(&all_schema, &in, NULL, &a, NULL) == SP_OK);
  CHECK(sp_schema_to_array(&all_schema, &in, &small, &tiny, NULL) == SP_OK);
  CHECK(sp_schema_to_output(&so, &all_schema, &in, NULL, NULL) == SP_OK);
  CHECK(sp_to_stream(append_sink, &stream, sp_schema_format, &o, NULL, NULL) == SP_OK);
  CHECK_BYTES(tiny.data, tiny.len, a.data, a.len);
  CHECK_BYTES(out.data, out.len, a.data, a.len);
  CHECK_BYTES(stream.data, stream.len, a.data, a.len);
  sp_bytes_free(&a);
  sp_bytes_free(&tiny);
  sp_buffer_free(&out);
  sp_buffer_free(&stream);
  sp_thread_cleanup();
}

/* The schema writes exactly what a value tree of the same shape writes. */
static void map_form_equals_the_value_tree(void) {
  kid k = {5, SP_STR_LIT("five")};
  sp_value pairs[4] = {sp_str("id"), sp_int(5), sp_str("name"), sp_str("five")};
  sp_value tree = sp_map(pairs, 2);
  sp_bytes a, b;
  CHECK(sp_schema_to_array(&kid_schema, &k, NULL, &a, NULL) == SP_OK);
  CHECK(sp_to_array(sp_format_value, &tree, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(a.data, a.len, b.data, b.len);
  sp_bytes_free(&a);
  sp_bytes_free(&b);
}

static void int_keys_write_an_array_with_nil_gaps(void) {
  gappy g = {1, SP_STR_LIT("hi"), 0.5};
  static const uint8_t want[] = {0x96, 0x01, 0xC0, 0xA2, 'h', 'i', 0xC0, 0xC0,
                                 0xCB, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0};
  gappy back;
  sp_bytes b;
  CHECK(sp_schema_to_array(&gappy_schema, &g, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, want, sizeof want);
  memset(&back, 0, sizeof back);
  CHECK(sp_schema_decode(&gappy_schema, b.data, b.len, &back, 0, NULL) == SP_OK);
  CHECK(back.a == 1 && str_is(&back.b, "hi") && back.c == 0.5);
  sp_schema_release(&gappy_schema, &back);
  sp_bytes_free(&b);
}

static void a_schema_nests_inside_a_value_tree(void) {
  kid k = {1, SP_STR_LIT("k")};
  sp_schema_obj o = {&kid_schema, &k};
  sp_value items[2] = {sp_int(9), sp_custom(sp_schema_format, &o)};
  sp_value root = sp_array(items, 2);
  static const uint8_t want[] = {0x92, 0x09, 0x82, 0xA2, 'i', 'd', 0x01, 0xA4, 'n', 'a', 'm', 'e', 0xA1, 'k'};
  sp_bytes b;
  CHECK(sp_to_array(sp_format_value, &root, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, want, sizeof want);
  sp_bytes_free(&b);
}

/* ---- decode of writer-built bytes --------------------------------------------------- */

/* Fields in another order, unknown keys of every kind, a shorter int-key
** array: all decode; unknown members leave the struct alone. */
static void decodes_what_the_writer_builds(void) {
  msg m;
  sp_writer *w = msg_begin(&m);
  all out;
  sp_write_map_header(w, 7);
  sp_write_str(w, "unknown", 7); sp_write_array_header(w, 2); sp_write_nil(w); sp_write_map_header(w, 0);
  sp_write_str(w, "kids", 4);
  sp_write_array_header(w, 2);
  sp_write_map_header(w, 2); sp_write_str(w, "name", 4); sp_write_str(w, "zero", 4);
  sp_write_str(w, "id", 2); sp_write_int(w, 10);
  sp_write_map_header(w, 1); sp_write_str(w, "id", 2); sp_write_uint(w, 11);
  sp_write_uint(w, 7); sp_write_str(w, "int key in a string-key map", 27);
  sp_write_str(w, "d", 1); sp_write_int(w, -3);                   /* an int into a double */
  sp_write_str(w, "three", 5); sp_write_array_header(w, 2); sp_write_int(w, 1); sp_write_int(w, 2);
  sp_write_str(w, "ts", 2); sp_write_timestamp(w, -5, 7);
  sp_write_str(w, "bin", 3); sp_write_str(w, "as str", 6);         /* bin accepts str */
  msg_end(&m);
  memset(&out, 0, sizeof out);
  out.three[2] = 99;
  CHECK(sp_schema_decode(&all_schema, m.buf.data, m.buf.len, &out, 0, NULL) == SP_OK);
  CHECK(out.kids.count == 2);
  CHECK(((kid *)out.kids.ptr)[0].id == 10 && str_is(&((kid *)out.kids.ptr)[0].name, "zero"));
  CHECK(((kid *)out.kids.ptr)[1].id == 11 && ((kid *)out.kids.ptr)[1].name.ptr == NULL);
  CHECK(out.d == -3.0 && out.three[0] == 1 && out.three[1] == 2 && out.three[2] == 99);
  CHECK(out.ts.sec == -5 && out.ts.nsec == 7);
  CHECK(out.bin.len == 6 && memcmp(out.bin.ptr, "as str", 6) == 0);
  CHECK(out.i32 == 0 && out.s.ptr == NULL);                        /* missing: untouched */
  sp_schema_release(&all_schema, &out);
  msg_free(&m);
}

static void int_key_arrays_skip_gaps_and_extra_indices(void) {
  msg m;
  sp_writer *w = msg_begin(&m);
  gappy g = {0, {NULL, 0, 0}, 7.0};
  sp_write_array_header(w, 8);
  sp_write_int(w, 4);
  sp_write_map_header(w, 1); sp_write_nil(w); sp_write_nil(w);    /* value in a gap */
  sp_write_str(w, "b", 1);
  sp_write_nil(w); sp_write_nil(w);
  sp_write_double(w, 1.25);
  sp_write_array_header(w, 1); sp_write_str(w, "past maxKey", 11);
  sp_write_bool(w, 1);
  msg_end(&m);
  CHECK(sp_schema_decode(&gappy_schema, m.buf.data, m.buf.len, &g, 0, NULL) == SP_OK);
  CHECK(g.a == 4 && str_is(&g.b, "b") && g.c == 1.25);
  sp_schema_release(&gappy_schema, &g);
  msg_free(&m);
  /* a shorter array leaves later members as they are */
  w = msg_begin(&m);
  sp_write_array_header(w, 1);
  sp_write_int(w, -9);
  msg_end(&m);
  g.c = 3.5;
  CHECK(sp_schema_decode(&gappy_schema, m.buf.data, m.buf.len, &g, 0, NULL) == SP_OK);
  CHECK(g.a == -9 && g.c == 3.5);
  msg_free(&m);
}

/* ---- resolve errors ---------------------------------------------------------------- */

typedef struct two { int32_t a, b; } two;

static void check_misuse(sp_schema *s, const char *cause, const char *path) {
  sp_error err;
  two obj = {0, 0};
  sp_bytes b;
  int64_t live = sp_alloc_live_bytes();
  CHECK(sp_schema_resolve(s, &err) == SP_E_INVALID_ARGUMENT);
  CHECK(err.cause != NULL && strcmp(err.cause, cause) == 0);
  CHECK(strcmp(err.path, path) == 0);
  if (err.cause && strcmp(err.cause, cause) != 0) fprintf(stderr, "    cause: %s\n", err.cause);
  if (strcmp(err.path, path) != 0) fprintf(stderr, "    path: %s\n", err.path);
  CHECK(sp_schema_to_array(s, &obj, NULL, &b, &err) == SP_E_INVALID_ARGUMENT && b.data == NULL);
  CHECK(sp_schema_decode(s, "\x90", 1, &obj, 0, &err) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_schema_fixed_size(s) == 0);
  CHECK(sp_alloc_live_bytes() == live);       /* nothing cached, nothing held */
}

static const sp_field mixed_fields[] = {
  SP_MEMBER_KEY(0, two, a, SP_F_I32),
  SP_MEMBER(two, b, SP_F_I32),
};
static const sp_field dup_int_fields[] = {
  SP_MEMBER_KEY(1, two, a, SP_F_I32),
  SP_MEMBER_KEY(1, two, b, SP_F_I32),
};
static const sp_field dup_str_fields[] = {
  {.name = "same", .type = SP_F_I32, .offset = offsetof(two, a)},
  {.name = "same", .type = SP_F_I32, .offset = offsetof(two, b)},
};
static const sp_field nameless_fields[] = {
  {.type = SP_F_I32, .offset = offsetof(two, a)},
};
static const sp_field outside_fields[] = {
  {.name = "a", .type = SP_F_I64, .offset = offsetof(two, b)},   /* 8 bytes at 4 of 8 */
};
static const sp_field untyped_fields[] = {
  {.name = "a"},
};
static const sp_field no_schema_fields[] = {
  SP_MEMBER(two, a, SP_F_STRUCT),
};
static const sp_field both_arrays_fields[] = {
  SP_MEMBER(two, a, SP_F_I8, .count = 2, .flags = SP_FIELD_ARRAY),
};
static const sp_field big_key_fields[] = {
  SP_MEMBER_KEY(65536, two, a, SP_F_I32),
};

typedef struct selfish { int32_t x; } selfish;
static sp_schema selfish_schema;
static const sp_field selfish_fields[] = {
  SP_MEMBER(selfish, x, SP_F_STRUCT, .schema = &selfish_schema),   /* contains itself */
};
static sp_schema selfish_schema = SP_SCHEMA(selfish, selfish_fields, 0);

typedef struct holder { two t; } holder;
static const sp_field holder_fields[] = {
  SP_MEMBER(holder, t, SP_F_STRUCT, .schema = NULL),
};

static void bad_tables_are_refused_at_resolve_with_a_cause(void) {
  static sp_schema mixed = SP_SCHEMA(two, mixed_fields, 0);
  static sp_schema dup_int = SP_SCHEMA(two, dup_int_fields, 0);
  static sp_schema dup_str = SP_SCHEMA(two, dup_str_fields, 0);
  static sp_schema nameless = SP_SCHEMA(two, nameless_fields, 0);
  static sp_schema outside = SP_SCHEMA(two, outside_fields, 0);
  static sp_schema untyped = SP_SCHEMA(two, untyped_fields, 0);
  static sp_schema no_schema = SP_SCHEMA(two, no_schema_fields, 0);
  static sp_schema both = SP_SCHEMA(two, both_arrays_fields, 0);
  static sp_schema big_key = SP_SCHEMA(two, big_key_fields, 0);
  static sp_schema inner_bad = SP_SCHEMA(two, dup_int_fields, 0);
  static sp_field wraps_bad[] = {SP_MEMBER(holder, t, SP_F_STRUCT, .schema = &inner_bad)};
  static sp_schema outer_bad = SP_SCHEMA(holder, wraps_bad, 0);
  static sp_schema null_inner = SP_SCHEMA(holder, holder_fields, 0);
  check_misuse(&mixed, "schema mixes integer and string keys", ".b");
  check_misuse(&dup_int, "duplicate integer key", ".b");
  check_misuse(&dup_str, "duplicate string key", ".same");
  check_misuse(&nameless, "field has neither a name nor an integer key", "[0]");
  check_misuse(&outside, "member lies outside the struct", ".a");
  check_misuse(&untyped, "field has no valid type", ".a");
  check_misuse(&no_schema, "struct field without a schema", ".a");
  check_misuse(&both, "field is both an inline array (count) and SP_FIELD_ARRAY", ".a");
  check_misuse(&big_key, "integer key above 65535", ".a");
  check_misuse(&selfish_schema, "inline structs nest deeper than 32 (does a schema contain itself?)",
               ".x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x");
  check_misuse(&outer_bad, "duplicate integer key", ".t.b");
  check_misuse(&null_inner, "struct field without a schema", ".t");
}

/* An array of structs resolves its element schema on first use, inside the
** walk: a bad one fails the encode or decode there, with the resolve error's
** cause, the walk's offset and the whole path. */
typedef struct holds_bad { sp_array_field kids; } holds_bad;

static sp_schema bad_elem_schema = SP_SCHEMA(two, dup_int_fields, 0);
static const sp_field holds_bad_fields[] = {
  SP_MEMBER(holds_bad, kids, SP_F_STRUCT, .schema = &bad_elem_schema, .flags = SP_FIELD_ARRAY),
};
static sp_schema holds_bad_schema = SP_SCHEMA(holds_bad, holds_bad_fields, 0);

static void a_bad_element_schema_fails_the_walk_where_it_is_met(void) {
  two elems[1] = {{1, 2}};
  holds_bad h = {SP_ARRAY_OF(elems, 1)}, back;
  sp_bytes b;
  sp_error err;
  memset(&back, 0, sizeof back);
  CHECK(sp_schema_to_array(&holds_bad_schema, &h, NULL, &b, &err) == SP_E_INVALID_ARGUMENT);
  CHECK(b.data == NULL && strcmp(err.cause, "duplicate integer key") == 0);
  CHECK(strcmp(err.path, ".kids[0].b") == 0 && err.offset == 7);    /* after 81 a4 "kids" 91 */
  CHECK(sp_schema_decode(&holds_bad_schema, "\x81\xA4kids\x91\x90", 8, &back, 0, &err) ==
        SP_E_INVALID_ARGUMENT);
  CHECK(strcmp(err.cause, "duplicate integer key") == 0);
  CHECK(strcmp(err.path, ".kids[0].b") == 0 && err.offset == 7);
  sp_schema_release(&holds_bad_schema, &back);
  sp_thread_cleanup();
}

/* ---- decode errors ---------------------------------------------------------------------- */

static void check_decode_error(sp_schema *s, const void *bytes, size_t len, sp_code code,
                               size_t offset, const char *path) {
  all obj;                   /* large and aligned enough for every type here */
  sp_error err;
  int64_t live = sp_alloc_live_bytes();
  memset(&obj, 0, sizeof obj);
  CHECK(sp_schema_decode(s, bytes, len, &obj, 0, &err) == code);
  CHECK(err.offset == offset);
  CHECK(strcmp(err.path, path) == 0);
  if (err.code != code || err.offset != offset || strcmp(err.path, path) != 0)
    fprintf(stderr, "    got %s at %zu, path '%s'\n", sp_code_name(err.code), err.offset, err.path);
  sp_schema_release(s, &obj);
  CHECK(sp_alloc_live_bytes() == live);
}

static void decode_errors_carry_the_offset_and_the_member_path(void) {
  /* {"id": "x"}: a str where an int32 belongs, at byte 4 */
  check_decode_error(&kid_schema, "\x81\xA2id\xA1x", 6, SP_E_TYPE, 4, ".id");
  /* {"id": 2^32}: does not fit int32 */
  check_decode_error(&kid_schema, "\x81\xA2id\xCF\x00\x00\x00\x01\x00\x00\x00\x00", 13,
                     SP_E_OVERFLOW, 4, ".id");
  /* an int-key schema handed a map */
  check_decode_error(&gappy_schema, "\x80", 1, SP_E_TYPE, 0, "");
  /* the unused code 0xc1 as a value */
  check_decode_error(&gappy_schema, "\x91\xC1", 2, SP_E_MALFORMED, 1, ".a");
  /* 0xc1 inside a skipped value */
  check_decode_error(&gappy_schema, "\x92\x01\x91\xC1", 4, SP_E_MALFORMED, 3, "");
  /* trailing bytes */
  check_decode_error(&gappy_schema, "\x91\x01\x01", 3, SP_E_TRAILING_BYTES, 2, "");
  /* {"kids": [{"id": 1}, {"name": 5}]}: the path names the element */
  check_decode_error(&all_schema, "\x81\xA4kids\x92\x81\xA2id\x01\x81\xA4name\x05", 19,
                     SP_E_TYPE, 18, ".kids[1].name");
  /* inline array longer than its member */
  check_decode_error(&all_schema, "\x81\xA5three\x94\x01\x02\x03\x04", 12, SP_E_LENGTH_LIMIT, 7, ".three");
  /* bad timestamp length, as a member */
  check_decode_error(&all_schema, "\x81\xA2ts\xD5\xFF\x00\x00", 8, SP_E_MALFORMED, 4, ".ts");
  /* an array header claiming 2^32-1 elements in a short input allocates nothing */
  check_decode_error(&all_schema, "\x81\xA4ints\xDD\xFF\xFF\xFF\xFF", 11, SP_E_TRUNCATED, 6, ".ints");
  /* bool member given an int */
  check_decode_error(&all_schema, "\x81\xA1" "b\x01", 4, SP_E_TYPE, 3, ".b");
}

/* ---- the decode budget ------------------------------------------------------------------ */

/* A struct whose memory is big while its encoding is one byte ({}). */
typedef struct bulky { uint8_t pad[4096]; int32_t x; } bulky;
static const sp_field bulky_fields[] = { SP_MEMBER(bulky, x, SP_F_I32) };
static sp_schema bulky_schema = SP_SCHEMA(bulky, bulky_fields, 0);

typedef struct bulkies { sp_array_field a, b; } bulkies;
static const sp_field bulkies_fields[] = {
  SP_MEMBER(bulkies, a, SP_F_STRUCT, .schema = &bulky_schema, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(bulkies, b, SP_F_STRUCT, .schema = &bulky_schema, .flags = SP_FIELD_ARRAY),
};
static sp_schema bulkies_schema = SP_SCHEMA(bulkies, bulkies_fields, 0);

/* {"a": [n x {}]} (and "b" after it when nb > 0); *len gets the size. */
static uint8_t *bulky_message(uint32_t na, uint32_t nb, size_t *len) {
  uint8_t *m = malloc(20 + (size_t)na + nb), *p = m;
  const uint32_t counts[2] = {na, nb};
  *p++ = nb ? 0x82 : 0x81;
  for (int f = 0; f < (nb ? 2 : 1); f++) {
    *p++ = 0xa1; *p++ = (uint8_t)('a' + f);
    *p++ = 0xdd;
    for (int k = 3; k >= 0; k--) *p++ = (uint8_t)(counts[f] >> (8 * k));
    memset(p, 0x80, counts[f]);
    p += counts[f];
  }
  *len = (size_t)(p - m);
  return m;
}

/* n {} elements need n x 4,100 bytes of structs from n bytes: 100,000 of
** them (410 MB) are refused at the array header, before any allocation --
** the reader's check (n <= bytes left) passes, the budget (64 per input
** byte + 1 MiB) does not. */
static void an_array_of_big_structs_from_one_byte_each_is_refused_before_allocating(void) {
  size_t len;
  uint8_t *m = bulky_message(100000, 0, &len);
  bulkies out;
  sp_error err;
  sp_alloc_stats a;
  int64_t live = sp_alloc_live_bytes();
  memset(&out, 0, sizeof out);
  sp_schema_resolve(&bulkies_schema, NULL);
  sp_alloc_stats_reset();
  CHECK(sp_schema_decode(&bulkies_schema, m, len, &out, 0, &err) == SP_E_LENGTH_LIMIT);
  sp_alloc_stats_get(&a);
  CHECK(err.offset == 3 && strcmp(err.path, ".a") == 0);
  CHECK(a.alloc_bytes == 0 && out.a.ptr == NULL);
  sp_schema_release(&bulkies_schema, &out);
  sp_schema_forget(&bulkies_schema);
  sp_schema_forget(&bulky_schema);
  CHECK(sp_alloc_live_bytes() == live);
  free(m);
}

/* The budget is one per decode: each of two arrays fits it alone, both
** together do not, so the second is refused at its header; an array that
** fits decodes and what it allocated is released with the struct. */
static void the_budget_is_cumulative_over_one_decode(void) {
  size_t len;
  uint32_t half = (uint32_t)(SP_DECODE_BUDGET_BASE / sizeof(bulky) * 6 / 10);
  uint8_t *m = bulky_message(half, half, &len);
  bulkies out;
  sp_error err;
  int64_t live = sp_alloc_live_bytes();
  memset(&out, 0, sizeof out);
  CHECK(SP_DECODE_BUDGET_PER_BYTE * len + SP_DECODE_BUDGET_BASE < 2 * (uint64_t)half * sizeof(bulky));
  CHECK(sp_schema_decode(&bulkies_schema, m, len, &out, 0, &err) == SP_E_LENGTH_LIMIT);
  CHECK(err.offset == 10 + half && strcmp(err.path, ".b") == 0);
  CHECK(out.a.count == half && out.b.ptr == NULL);
  sp_schema_release(&bulkies_schema, &out);
  free(m);
  m = bulky_message(half, 0, &len);
  CHECK(sp_schema_decode(&bulkies_schema, m, len, &out, 0, &err) == SP_OK && out.a.count == half);
  sp_schema_release(&bulkies_schema, &out);
  sp_schema_forget(&bulkies_schema);
  sp_schema_forget(&bulky_schema);
  CHECK(sp_alloc_live_bytes() == live);
  free(m);
}

static void recursion_is_bounded_by_the_depth_limit(void) {
  enum { DEEP = 100000 };
  uint8_t *deep = malloc(DEEP * 3 + 1);
  size_t n = 0;
  node root;
  sp_reader r;
  for (int i = 0; i < DEEP; i++) { deep[n++] = 0x92; deep[n++] = 0x01; deep[n++] = 0x91; }
  deep[n++] = 0x01;
  memset(&root, 0, sizeof root);
  sp_reader_init(&r, deep, n);
  CHECK(sp_schema_read(&r, &node_schema, &root, 0) == SP_E_DEPTH_LIMIT);
  sp_schema_release(&node_schema, &root);
  /* a shallower limit, set on the reader */
  sp_reader_init(&r, deep, 3 * 4 + 1);
  r.max_depth = 4;
  CHECK(sp_schema_read(&r, &node_schema, &root, 0) == SP_E_DEPTH_LIMIT);
  sp_schema_release(&node_schema, &root);
  free(deep);
}

static void a_cyclic_struct_fails_to_encode_instead_of_overflowing(void) {
  node loop;
  sp_bytes b;
  sp_error err;
  loop.v = 1;
  loop.kids = (sp_array_field)SP_ARRAY_OF(&loop, 1);     /* contains itself */
  CHECK(sp_schema_to_array(&node_schema, &loop, NULL, &b, &err) == SP_E_DEPTH_LIMIT);
  CHECK(b.data == NULL && b.len == 0);
  sp_thread_cleanup();
}

static void encode_errors_carry_the_member_path(void) {
  all a;
  sp_bytes b;
  sp_error err;
  kid bad[2] = {{1, SP_STR_LIT("ok")}, {2, {NULL, 0, 0}}};
  all_fill(&a);
  a.ts.nsec = 1000000000u;
  CHECK(sp_schema_to_array(&all_schema, &a, NULL, &b, &err) == SP_E_VALUE_RANGE);
  CHECK(strcmp(err.path, ".ts") == 0);
  all_fill(&a);
  a.kids = (sp_array_field)SP_ARRAY_OF(bad, 2);
  a.ints.ptr = NULL;                                     /* count 6, no elements */
  CHECK(sp_schema_to_array(&all_schema, &a, NULL, &b, &err) == SP_E_INVALID_ARGUMENT);
  CHECK(strcmp(err.path, ".ints") == 0);
  sp_thread_cleanup();
}

/* ---- truncation and failed allocations ---------------------------------------------------- */

/* Every strict prefix fails with TRUNCATED, into a fresh struct
** and into one holding a previous decode; nothing leaks. */
static void check_every_truncation(sp_schema *s, const uint8_t *bytes, size_t len, size_t size) {
  uint8_t *obj = calloc(1, size);
  int64_t live = sp_alloc_live_bytes();
  int bad = 0;
  for (size_t cut = 0; cut < len; cut++) {
    sp_error err;
    sp_code c;
    memset(obj, 0, size);
    c = sp_schema_decode(s, bytes, cut, obj, 0, &err);
    if (c != SP_E_TRUNCATED || err.offset > cut) bad++;
    sp_schema_release(s, obj);
    CHECK(sp_schema_decode(s, bytes, len, obj, 0, NULL) == SP_OK);
    c = sp_schema_decode(s, bytes, cut, obj, 0, &err);
    if (c != SP_E_TRUNCATED) bad++;
    sp_schema_release(s, obj);
    if (sp_alloc_live_bytes() != live) bad++;
  }
  CHECK(bad == 0);
  free(obj);
}

static void every_truncation_fails_cleanly(void) {
  all a;
  kid k = {-77777, SP_STR_LIT("a name of more than thirty-one bytes, for a d9 header")};
  gappy g = {3, SP_STR_LIT("gap"), -1.0};
  node leaves[2] = {{1, {NULL, 0, 0}}, {2, {NULL, 0, 0}}};
  node tree = {0, SP_ARRAY_OF(leaves, 2)};
  sp_bytes b;
  all_fill(&a);
  CHECK(sp_schema_to_array(&all_schema, &a, NULL, &b, NULL) == SP_OK);
  check_every_truncation(&all_schema, b.data, b.len, sizeof(all));
  sp_bytes_free(&b);
  CHECK(sp_schema_to_array(&kid_schema, &k, NULL, &b, NULL) == SP_OK);
  check_every_truncation(&kid_schema, b.data, b.len, sizeof(kid));
  sp_bytes_free(&b);
  CHECK(sp_schema_to_array(&gappy_schema, &g, NULL, &b, NULL) == SP_OK);
  check_every_truncation(&gappy_schema, b.data, b.len, sizeof(gappy));
  sp_bytes_free(&b);
  CHECK(sp_schema_to_array(&node_schema, &tree, NULL, &b, NULL) == SP_OK);
  check_every_truncation(&node_schema, b.data, b.len, sizeof(node));
  sp_bytes_free(&b);
  sp_thread_cleanup();
}

/* An allocation hook that fails the Nth request (frees always succeed). */
static long fail_at, seen;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) { free(ptr); return NULL; }
  if (++seen == fail_at) return NULL;
  return realloc(ptr, nsize);
}

static void a_failed_allocation_at_any_point_leaks_nothing(void) {
  all a, out;
  sp_bytes b;
  long attempts = 0;
  sp_code c = SP_E_NOMEM;
  int64_t live;
  all_fill(&a);
  CHECK(sp_schema_to_array(&all_schema, &a, NULL, &b, NULL) == SP_OK);
  live = sp_alloc_live_bytes();
  for (fail_at = 1; c == SP_E_NOMEM && fail_at < 1000; fail_at++) {
    memset(&out, 0, sizeof out);
    seen = 0;
    sp_alloc_set_hook(failing_alloc, NULL);
    c = sp_schema_decode(&all_schema, b.data, b.len, &out, 0, NULL);
    sp_alloc_set_hook(NULL, NULL);
    if (c == SP_OK) check_all_equal(&a, &out);
    sp_schema_release(&all_schema, &out);
    CHECK(sp_alloc_live_bytes() == live);
    attempts++;
  }
  CHECK(c == SP_OK && attempts > 10);
  /* resolving with no memory caches nothing and can be retried */
  sp_schema_forget(&kid_schema);
  fail_at = 1;
  seen = 0;
  sp_alloc_set_hook(failing_alloc, NULL);
  CHECK(sp_schema_resolve(&kid_schema, NULL) == SP_E_NOMEM);
  sp_alloc_set_hook(NULL, NULL);
  CHECK(sp_schema_resolve(&kid_schema, NULL) == SP_OK);
  sp_bytes_free(&b);
}

/* ---- borrowing and segmented input ---------------------------------------------------------- */

static void borrowed_strings_point_into_the_input(void) {
  kid k = {1, SP_STR_LIT("borrowed")}, out;
  all a, back;
  sp_bytes b;
  sp_alloc_stats s;
  CHECK(sp_schema_to_array(&kid_schema, &k, NULL, &b, NULL) == SP_OK);
  memset(&out, 0, sizeof out);
  CHECK(sp_schema_decode(&kid_schema, b.data, b.len, &out, 0, NULL) == SP_OK);   /* owned */
  CHECK(out.name.cap > 0);
  sp_alloc_stats_reset();
  CHECK(sp_schema_decode(&kid_schema, b.data, b.len, &out, SP_DECODE_BORROW, NULL) == SP_OK);
  s = stats_now();
  CHECK(s.alloc_calls == 0 && s.free_calls == 1);           /* the owned copy was let go */
  CHECK(out.name.cap == 0 && (uint8_t *)out.name.ptr > b.data && (uint8_t *)out.name.ptr < b.data + b.len);
  CHECK(out.name.len == 8 && memcmp(out.name.ptr, "borrowed", 8) == 0);
  sp_schema_release(&kid_schema, &out);                      /* frees nothing */
  CHECK(stats_now().free_calls == 1);
  sp_bytes_free(&b);
  all_fill(&a);
  CHECK(sp_schema_to_array(&all_schema, &a, NULL, &b, NULL) == SP_OK);
  memset(&back, 0, sizeof back);
  CHECK(sp_schema_decode(&all_schema, b.data, b.len, &back, SP_DECODE_BORROW, NULL) == SP_OK);
  check_all_equal(&a, &back);
  CHECK(back.s.cap == 0 && back.bin.cap == 0 && back.kids.cap == 3);   /* arrays are still owned */
  sp_schema_release(&all_schema, &back);
  sp_bytes_free(&b);
}

/* A sequence of one-byte segments: every token and key straddles. */
typedef struct split {
  sp_segment *segs;
  sp_sequence seq;
} split;

static void split_init(split *s, const uint8_t *bytes, size_t len) {
  s->segs = calloc(len ? len : 1, sizeof *s->segs);
  for (size_t i = 0; i < len; i++) {
    s->segs[i].data = (uint8_t *)(uintptr_t)(bytes + i);
    s->segs[i].used = s->segs[i].capacity = 1;
  }
  memset(&s->seq, 0, sizeof s->seq);
  s->seq.segs = s->segs;
  s->seq.nsegs = s->seq.cap_segs = len;
  s->seq.length = len;
}

static void segmented_input_decodes_like_contiguous(void) {
  all a, out;
  sp_bytes b;
  split sp;
  sp_reader r;
  all_fill(&a);
  CHECK(sp_schema_to_array(&all_schema, &a, NULL, &b, NULL) == SP_OK);
  split_init(&sp, b.data, b.len);
  memset(&out, 0, sizeof out);
  sp_reader_init_sequence(&r, &sp.seq);
  CHECK(sp_schema_read(&r, &all_schema, &out, 0) == SP_OK);
  CHECK(sp_reader_remaining(&r) == 0);
  check_all_equal(&a, &out);
  sp_schema_release(&all_schema, &out);
  /* borrowing cannot point into a body that spans segments */
  memset(&out, 0, sizeof out);
  sp_reader_init_sequence(&r, &sp.seq);
  CHECK(sp_schema_read(&r, &all_schema, &out, SP_DECODE_BORROW) == SP_E_LENGTH_LIMIT);
  sp_schema_release(&all_schema, &out);
  /* truncated sequences fail as contiguous ones do */
  for (size_t cut = 0; cut < b.len; cut += 7) {
    sp_code c;
    sp.seq.nsegs = cut;
    sp.seq.length = cut;
    memset(&out, 0, sizeof out);
    sp_reader_init_sequence(&r, &sp.seq);
    c = sp_schema_read(&r, &all_schema, &out, 0);
    CHECK(c == SP_E_TRUNCATED);
    sp_schema_release(&all_schema, &out);
  }
  free(sp.segs);
  sp_bytes_free(&b);
}

/* ---- the inline paths and the general path ------------------------------------------------------ */

/* Every kind the inline paths take (sp_schema_encode.c, sp_schema_decode.c),
** with values at the edges of their forms, a key longer than the inline key
** words and str/bin bodies that need 8-, 16-bit and nil headers. */
typedef struct kinds {
  int8_t i8; int16_t i16; int32_t i32; int64_t i64;
  uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
  float f; double d; bool b;
  sp_str_field s, s8, s16, snil;
  sp_bin_field bn, bn16, bnil;
  int32_t wide;
  sp_array_field strs;       /* sp_str_field */
  kid one;                   /* not inline: the general path between inline fields */
  int64_t last;
} kinds;

static const sp_field kinds_fields[] = {
  SP_MEMBER(kinds, i8, SP_F_I8), SP_MEMBER(kinds, i16, SP_F_I16),
  SP_MEMBER(kinds, i32, SP_F_I32), SP_MEMBER(kinds, i64, SP_F_I64),
  SP_MEMBER(kinds, u8, SP_F_U8), SP_MEMBER(kinds, u16, SP_F_U16),
  SP_MEMBER(kinds, u32, SP_F_U32), SP_MEMBER(kinds, u64, SP_F_U64),
  SP_MEMBER(kinds, f, SP_F_FLOAT), SP_MEMBER(kinds, d, SP_F_DOUBLE),
  SP_MEMBER(kinds, b, SP_F_BOOL),
  {.name = "a key of more than sixteen bytes", .offset = offsetof(kinds, s), .type = SP_F_STR},
  SP_MEMBER(kinds, s8, SP_F_STR), SP_MEMBER(kinds, s16, SP_F_STR), SP_MEMBER(kinds, snil, SP_F_STR),
  SP_MEMBER(kinds, bn, SP_F_BIN), SP_MEMBER(kinds, bn16, SP_F_BIN), SP_MEMBER(kinds, bnil, SP_F_BIN),
  SP_MEMBER(kinds, wide, SP_F_I32, .flags = SP_FIXED_WIDTH),
  SP_MEMBER(kinds, strs, SP_F_STR, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(kinds, one, SP_F_STRUCT, .schema = &kid_schema),
  SP_MEMBER(kinds, last, SP_F_I64),
};
static sp_schema kinds_schema = SP_SCHEMA(kinds, kinds_fields, 0);

/* The same members under integer keys, with gaps before, between and
** after them (nil in the gaps). */
static const sp_field kinds_int_fields[] = {
  SP_MEMBER_KEY(1, kinds, i8, SP_F_I8), SP_MEMBER_KEY(2, kinds, i64, SP_F_I64),
  SP_MEMBER_KEY(5, kinds, u64, SP_F_U64), SP_MEMBER_KEY(6, kinds, d, SP_F_DOUBLE),
  SP_MEMBER_KEY(7, kinds, b, SP_F_BOOL), SP_MEMBER_KEY(8, kinds, s16, SP_F_STR),
  SP_MEMBER_KEY(9, kinds, bn, SP_F_BIN), SP_MEMBER_KEY(12, kinds, wide, SP_F_I32, .flags = SP_FIXED_WIDTH),
  SP_MEMBER_KEY(13, kinds, strs, SP_F_STR, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(14, kinds, one, SP_F_STRUCT, .schema = &kid_schema),
};
static sp_schema kinds_int_schema = SP_SCHEMA(kinds, kinds_int_fields, 0);

static char long_text[300];
static uint8_t long_bytes[300];
static sp_str_field kinds_strs[] = {SP_STR_LIT("red"), {NULL, 0, 0}, SP_STR_LIT(""),
                                    {long_text, 40, 0}, {long_text, 300, 0}, SP_STR_LIT("blue")};

static void kinds_fill(kinds *k, int v) {
  memset(k, 0, sizeof *k);
  memset(long_text, 'z', sizeof long_text);
  for (size_t i = 0; i < sizeof long_bytes; i++) long_bytes[i] = (uint8_t)i;
  k->i8 = v ? -128 : 5; k->i16 = v ? -129 : 127; k->i32 = v ? -32769 : 128;
  k->i64 = v ? INT64_MIN : -1; k->u8 = v ? 255 : 0; k->u16 = v ? 65535 : 256;
  k->u32 = v ? 65536 : 70; k->u64 = v ? UINT64_MAX : 4294967296u;
  k->f = v ? -0.5f : 1e30f; k->d = v ? 1e-300 : -2.0; k->b = v != 0;
  k->s = (sp_str_field)SP_STR_LIT("a short one");
  k->s8 = (sp_str_field){long_text, v ? 255 : 32, 0};
  k->s16 = (sp_str_field){long_text, v ? 300 : 256, 0};
  k->bn = (sp_bin_field){long_bytes, v ? 0 : 255, 0};
  k->bn16 = (sp_bin_field){long_bytes, 256 + (size_t)v, 0};
  k->wide = v ? -1 : 7;
  k->strs = (sp_array_field)SP_ARRAY_OF(kinds_strs, COUNT(kinds_strs) - (size_t)v);
  k->one = (kid){v, SP_STR_LIT("kid")};
  k->last = v ? 1 : INT64_MAX;
}

static void bytes_put(sp_writer *w, const sp_bin_field *b) {
  if (b->ptr == NULL) sp_write_nil(w);
  else sp_write_bin(w, b->ptr, b->len);
}

static void strs_put(sp_writer *w, const sp_array_field *a) {
  const sp_str_field *e = a->ptr;
  sp_write_array_header(w, (uint32_t)a->count);
  for (size_t i = 0; i < a->count; i++) {
    if (e[i].ptr == NULL) sp_write_nil(w);
    else sp_write_str(w, e[i].ptr, e[i].len);
  }
}

static void str_put(sp_writer *w, const sp_str_field *s) {
  if (s->ptr == NULL) sp_write_nil(w);
  else sp_write_str(w, s->ptr, s->len);
}

/* What kinds_schema must write, with the writer's own calls. */
static int kinds_by_hand(sp_writer *w, const void *value) {
  const kinds *k = value;
  uint8_t wide[5] = {0xd2};
  sp_store32(wide + 1, (uint32_t)k->wide);
  sp_write_map_header(w, COUNT(kinds_fields));
  sp_write_str(w, "i8", 2); sp_write_int(w, k->i8);
  sp_write_str(w, "i16", 3); sp_write_int(w, k->i16);
  sp_write_str(w, "i32", 3); sp_write_int(w, k->i32);
  sp_write_str(w, "i64", 3); sp_write_int(w, k->i64);
  sp_write_str(w, "u8", 2); sp_write_uint(w, k->u8);
  sp_write_str(w, "u16", 3); sp_write_uint(w, k->u16);
  sp_write_str(w, "u32", 3); sp_write_uint(w, k->u32);
  sp_write_str(w, "u64", 3); sp_write_uint(w, k->u64);
  sp_write_str(w, "f", 1); sp_write_float(w, k->f);
  sp_write_str(w, "d", 1); sp_write_double(w, k->d);
  sp_write_str(w, "b", 1); sp_write_bool(w, k->b);
  sp_write_str(w, "a key of more than sixteen bytes", 32); str_put(w, &k->s);
  sp_write_str(w, "s8", 2); str_put(w, &k->s8);
  sp_write_str(w, "s16", 3); str_put(w, &k->s16);
  sp_write_str(w, "snil", 4); str_put(w, &k->snil);
  sp_write_str(w, "bn", 2); bytes_put(w, &k->bn);
  sp_write_str(w, "bn16", 4); bytes_put(w, &k->bn16);
  sp_write_str(w, "bnil", 4); bytes_put(w, &k->bnil);
  sp_write_str(w, "wide", 4); sp_write_raw(w, wide, 5);
  sp_write_str(w, "strs", 4); strs_put(w, &k->strs);
  sp_write_str(w, "one", 3);
  sp_write_map_header(w, 2);
  sp_write_str(w, "id", 2); sp_write_int(w, k->one.id);
  sp_write_str(w, "name", 4); str_put(w, &k->one.name);
  sp_write_str(w, "last", 4); sp_write_int(w, k->last);
  return 0;
}

/* An output over a growable buffer that hands out spans of exactly
** max(min, step) bytes, so the writer's room before each field varies
** from none to more than its worst case. */
typedef struct stingy { sp_buffer buf; size_t step; } stingy;

static uint8_t *stingy_span(void *ctx, size_t min, size_t *avail) {
  stingy *s = ctx;
  size_t want = min > s->step ? min : s->step;
  sp_output o = sp_buffer_output(&s->buf);
  uint8_t *p = o.get_span(&s->buf, want, avail);
  if (p != NULL) *avail = want;
  return p;
}

static void stingy_advance(void *ctx, size_t n) {
  stingy *s = ctx;
  s->buf.len += n;
}

/* Encodes 'obj' through spans of every size from 1 to 'max' bytes: each
** gives exactly 'want'. */
static void check_every_span_size(sp_schema *sc, const void *obj, const sp_bytes *want, size_t max) {
  int bad = 0;
  for (size_t step = 1; step <= max; step++) {
    stingy st = {{0}, step};
    sp_output out = {stingy_span, stingy_advance, &st};
    sp_buffer_init(&st.buf);
    if (sp_schema_to_output(&out, sc, obj, NULL, NULL) != SP_OK ||
        st.buf.len != want->len || memcmp(st.buf.data, want->data, want->len) != 0) {
      fprintf(stderr, "    spans of %zu bytes write other bytes\n", step);
      bad++;
    }
    sp_buffer_free(&st.buf);
  }
  CHECK(bad == 0);
}

static void every_inline_kind_writes_the_same_bytes_by_either_path(void) {
  for (int v = 0; v < 2; v++) {
    kinds k;
    sp_bytes want, got;
    kinds_fill(&k, v);
    CHECK(sp_to_array(kinds_by_hand, &k, NULL, &want, NULL) == SP_OK);
    CHECK(sp_schema_to_array(&kinds_schema, &k, NULL, &got, NULL) == SP_OK);   /* one roomy span */
    CHECK_BYTES(got.data, got.len, want.data, want.len);
    check_every_span_size(&kinds_schema, &k, &want, 64);
    sp_bytes_free(&got);
    sp_bytes_free(&want);
    /* integer keys: the same members, nil in the gaps */
    CHECK(sp_schema_to_array(&kinds_int_schema, &k, NULL, &want, NULL) == SP_OK);
    CHECK(want.len > 0 && want.data[0] == 0x9f && want.data[1] == 0xc0);  /* 15 slots, key 0 a gap */
    check_every_span_size(&kinds_int_schema, &k, &want, 48);
    sp_bytes_free(&want);
  }
  sp_thread_cleanup();
}

/* A struct whose worst case is more than the output holds while its bytes
** fit: the inline path never asks for its worst case, so an output of
** exactly the message's size takes it, and one byte less fails as before. */
static void a_struct_whose_worst_case_does_not_fit_still_fills_an_exact_output(void) {
  kid k = {1, SP_STR_LIT("ab")};             /* 82 a2 'id' 01 a4 'name' a2 'ab': 13 bytes */
  static const uint8_t want[] = {0x82, 0xa2, 'i', 'd', 0x01, 0xa4, 'n', 'a', 'm', 'e', 0xa2, 'a', 'b'};
  uint8_t mem[sizeof want];
  for (size_t size = sizeof want; size + 1 >= sizeof want; size--) {
    sp_buffer fixed = {mem, 0, size, size};
    sp_output out = sp_fixed_output(&fixed);
    sp_error err;
    sp_code c = sp_schema_to_output(&out, &kid_schema, &k, NULL, &err);
    if (size == sizeof want) {
      CHECK(c == SP_OK);
      CHECK_BYTES(mem, fixed.len, want, sizeof want);
    } else {
      CHECK(c == SP_E_BUFFER_TOO_SMALL);
    }
  }
  sp_thread_cleanup();
}

/* Keys in schema order, in reverse, repeated, with unknown keys between,
** a key in a longer header form than the encoder's, and keys ending the
** input's last 16 bytes: each decodes into the same struct. */
static void keys_in_any_order_decode_alike(void) {
  kinds k, ordered, shuffled;
  sp_bytes b;
  msg m;
  sp_writer *w = msg_begin(&m);
  kinds_fill(&k, 1);
  CHECK(sp_schema_to_array(&kinds_schema, &k, NULL, &b, NULL) == SP_OK);
  memset(&ordered, 0, sizeof ordered);
  CHECK(sp_schema_decode(&kinds_schema, b.data, b.len, &ordered, 0, NULL) == SP_OK);
  sp_write_map_header(w, 9);
  sp_write_str(w, "last", 4); sp_write_int(w, 3);                           /* then again below */
  sp_write_str(w, "strs", 4); strs_put(w, &k.strs);
  sp_write_str(w, "idx", 3); sp_write_int(w, 1);                            /* unknown, prefix of none */
  sp_write_str(w, "s8", 2); str_put(w, &k.s8);
  sp_write_raw(w, "\xd9\x03u64", 5); sp_write_uint(w, k.u64);               /* str8 for a fixstr key */
  sp_write_str(w, "a key of more than sixteen bytes", 32); str_put(w, &k.s);
  sp_write_str(w, "i", 1); sp_write_int(w, 1);                              /* unknown, a prefix of i8 */
  sp_write_str(w, "i8", 2); sp_write_int(w, k.i8);
  sp_write_str(w, "last", 4); sp_write_int(w, k.last);                      /* the last 16 bytes */
  msg_end(&m);
  memset(&shuffled, 0, sizeof shuffled);
  CHECK(sp_schema_decode(&kinds_schema, m.buf.data, m.buf.len, &shuffled, 0, NULL) == SP_OK);
  CHECK(shuffled.last == ordered.last && shuffled.i8 == ordered.i8 && shuffled.u64 == ordered.u64);
  CHECK(str_eq(&shuffled.s, &ordered.s) && str_eq(&shuffled.s8, &ordered.s8));
  CHECK(array_eq(&shuffled.strs, &ordered.strs, sizeof(sp_str_field), str_eq_v));
  CHECK(shuffled.i16 == 0 && shuffled.s16.ptr == NULL);                     /* missing: untouched */
  sp_schema_release(&kinds_schema, &shuffled);
  sp_schema_release(&kinds_schema, &ordered);
  sp_bytes_free(&b);
  msg_free(&m);
}

static int kinds_equal(const kinds *x, const kinds *y) {
  return x->i8 == y->i8 && x->i16 == y->i16 && x->i32 == y->i32 && x->i64 == y->i64 &&
         x->u8 == y->u8 && x->u16 == y->u16 && x->u32 == y->u32 && x->u64 == y->u64 &&
         x->f == y->f && x->d == y->d && x->b == y->b && str_eq(&x->s, &y->s) &&
         str_eq(&x->s8, &y->s8) && str_eq(&x->s16, &y->s16) && str_eq(&x->snil, &y->snil) &&
         bin_eq(&x->bn, &y->bn) && bin_eq(&x->bn16, &y->bn16) && bin_eq(&x->bnil, &y->bnil) &&
         x->wide == y->wide && array_eq(&x->strs, &y->strs, sizeof(sp_str_field), str_eq_v) &&
         kid_eq(&x->one, &y->one) && x->last == y->last;
}

/* Each kind decodes the same from one segment (the inline reads), from
** one-byte segments (every read through the general path), borrowed,
** copied into fresh structs and into structs whose blocks are big enough
** (strings and arrays reused in place) or too small. */
static void every_inline_kind_decodes_the_same_by_either_path(void) {
  for (int v = 0; v < 2; v++) {
    kinds k, other, out;
    sp_bytes b, ob;
    split sp;
    sp_reader r;
    int64_t live = sp_alloc_live_bytes();
    kinds_fill(&k, v);
    CHECK(sp_schema_to_array(&kinds_schema, &k, NULL, &b, NULL) == SP_OK);
    memset(&out, 0, sizeof out);
    CHECK(sp_schema_decode(&kinds_schema, b.data, b.len, &out, SP_DECODE_BORROW, NULL) == SP_OK);
    CHECK(kinds_equal(&out, &k) && out.s8.cap == 0 && out.s8.ptr >= (char *)b.data &&
          out.s8.ptr < (char *)b.data + b.len);
    CHECK(sp_schema_decode(&kinds_schema, b.data, b.len, &out, 0, NULL) == SP_OK);    /* copies */
    CHECK(kinds_equal(&out, &k) && out.s8.cap == out.s8.len + 1 && out.s8.ptr[out.s8.len] == 0);
    kinds_fill(&other, 1 - v);            /* the other shape's blocks: bigger for v 0, smaller for v 1 */
    CHECK(sp_schema_to_array(&kinds_schema, &other, NULL, &ob, NULL) == SP_OK);
    CHECK(sp_schema_decode(&kinds_schema, ob.data, ob.len, &out, 0, NULL) == SP_OK);
    CHECK(sp_schema_decode(&kinds_schema, b.data, b.len, &out, 0, NULL) == SP_OK);
    CHECK(kinds_equal(&out, &k));
    sp_bytes_free(&ob);
    sp_schema_release(&kinds_schema, &out);
    split_init(&sp, b.data, b.len);
    memset(&out, 0, sizeof out);
    sp_reader_init_sequence(&r, &sp.seq);
    CHECK(sp_schema_read(&r, &kinds_schema, &out, 0) == SP_OK && kinds_equal(&out, &k));
    sp_schema_release(&kinds_schema, &out);
    free(sp.segs);
    sp_bytes_free(&b);
    CHECK(sp_alloc_live_bytes() == live);
  }
}

/* A str array decoded in place (into an owned block big enough) fails at
** the same byte with the same path as one decoded into a fresh struct. */
static void an_array_reused_in_place_fails_like_a_fresh_one(void) {
  static const uint8_t good[] = {0x81, 0xa4, 's', 't', 'r', 's', 0x93, 0xa1, 'a', 0xa1, 'b', 0xa1, 'c'};
  static const uint8_t bad[] = {0x81, 0xa4, 's', 't', 'r', 's', 0x93, 0xa1, 'a', 0x05, 0xa1, 'c'};
  for (unsigned flags = 0; flags <= SP_DECODE_BORROW; flags += SP_DECODE_BORROW) {
    kinds fresh, reused;
    sp_error e1, e2;
    int64_t live = sp_alloc_live_bytes();
    memset(&fresh, 0, sizeof fresh);
    memset(&reused, 0, sizeof reused);
    CHECK(sp_schema_decode(&kinds_schema, good, sizeof good, &reused, flags, NULL) == SP_OK);
    CHECK(reused.strs.cap == 3);
    CHECK(sp_schema_decode(&kinds_schema, bad, sizeof bad, &fresh, flags, &e1) == SP_E_TYPE);
    CHECK(sp_schema_decode(&kinds_schema, bad, sizeof bad, &reused, flags, &e2) == SP_E_TYPE);
    CHECK(e1.offset == 9 && e2.offset == 9);
    CHECK(strcmp(e1.path, ".strs[1]") == 0 && strcmp(e2.path, ".strs[1]") == 0);
    sp_schema_release(&kinds_schema, &fresh);
    sp_schema_release(&kinds_schema, &reused);
    CHECK(sp_alloc_live_bytes() == live);
  }
}

/* ---- decode into an existing value ------------------------------------------------------------ */

static void parent_make(parent *p, child *kids, int n) {
  static const char *labels[] = {"label-0", "label-1", "label-2", "label-3"};
  for (int i = 0; i < n; i++) {
    kids[i].value = i;
    kids[i].label.ptr = (char *)labels[i];
    kids[i].label.len = strlen(labels[i]);
    kids[i].label.cap = 0;
  }
  p->children = (sp_array_field)SP_ARRAY_OF(kids, (size_t)n);
}

/* A decoded parent with n owned children. */
static void parent_decoded(parent *p, int n) {
  child kids[4];
  parent src;
  sp_bytes b;
  parent_make(&src, kids, n);
  CHECK(sp_schema_to_array(&parent_schema, &src, NULL, &b, NULL) == SP_OK);
  memset(p, 0, sizeof *p);
  CHECK(sp_schema_decode(&parent_schema, b.data, b.len, p, 0, NULL) == SP_OK);
  sp_bytes_free(&b);
}

/* Decodes a parent of n children (values 10 + i) into 'target', and
** reports reuse as the document does. */
static void overwrite(parent *target, int n, sp_alloc_stats *during) {
  child kids[4];
  parent src;
  sp_bytes b;
  parent_make(&src, kids, n);
  for (int i = 0; i < n; i++) kids[i].value = 10 + i;
  CHECK(sp_schema_to_array(&parent_schema, &src, NULL, &b, NULL) == SP_OK);
  sp_alloc_stats_reset();
  CHECK(sp_schema_decode(&parent_schema, b.data, b.len, target, 0, NULL) == SP_OK);
  *during = stats_now();
  sp_bytes_free(&b);
}

static void report(int from, int to, int reused, int fresh, int stale) {
  printf("       %d -> %d: reused elements %d, new elements %d, stale past the count: %s\n",
         from, to, reused, fresh, stale ? "yes" : "none");
}

static void three_to_three_reuses_every_element_in_place(void) {
  parent p;
  child *before;
  char *labels[3];
  sp_alloc_stats s;
  int64_t live;
  int reused = 0;
  parent_decoded(&p, 3);
  before = p.children.ptr;
  for (int i = 0; i < 3; i++) labels[i] = before[i].label.ptr;
  live = sp_alloc_live_bytes();
  overwrite(&p, 3, &s);
  CHECK(p.children.ptr == before && p.children.count == 3);
  for (int i = 0; i < 3; i++) {
    child *c = &((child *)p.children.ptr)[i];
    reused += c == &before[i] && c->label.ptr == labels[i];
    CHECK(c->value == 10 + i && str_is(&c->label, i == 0 ? "label-0" : i == 1 ? "label-1" : "label-2"));
  }
  CHECK(reused == 3);
  CHECK(s.alloc_calls == 0 && s.free_calls == 0);         /* MemoryPack's List: 3 new elements */
  CHECK(sp_alloc_live_bytes() == live);
  report(3, 3, reused, 3 - reused, 0);
  sp_schema_release(&parent_schema, &p);
}

static void three_to_two_releases_and_zeroes_the_tail(void) {
  parent p;
  child *before;
  char *labels[2];
  size_t tail_cap;
  sp_alloc_stats s;
  int64_t live, start = sp_alloc_live_bytes();
  int reused = 0, stale;
  parent_decoded(&p, 3);
  before = p.children.ptr;
  for (int i = 0; i < 2; i++) labels[i] = before[i].label.ptr;
  tail_cap = before[2].label.cap;
  live = sp_alloc_live_bytes();
  overwrite(&p, 2, &s);
  CHECK(p.children.ptr == before && p.children.count == 2 && p.children.cap == 3);
  for (int i = 0; i < 2; i++) reused += before[i].label.ptr == labels[i] && before[i].value == 10 + i;
  stale = !is_zero(&before[2], sizeof(child));                /* the slot past the count */
  CHECK(reused == 2 && !stale);
  CHECK(s.alloc_calls == 0 && s.free_calls == 1 && s.free_bytes == tail_cap);
  CHECK(sp_alloc_live_bytes() == live - (int64_t)tail_cap);
  report(3, 2, reused, 2 - reused, stale);
  sp_schema_release(&parent_schema, &p);
  CHECK(sp_alloc_live_bytes() == start);                      /* back to before */
}

static void two_to_three_grows_once_and_keeps_the_old_elements(void) {
  parent p;
  char *labels[2];
  sp_alloc_stats s;
  int64_t start = sp_alloc_live_bytes();
  parent_decoded(&p, 2);
  for (int i = 0; i < 2; i++) labels[i] = ((child *)p.children.ptr)[i].label.ptr;
  overwrite(&p, 3, &s);
  CHECK(p.children.count == 3 && p.children.cap == 3);
  CHECK(s.alloc_calls == 2);                     /* the grown block, the new element's label */
  CHECK(s.free_calls == 1 && s.free_bytes == 2 * sizeof(child));   /* the old block only */
  for (int i = 0; i < 2; i++) CHECK(((child *)p.children.ptr)[i].label.ptr == labels[i]);
  CHECK(str_is(&((child *)p.children.ptr)[2].label, "label-2"));
  report(2, 3, 2, 1, 0);
  /* then back down to 1 and up to 3 again: no allocation for the block */
  overwrite(&p, 1, &s);
  CHECK(s.alloc_calls == 0 && p.children.count == 1 && p.children.cap == 3);
  CHECK(is_zero((child *)p.children.ptr + 1, 2 * sizeof(child)));
  overwrite(&p, 3, &s);
  CHECK(s.alloc_calls == 2 && p.children.count == 3);          /* two labels, no block */
  sp_schema_release(&parent_schema, &p);
  CHECK(sp_alloc_live_bytes() == start);
}

static void strings_reuse_their_block_when_it_is_big_enough(void) {
  kid k = {0, SP_STR_LIT("a long name to start with")}, out;
  kid shorter = {0, SP_STR_LIT("short")}, longer = {0, SP_STR_LIT("a much longer name than the first one")};
  sp_bytes b;
  char *block;
  sp_alloc_stats s;
  memset(&out, 0, sizeof out);
  CHECK(sp_schema_to_array(&kid_schema, &k, NULL, &b, NULL) == SP_OK);
  CHECK(sp_schema_decode(&kid_schema, b.data, b.len, &out, 0, NULL) == SP_OK);
  sp_bytes_free(&b);
  block = out.name.ptr;
  CHECK(sp_schema_to_array(&kid_schema, &shorter, NULL, &b, NULL) == SP_OK);
  sp_alloc_stats_reset();
  CHECK(sp_schema_decode(&kid_schema, b.data, b.len, &out, 0, NULL) == SP_OK);
  s = stats_now();
  CHECK(s.alloc_calls == 0 && out.name.ptr == block && str_is(&out.name, "short"));
  sp_bytes_free(&b);
  CHECK(sp_schema_to_array(&kid_schema, &longer, NULL, &b, NULL) == SP_OK);
  sp_alloc_stats_reset();
  CHECK(sp_schema_decode(&kid_schema, b.data, b.len, &out, 0, NULL) == SP_OK);
  s = stats_now();
  CHECK(s.alloc_calls == 1 && s.free_calls == 1 && str_is(&out.name, longer.name.ptr));
  sp_bytes_free(&b);
  /* nil frees it */
  CHECK(sp_schema_decode(&kid_schema, "\x81\xA4name\xC0", 7, &out, 0, NULL) == SP_OK);
  CHECK(out.name.ptr == NULL && out.name.cap == 0);
  sp_schema_release(&kid_schema, &out);
}

static void arrays_of_the_caller_are_never_written_or_freed(void) {
  child mine[2] = {{1, SP_STR_LIT("mine")}, {2, SP_STR_LIT("mine too")}};
  parent p = {SP_ARRAY_OF(mine, 2)};
  parent src;
  child kids[3];
  sp_bytes b;
  parent_make(&src, kids, 3);
  CHECK(sp_schema_to_array(&parent_schema, &src, NULL, &b, NULL) == SP_OK);
  CHECK(sp_schema_decode(&parent_schema, b.data, b.len, &p, 0, NULL) == SP_OK);
  CHECK(p.children.ptr != mine && p.children.cap == 3);
  CHECK(mine[0].value == 1 && str_is(&mine[1].label, "mine too"));
  sp_schema_release(&parent_schema, &p);
  sp_bytes_free(&b);
}

/* After one decode, decoding a message of the same shape into the same
** struct reuses every block: no allocation, no free. */
static void a_second_decode_of_the_same_shape_allocates_nothing(void) {
  all a, out;
  sp_bytes b;
  sp_alloc_stats s;
  all_fill(&a);
  CHECK(sp_schema_to_array(&all_schema, &a, NULL, &b, NULL) == SP_OK);
  memset(&out, 0, sizeof out);
  CHECK(sp_schema_decode(&all_schema, b.data, b.len, &out, 0, NULL) == SP_OK);
  out.i32 = 0;
  ((kid *)out.kids.ptr)[1].id = 0;
  sp_alloc_stats_reset();
  CHECK(sp_schema_decode(&all_schema, b.data, b.len, &out, 0, NULL) == SP_OK);
  s = stats_now();
  CHECK(s.alloc_calls == 0 && s.free_calls == 0);
  check_all_equal(&a, &out);
  sp_schema_release(&all_schema, &out);
  sp_bytes_free(&b);
}

/* One sp_schema_to_array with the Nth allocation failing (0: none fails);
** returns how many allocations it asked for. Checks that it either
** succeeded or failed with SP_E_NOMEM, and that nothing is left held. */
static long encode_failing(sp_schema *s, const void *obj, const sp_options *o, long n) {
  sp_bytes b;
  sp_code c;
  int64_t live;
  sp_thread_cleanup();
  sp_shutdown();                         /* no scratch, no default pools: a clean count */
  live = sp_alloc_live_bytes();
  fail_at = n;
  seen = 0;
  sp_alloc_set_hook(failing_alloc, NULL);
  c = sp_schema_to_array(s, obj, o, &b, NULL);
  sp_alloc_set_hook(NULL, NULL);
  CHECK(c == SP_OK || c == SP_E_NOMEM);
  CHECK(c == SP_OK ? b.data != NULL : b.data == NULL && b.len == 0);
  sp_bytes_free(&b);
  sp_thread_cleanup();
  sp_shutdown();
  CHECK(sp_alloc_live_bytes() == live);
  return seen;
}

/* Encoding with each allocation failing in turn (the scratch, the default
** pools, segments, the result) fails cleanly or recovers, on both paths. */
static void a_failed_allocation_while_encoding_leaks_nothing(void) {
  typedef struct pt { int32_t x, y; } pt;
  static const sp_field pt_fields[] = {SP_MEMBER_KEY(0, pt, x, SP_F_I32), SP_MEMBER_KEY(1, pt, y, SP_F_I32)};
  static sp_schema pt_fixed = SP_SCHEMA(pt, pt_fields, SP_FIXED_WIDTH);
  pt p = {1, 2};
  all a;
  sp_options small;
  long total;
  memset(&small, 0, sizeof small);
  small.scratch_size = 16;                 /* the normal path migrates to a sequence */
  all_fill(&a);
  CHECK(sp_schema_resolve(&pt_fixed, NULL) == SP_OK);
  total = encode_failing(&all_schema, &a, &small, 0);
  CHECK(total > 4);                        /* scratch, pools, sequence, segment, result */
  for (long n = 1; n <= total; n++) encode_failing(&all_schema, &a, &small, n);
  CHECK(encode_failing(&pt_fixed, &p, &small, 0) == 1);   /* the result, nothing else */
  CHECK(encode_failing(&pt_fixed, &p, &small, 1) == 1);
}

/* Repeated keys: the last wins, the earlier value's memory is reused or freed. */
static void a_repeated_key_decodes_twice_and_leaks_nothing(void) {
  static const char twice[] = "\x83\xA4name\xB0" "sixteen bytes..." "\xA2id\x01\xA4name\xA1x";
  all a;
  int64_t live = sp_alloc_live_bytes();
  kid k;
  memset(&k, 0, sizeof k);
  CHECK(sp_schema_decode(&kid_schema, twice, sizeof twice - 1, &k, 0, NULL) == SP_OK);
  CHECK(str_is(&k.name, "x") && k.id == 1 && k.name.cap == 17);   /* the first block, reused */
  sp_schema_release(&kid_schema, &k);
  memset(&a, 0, sizeof a);
  CHECK(sp_schema_decode(&all_schema, "\x82\xA4ints\x93\x01\x02\x03\xA4ints\x91\x07", 17, &a, 0, NULL) == SP_OK);
  CHECK(a.ints.count == 1 && ((int32_t *)a.ints.ptr)[0] == 7 && a.ints.cap == 3);
  sp_schema_release(&all_schema, &a);
  CHECK(sp_alloc_live_bytes() == live);
}

/* ---- threads ----------------------------------------------------------------------------------- */

#ifdef HAVE_THREADS
enum { RACERS = 8 };

typedef struct racer {
  atomic_int *start;
  sp_bytes out;
} racer;

static void *race_first_use(void *arg) {
  racer *r = arg;
  all a;
  all_fill(&a);
  while (!atomic_load(r->start)) { /* spin: all threads start together */ }
  sp_schema_to_array(&all_schema, &a, NULL, &r->out, NULL);
  sp_thread_cleanup();
  return NULL;
}

static void threads_racing_the_first_use_agree(void) {
  pthread_t t[RACERS];
  racer r[RACERS];
  atomic_int start = 0;
  int64_t live;
  sp_schema_forget(&all_schema);
  sp_schema_forget(&kid_schema);
  live = sp_alloc_live_bytes();
  for (int i = 0; i < RACERS; i++) {
    r[i].start = &start;
    pthread_create(&t[i], NULL, race_first_use, &r[i]);
  }
  atomic_store(&start, 1);
  for (int i = 0; i < RACERS; i++) pthread_join(t[i], NULL);
  for (int i = 1; i < RACERS; i++) CHECK_BYTES(r[i].out.data, r[i].out.len, r[0].out.data, r[0].out.len);
  for (int i = 0; i < RACERS; i++) sp_bytes_free(&r[i].out);
  CHECK(sp_alloc_live_bytes() > live);          /* exactly one resolution of each survived */
  sp_schema_forget(&all_schema);
  sp_schema_forget(&kid_schema);
  CHECK(sp_alloc_live_bytes() == live);
}
#endif

int main(void) {
  SP_RUN(every_field_type_round_trips);
  SP_RUN(every_entry_writes_the_same_bytes);
  SP_RUN(numeric_array_fields_write_what_their_kind_writes);
  SP_RUN(map_form_equals_the_value_tree);
  SP_RUN(int_keys_write_an_array_with_nil_gaps);
  SP_RUN(a_schema_nests_inside_a_value_tree);
  SP_RUN(decodes_what_the_writer_builds);
  SP_RUN(int_key_arrays_skip_gaps_and_extra_indices);
  SP_RUN(bad_tables_are_refused_at_resolve_with_a_cause);
  SP_RUN(a_bad_element_schema_fails_the_walk_where_it_is_met);
  SP_RUN(decode_errors_carry_the_offset_and_the_member_path);
  SP_RUN(an_array_of_big_structs_from_one_byte_each_is_refused_before_allocating);
  SP_RUN(the_budget_is_cumulative_over_one_decode);
  SP_RUN(recursion_is_bounded_by_the_depth_limit);
  SP_RUN(a_cyclic_struct_fails_to_encode_instead_of_overflowing);
  SP_RUN(encode_errors_carry_the_member_path);
  SP_RUN(every_truncation_fails_cleanly);
  SP_RUN(a_failed_allocation_at_any_point_leaks_nothing);
  SP_RUN(borrowed_strings_point_into_the_input);
  SP_RUN(segmented_input_decodes_like_contiguous);
  SP_RUN(every_inline_kind_writes_the_same_bytes_by_either_path);
  SP_RUN(a_struct_whose_worst_case_does_not_fit_still_fills_an_exact_output);
  SP_RUN(keys_in_any_order_decode_alike);
  SP_RUN(every_inline_kind_decodes_the_same_by_either_path);
  SP_RUN(an_array_reused_in_place_fails_like_a_fresh_one);
  SP_RUN(three_to_three_reuses_every_element_in_place);
  SP_RUN(three_to_two_releases_and_zeroes_the_tail);
  SP_RUN(two_to_three_grows_once_and_keeps_the_old_elements);
  SP_RUN(strings_reuse_their_block_when_it_is_big_enough);
  SP_RUN(arrays_of_the_caller_are_never_written_or_freed);
  SP_RUN(a_repeated_key_decodes_twice_and_leaks_nothing);
  SP_RUN(a_second_decode_of_the_same_shape_allocates_nothing);
  SP_RUN(a_failed_allocation_while_encoding_leaks_nothing);
#ifdef HAVE_THREADS
  SP_RUN(threads_racing_the_first_use_agree);
#endif
  sp_shutdown();
  return sp_test_summary();
}
