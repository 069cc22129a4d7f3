/*
** native_encode.c -- encode benchmark: scratchpack against msgpack-c,
** CWPack and mpack, in one run, interleaved, printed as ratios.
**
** Workloads (DESIGN.md "Workloads for every benchmark"):
**   a.obj      {"Id":1,"Name":"hello"}                            16 B
**   b.records  1,000 x {id: i, name: 16 ASCII, score: double,
**              tags: [3 short strings]}                         65,819 B
**              (just over to_array's 64 KiB scratch, so to_array migrates
**              to a pooled sequence here; SP_BENCH_SCRATCH=131072 avoids it)
**   c.ints     0..29,999 as an array of ints, smallest forms    89,619 B
**   e.big      [1, "A" x 100,000]                               100,007 B
**
** Encoders, each on every workload:
**   sp to_array fmt       sp_to_array with a formatter written against the
**                         inline sp_write_* API; result freed every time
**   sp to_output buf      sp_to_output into one sp_buffer, cleared each time
**   sp to_output fixed    sp_to_output into sp_fixed_output over one reused
**                         256 KiB array: what the CWPack and mpack rows do
**   sp to_array value     sp_to_array(sp_format_value) over an sp_value tree
**                         built once, outside the timed loop
**   mpc new sbuffer       msgpack-c: sbuffer init + packer + destroy per
**                         message (how its examples use it)
**   mpc reused sbuffer    msgpack-c: one sbuffer, size reset to 0 per message
**                         (its fastest in-memory mode; the ratio baseline)
**   cwpack fixed buf      CWPack 1.3.1: a context over one reused 256 KiB
**                         buffer, initialised per message (its fastest mode)
**   mpack fixed buf       mpack 1.1.1: a writer over the same kind of buffer,
**                         init/destroy per message (its fastest mode)
** The CWPack and mpack rows need their sources (bench/CMakeLists.txt: $SP_PEERS
** or ../shared/peers); without them they are skipped, with a message.
**
** Method: every encoder must produce byte-identical output (checked at
** start-up and again after every sample). A sample runs enough iterations
** for ~20 ms (CLOCK_MONOTONIC). Round r runs one sample of every encoder,
** the order rotated by r; SP_BENCH_ROUNDS rounds (9) per workload; cells are
** the median ns/op. The input pointer goes through an asm barrier every
** iteration and the length and first byte of every output feed a checksum
** that is checked and printed, so nothing can be folded or dropped.
**
** Environment: SP_BENCH_ROUNDS (default 9), SP_BENCH_SAMPLE_MS (default 20),
** SP_BENCH_ONLY (a substring: run only workloads whose name contains it),
** SP_BENCH_SCRATCH (sp_options.scratch_size for the to_array rows; default 0,
** i.e. the library's 64 KiB).
*/
#define _POSIX_C_SOURCE 200112L

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <msgpack.h>

#include "bench_peers.h"
#include "peer_records.h"
#include "records_codec.h"

#include "scratchpack.h"

/* ---- helpers ------------------------------------------------------------ */

/* Makes the compiler forget what 'p' points to (and everything in memory),
** so inputs are re-read each iteration and nothing is hoisted or folded. */
#define BARRIER(p) __asm__ volatile("" : "+r"(p) : : "memory")

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("bench_native: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) die("out of memory (%zu bytes)", n);
  return p;
}

/* Workload memory: allocated once, freed together at exit. */
static void *g_kept[32];
static int g_nkept;

static void *kept_malloc(size_t n) {
  if (g_nkept == (int)(sizeof g_kept / sizeof g_kept[0])) die("too many workload arrays");
  return g_kept[g_nkept++] = xmalloc(n);
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long env_long(const char *name, long dflt, long lo, long hi) {
  const char *s = getenv(name);
  char *end;
  long v;
  if (s == NULL || *s == '\0') return dflt;
  v = strtol(s, &end, 10);
  if (*end != '\0' || v < lo || v > hi)
    die("%s=%s: want an integer in [%ld, %ld]", name, s, lo, hi);
  return v;
}

/* ---- the C data the encoders read ---------------------------------------- */

typedef struct obj {
  int64_t id;
  const char *name;
  size_t name_len;
} obj;

/* rec, records and fmt_records (b.records): records_codec.h */

typedef struct ints {
  const int32_t *v;
  uint32_t n;
} ints;

typedef struct big {
  int64_t head;
  const char *s;
  size_t len;
} big;

/* ---- scratchpack formatters: the way a C user writes one ----------------- */
/* Errors are sticky, so a formatter writes straight through and the entry
** checks once at the end (sp_writer.h). No cancel flag is used here, so the
** loops skip sp_writer_stopped, as user code without cancellation would. */

static int fmt_obj(sp_writer *w, const void *value) {
  const obj *o = value;
  sp_write_map_header(w, 2);
  sp_write_str(w, "Id", 2);
  sp_write_int(w, o->id);
  sp_write_str(w, "Name", 4);
  sp_write_str(w, o->name, o->name_len);
  return 0;
}

static int fmt_ints(sp_writer *w, const void *value) {
  const ints *a = value;
  sp_write_array_header(w, a->n);
  for (uint32_t i = 0; i < a->n; i++) sp_write_int(w, a->v[i]);
  return 0;
}

static int fmt_big(sp_writer *w, const void *value) {
  const big *b = value;
  sp_write_array_header(w, 2);
  sp_write_int(w, b->head);
  sp_write_str(w, b->s, b->len);
  return 0;
}

/* ---- msgpack-c packers: the same values through its inline API ----------- */
/* Both libraries pick the smallest int form (msgpack-c's pack_int64/int32
** write positive values as fixint/uint8/16/32, like sp_put_int), str8 (d9)
** for 32..255 bytes, and float64 (cb) for doubles, so the bytes match. */

static inline void pack_obj(msgpack_packer *pk, const void *value) {
  const obj *o = value;
  msgpack_pack_map(pk, 2);
  msgpack_pack_str_with_body(pk, "Id", 2);
  msgpack_pack_int64(pk, o->id);
  msgpack_pack_str_with_body(pk, "Name", 4);
  msgpack_pack_str_with_body(pk, o->name, o->name_len);
}

static inline void pack_records(msgpack_packer *pk, const void *value) {
  const records *rs = value;
  msgpack_pack_array(pk, rs->n);
  for (uint32_t i = 0; i < rs->n; i++) {
    const rec *r = &rs->items[i];
    msgpack_pack_map(pk, 4);
    msgpack_pack_str_with_body(pk, "id", 2);
    msgpack_pack_int64(pk, r->id);
    msgpack_pack_str_with_body(pk, "name", 4);
    msgpack_pack_str_with_body(pk, r->name, 16);
    msgpack_pack_str_with_body(pk, "score", 5);
    msgpack_pack_double(pk, r->score);
    msgpack_pack_str_with_body(pk, "tags", 4);
    msgpack_pack_array(pk, 3);
    for (int t = 0; t < 3; t++) msgpack_pack_str_with_body(pk, r->tags[t], r->tag_len[t]);
  }
}

static inline void pack_ints(msgpack_packer *pk, const void *value) {
  const ints *a = value;
  msgpack_pack_array(pk, a->n);
  for (uint32_t i = 0; i < a->n; i++) msgpack_pack_int32(pk, a->v[i]);
}

static inline void pack_big(msgpack_packer *pk, const void *value) {
  const big *b = value;
  msgpack_pack_array(pk, 2);
  msgpack_pack_int64(pk, b->head);
  msgpack_pack_str_with_body(pk, b->s, b->len);
}

#if SP_BENCH_PEERS
/* ---- CWPack and mpack: the same values through their APIs ---------------- */
/* Both write non-negative ints in the smallest unsigned form, str8 for
** 32..255 bytes and doubles as float64, so their bytes match too. */

static inline void cw_obj(cw_pack_context *pc, const void *value) {
  const obj *o = value;
  cw_pack_map_size(pc, 2);
  cw_pack_str(pc, "Id", 2);
  cw_pack_signed(pc, o->id);
  cw_pack_str(pc, "Name", 4);
  cw_pack_str(pc, o->name, (uint32_t)o->name_len);
}

static inline void cw_ints(cw_pack_context *pc, const void *value) {
  const ints *a = value;
  cw_pack_array_size(pc, a->n);
  for (uint32_t i = 0; i < a->n; i++) cw_pack_signed(pc, a->v[i]);
}

static inline void cw_big(cw_pack_context *pc, const void *value) {
  const big *b = value;
  cw_pack_array_size(pc, 2);
  cw_pack_signed(pc, b->head);
  cw_pack_str(pc, b->s, (uint32_t)b->len);
}

static inline void mp_obj(mpack_writer_t *w, const void *value) {
  const obj *o = value;
  mpack_start_map(w, 2);
  mpack_write_str(w, "Id", 2);
  mpack_write_i64(w, o->id);
  mpack_write_str(w, "Name", 4);
  mpack_write_str(w, o->name, (uint32_t)o->name_len);
  mpack_finish_map(w);
}

static inline void mp_ints(mpack_writer_t *w, const void *value) {
  const ints *a = value;
  mpack_start_array(w, a->n);
  for (uint32_t i = 0; i < a->n; i++) mpack_write_i32(w, a->v[i]);
  mpack_finish_array(w);
}

static inline void mp_big(mpack_writer_t *w, const void *value) {
  const big *b = value;
  mpack_start_array(w, 2);
  mpack_write_i64(w, b->head);
  mpack_write_str(w, b->s, (uint32_t)b->len);
  mpack_finish_array(w);
}
#endif

/* ---- workloads ------------------------------------------------------------ */

typedef struct workload workload;
typedef uint64_t (*run_fn)(workload *wl, long iters);

enum { ENC_SP_ARRAY, ENC_SP_OUTPUT, ENC_SP_FIXED, ENC_SP_VALUE, ENC_MP_NEW, ENC_MP_REUSE, ENC_CW,
       ENC_MPACK, NENC };

static const char *const enc_names[NENC] = {
  "sp to_array fmt", "sp to_output buf", "sp to_output fixed", "sp to_array value",
  "mpc new sbuffer", "mpc reused sbuffer", "cwpack fixed buf", "mpack fixed buf",
};

/* Encoders that run: the CWPack and mpack rows only with their sources. */
static int enc_present(int enc) { return SP_BENCH_PEERS || enc < ENC_CW; }

/* The fixed buffer CWPack and mpack write into: big enough for e.big. */
#define PEER_BUF_SIZE (256 * 1024)

struct workload {
  const char *name;
  const void *input;                 /* the C data (obj, records, ints, big) */
  sp_format_fn fmt;                  /* scratchpack formatter for it */
  void (*pack)(msgpack_packer *, const void *);  /* msgpack-c packer (for checks) */
  run_fn mp_new, mp_reuse;           /* timed loops calling pack_* directly */
  run_fn cw, mpack;                  /* CWPack and mpack loops (NULL without them) */
  uint8_t *peer_buf;                 /* their reused buffer (PEER_BUF_SIZE) */
  size_t peer_len;                   /* bytes the last peer sample wrote there */
  sp_value tree;                     /* the same data as an sp_value tree */
  sp_buffer out;                     /* reused by "sp to_output buf" */
  sp_buffer fixed;                   /* "sp to_output fixed": over a PEER_BUF_SIZE array */
  msgpack_sbuffer sbuf;              /* reused by "mpc reused sbuffer" */
  uint8_t *expect;                   /* the reference bytes */
  size_t expect_len;
  double ns[NENC][64];               /* samples, ns/op, one per round */
};

/* ---- timed loops ---------------------------------------------------------- */

/* Each returns the sum over iterations of (output length + first byte).
** scratchpack's entries report errors once per message, so they are checked;
** msgpack-c's per-call returns are left unchecked as its users do -- a failed
** write would show as a checksum mismatch. */

/* Options of every scratchpack call: all defaults unless SP_BENCH_SCRATCH. */
static sp_options g_opt;

static uint64_t run_sp_array_with(workload *wl, long iters, sp_format_fn fmt, const void *in) {
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_bytes b;
    BARRIER(in);
    if (sp_to_array(fmt, in, &g_opt, &b, NULL) != SP_OK) die("%s: sp_to_array failed", wl->name);
    sum += b.len + b.data[0];
    sp_bytes_free(&b);
  }
  return sum;
}

static uint64_t run_sp_array(workload *wl, long iters) {
  return run_sp_array_with(wl, iters, wl->fmt, wl->input);
}

static uint64_t run_sp_value(workload *wl, long iters) {
  return run_sp_array_with(wl, iters, sp_format_value, &wl->tree);
}

static uint64_t run_sp_output_to(workload *wl, long iters, sp_buffer *buf, const sp_output out) {
  uint64_t sum = 0;
  sp_format_fn fmt = wl->fmt;
  const void *in = wl->input;
  for (long i = 0; i < iters; i++) {
    BARRIER(in);
    sp_buffer_clear(buf);
    if (sp_to_output(&out, fmt, in, &g_opt, NULL) != SP_OK)
      die("%s: sp_to_output failed", wl->name);
    sum += buf->len + buf->data[0];
  }
  return sum;
}

static uint64_t run_sp_output(workload *wl, long iters) {
  return run_sp_output_to(wl, iters, &wl->out, sp_buffer_output(&wl->out));
}

/* The like-for-like of the peers' rows: a fixed caller array, reused. */
static uint64_t run_sp_fixed(workload *wl, long iters) {
  return run_sp_output_to(wl, iters, &wl->fixed, sp_fixed_output(&wl->fixed));
}

/* msgpack-c's pack functions and msgpack_sbuffer_write are static inline in
** its headers and compiled here with the same flags as scratchpack. Each
** primitive still goes through the packer's callback: gcc 12 -O3 and clang 14
** keep msgpack_sbuffer_write out of line (one call plus a libc memcpy per
** header and per body). Forcing pack_* always_inline makes the call direct
** but measured the same (b.records 78-80 us either way), so this is plain
** msgpack-c as its users write it. */
#define DEFINE_MP_RUNNERS(W)                                                   \
  static uint64_t run_mp_new_##W(workload *wl, long iters) {                   \
    uint64_t sum = 0;                                                          \
    const void *in = wl->input;                                                \
    for (long i = 0; i < iters; i++) {                                         \
      msgpack_sbuffer sb;                                                      \
      msgpack_packer pk;                                                       \
      BARRIER(in);                                                             \
      msgpack_sbuffer_init(&sb);                                               \
      msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);                    \
      pack_##W(&pk, in);                                                       \
      sum += sb.size + (uint8_t)sb.data[0];                                    \
      msgpack_sbuffer_destroy(&sb);                                            \
    }                                                                          \
    return sum;                                                                \
  }                                                                            \
  static uint64_t run_mp_reuse_##W(workload *wl, long iters) {                 \
    uint64_t sum = 0;                                                          \
    const void *in = wl->input;                                                \
    msgpack_sbuffer *sb = &wl->sbuf;                                           \
    msgpack_packer pk;                                                         \
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);                       \
    for (long i = 0; i < iters; i++) {                                         \
      BARRIER(in);                                                             \
      msgpack_sbuffer_clear(sb);                                               \
      pack_##W(&pk, in);                                                       \
      sum += sb->size + (uint8_t)sb->data[0];                                  \
    }                                                                          \
    return sum;                                                                \
  }

DEFINE_MP_RUNNERS(obj)
DEFINE_MP_RUNNERS(records)
DEFINE_MP_RUNNERS(ints)
DEFINE_MP_RUNNERS(big)

#if SP_BENCH_PEERS
/* CWPack and mpack, each over one reused fixed buffer: a context (writer)
** initialised per message, its sticky error checked once at the end. */
#define DEFINE_PEER_RUNNERS(W)                                                 \
  static uint64_t run_cw_##W(workload *wl, long iters) {                       \
    uint64_t sum = 0;                                                          \
    const void *in = wl->input;                                                \
    for (long i = 0; i < iters; i++) {                                         \
      cw_pack_context pc;                                                      \
      BARRIER(in);                                                             \
      cw_pack_context_init(&pc, wl->peer_buf, PEER_BUF_SIZE, NULL);            \
      cw_##W(&pc, in);                                                         \
      if (pc.return_code != CWP_RC_OK) die("%s: CWPack failed", wl->name);     \
      wl->peer_len = (size_t)(pc.current - pc.start);                          \
      sum += wl->peer_len + pc.start[0];                                       \
    }                                                                          \
    return sum;                                                                \
  }                                                                            \
  static uint64_t run_mpack_##W(workload *wl, long iters) {                    \
    uint64_t sum = 0;                                                          \
    const void *in = wl->input;                                                \
    for (long i = 0; i < iters; i++) {                                         \
      mpack_writer_t w;                                                        \
      BARRIER(in);                                                             \
      mpack_writer_init(&w, (char *)wl->peer_buf, PEER_BUF_SIZE);              \
      mp_##W(&w, in);                                                          \
      wl->peer_len = mpack_writer_buffer_used(&w);                             \
      if (mpack_writer_destroy(&w) != mpack_ok) die("%s: mpack failed", wl->name); \
      sum += wl->peer_len + wl->peer_buf[0];                                   \
    }                                                                          \
    return sum;                                                                \
  }

DEFINE_PEER_RUNNERS(obj)
DEFINE_PEER_RUNNERS(records)
DEFINE_PEER_RUNNERS(ints)
DEFINE_PEER_RUNNERS(big)
#define PEER_RUNNERS(W) run_cw_##W, run_mpack_##W
#else
#define PEER_RUNNERS(W) NULL, NULL
#endif

static run_fn runner(const workload *wl, int enc) {
  switch (enc) {
    case ENC_SP_ARRAY: return run_sp_array;
    case ENC_SP_OUTPUT: return run_sp_output;
    case ENC_SP_FIXED: return run_sp_fixed;
    case ENC_SP_VALUE: return run_sp_value;
    case ENC_MP_NEW: return wl->mp_new;
    case ENC_MP_REUSE: return wl->mp_reuse;
    case ENC_CW: return wl->cw;
    default: return wl->mpack;
  }
}

/* ---- byte-identity checks ----------------------------------------------- */

static void check_same(const workload *wl, const char *who, const uint8_t *got, size_t len) {
  if (len != wl->expect_len)
    die("%s: %s wrote %zu bytes, the reference has %zu", wl->name, who, len, wl->expect_len);
  for (size_t i = 0; i < len; i++)
    if (got[i] != wl->expect[i])
      die("%s: %s differs from the reference at byte %zu (0x%02x, want 0x%02x)", wl->name, who,
          i, got[i], wl->expect[i]);
}

/* Runs every encoder once outside the timed loops and compares its bytes
** with msgpack-c's (a fresh sbuffer), which is the reference. */
static void check_workload(workload *wl) {
  msgpack_sbuffer sb;
  msgpack_packer pk;
  sp_bytes b;
  sp_error err;
  char msg[256];

  msgpack_sbuffer_init(&sb);
  msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
  wl->pack(&pk, wl->input);
  if (sb.size == 0) die("%s: msgpack-c wrote nothing", wl->name);
  wl->expect_len = sb.size;
  wl->expect = xmalloc(sb.size);
  memcpy(wl->expect, sb.data, sb.size);
  msgpack_sbuffer_destroy(&sb);

  msgpack_sbuffer_clear(&wl->sbuf);
  msgpack_packer_init(&pk, &wl->sbuf, msgpack_sbuffer_write);
  wl->pack(&pk, wl->input);
  check_same(wl, enc_names[ENC_MP_REUSE], (const uint8_t *)wl->sbuf.data, wl->sbuf.size);

  if (sp_to_array(wl->fmt, wl->input, &g_opt, &b, &err) != SP_OK)
    die("%s: sp_to_array: %s", wl->name, sp_error_format(&err, msg, sizeof msg));
  check_same(wl, enc_names[ENC_SP_ARRAY], b.data, b.len);
  sp_bytes_free(&b);

  {
    sp_output out = sp_buffer_output(&wl->out);
    sp_buffer_clear(&wl->out);
    if (sp_to_output(&out, wl->fmt, wl->input, &g_opt, &err) != SP_OK)
      die("%s: sp_to_output: %s", wl->name, sp_error_format(&err, msg, sizeof msg));
    check_same(wl, enc_names[ENC_SP_OUTPUT], wl->out.data, wl->out.len);
  }
  run_sp_fixed(wl, 1);
  check_same(wl, enc_names[ENC_SP_FIXED], wl->fixed.data, wl->fixed.len);

  if (sp_to_array(sp_format_value, &wl->tree, &g_opt, &b, &err) != SP_OK)
    die("%s: sp_to_array(value): %s", wl->name, sp_error_format(&err, msg, sizeof msg));
  check_same(wl, enc_names[ENC_SP_VALUE], b.data, b.len);
  sp_bytes_free(&b);

  for (int e = ENC_CW; e < NENC && enc_present(e); e++) {
    runner(wl, e)(wl, 1);
    check_same(wl, enc_names[e], wl->peer_buf, wl->peer_len);
  }
}

/* ---- building the workloads ---------------------------------------------- */

static const char *const tag_pool[] = { "red", "green", "blue", "black", "white" };

static obj g_obj;
static records g_records;
static ints g_ints;
static big g_big;

static void setup_peers(workload *wl, run_fn cw, run_fn mpack) {
  wl->cw = cw;
  wl->mpack = mpack;
  wl->peer_buf = kept_malloc(PEER_BUF_SIZE);
}

static void build_workloads(workload *wls) {
  /* a.obj */
  {
    static const char hello[] = "hello";
    sp_value *kv = kept_malloc(4 * sizeof *kv);
    g_obj.id = 1;
    g_obj.name = hello;
    g_obj.name_len = 5;
    kv[0] = sp_strn("Id", 2);
    kv[1] = sp_int(g_obj.id);
    kv[2] = sp_strn("Name", 4);
    kv[3] = sp_strn(g_obj.name, g_obj.name_len);
    wls[0].name = "a.obj";
    wls[0].input = &g_obj;
    wls[0].fmt = fmt_obj;
    wls[0].pack = pack_obj;
    wls[0].mp_new = run_mp_new_obj;
    wls[0].mp_reuse = run_mp_reuse_obj;
    setup_peers(&wls[0], PEER_RUNNERS(obj));
    wls[0].tree = sp_map(kv, 2);
  }
  /* b.records */
  {
    const uint32_t n = 1000;
    rec *rs = kept_malloc(n * sizeof *rs);
    sp_value *maps = kept_malloc(n * sizeof *maps);
    sp_value *kv = kept_malloc((size_t)n * 8 * sizeof *kv);
    sp_value *tags = kept_malloc((size_t)n * 3 * sizeof *tags);
    for (uint32_t i = 0; i < n; i++) {
      rec *r = &rs[i];
      sp_value *p = &kv[8 * (size_t)i], *t = &tags[3 * (size_t)i];
      r->id = i;
      snprintf(r->name, sizeof r->name, "user-%011u", (unsigned)i * 7919u);
      r->score = (double)i * 1.25 + 0.1;
      for (int k = 0; k < 3; k++) {
        r->tags[k] = tag_pool[(i + (uint32_t)k) % 5];
        r->tag_len[k] = strlen(r->tags[k]);
        t[k] = sp_strn(r->tags[k], r->tag_len[k]);
      }
      if (strlen(r->name) != 16) die("b.records: name is not 16 chars");
      p[0] = sp_strn("id", 2);     p[1] = sp_int(r->id);
      p[2] = sp_strn("name", 4);   p[3] = sp_strn(r->name, 16);
      p[4] = sp_strn("score", 5);  p[5] = sp_double(r->score);
      p[6] = sp_strn("tags", 4);   p[7] = sp_array(t, 3);
      maps[i] = sp_map(p, 4);
    }
    g_records.items = rs;
    g_records.n = n;
    wls[1].name = "b.records";
    wls[1].input = &g_records;
    wls[1].fmt = fmt_records;
    wls[1].pack = pack_records;
    wls[1].mp_new = run_mp_new_records;
    wls[1].mp_reuse = run_mp_reuse_records;
    setup_peers(&wls[1], PEER_RUNNERS(records));
    wls[1].tree = sp_array(maps, n);
  }
  /* c.ints */
  {
    const uint32_t n = 30000;
    int32_t *v = kept_malloc(n * sizeof *v);
    sp_value *items = kept_malloc(n * sizeof *items);
    for (uint32_t i = 0; i < n; i++) {
      v[i] = (int32_t)i;
      items[i] = sp_int(v[i]);
    }
    g_ints.v = v;
    g_ints.n = n;
    wls[2].name = "c.ints";
    wls[2].input = &g_ints;
    wls[2].fmt = fmt_ints;
    wls[2].pack = pack_ints;
    wls[2].mp_new = run_mp_new_ints;
    wls[2].mp_reuse = run_mp_reuse_ints;
    setup_peers(&wls[2], PEER_RUNNERS(ints));
    wls[2].tree = sp_array(items, n);
  }
  /* e.big */
  {
    const size_t len = 100000;
    char *s = kept_malloc(len);
    sp_value *items = kept_malloc(2 * sizeof *items);
    memset(s, 'A', len);
    g_big.head = 1;
    g_big.s = s;
    g_big.len = len;
    items[0] = sp_int(g_big.head);
    items[1] = sp_strn(s, len);
    wls[3].name = "e.big";
    wls[3].input = &g_big;
    wls[3].fmt = fmt_big;
    wls[3].pack = pack_big;
    wls[3].mp_new = run_mp_new_big;
    wls[3].mp_reuse = run_mp_reuse_big;
    setup_peers(&wls[3], PEER_RUNNERS(big));
    wls[3].tree = sp_array(items, 2);
  }
  for (int i = 0; i < 4; i++) {
    sp_buffer_init(&wls[i].out);
    sp_buffer_init(&wls[i].fixed);
    wls[i].fixed.data = kept_malloc(PEER_BUF_SIZE);
    wls[i].fixed.cap = PEER_BUF_SIZE;
    msgpack_sbuffer_init(&wls[i].sbuf);
  }
}

static void free_workloads(workload *wls) {
  for (int i = 0; i < 4; i++) {
    sp_buffer_free(&wls[i].out);
    msgpack_sbuffer_destroy(&wls[i].sbuf);
    free(wls[i].expect);
  }
  while (g_nkept > 0) free(g_kept[--g_nkept]);
}

/* ---- timing -------------------------------------------------------------- */

static uint64_t g_checksum;

/* One sample: 'iters' iterations; returns ns/op. Verifies the checksum and,
** for the reused buffers, the bytes left behind by the last iteration. */
static double sample(workload *wl, int enc, long iters) {
  run_fn run = runner(wl, enc);
  uint64_t want = (uint64_t)iters * (wl->expect_len + wl->expect[0]), got;
  double t0 = now_ns(), t1;
  got = run(wl, iters);
  t1 = now_ns();
  if (got != want)
    die("%s / %s: checksum %llu, want %llu", wl->name, enc_names[enc],
        (unsigned long long)got, (unsigned long long)want);
  if (enc == ENC_SP_OUTPUT) check_same(wl, enc_names[enc], wl->out.data, wl->out.len);
  if (enc == ENC_SP_FIXED) check_same(wl, enc_names[enc], wl->fixed.data, wl->fixed.len);
  if (enc == ENC_MP_REUSE)
    check_same(wl, enc_names[enc], (const uint8_t *)wl->sbuf.data, wl->sbuf.size);
  if (enc >= ENC_CW) check_same(wl, enc_names[enc], wl->peer_buf, wl->peer_len);
  g_checksum += got;
  return (t1 - t0) / (double)iters;
}

/* Iterations for a sample of about 'target_ns' (also warms the encoder up). */
static long calibrate(workload *wl, int enc, double target_ns) {
  long iters = 1;
  for (;;) {
    double t = sample(wl, enc, iters) * (double)iters;
    if (t >= target_ns / 10) {
      double k = target_ns / t * (double)iters;
      return k < 1 ? 1 : (long)k;
    }
    iters *= t < target_ns / 1000 ? 10 : 2;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *v, int n) {
  double s[64];
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double minimum(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++) if (v[i] < m) m = v[i];
  return m;
}

static void fmt_ns(char *buf, size_t size, double ns) {
  if (ns < 1000) snprintf(buf, size, "%.1f", ns);
  else if (ns < 1e6) snprintf(buf, size, "%.2fk", ns / 1e3);
  else snprintf(buf, size, "%.2fM", ns / 1e6);
}

int main(void) {
  workload wls[4];
  int rounds = (int)env_long("SP_BENCH_ROUNDS", 9, 1, 64);
  double target_ns = (double)env_long("SP_BENCH_SAMPLE_MS", 20, 1, 10000) * 1e6;
  const char *only = getenv("SP_BENCH_ONLY");

  g_opt.scratch_size = (size_t)env_long("SP_BENCH_SCRATCH", 0, 0, 1L << 30);
  memset(wls, 0, sizeof wls);
  build_workloads(wls);
  for (int w = 0; w < 4; w++) check_workload(&wls[w]);
  {
    static const uint8_t a_obj[16] = { 0x82, 0xa2, 'I', 'd', 0x01, 0xa4, 'N', 'a',
                                       'm', 'e', 0xa5, 'h', 'e', 'l', 'l', 'o' };
    check_same(&wls[0], "the known a.obj bytes", a_obj, sizeof a_obj);
    if (wls[2].expect_len != 89619 || wls[3].expect_len != 100007)
      die("c.ints/e.big: %zu/%zu bytes, want 89619/100007", wls[2].expect_len, wls[3].expect_len);
  }

  int nenc = SP_BENCH_PEERS ? NENC : ENC_CW;
  printf("scratchpack %s vs msgpack-c %s%s -- encode, %d interleaved rounds, ~%.0f ms per sample\n",
         SP_VERSION, msgpack_version(), SP_BENCH_PEERS ? ", CWPack 1.3.1, mpack 1.1.1" : "",
         rounds, target_ns / 1e6);
  if (!SP_BENCH_PEERS)
    printf("CWPack and mpack rows skipped: no sources at %s (set SP_PEERS)\n", SP_PEERS_DIR);
  if (g_opt.scratch_size)
    printf("to_array scratch: %zu bytes (SP_BENCH_SCRATCH)\n", g_opt.scratch_size);
  printf("all %d encoders produce byte-identical output on every workload (checked at start"
         " and after every sample)\n\n", nenc);
  printf("ns/op: median over rounds (best in brackets). MB/s: output bytes / median time.\n");
  printf("x reuse = (mpc reused sbuffer median) / (this row's median); x new, x cw, x mpack: the"
         " same against\n");
  printf("          mpc new sbuffer, cwpack fixed buf, mpack fixed buf. Above 1 means this row is"
         " faster.\n\n");
  printf("%-10s %-19s %8s %10s %10s %8s %8s %8s %8s %8s\n", "workload", "encoder", "bytes",
         "ns/op", "(best)", "MB/s", "x reuse", "x new", "x cw", "x mpack");

  for (int w = 0; w < 4; w++) {
    workload *wl = &wls[w];
    long iters[NENC];
    double med[NENC];
    if (only && *only && strstr(wl->name, only) == NULL) continue;
    for (int e = 0; e < nenc; e++) iters[e] = calibrate(wl, e, target_ns);
    for (int r = 0; r < rounds; r++)
      for (int k = 0; k < nenc; k++) {
        int e = (k + r) % nenc;
        wl->ns[e][r] = sample(wl, e, iters[e]);
      }
    for (int e = 0; e < nenc; e++) med[e] = median(wl->ns[e], rounds);
    for (int e = 0; e < nenc; e++) {
      char m[32], b[32], xcw[16] = "-", xmp[16] = "-";
      fmt_ns(m, sizeof m, med[e]);
      fmt_ns(b, sizeof b, minimum(wl->ns[e], rounds));
      if (SP_BENCH_PEERS) {
        snprintf(xcw, sizeof xcw, "%.2f", med[ENC_CW] / med[e]);
        snprintf(xmp, sizeof xmp, "%.2f", med[ENC_MPACK] / med[e]);
      }
      printf("%-10s %-19s %8zu %10s %10s %8.0f %8.2f %8.2f %8s %8s\n", e == 0 ? wl->name : "",
             enc_names[e], wl->expect_len, m, b, (double)wl->expect_len * 1e3 / med[e],
             med[ENC_MP_REUSE] / med[e], med[ENC_MP_NEW] / med[e], xcw, xmp);
    }
    fflush(stdout);
  }
  printf("\nchecksum %llu\n", (unsigned long long)g_checksum);

  free_workloads(wls);
  sp_shutdown();
  return 0;
}
