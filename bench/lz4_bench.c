/*
** lz4_bench.c -- the LZ4 block codec (sp_lz4.h) against liblz4
** (LZ4_compress_default, LZ4_decompress_safe) in one run, interleaved,
** printed as speed ratios and compressed sizes.
**
** Workloads: the MessagePack bytes of b.records, c.ints, d.strings and e.big
** (bench/workload_bytes.h). For each: both compressors on the plain bytes,
** and both decompressors on liblz4's block and on ours, so the decoders are
** also compared on the very same input. Every block is checked to decode to
** the plain bytes (with the other library) before timing.
**
** Then whole messages (b.records, d.strings) through the entries, so the
** cost of sp_options.compression is visible: sp_to_output into a reused
** buffer plain, as Lz4BlockArray and as Lz4Block, and, as a baseline, the
** plain to_output followed by LZ4_compress_default of the whole message;
** then sp_value_decode (borrowed bodies, one reused document) of each form.
** Every compressed message is checked to decode to the plain one first.
**
** Method: bench_util.h -- samples of ~SP_BENCH_SAMPLE_MS (20) ms, rounds
** rotating the order of the cases, SP_BENCH_ROUNDS (9) rounds, the median
** per case. MB/s are plain bytes per second in both directions; "x" is
** liblz4's median time over ours (above 1: we are faster); in the message
** part, "x plain" is the plain call's median over the row's.
*/
#include "bench_util.h"

#include <lz4.h>

#include "scratchpack.h"
#include "sp_lz4.h"
#include "workload_bytes.h"

enum { C_SP, C_LZ, D_SP_LZBLOCK, D_LZ_LZBLOCK, D_SP_SPBLOCK, D_LZ_SPBLOCK, NCASES };

static const char *const case_names[NCASES] = {
  "compress  sp", "compress  liblz4", "decompress sp  (liblz4's block)",
  "decompress liblz4 (liblz4's)", "decompress sp  (our block)", "decompress liblz4 (ours)",
};

typedef struct wl {
  const uint8_t *plain;
  size_t n;
  uint8_t *ours, *theirs;   /* the two blocks */
  size_t ours_len, theirs_len;
  uint8_t *scratch;         /* compress output, bound-sized */
  uint8_t *out;             /* decompress output, n bytes */
} wl;

static sp_lz4_state state;

static void die(const char *what, const char *name) {
  fprintf(stderr, "bench_lz4: %s %s\n", what, name);
  exit(1);
}

static uint64_t run_c_sp(void *ctx, long iters) {
  wl *w = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    size_t len;
    const uint8_t *in = w->plain;
    BENCH_BARRIER(in);
    if (sp_lz4_compress(in, w->n, w->scratch, sp_lz4_bound(w->n), &state, &len) != SP_OK)
      die("sp_lz4_compress failed while timed", "");
    sum += len + w->scratch[0];
  }
  return sum;
}

static uint64_t run_c_lz(void *ctx, long iters) {
  wl *w = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    const uint8_t *in = w->plain;
    int len;
    BENCH_BARRIER(in);
    len = LZ4_compress_default((const char *)in, (char *)w->scratch, (int)w->n,
                               LZ4_compressBound((int)w->n));
    if (len <= 0) die("LZ4_compress_default failed while timed", "");
    sum += (uint64_t)len + w->scratch[0];
  }
  return sum;
}

static uint64_t decode_sp(wl *w, const uint8_t *block, size_t len, long iters) {
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    size_t got = 0;
    BENCH_BARRIER(block);
    if (sp_lz4_decompress(block, len, w->out, w->n, &got) != SP_OK)
      die("sp_lz4_decompress failed while timed", "");
    sum += got + w->out[got / 2];
  }
  return sum;
}

static uint64_t decode_lz(wl *w, const uint8_t *block, size_t len, long iters) {
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    int got;
    BENCH_BARRIER(block);
    got = LZ4_decompress_safe((const char *)block, (char *)w->out, (int)len, (int)w->n);
    if (got < 0) die("LZ4_decompress_safe failed while timed", "");
    sum += (uint64_t)got + w->out[got / 2];
  }
  return sum;
}

static uint64_t run_d_sp_lz(void *c, long k) { wl *w = c; return decode_sp(w, w->theirs, w->theirs_len, k); }
static uint64_t run_d_lz_lz(void *c, long k) { wl *w = c; return decode_lz(w, w->theirs, w->theirs_len, k); }
static uint64_t run_d_sp_sp(void *c, long k) { wl *w = c; return decode_sp(w, w->ours, w->ours_len, k); }
static uint64_t run_d_lz_sp(void *c, long k) { wl *w = c; return decode_lz(w, w->ours, w->ours_len, k); }

/* Makes both blocks and checks each decodes, with the other library too. */
static void prepare(wl *w, const char *name) {
  size_t bound = sp_lz4_bound(w->n), got;
  int theirs;
  w->ours = malloc(bound);
  w->theirs = malloc(bound);
  w->scratch = malloc(bound);
  w->out = malloc(w->n);
  if (!w->ours || !w->theirs || !w->scratch || !w->out) die("out of memory", name);
  if (sp_lz4_compress(w->plain, w->n, w->ours, bound, &state, &w->ours_len) != SP_OK)
    die("sp_lz4_compress failed", name);
  theirs = LZ4_compress_default((const char *)w->plain, (char *)w->theirs, (int)w->n, (int)bound);
  if (theirs <= 0) die("LZ4_compress_default failed", name);
  w->theirs_len = (size_t)theirs;
  if (sp_lz4_decompress(w->theirs, w->theirs_len, w->out, w->n, &got) != SP_OK || got != w->n ||
      memcmp(w->out, w->plain, w->n) != 0)
    die("sp_lz4_decompress does not give back liblz4's input", name);
  if (LZ4_decompress_safe((const char *)w->ours, (char *)w->out, (int)w->ours_len, (int)w->n) !=
          (int)w->n || memcmp(w->out, w->plain, w->n) != 0)
    die("LZ4_decompress_safe does not give back our input", name);
}

static void report(const char *name, const wl *w, const double *ns) {
  static const int pair[NCASES] = {C_LZ, C_LZ, D_LZ_LZBLOCK, D_LZ_LZBLOCK, D_LZ_SPBLOCK,
                                   D_LZ_SPBLOCK};
  printf("%-10s %9zu B  -> sp %zu B (%.1f%%), liblz4 %zu B (%.1f%%); sp/liblz4 size %.3f\n", name,
         w->n, w->ours_len, 100.0 * (double)w->ours_len / (double)w->n, w->theirs_len,
         100.0 * (double)w->theirs_len / (double)w->n,
         (double)w->ours_len / (double)w->theirs_len);
  for (int c = 0; c < NCASES; c++) {
    printf("  %-32s %10.1f us %9.0f MB/s", case_names[c], ns[c] / 1e3, (double)w->n * 1e3 / ns[c]);
    if (c == C_SP || c == D_SP_LZBLOCK || c == D_SP_SPBLOCK) printf("   x %.2f", ns[pair[c]] / ns[c]);
    printf("\n");
  }
}

/* ---- whole messages through the entries -------------------------------------- */

enum { M_OUT_PLAIN, M_OUT_ARRAY, M_OUT_BLOCK, M_OUT_THEN_LIBLZ4, M_DEC_PLAIN, M_DEC_ARRAY, M_DEC_BLOCK,
       NMSG };

static const char *const msg_names[NMSG] = {
  "to_output plain", "to_output Lz4BlockArray", "to_output Lz4Block",
  "to_output + LZ4_compress_default", "decode plain", "decode Lz4BlockArray", "decode Lz4Block",
};

typedef struct msg {
  sp_format_fn fn;
  sp_buffer out;              /* the to_output target, reused */
  uint8_t *lz;                /* the liblz4 baseline's block */
  int lz_cap;
  sp_buffer forms[3];         /* the message plain, as Lz4BlockArray, as Lz4Block */
  sp_doc doc;
} msg;

static uint64_t encode_msg(msg *m, sp_compression mode, long iters) {
  sp_options opt = {0};
  sp_output out = sp_buffer_output(&m->out);
  uint64_t sum = 0;
  opt.compression = mode;
  for (long i = 0; i < iters; i++) {
    sp_buffer_clear(&m->out);
    if (sp_to_output(&out, m->fn, NULL, &opt, NULL) != SP_OK) die("sp_to_output failed while timed", "");
    sum += m->out.len + m->out.data[m->out.len / 2];
  }
  return sum;
}

static uint64_t run_m_plain(void *c, long k) { return encode_msg(c, SP_COMPRESSION_NONE, k); }
static uint64_t run_m_array(void *c, long k) { return encode_msg(c, SP_COMPRESSION_LZ4_BLOCK_ARRAY, k); }
static uint64_t run_m_block(void *c, long k) { return encode_msg(c, SP_COMPRESSION_LZ4_BLOCK, k); }

static uint64_t run_m_then_liblz4(void *ctx, long iters) {
  msg *m = ctx;
  sp_output out = sp_buffer_output(&m->out);
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    int len;
    sp_buffer_clear(&m->out);
    if (sp_to_output(&out, m->fn, NULL, NULL, NULL) != SP_OK) die("sp_to_output failed while timed", "");
    len = LZ4_compress_default((const char *)m->out.data, (char *)m->lz, (int)m->out.len, m->lz_cap);
    if (len <= 0) die("LZ4_compress_default failed while timed", "");
    sum += (uint64_t)len + m->lz[len / 2];
  }
  return sum;
}

static uint64_t decode_msg(msg *m, const sp_buffer *b, long iters) {
  sp_decode_options opt = {.borrow = 1};
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_value v;
    const uint8_t *in = b->data;
    BENCH_BARRIER(in);
    sp_doc_reset(&m->doc);
    if (sp_value_decode(in, b->len, &opt, &m->doc, &v, NULL) != SP_OK) die("sp_value_decode failed while timed", "");
    sum += v.as.array.n;
  }
  return sum;
}

static uint64_t run_d_plain(void *c, long k) { msg *m = c; return decode_msg(m, &m->forms[0], k); }
static uint64_t run_d_array(void *c, long k) { msg *m = c; return decode_msg(m, &m->forms[1], k); }
static uint64_t run_d_block(void *c, long k) { msg *m = c; return decode_msg(m, &m->forms[2], k); }

/* The three forms of the message, each decoded and re-encoded plain to
** check it gives the plain message back. */
static void prepare_msg(msg *m, const char *name) {
  static const sp_compression modes[3] = {SP_COMPRESSION_NONE, SP_COMPRESSION_LZ4_BLOCK_ARRAY,
                                          SP_COMPRESSION_LZ4_BLOCK};
  for (int f = 0; f < 3; f++) {
    sp_output out = sp_buffer_output(&m->forms[f]);
    sp_options opt = {0};
    sp_value v;
    sp_bytes again;
    opt.compression = modes[f];
    sp_buffer_init(&m->forms[f]);
    if (sp_to_output(&out, m->fn, NULL, &opt, NULL) != SP_OK) die("sp_to_output failed", name);
    sp_doc_reset(&m->doc);
    if (sp_value_decode(m->forms[f].data, m->forms[f].len, NULL, &m->doc, &v, NULL) != SP_OK ||
        sp_to_array(sp_format_value, &v, NULL, &again, NULL) != SP_OK || again.len != m->forms[0].len ||
        memcmp(again.data, m->forms[0].data, again.len) != 0)
      die("a compressed message does not decode to the plain one", name);
    sp_bytes_free(&again);
  }
  m->lz_cap = LZ4_compressBound((int)m->forms[0].len);
  if ((m->lz = malloc((size_t)m->lz_cap)) == NULL) die("out of memory", name);
}

static void messages(int rounds, double sample_ms) {
  static const int which[] = {WL_RECORDS, WL_STRINGS};
  static const sp_format_fn fmts[WL_COUNT] = {workload_fmt_records, workload_fmt_ints,
                                              workload_fmt_strings, workload_fmt_big};
  printf("\nwhole messages through the entries (sp_options.compression): x plain = the plain call's "
         "median / this row's\n");
  for (int i = 0; i < 2; i++) {
    msg m;
    bench_case cases[NMSG] = {
      {msg_names[0], run_m_plain, &m, 0, {0}}, {msg_names[1], run_m_array, &m, 0, {0}},
      {msg_names[2], run_m_block, &m, 0, {0}}, {msg_names[3], run_m_then_liblz4, &m, 0, {0}},
      {msg_names[4], run_d_plain, &m, 0, {0}}, {msg_names[5], run_d_array, &m, 0, {0}},
      {msg_names[6], run_d_block, &m, 0, {0}},
    };
    double ns[NMSG];
    const char *name = workload_names[which[i]];
    memset(&m, 0, sizeof m);
    m.fn = fmts[which[i]];
    sp_buffer_init(&m.out);
    prepare_msg(&m, name);
    bench_run(cases, NMSG, rounds, sample_ms, ns);
    printf("%-10s %9zu B  -> Lz4BlockArray %zu B, Lz4Block %zu B\n", name, m.forms[0].len, m.forms[1].len,
           m.forms[2].len);
    for (int c = 0; c < NMSG; c++)
      printf("  %-32s %10.1f us %9.0f MB/s   x plain %.2f\n", msg_names[c], ns[c] / 1e3,
             (double)m.forms[0].len * 1e3 / ns[c], ns[c < M_DEC_PLAIN ? M_OUT_PLAIN : M_DEC_PLAIN] / ns[c]);
    fflush(stdout);
    for (int f = 0; f < 3; f++) sp_buffer_free(&m.forms[f]);
    sp_buffer_free(&m.out);
    sp_doc_free(&m.doc);
    free(m.lz);
  }
}

int main(void) {
  int rounds = (int)bench_env("SP_BENCH_ROUNDS", 9);
  double sample_ms = (double)bench_env("SP_BENCH_SAMPLE_MS", 20);
  const char *only = getenv("SP_BENCH_ONLY");
  sp_buffer buf[WL_COUNT];
  printf("sp_lz4 vs liblz4 %s -- LZ4 blocks, %d interleaved rounds, ~%.0f ms per sample\n",
         LZ4_versionString(), rounds, sample_ms);
  printf("x = liblz4's median time / ours on the same input (above 1: sp is faster)\n\n");
  for (int i = 0; i < WL_COUNT; i++) {
    wl w;
    bench_case cases[NCASES] = {
      {case_names[0], run_c_sp, &w, 0, {0}},       {case_names[1], run_c_lz, &w, 0, {0}},
      {case_names[2], run_d_sp_lz, &w, 0, {0}},    {case_names[3], run_d_lz_lz, &w, 0, {0}},
      {case_names[4], run_d_sp_sp, &w, 0, {0}},    {case_names[5], run_d_lz_sp, &w, 0, {0}},
    };
    double ns[NCASES];
    sp_buffer_init(&buf[i]);
    if (only && *only && strstr(workload_names[i], only) == NULL) continue;
    if (workload_build(i, &buf[i]) != SP_OK || buf[i].len != workload_sizes[i])
      die("workload has the wrong size", workload_names[i]);
    memset(&w, 0, sizeof w);
    w.plain = buf[i].data;
    w.n = buf[i].len;
    prepare(&w, workload_names[i]);
    bench_run(cases, NCASES, rounds, sample_ms, ns);
    report(workload_names[i], &w, ns);
    fflush(stdout);
    free(w.ours); free(w.theirs); free(w.scratch); free(w.out);
    sp_buffer_free(&buf[i]);
  }
  if (!only || !*only) messages(rounds, sample_ms);
  printf("\nchecksum %llu\n", (unsigned long long)bench_checksum);
  sp_shutdown();
  return 0;
}
