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
    bench_case c[3] = {{"sp tree (copy bodies)", run_tree_copy, &recs, 0, {0}},
                       {"sp tree (borrow bodies)", run_tree_borrow, &recs, 0, {0}},
                       {"msgpack-c unpack", run_mpc_unpack, &recs, 0, {0}}};
    bench_run(c, 3, rounds, ms, ns);
    report("decode b.records (65,819 B)", c, 3, ns, 2);
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
  free((void *)obj.data); free((void *)recs.data); free((void *)ints.data);
  sp_buffer_free(&buf);
  msgpack_sbuffer_destroy(&sb);
  sp_shutdown();
  return 0;
}
