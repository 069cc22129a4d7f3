/*
** make_seeds.c -- writes the fuzz targets' generated seeds: make_seeds DIR
** fills DIR/<target>/ (run.sh: build-fuzz/seeds/) with small inputs built
** from the C tests' fixtures (tests/c/fixtures.h: Small, the envelope's
** inner value, Outer, a short [1, "A" x n]), the benchmark workloads
** (bench/workload_bytes.h: the first few records, ints and strings) and
** the fuzz schemas' values, each in the target's input layout (fuzz.h).
** Generated rather than committed, so they follow the schemas and the
** writer; the hand-made seeds in tests/fuzz/seeds/ are committed.
** Owns: nothing the targets read at run time beyond these files.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixtures.h"
#include "fuzz.h"
#include "fuzz_schemas.h"
#include "scratchpack.h"
#include "workload_bytes.h"

static const char *root;

static void put_file(const char *target, const char *name, const uint8_t *head, size_t hn,
                     const uint8_t *msg, size_t n) {
  char path[512];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", root, target);
  FUZZ_ASSERT(mkdir(path, 0777) == 0 || errno == EEXIST);
  snprintf(path, sizeof path, "%s/%s/%s", root, target, name);
  FUZZ_ASSERT((f = fopen(path, "wb")) != NULL);
  FUZZ_ASSERT(fwrite(head, 1, hn, f) == hn && (n == 0 || fwrite(msg, 1, n, f) == n));
  FUZZ_ASSERT(fclose(f) == 0);
}

/* A message as fuzz.h's layout wants it: byte 0, cut bytes, control bytes. */
static void put_split(const char *target, const char *name, const uint8_t *cuts, size_t nc,
                      const uint8_t *ctl, size_t nt, const uint8_t *msg, size_t n) {
  uint8_t head[1 + 15 + 15];
  head[0] = (uint8_t)(nt << 4 | nc);
  if (nc) memcpy(head + 1, cuts, nc);
  if (nt) memcpy(head + 1 + nc, ctl, nt);
  put_file(target, name, head, 1 + nc + nt, msg, n);
}

/* ---- messages ------------------------------------------------------------------ */

typedef struct msg { char name[48]; sp_bytes b; } msg;

static msg msgs[64];
static size_t nmsgs;

static void add(const char *name, sp_format_fn fn, const void *value) {
  msg *m = &msgs[nmsgs++];
  FUZZ_ASSERT(nmsgs <= sizeof msgs / sizeof msgs[0]);
  snprintf(m->name, sizeof m->name, "%s", name);
  FUZZ_ASSERT(sp_to_array(fn, value, NULL, &m->b, NULL) == SP_OK);
}

/* The first k items of a workload's top-level array, as an array of k. */
static void add_workload(const char *name, int which, uint32_t k) {
  sp_buffer buf;
  sp_reader r;
  uint32_t n;
  size_t start;
  msg *m = &msgs[nmsgs++];
  sp_buffer_init(&buf);
  FUZZ_ASSERT(workload_build(which, &buf) == SP_OK);
  sp_reader_init(&r, buf.data, buf.len);
  FUZZ_ASSERT(sp_read_array_header(&r, &n) && n >= k);
  start = (size_t)sp_reader_offset(&r);
  for (uint32_t i = 0; i < k; i++) FUZZ_ASSERT(sp_skip(&r));
  m->b.len = 5 + (size_t)sp_reader_offset(&r) - start;
  m->b.data = malloc(m->b.len);
  m->b.data[0] = 0xdd;                     /* array32: k */
  m->b.data[1] = (uint8_t)(k >> 24); m->b.data[2] = (uint8_t)(k >> 16);
  m->b.data[3] = (uint8_t)(k >> 8); m->b.data[4] = (uint8_t)k;
  memcpy(m->b.data + 5, buf.data + start, m->b.len - 5);
  snprintf(m->name, sizeof m->name, "%s", name);
  sp_buffer_free(&buf);
}

/* One of every form the reader knows, boundaries of each integer width. */
static int fmt_forms(sp_writer *w, const void *unused) {
  static const int64_t ints[] = {0, 127, -32, -33, 128, 255, 256, 65535, 65536, -129, -32769,
                                 4294967295LL, 4294967296LL, INT64_MIN, INT64_MAX};
  (void)unused;
  sp_write_array_header(w, 26);
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) sp_write_int(w, ints[i]);
  sp_write_uint(w, UINT64_MAX);
  sp_write_nil(w);
  sp_write_bool(w, 1);
  sp_write_float(w, 1.5f);
  sp_write_double(w, -0.25);
  sp_write_str(w, "hello", 5);
  sp_write_bin(w, "\x00\x01\x02", 3);
  sp_write_ext(w, 5, "abc", 3);
  sp_write_timestamp(w, 1700000000, 5);
  sp_write_map_header(w, 1);
  sp_write_str(w, "k", 1);
  sp_write_timestamp(w, -1, 999999999);
  return 0;
}

static void add_messages(void) {
  static sp_value small_items[2], small_pairs[4];
  static envelope env;
  static outer out;
  static big_object big;
  static sp_value small_arr, small_map;
  small_items[0] = sp_int(1);
  small_items[1] = sp_str("hello");
  small_arr = sp_array(small_items, 2);                  /* Small, int keys */
  small_pairs[0] = sp_str("Id");
  small_pairs[1] = sp_int(1);
  small_pairs[2] = sp_str("Name");
  small_pairs[3] = sp_str("hello");
  small_map = sp_map(small_pairs, 2);                    /* Small, string keys */
  envelope_init(&env, NULL);
  outer_init(&out, "AAAAAAAAAA", 10, NULL);
  big_object_init(&big, 300);
  add("small_array", sp_format_value, &small_arr);
  add("small_map", sp_format_value, &small_map);
  add("envelope_inner", sp_format_value, &env.small);
  add("outer", sp_format_value, &out.root);
  add("big_300", sp_format_value, &big.root);
  add("forms", fmt_forms, NULL);
  add_workload("records_3", WL_RECORDS, 3);
  add_workload("ints_300", WL_INTS, 300);
  add_workload("strings_4", WL_STRINGS, 4);
  big_object_free(&big);
}

/* ---- per target ------------------------------------------------------------------- */

static void value_decode_seeds(void) {
  for (size_t i = 0; i < nmsgs; i++)
    put_file("value_decode", msgs[i].name, NULL, 0, msgs[i].b.data, msgs[i].b.len);
}

/* Each message whole, cut in a few places, with a few choices of reads. */
static void reader_segments_seeds(void) {
  static const uint8_t cuts[] = {1, 3, 7, 2, 9, 4};
  static const uint8_t ctl[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  char name[80];
  for (size_t i = 0; i < nmsgs; i++) {
    put_split("reader_segments", msgs[i].name, NULL, 0, NULL, 0, msgs[i].b.data, msgs[i].b.len);
    snprintf(name, sizeof name, "%s-cut", msgs[i].name);
    put_split("reader_segments", name, cuts, sizeof cuts, ctl, sizeof ctl, msgs[i].b.data,
              msgs[i].b.len);
  }
}

/* Every kind: an array of its extremes written by its bulk writer, read
** back as that kind (control byte: the kind, unbounded capacity). */
static int fmt_kinds(sp_writer *w, const void *unused) {
  static const int8_t i8[] = {INT8_MIN, -33, -1, 0, 1, 127};
  static const uint8_t u8[] = {0, 1, 127, 128, 255};
  static const int16_t i16[] = {INT16_MIN, -129, 0, 200, INT16_MAX};
  static const uint16_t u16[] = {0, 255, 256, UINT16_MAX};
  static const int32_t i32[] = {INT32_MIN, -32769, -1, 0, 127, 128, 65535, 65536, INT32_MAX};
  static const uint32_t u32[] = {0, 65536, UINT32_MAX};
  static const float f32[] = {0.0f, -1.5f, 3.25e38f};
  static const double f64[] = {0.0, -2.5, 1e300};
  static const int64_t i64[] = {INT64_MIN, -1, 0, 4294967296LL, INT64_MAX};
  static const uint64_t u64[] = {0, 4294967296ULL, UINT64_MAX};
  (void)unused;
#define ALL(k, a) sp_write_numeric_array(w, k, a, sizeof a / sizeof a[0]);
  ALL(SP_NUM_I8, i8) ALL(SP_NUM_U8, u8) ALL(SP_NUM_I16, i16) ALL(SP_NUM_U16, u16)
  ALL(SP_NUM_I32, i32) ALL(SP_NUM_U32, u32) ALL(SP_NUM_F32, f32) ALL(SP_NUM_F64, f64)
  ALL(SP_NUM_I64, i64) ALL(SP_NUM_U64, u64)
#undef ALL
  return 0;
}

static void bulk_read_seeds(void) {
  static const uint8_t kinds[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  static const uint8_t tight[10] = {0x80 | 0x50, 1, 0x80 | 0x40, 3, 4, 5, 6, 7, 8, 9};
  static const uint8_t cuts[] = {5, 1, 13, 2};
  static const uint8_t i32[1] = {SP_NUM_I32};
  sp_bytes b;
  FUZZ_ASSERT(sp_to_array(fmt_kinds, NULL, NULL, &b, NULL) == SP_OK);
  put_split("bulk_read", "kinds", NULL, 0, kinds, sizeof kinds, b.data, b.len);
  put_split("bulk_read", "kinds-cut", cuts, sizeof cuts, kinds, sizeof kinds, b.data, b.len);
  put_split("bulk_read", "kinds-caps", cuts, sizeof cuts, tight, sizeof tight, b.data, b.len);
  sp_bytes_free(&b);
  for (size_t i = 0; i < nmsgs; i++)
    if (strcmp(msgs[i].name, "ints_300") == 0) {
      put_split("bulk_read", "ints_300", cuts, sizeof cuts, i32, 1, msgs[i].b.data, msgs[i].b.len);
      put_split("bulk_read", "ints_300-each", NULL, 0, kinds, sizeof kinds, msgs[i].b.data,
                msgs[i].b.len);
    }
}

/* ---- schema values ------------------------------------------------------------------ */

static void put_schema(const char *name, size_t which, const void *obj) {
  static const uint8_t cuts[] = {3, 11, 1};
  uint8_t ctl[2] = {(uint8_t)which, 0};
  char borrowed[80];
  sp_bytes b;
  FUZZ_ASSERT(sp_schema_to_array(fz_schemas[which], obj, NULL, &b, NULL) == SP_OK);
  put_split("schema_decode", name, cuts, sizeof cuts, ctl, 1, b.data, b.len);
  ctl[0] |= 0x10 | 0x20;                         /* borrowed, into the caller's state */
  ctl[1] = 3;                                    /* the third allocation fails */
  snprintf(borrowed, sizeof borrowed, "%s-borrow-nomem", name);
  put_split("schema_decode", borrowed, NULL, 0, ctl, 2, b.data, b.len);
  sp_bytes_free(&b);
}

/* A chain of fz_nodes n deep (each level: the struct and its kids array). */
static void put_deep(const char *name, size_t n) {
  fz_node *chain = calloc(n, sizeof *chain);
  sp_bytes b;
  uint8_t ctl = 2;
  FUZZ_ASSERT(chain != NULL);
  for (size_t i = 0; i + 1 < n; i++) {
    chain[i].v = (int32_t)i;
    chain[i].kids = (sp_array_field)SP_ARRAY_OF(&chain[i + 1], 1);
  }
  FUZZ_ASSERT(sp_schema_to_array(&fz_node_schema, chain, NULL, &b, NULL) == SP_OK);
  put_split("schema_decode", name, NULL, 0, &ctl, 1, b.data, b.len);
  sp_bytes_free(&b);
  free(chain);
}

static void schema_decode_seeds(void) {
  static int8_t i8s[] = {-1, 2};
  static uint8_t u8s[] = {255};
  static int16_t i16s[] = {-300};
  static uint16_t u16s[] = {65535, 1};
  static int32_t i32s[] = {1, -70000, 3};
  static uint32_t u32s[] = {4000000000u};
  static float f32s[] = {0.5f};
  static double f64s[] = {1e-3, 2};
  static int64_t i64s[] = {-5000000000LL};
  static uint64_t u64s[] = {UINT64_MAX};
  static sp_str_field strs[] = {SP_STR_LIT("red"), SP_STR_LIT("")};
  static sp_bin_field bins[] = {{(uint8_t *)"\x01\x02", 2, 0}};
  static bool bools[] = {true, false};
  static sp_ts_field stamps[] = {{1, 0}, {17179869184LL, 1}, {-1, 999999999}};
  static fz_kid kids[] = {{7, SP_STR_LIT("seven")}, {-8, SP_STR_LIT("")}};
  static sp_str_field tags[] = {SP_STR_LIT("red"), SP_STR_LIT("green"), SP_STR_LIT("blue")};
  static double nums[] = {0.25};
  static sp_ext_field exts[] = {{(uint8_t *)"abc", 3, 0, 0}, {(uint8_t *)"\0\0\0\x09", 4, 0, -1}};
  fz_all a;
  fz_rec recs[2];
  fz_node leaf[2], root;
  fz_fixed fx;
  fz_list list;
  fz_kid kid = {42, SP_STR_LIT("answer")};
  fz_pt pt = {-3, 4};

  memset(&a, 0, sizeof a);
  a.i8 = -100; a.i16 = -1000; a.i32 = 100000; a.i64 = -10000000000LL;
  a.u8 = 200; a.u16 = 60000; a.u32 = 4000000000u; a.u64 = 10000000000ULL;
  a.f = 1.25f; a.d = -3.5; a.b = true;
  a.s = (sp_str_field)SP_STR_LIT("hello");
  a.bin = (sp_bin_field){(uint8_t *)"\x00\xff", 2, 0};
  a.ts = (sp_ts_field){1700000000, 123};
  a.kid = kid;
  a.three[0] = 1; a.three[1] = -2; a.three[2] = 300;
  a.pts[0] = pt;
  a.pts[1].x = 5;
#define ARR(m) a.m = (sp_array_field)SP_ARRAY_OF(m, sizeof m / sizeof m[0]);
  ARR(i8s) ARR(u8s) ARR(i16s) ARR(u16s) ARR(i32s) ARR(u32s) ARR(f32s) ARR(f64s) ARR(i64s)
  ARR(u64s) ARR(strs) ARR(bins) ARR(bools) ARR(stamps) ARR(kids) ARR(exts)
#undef ARR
  a.wide = 1;
  a.x = (sp_ext_field){(uint8_t *)"\x01\x02", 2, 0, 7};
  put_schema("all", 0, &a);

  memset(recs, 0, sizeof recs);
  recs[0].id = 1;
  recs[0].name = (sp_str_field)SP_STR_LIT("user-00000007919");
  recs[0].score = 1.35;
  recs[0].tags = (sp_array_field)SP_ARRAY_OF(tags, 3);
  recs[1].id = 2;
  recs[1].name = (sp_str_field)SP_STR_LIT("user-00000015838");
  put_schema("rec", 1, &recs[0]);

  memset(leaf, 0, sizeof leaf);
  leaf[0].v = 1;
  leaf[0].label = (sp_str_field)SP_STR_LIT("left");
  leaf[1].v = 2;
  leaf[1].nums = (sp_array_field)SP_ARRAY_OF(nums, 1);
  memset(&root, 0, sizeof root);
  root.v = -1;
  root.kids = (sp_array_field)SP_ARRAY_OF(leaf, 2);
  root.label = (sp_str_field)SP_STR_LIT("root");
  put_schema("node", 2, &root);
  put_deep("node-deep-240", 240);                /* 480 levels of the reader's 500 */
  put_deep("node-deep-260", 260);                /* past the depth limit when decoded */

  memset(&fx, 0, sizeof fx);
  fx.i8 = -1; fx.u16 = 2; fx.i32 = -3; fx.u64 = 4; fx.f = 5.5f; fx.d = 6.5; fx.ok = true;
  fx.when = (sp_ts_field){7, 8};
  fx.at = pt;
  fx.hist[0] = 9; fx.hist[3] = 10;
  put_schema("fixed", 3, &fx);

  list.recs = (sp_array_field)SP_ARRAY_OF(recs, 2);
  put_schema("list", 4, &list);
  put_schema("kid", 5, &kid);
  put_schema("pt", 6, &pt);

  /* the records workload: a record (string keys) and the list of them */
  for (size_t i = 0; i < nmsgs; i++)
    if (strcmp(msgs[i].name, "records_3") == 0) {
      uint8_t ctl = 4, one = 1;
      uint8_t list_form[1 + 256];
      size_t n = msgs[i].b.len < 256 ? msgs[i].b.len : 256;
      list_form[0] = 0x91;                         /* [[rec, rec, rec]] */
      memcpy(list_form + 1, msgs[i].b.data, n);
      put_split("schema_decode", "records_3-list", NULL, 0, &ctl, 1, list_form, 1 + n);
      put_split("schema_decode", "records_3-first", NULL, 0, &one, 1, msgs[i].b.data + 5,
                msgs[i].b.len - 5);
    }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_seeds DIR\n");
    return 2;
  }
  root = argv[1];
  FUZZ_ASSERT(mkdir(root, 0777) == 0 || errno == EEXIST);
  add_messages();
  value_decode_seeds();
  reader_segments_seeds();
  bulk_read_seeds();
  schema_decode_seeds();
  for (size_t i = 0; i < nmsgs; i++) sp_bytes_free(&msgs[i].b);
  return 0;
}
