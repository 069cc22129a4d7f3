/*
** wasm_workloads.c -- the workloads bench/wasm-vs-native.mjs times natively,
** on wasm32-wasi (node:wasi) and as an Emscripten module (node), so that
** WASM is measured against native on the same C code and the same data.
** Owns: those workloads and their timing in one process. Must not touch:
** the ratios (the .mjs driver interleaves the three builds and divides).
**
** Cases (the workloads of bench/native_encode.c and native_decode.c):
**   a.obj encode       {"Id":1,"Name":"hello"} through sp_to_output
**   b.records encode   1,000 records through a formatter, sp_to_output into a
**                      reused sp_buffer (65,819 B)
**   b.records encode reserved  the same through the reservation contract:
**                      one sp_writer_reserve per record, sp_put_* at a local
**                      cursor (no call per value: the floor of this shape)
**   b.records decode   the same bytes read with sp_read_* into C structs,
**                      strings as pointer + length into the input
**   c.ints encode      0..29,999 from int32_t[30000] with sp_write_i32_array
**                      (the SIMD kernel: SSSE3 natively, SIMD128 in WASM)
**   c.ints encode each the same with one sp_write_int per element
**   c.ints decode      sp_read_i32_array back into int32_t[30000]
** With the peers' sources (bench_peers.h), the same b.records through
** CWPack and mpack (peer_records.h), built with the same flags for every
** target, so their WASM-over-native ratios are measured in the same run:
**   cwpack:b.records-encode   into a fixed 256 KiB array
**   mpack:b.records-encode    the same
**   cwpack:b.records-decode   cw_unpack_next into the same rec_views
**   mpack:b.records-decode    the expect API, the same
** Every case's result is checked once before timing.
**
** Usage: wasm_workloads [rounds [sample_ms]] (default 5 and 20). Prints one
** line per case, "<case> <median ns/op> <best ns/op>", then the kernel and a
** checksum.
** wasm_workloads 1 1 <iters> [<case substring>] runs a fixed number of
** iterations instead, untimed (for instruction counts); an <iters> of 0
** times only the cases whose name contains the substring, as the default
** run does (for comparing variants of one case, e.g. under V8 flags).
*/
#include "bench_util.h"   /* first: it sets _POSIX_C_SOURCE for clock_gettime */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_records.h"
#include "records_codec.h"
#include "scratchpack.h"

#define NRECS 1000
#define NINTS 30000


static rec g_recs[NRECS];
static records g_records = {g_recs, NRECS};
static rec_view g_views[NRECS];
static int32_t g_ints[NINTS], g_back[NINTS];
static sp_buffer g_out;                   /* reused by every encode case */
static uint8_t *g_rec_bytes, *g_int_bytes;
static size_t g_rec_len, g_int_len;

static _Noreturn void fail(const char *who) {
  fprintf(stderr, "wasm_workloads: %s failed\n", who);
  exit(2);
}

/* ---- encoders ---------------------------------------------------------------- */

static int fmt_obj(sp_writer *w, const void *unused) {
  (void)unused;
  sp_write_map_header(w, 2);
  sp_write_str(w, "Id", 2);
  sp_write_int(w, 1);
  sp_write_str(w, "Name", 4);
  sp_write_str(w, "hello", 5);
  return 0;
}

static int fmt_ints_bulk(sp_writer *w, const void *v) {
  sp_write_i32_array(w, v, NINTS);
  return 0;
}

static int fmt_ints_each(sp_writer *w, const void *value) {
  const int32_t *v = value;
  sp_write_array_header(w, NINTS);
  for (uint32_t i = 0; i < NINTS; i++) sp_write_int(w, v[i]);
  return 0;
}

/* iters messages of fn(value) into the reused buffer. */
static uint64_t encode_loop(sp_format_fn fn, const void *value, long iters) {
  sp_output out = sp_buffer_output(&g_out);
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    const void *p = value;
    BENCH_BARRIER(p);
    sp_buffer_clear(&g_out);
    if (sp_to_output(&out, fn, p, NULL, NULL) != SP_OK) fail("encode");
    sum += g_out.len + g_out.data[0];
  }
  return sum;
}

static uint64_t run_obj(void *ctx, long iters) { return encode_loop(fmt_obj, ctx, iters); }
static uint64_t run_rec_enc(void *ctx, long iters) { return encode_loop(fmt_records, ctx, iters); }
static uint64_t run_rec_res(void *ctx, long iters) { return encode_loop(fmt_records_reserved, ctx, iters); }
static uint64_t run_int_bulk(void *ctx, long iters) { return encode_loop(fmt_ints_bulk, ctx, iters); }
static uint64_t run_int_each(void *ctx, long iters) { return encode_loop(fmt_ints_each, ctx, iters); }

/* ---- decoders ---------------------------------------------------------------- */

static uint64_t run_rec_dec(void *ctx, long iters) {
  uint64_t sum = 0;
  (void)ctx;
  for (long i = 0; i < iters; i++) {
    sp_reader r;
    uint32_t n = 0;
    const uint8_t *p = g_rec_bytes;
    BENCH_BARRIER(p);
    sp_reader_init(&r, p, g_rec_len);
    if (!sp_read_array_header(&r, &n) || n > NRECS) fail("b.records decode");
    for (uint32_t k = 0; k < n; k++) sp_rec(&r, &g_views[k]);
    if (r.err.code != SP_OK) fail("b.records decode");
    sum += (uint64_t)g_views[NRECS - 1].id;
  }
  return sum;
}

static uint64_t run_int_dec(void *ctx, long iters) {
  uint64_t sum = 0;
  (void)ctx;
  for (long i = 0; i < iters; i++) {
    sp_reader r;
    uint32_t n = 0;
    const uint8_t *p = g_int_bytes;
    BENCH_BARRIER(p);
    sp_reader_init(&r, p, g_int_len);
    if (!sp_read_i32_array(&r, g_back, NINTS, &n)) fail("c.ints decode");
    sum += (uint64_t)g_back[n - 1];
  }
  return sum;
}

/* ---- the peers ------------------------------------------------------------------ */

#if SP_BENCH_PEERS
static uint8_t g_peer_buf[1 << 18];
static size_t g_peer_len;

static uint64_t run_cw_rec_enc(void *ctx, long iters) {
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    cw_pack_context pc;
    const void *in = ctx;
    BENCH_BARRIER(in);
    cw_pack_context_init(&pc, g_peer_buf, sizeof g_peer_buf, NULL);
    cw_records(&pc, in);
    if (pc.return_code != CWP_RC_OK) fail("cwpack:b.records-encode");
    g_peer_len = (size_t)(pc.current - pc.start);
    sum += g_peer_len + pc.start[0];
  }
  return sum;
}

static uint64_t run_mp_rec_enc(void *ctx, long iters) {
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    mpack_writer_t w;
    const void *in = ctx;
    BENCH_BARRIER(in);
    mpack_writer_init(&w, (char *)g_peer_buf, sizeof g_peer_buf);
    mp_records(&w, in);
    g_peer_len = mpack_writer_buffer_used(&w);
    if (mpack_writer_destroy(&w) != mpack_ok) fail("mpack:b.records-encode");
    sum += g_peer_len + g_peer_buf[0];
  }
  return sum;
}

static uint64_t run_cw_rec_dec(void *ctx, long iters) {
  uint64_t sum = 0;
  (void)ctx;
  for (long i = 0; i < iters; i++) {
    const uint8_t *p = g_rec_bytes;
    BENCH_BARRIER(p);
    if (!cw_records_decode(p, g_rec_len, g_views, NRECS)) fail("cwpack:b.records-decode");
    sum += (uint64_t)g_views[NRECS - 1].id;
  }
  return sum;
}

static uint64_t run_mp_rec_dec(void *ctx, long iters) {
  uint64_t sum = 0;
  (void)ctx;
  for (long i = 0; i < iters; i++) {
    const uint8_t *p = g_rec_bytes;
    BENCH_BARRIER(p);
    if (!mp_records_decode(p, g_rec_len, g_views, NRECS)) fail("mpack:b.records-decode");
    sum += (uint64_t)g_views[NRECS - 1].id;
  }
  return sum;
}
#endif

/* ---- data and checks ---------------------------------------------------------- */

static void build(void) {
  static const char *const tags[5] = {"red", "green", "blue", "black", "white"};
  for (uint32_t i = 0; i < NRECS; i++) {
    rec *r = &g_recs[i];
    r->id = i;
    snprintf(r->name, sizeof r->name, "user-%011u", (unsigned)i * 7919u);
    r->score = (double)i * 1.25 + 0.1;
    for (int k = 0; k < 3; k++) {
      r->tags[k] = tags[(i + (uint32_t)k) % 5];
      r->tag_len[k] = strlen(r->tags[k]);
    }
  }
  for (uint32_t i = 0; i < NINTS; i++) g_ints[i] = (int32_t)i;
  sp_buffer_init(&g_out);
}

/* Encodes once and keeps a copy of the bytes, which must have 'want' bytes. */
static uint8_t *encode_copy(sp_format_fn fn, const void *value, size_t want, size_t *len) {
  uint8_t *copy;
  encode_loop(fn, value, 1);
  if (g_out.len != want) fail("encode size");
  if ((copy = malloc(g_out.len)) == NULL) fail("malloc");
  memcpy(copy, g_out.data, g_out.len);
  *len = g_out.len;
  return copy;
}

/* Runs a b.records decoder once over cleared views and checks them. */
static void check_views(uint64_t (*decode)(void *, long), const char *who) {
  memset(g_views, 0, sizeof g_views);
  decode(NULL, 1);
  for (uint32_t i = 0; i < NRECS; i++) {
    const rec_view *v = &g_views[i];
    const rec *s = &g_recs[i];
    int ok = v->id == s->id && v->score == s->score && v->name_len == 16 &&
             memcmp(v->name, s->name, 16) == 0 && v->ntags == 3;
    for (int t = 0; ok && t < 3; t++)
      ok = v->tag_len[t] == s->tag_len[t] && memcmp(v->tag[t], s->tags[t], s->tag_len[t]) == 0;
    if (!ok) fail(who);
  }
}

#if SP_BENCH_PEERS
/* Runs a peer's b.records encoder once: its bytes must be scratchpack's. */
static void check_peer_bytes(uint64_t (*encode)(void *, long), const char *who) {
  encode(&g_records, 1);
  if (g_peer_len != g_rec_len || memcmp(g_peer_buf, g_rec_bytes, g_rec_len) != 0) fail(who);
}
#endif

static void check(void) {
  size_t len;
  uint8_t *each;
  encode_loop(fmt_obj, NULL, 1);
  if (g_out.len != 16) fail("a.obj size");
  g_rec_bytes = encode_copy(fmt_records, &g_records, 65819, &g_rec_len);
  each = encode_copy(fmt_records_reserved, &g_records, 65819, &len);
  if (memcmp(each, g_rec_bytes, len) != 0) fail("b.records: reserved and per-value differ");
  free(each);
  g_int_bytes = encode_copy(fmt_ints_bulk, g_ints, 89619, &g_int_len);
  each = encode_copy(fmt_ints_each, g_ints, 89619, &len);
  if (memcmp(each, g_int_bytes, len) != 0) fail("c.ints: bulk and each differ");
  free(each);
  check_views(run_rec_dec, "b.records decode result");
#if SP_BENCH_PEERS
  check_peer_bytes(run_cw_rec_enc, "cwpack:b.records-encode bytes");
  check_peer_bytes(run_mp_rec_enc, "mpack:b.records-encode bytes");
  check_views(run_cw_rec_dec, "cwpack:b.records-decode result");
  check_views(run_mp_rec_dec, "mpack:b.records-decode result");
#endif
  run_int_dec(NULL, 1);
  if (memcmp(g_back, g_ints, sizeof g_ints) != 0) fail("c.ints decode result");
}

int main(int argc, char **argv) {
  bench_case cases[] = {
    {"a.obj-encode", run_obj, NULL, 0, {0}},
    {"b.records-encode", run_rec_enc, &g_records, 0, {0}},
    {"b.records-encode-reserved", run_rec_res, &g_records, 0, {0}},
    {"b.records-decode", run_rec_dec, NULL, 0, {0}},
    {"c.ints-encode", run_int_bulk, g_ints, 0, {0}},
    {"c.ints-encode-each", run_int_each, g_ints, 0, {0}},
    {"c.ints-decode", run_int_dec, NULL, 0, {0}},
#if SP_BENCH_PEERS
    {"cwpack:b.records-encode", run_cw_rec_enc, &g_records, 0, {0}},
    {"mpack:b.records-encode", run_mp_rec_enc, &g_records, 0, {0}},
    {"cwpack:b.records-decode", run_cw_rec_dec, NULL, 0, {0}},
    {"mpack:b.records-decode", run_mp_rec_dec, NULL, 0, {0}},
#endif
  };
  enum { NCASES = sizeof cases / sizeof cases[0] };
  double med[NCASES];
  int ncases = NCASES;
  int rounds = argc > 1 ? atoi(argv[1]) : 5;
  double sample_ms = argc > 2 ? atof(argv[2]) : 20;
  if (rounds < 1) rounds = 1;
  if (sample_ms <= 0) sample_ms = 20;
  build();
  check();
  if (argc > 4 && atol(argv[3]) == 0) {
    /* Timed, only the cases named: moved to the front, the rest dropped. */
    int kept = 0;
    for (int i = 0; i < NCASES; i++)
      if (strstr(cases[i].name, argv[4]) != NULL) cases[kept++] = cases[i];
    ncases = kept;
  } else if (argc > 3) {
    /* A fixed count of iterations of the cases whose name contains argv[4]:
    ** for counting instructions (perf stat), which load does not move. */
    long iters = atol(argv[3]);
    for (int i = 0; i < NCASES; i++)
      if (argc < 5 || strstr(cases[i].name, argv[4]) != NULL)
        bench_checksum += cases[i].run(cases[i].ctx, iters);
    printf("checksum %llu\n", (unsigned long long)bench_checksum);
    return 0;
  }
  bench_run(cases, ncases, rounds, sample_ms, med);
  for (int i = 0; i < ncases; i++)     /* bench_run left the samples sorted */
    printf("%s %.1f %.1f\n", cases[i].name, med[i], cases[i].samples[0]);
  printf("kernel %s\nchecksum %llu\n", sp_bulk_i32_kernel(), (unsigned long long)bench_checksum);
  sp_buffer_free(&g_out);
  free(g_rec_bytes);
  free(g_int_bytes);
  sp_shutdown();
  return 0;
}
