/*
** native_decode.c -- decode (and bulk int encode) against msgpack-c, in one
** run, interleaved, printed as ratios.
**
** Decode workloads (bytes produced by scratchpack, identical to msgpack-c's):
**   a.obj {"Id":1,"Name":"hello"}, b.records (1,000 maps), c.ints (0..29,999).
** Decoders: scratchpack's value tree (copying bodies, and borrowing them),
** scratchpack's typed reader where one applies (c.ints straight into an
** int32_t[30000]), msgpack-c's msgpack_unpack_next (its object tree), and
** msgpack-c's tree copied into an int32_t[30000] for c.ints.
** b.records into and from C structs: scratchpack's schema (decode into
** existing structs, and into fresh ones) against msgpack-c's tree walked
** into the same structs, and encode against msgpack-c's packer.
** Bulk encode of c.ints from an int32_t[30000] into a reused buffer: the
** SIMD kernel, the scalar kernel, and msgpack-c's packer in a loop.
** Environment: SP_BENCH_ROUNDS (9), SP_BENCH_SAMPLE_MS (20).
*/
#include "bench_util.h"

#include <msgpack.h>

#include "scratchpack.h"

#define NINTS 30000

static int32_t g_ints[NINTS], g_back[NINTS];

typedef struct input { const uint8_t *data; size_t len; } input;

static uint64_t run_tree(void *ctx, long iters, int borrow) {
  input *in = ctx;
  sp_decode_options opt = {0, borrow};
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_doc doc = {0};
    sp_value v;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    if (sp_value_decode_bytes(p, in->len, &opt, &doc, &v, NULL) != SP_OK) exit(2);
    sum += v.kind;
    sp_doc_free(&doc);
  }
  return sum;
}

static uint64_t run_tree_copy(void *ctx, long iters) { return run_tree(ctx, iters, 0); }

/* One document, reset between decodes: its blocks are reused. */
static uint64_t run_tree_reused(void *ctx, long iters) {
  input *in = ctx;
  sp_decode_options opt = {0, 1};
  sp_doc doc = {0};
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_value v;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    sp_doc_reset(&doc);
    if (sp_value_decode_bytes(p, in->len, &opt, &doc, &v, NULL) != SP_OK) exit(2);
    sum += v.kind;
  }
  sp_doc_free(&doc);
  return sum;
}
static uint64_t run_tree_borrow(void *ctx, long iters) { return run_tree(ctx, iters, 1); }

static uint64_t run_mpc_unpack(void *ctx, long iters) {
  input *in = ctx;
  msgpack_unpacked u;
  uint64_t sum = 0;
  msgpack_unpacked_init(&u);
  for (long i = 0; i < iters; i++) {
    size_t off = 0;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    if (msgpack_unpack_next(&u, (const char *)p, in->len, &off) != MSGPACK_UNPACK_SUCCESS) exit(2);
    sum += u.data.type;
  }
  msgpack_unpacked_destroy(&u);
  return sum;
}

static uint64_t run_sp_ints_typed(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_reader r;
    uint32_t n;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    sp_reader_init(&r, p, in->len);
    if (!sp_read_i32_array(&r, g_back, NINTS, &n)) exit(2);
    sum += (uint64_t)g_back[n - 1];
  }
  return sum;
}

static uint64_t run_mpc_ints_typed(void *ctx, long iters) {
  input *in = ctx;
  msgpack_unpacked u;
  uint64_t sum = 0;
  msgpack_unpacked_init(&u);
  for (long i = 0; i < iters; i++) {
    size_t off = 0;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    if (msgpack_unpack_next(&u, (const char *)p, in->len, &off) != MSGPACK_UNPACK_SUCCESS) exit(2);
    for (uint32_t k = 0; k < u.data.via.array.size; k++)
      g_back[k] = (int32_t)u.data.via.array.ptr[k].via.i64;
    sum += (uint64_t)g_back[NINTS - 1];
  }
  msgpack_unpacked_destroy(&u);
  return sum;
}

/* ---- bulk encode of c.ints ------------------------------------------------ */

static int fmt_ints(sp_writer *w, const void *v) {
  sp_write_i32_array(w, v, NINTS);
  return 0;
}

static uint64_t run_sp_bulk(void *ctx, long iters, int scalar) {
  sp_buffer *buf = ctx;
  sp_output out = sp_buffer_output(buf);
  uint64_t sum = 0;
  sp_bulk_force_scalar(scalar);
  for (long i = 0; i < iters; i++) {
    const int32_t *p = g_ints;
    BENCH_BARRIER(p);
    sp_buffer_clear(buf);
    sp_to_output(&out, fmt_ints, p, NULL, NULL);
    sum += buf->len;
  }
  sp_bulk_force_scalar(0);
  return sum;
}

static uint64_t run_sp_simd(void *ctx, long iters) { return run_sp_bulk(ctx, iters, 0); }
static uint64_t run_sp_scalar(void *ctx, long iters) { return run_sp_bulk(ctx, iters, 1); }

static uint64_t run_mpc_pack(void *ctx, long iters) {
  msgpack_sbuffer *sb = ctx;
  msgpack_packer pk;
  uint64_t sum = 0;
  msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
  for (long i = 0; i < iters; i++) {
    const int32_t *p = g_ints;
    BENCH_BARRIER(p);
    sb->size = 0;
    msgpack_pack_array(&pk, NINTS);
    for (int k = 0; k < NINTS; k++) msgpack_pack_int32(&pk, p[k]);
    sum += sb->size;
  }
  return sum;
}

/* ---- b.records as C structs through a schema ------------------------------ */

typedef struct brec {
  int64_t id;
  sp_str_field name;
  double score;
  sp_array_field tags;        /* of sp_str_field */
} brec;

static const sp_field brec_fields[] = {
  SP_MEMBER(brec, id, SP_F_I64),
  SP_MEMBER(brec, name, SP_F_STR),
  SP_MEMBER(brec, score, SP_F_DOUBLE),
  SP_MEMBER(brec, tags, SP_F_STR, .flags = SP_FIELD_ARRAY),
};
static sp_schema brec_schema = SP_SCHEMA(brec, brec_fields, 0);

static brec g_recs[1000], g_recs_back[1000];
static char g_names[1000][17];
static sp_str_field g_tags[1000][3];

static int fmt_recs_schema(sp_writer *w, const void *v) {
  (void)v;
  sp_write_array_header(w, 1000);
  for (int i = 0; i < 1000; i++) {
    sp_schema_obj o = {&brec_schema, &g_recs[i]};
    sp_schema_format(w, &o);
  }
  return 0;
}

static uint64_t run_schema_encode(void *ctx, long iters) {
  sp_buffer *buf = ctx;
  sp_output out = sp_buffer_output(buf);
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_buffer_clear(buf);
    sp_to_output(&out, fmt_recs_schema, NULL, NULL, NULL);
    sum += buf->len;
  }
  return sum;
}

static uint64_t run_mpc_records_encode(void *ctx, long iters) {
  msgpack_sbuffer *sb = ctx;
  msgpack_packer pk;
  uint64_t sum = 0;
  msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
  for (long i = 0; i < iters; i++) {
    sb->size = 0;
    msgpack_pack_array(&pk, 1000);
    for (int k = 0; k < 1000; k++) {
      const brec *r = &g_recs[k];
      const sp_str_field *t = r->tags.ptr;
      msgpack_pack_map(&pk, 4);
      msgpack_pack_str(&pk, 2); msgpack_pack_str_body(&pk, "id", 2);
      msgpack_pack_int64(&pk, r->id);
      msgpack_pack_str(&pk, 4); msgpack_pack_str_body(&pk, "name", 4);
      msgpack_pack_str(&pk, r->name.len); msgpack_pack_str_body(&pk, r->name.ptr, r->name.len);
      msgpack_pack_str(&pk, 5); msgpack_pack_str_body(&pk, "score", 5);
      msgpack_pack_double(&pk, r->score);
      msgpack_pack_str(&pk, 4); msgpack_pack_str_body(&pk, "tags", 4);
      msgpack_pack_array(&pk, 3);
      for (int j = 0; j < 3; j++) {
        msgpack_pack_str(&pk, t[j].len);
        msgpack_pack_str_body(&pk, t[j].ptr, t[j].len);
      }
    }
    sum += sb->size;
  }
  return sum;
}

/* Decodes b.records into structs: 'reuse' keeps last round's structs (the
** decode-into-existing path), else each round starts empty and releases. */
static uint64_t run_schema_decode(void *ctx, long iters, int reuse) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_reader r;
    uint32_t n;
    sp_reader_init(&r, in->data, in->len);
    if (!sp_read_array_header(&r, &n) || n != 1000) exit(2);
    for (uint32_t k = 0; k < n; k++)
      if (sp_schema_read(&r, &brec_schema, &g_recs_back[k], 0) != SP_OK) exit(2);
    sum += (uint64_t)g_recs_back[999].id;
    if (!reuse)
      for (uint32_t k = 0; k < n; k++) sp_schema_release(&brec_schema, &g_recs_back[k]);
  }
  return sum;
}

static uint64_t run_schema_decode_reuse(void *ctx, long iters) { return run_schema_decode(ctx, iters, 1); }
static uint64_t run_schema_decode_fresh(void *ctx, long iters) { return run_schema_decode(ctx, iters, 0); }

/* msgpack-c's tree, then its fields into the same structs (strings borrowed
** from the tree, so this does less than the schema decode, which copies). */
static uint64_t run_mpc_records_typed(void *ctx, long iters) {
  input *in = ctx;
  msgpack_unpacked u;
  uint64_t sum = 0;
  static sp_str_field tags[1000][3];
  static brec out[1000];
  msgpack_unpacked_init(&u);
  for (long i = 0; i < iters; i++) {
    size_t off = 0;
    if (msgpack_unpack_next(&u, (const char *)in->data, in->len, &off) != MSGPACK_UNPACK_SUCCESS) exit(2);
    for (uint32_t k = 0; k < u.data.via.array.size; k++) {
      const msgpack_object_map *m = &u.data.via.array.ptr[k].via.map;
      for (uint32_t f = 0; f < m->size; f++) {
        const msgpack_object_str *key = &m->ptr[f].key.via.str;
        const msgpack_object *val = &m->ptr[f].val;
        if (key->size == 2 && !memcmp(key->ptr, "id", 2)) out[k].id = val->via.i64;
        else if (key->size == 4 && !memcmp(key->ptr, "name", 4)) {
          out[k].name.ptr = (char *)val->via.str.ptr; out[k].name.len = val->via.str.size;
        } else if (key->size == 5 && !memcmp(key->ptr, "score", 5)) out[k].score = val->via.f64;
        else if (key->size == 4 && !memcmp(key->ptr, "tags", 4)) {
          for (uint32_t t = 0; t < val->via.array.size && t < 3; t++) {
            tags[k][t].ptr = (char *)val->via.array.ptr[t].via.str.ptr;
            tags[k][t].len = val->via.array.ptr[t].via.str.size;
          }
          out[k].tags.ptr = tags[k]; out[k].tags.count = val->via.array.size;
        }
      }
    }
    sum += (uint64_t)out[999].id;
  }
  msgpack_unpacked_destroy(&u);
  return sum;
}

static void build_records(void) {
  static const char *const tags[5] = {"red", "green", "blue", "black", "white"};
  for (int i = 0; i < 1000; i++) {
    snprintf(g_names[i], sizeof g_names[i], "user-%011d", i);
    g_recs[i].id = i;
    g_recs[i].name.ptr = g_names[i];
    g_recs[i].name.len = 16;
    g_recs[i].score = i * 1.25 + 0.1;
    for (int t = 0; t < 3; t++) {
      g_tags[i][t].ptr = (char *)tags[(i + t) % 5];
      g_tags[i][t].len = strlen(tags[(i + t) % 5]);
    }
    g_recs[i].tags.ptr = g_tags[i];
    g_recs[i].tags.count = 3;
  }
}

/* ---- workloads ------------------------------------------------------------- */

static int fmt_obj(sp_writer *w, const void *v) {
  (void)v;
  sp_write_map_header(w, 2);
  sp_write_str(w, "Id", 2); sp_write_int(w, 1);
  sp_write_str(w, "Name", 4); sp_write_str(w, "hello", 5);
  return 0;
}

static int fmt_records(sp_writer *w, const void *v) {
  static const char *const tags[5] = {"red", "green", "blue", "black", "white"};
  char name[17];
  (void)v;
  sp_write_array_header(w, 1000);
  for (int i = 0; i < 1000; i++) {
    snprintf(name, sizeof name, "user-%011d", i);
    sp_write_map_header(w, 4);
    sp_write_str(w, "id", 2); sp_write_int(w, i);
    sp_write_str(w, "name", 4); sp_write_str(w, name, 16);
    sp_write_str(w, "score", 5); sp_write_double(w, i * 1.25 + 0.1);
    sp_write_str(w, "tags", 4); sp_write_array_header(w, 3);
    for (int t = 0; t < 3; t++) sp_write_str(w, tags[(i + t) % 5], strlen(tags[(i + t) % 5]));
  }
  return 0;
}

static input make_input(sp_format_fn fmt, const void *v) {
  sp_bytes b;
  input in;
  if (sp_to_array(fmt, v, NULL, &b, NULL) != SP_OK) exit(2);
  in.data = b.data;
  in.len = b.len;
  return in;
}

static void report(const char *title, bench_case *c, int n, double *ns, int base) {
  printf("\n%s\n%-34s %12s %10s\n", title, "", "ns/op", "x base");
  for (int i = 0; i < n; i++)
    printf("  %-32s %12.1f %9.2fx%s\n", c[i].name, ns[i], ns[base] / ns[i], i == base ? "  (base)" : "");
}

int main(void) {
  int rounds = (int)bench_env("SP_BENCH_ROUNDS", 9);
  double ms = (double)bench_env("SP_BENCH_SAMPLE_MS", 20);
  input obj, recs, ints;
  sp_buffer buf;
  msgpack_sbuffer sb;
  double ns[8];
  for (int i = 0; i < NINTS; i++) g_ints[i] = i;
  build_records();
  obj = make_input(fmt_obj, NULL);
  recs = make_input(fmt_records, NULL);
  ints = make_input(fmt_ints, g_ints);
  sp_buffer_init(&buf);
  msgpack_sbuffer_init(&sb);
  printf("x base = base median / this median: above 1 means faster than the base row.\n");
  printf("medians of %d interleaved rounds; int32 kernel: %s\n", rounds, sp_bulk_i32_kernel());
  {
    bench_case c[3] = {{"sp tree (copy bodies)", run_tree_copy, &obj, 0, {0}},
                       {"sp tree (borrow bodies)", run_tree_borrow, &obj, 0, {0}},
                       {"msgpack-c unpack", run_mpc_unpack, &obj, 0, {0}}};
    bench_run(c, 3, rounds, ms, ns);
    report("decode a.obj (16 B)", c, 3, ns, 2);
  }
  {
    bench_case c[4] = {{"sp tree (copy bodies)", run_tree_copy, &recs, 0, {0}},
                       {"sp tree (borrow bodies)", run_tree_borrow, &recs, 0, {0}},
                       {"sp tree (borrow, reused doc)", run_tree_reused, &recs, 0, {0}},
                       {"msgpack-c unpack", run_mpc_unpack, &recs, 0, {0}}};
    bench_run(c, 4, rounds, ms, ns);
    report("decode b.records (65,819 B)", c, 4, ns, 3);
  }
  {
    input check = make_input(fmt_recs_schema, NULL);
    if (check.len != recs.len || memcmp(check.data, recs.data, recs.len)) {
      fprintf(stderr, "schema encoding differs from the formatter's\n");
      return 1;
    }
    free((void *)check.data);
  }
  {
    bench_case c[3] = {{"sp schema into existing structs", run_schema_decode_reuse, &recs, 0, {0}},
                       {"sp schema into fresh structs", run_schema_decode_fresh, &recs, 0, {0}},
                       {"msgpack-c unpack + fill structs", run_mpc_records_typed, &recs, 0, {0}}};
    bench_run(c, 3, rounds, ms, ns);
    report("decode b.records into C structs", c, 3, ns, 2);
  }
  {
    bench_case c[2] = {{"sp schema formatter, to_output", run_schema_encode, &buf, 0, {0}},
                       {"msgpack-c packer, reused sbuffer", run_mpc_records_encode, &sb, 0, {0}}};
    bench_run(c, 2, rounds, ms, ns);
    report("encode b.records from C structs into a reused buffer", c, 2, ns, 1);
  }
  {
    bench_case c[4] = {{"sp read into int32_t[]", run_sp_ints_typed, &ints, 0, {0}},
                       {"sp tree", run_tree_copy, &ints, 0, {0}},
                       {"msgpack-c unpack", run_mpc_unpack, &ints, 0, {0}},
                       {"msgpack-c unpack + copy to int32_t[]", run_mpc_ints_typed, &ints, 0, {0}}};
    bench_run(c, 4, rounds, ms, ns);
    report("decode c.ints (89,619 B)", c, 4, ns, 3);
  }
  {
    bench_case c[3] = {{"sp bulk int32, SIMD kernel", run_sp_simd, &buf, 0, {0}},
                       {"sp bulk int32, scalar kernel", run_sp_scalar, &buf, 0, {0}},
                       {"msgpack-c pack_int32 loop", run_mpc_pack, &sb, 0, {0}}};
    bench_run(c, 3, rounds, ms, ns);
    report("encode c.ints from int32_t[30000] into a reused buffer", c, 3, ns, 2);
  }
  printf("\nchecksum %llu\n", (unsigned long long)bench_checksum);
  for (int k = 0; k < 1000; k++) sp_schema_release(&brec_schema, &g_recs_back[k]);
  free((void *)obj.data); free((void *)recs.data); free((void *)ints.data);
  sp_buffer_free(&buf);
  msgpack_sbuffer_destroy(&sb);
  sp_shutdown();
  return 0;
}
