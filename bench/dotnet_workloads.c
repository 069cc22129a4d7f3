/*
** dotnet_workloads.c -- scratchpack C on the messages MessagePack-CSharp
** measured, for bench/dotnet-side.mjs (npm run peer:dotnet): the five
** workloads of DESIGN.md, typed (C structs through sp_schema, or the bulk
** and str calls where the message is a bare array) and untyped (sp_value
** trees), encode (to a new array: sp_to_array, as C#'s Serialize to
** byte[]) and decode (into fresh memory, freed after: as C#'s Deserialize
** builds new objects). Built natively (bench/CMakeLists.txt) and for
** wasm32-wasi (bench/peer-dotnet.sh, against build-wasi's core): the same
** code measures C native and C in WASM.
** Owns: those cases and one process's samples of them. Must not touch: the
** ratios (dotnet-side.mjs interleaves the processes with C# and JS and
** divides) or the C# shapes (tests/dotnet/Peer/Speed.cs).
**
** Usage: dotnet_workloads DIR [samples [sample_ms [case]]] (3, 20; case:
** "b.records typed decode" runs that one only, for a profiler). Reads
** DIR/NAME.bin (Peer speed-bytes), checks that every encode case writes
** exactly C#'s bytes and every decode case reads them (exit 1 if not),
** warms up, then prints one line per case: "<workload> <mode> <op> <ns>",
** the median of its samples, in process CPU time.
*/
#include "bench_util.h"   /* first: it sets _POSIX_C_SOURCE for clock_gettime */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"
#include "sp_schema.h"
#include "sp_value.h"

/* ---- the typed shapes of Speed.cs ([Key("Id")]... map form) ------------ */

typedef struct aobj { int32_t Id; sp_str_field Name; } aobj;
static const sp_field aobj_fields[] = {
  SP_MEMBER(aobj, Id, SP_F_I32),
  SP_MEMBER(aobj, Name, SP_F_STR),
};
static sp_schema aobj_schema = SP_SCHEMA(aobj, aobj_fields, 0);

typedef struct rec { int32_t id; sp_str_field name; double score; sp_array_field tags; } rec;
static const sp_field rec_fields[] = {
  SP_MEMBER(rec, id, SP_F_I32),
  SP_MEMBER(rec, name, SP_F_STR),
  SP_MEMBER(rec, score, SP_F_DOUBLE),
  SP_MEMBER(rec, tags, SP_F_STR, .flags = SP_FIELD_ARRAY),
};
static sp_schema rec_schema = SP_SCHEMA(rec, rec_fields, 0);

typedef struct bigobj { int32_t Id; sp_str_field Text; } bigobj;
static const sp_field bigobj_fields[] = {
  SP_MEMBER(bigobj, Id, SP_F_I32),
  SP_MEMBER(bigobj, Text, SP_F_STR),
};
static sp_schema bigobj_schema = SP_SCHEMA(bigobj, bigobj_fields, 0);

/* ---- one workload: C#'s bytes, the typed value, the value tree ---------- */

typedef struct workload {
  const char *name;
  uint8_t *bytes;
  size_t len;
  sp_schema *schema;      /* a struct message, or NULL: a bare array */
  void *obj;              /* the typed value, decoded once from bytes */
  uint32_t n;             /* bare arrays: the element count */
  int32_t *ints;          /* c.ints */
  sp_str_field *strs;     /* d.strings */
  rec *recs;              /* b.records */
  sp_doc doc;             /* the value tree, decoded once */
  sp_value tree;
} workload;

static workload W[5];
static aobj the_aobj;
static bigobj the_big;

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
  if (b == NULL || fread(b, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(b); return NULL; }
  fclose(f);
  *len = (size_t)n;
  return b;
}

static void die(const char *what, const char *name) {
  fprintf(stderr, "dotnet_workloads: %s: %s\n", name, what);
  exit(1);
}

/* ---- typed formatters for the bare arrays ------------------------------- */

static int fmt_records(sp_writer *w, const void *value) {
  const workload *x = value;
  sp_write_array_header(w, x->n);
  for (uint32_t i = 0; i < x->n; i++) {
    sp_schema_obj o = { &rec_schema, &x->recs[i] };
    sp_schema_format(w, &o);
  }
  return (int)w->err.code;
}

static int fmt_ints(sp_writer *w, const void *value) {
  const workload *x = value;
  sp_write_i32_array(w, x->ints, x->n);
  return (int)w->err.code;
}

static int fmt_strings(sp_writer *w, const void *value) {
  const workload *x = value;
  sp_write_array_header(w, x->n);
  for (uint32_t i = 0; i < x->n; i++) sp_write_str(w, x->strs[i].ptr, x->strs[i].len);
  return (int)w->err.code;
}

/* ---- typed decoders for the bare arrays (fresh memory, as C#) ----------- */

static int read_records(const workload *x, rec **out, uint32_t *n) {
  sp_reader r;
  sp_reader_init(&r, x->bytes, x->len);
  if (!sp_read_array_header(&r, n)) return 0;
  rec *v = calloc(*n ? *n : 1, sizeof *v);
  if (v == NULL) return 0;
  for (uint32_t i = 0; i < *n; i++) sp_schema_read(&r, &rec_schema, &v[i], 0);
  *out = v;
  return r.err.code == SP_OK;
}

static void free_records(rec *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) sp_schema_release(&rec_schema, &v[i]);
  free(v);
}

static int32_t *read_ints(const workload *x, uint32_t *n) {
  sp_reader r, peek;
  sp_reader_init(&r, x->bytes, x->len);
  peek = r;
  if (!sp_read_array_header(&peek, n)) return NULL;
  int32_t *v = malloc((*n ? *n : 1) * sizeof *v);
  if (v != NULL && !sp_read_i32_array(&r, v, *n, n)) { free(v); v = NULL; }
  return v;
}

/* Each string copied out and NUL-terminated, as a schema's str member is,
** into one block for them all (their bodies and terminators fit in the
** message's length: every str has a header byte or more): C's way with many
** small strings, where a malloc each would cost more than the copies.
** strs[0].cap owns the block. */
static sp_str_field *read_strings(const workload *x, uint32_t *n) {
  sp_reader r;
  sp_reader_init(&r, x->bytes, x->len);
  if (!sp_read_array_header(&r, n)) return NULL;
  sp_str_field *v = calloc(*n ? *n : 1, sizeof *v);
  char *block = malloc(x->len);
  if (v == NULL || block == NULL) { free(v); free(block); return NULL; }
  char *at = block;
  for (uint32_t i = 0; i < *n; i++) {
    const char *p;
    uint32_t len;
    if (!sp_read_str(&r, &p, &len)) { free(v); free(block); return NULL; }
    memcpy(at, p, len);
    at[len] = 0;
    v[i] = (sp_str_field){ .ptr = at, .len = len, .cap = 0 };
    at += (size_t)len + 1;
  }
  if (*n == 0) free(block);
  else v[0].cap = x->len;
  return v;
}

static void free_strings(sp_str_field *v, uint32_t n) {
  if (n > 0) free(v[0].ptr);
  free(v);
}

/* ---- the cases ---------------------------------------------------------- */

/* The process's CPU time: what a loaded machine's other jobs take is not
** charged (every peer of dotnet-side.mjs reads this kind of clock; under
** node:wasi it is node's process CPU time). */
static double cpu_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double cpu_sample(bench_case *c) {
  double t0 = cpu_now_ns();
  bench_checksum += c->run(c->ctx, c->iters);
  return (cpu_now_ns() - t0) / (double)c->iters;
}

static uint64_t typed_encode(void *ctx, long iters) {
  workload *x = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_bytes b = { 0 };
    sp_code c;
    if (x->schema != NULL) c = sp_schema_to_array(x->schema, x->obj, NULL, &b, NULL);
    else if (x->recs != NULL) c = sp_to_array(fmt_records, x, NULL, &b, NULL);
    else if (x->ints != NULL) c = sp_to_array(fmt_ints, x, NULL, &b, NULL);
    else c = sp_to_array(fmt_strings, x, NULL, &b, NULL);
    if (c != SP_OK) die("typed encode failed", x->name);
    sum += b.len + b.data[b.len - 1];
    sp_bytes_free(&b);
  }
  return sum;
}

static uint64_t typed_decode(void *ctx, long iters) {
  workload *x = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    uint32_t n = 0;
    if (x->schema == &aobj_schema || x->schema == &bigobj_schema) {
      aobj o = { 0 };     /* aobj and bigobj have one layout: {int32, str} */
      if (sp_schema_decode(x->schema, x->bytes, x->len, &o, 0, NULL) != SP_OK) die("typed decode failed", x->name);
      sum += (uint64_t)o.Id + o.Name.len;
      sp_schema_release(x->schema, &o);
    } else if (x->recs != NULL) {
      rec *v = NULL;
      if (!read_records(x, &v, &n)) die("typed decode failed", x->name);
      sum += n + v[n - 1].name.len;
      free_records(v, n);
    } else if (x->ints != NULL) {
      int32_t *v = read_ints(x, &n);
      if (v == NULL) die("typed decode failed", x->name);
      sum += n + (uint64_t)v[n - 1];
      free(v);
    } else {
      sp_str_field *v = read_strings(x, &n);
      if (v == NULL || v[n - 1].ptr == NULL) die("typed decode failed", x->name);
      sum += n + v[n - 1].len;
      free_strings(v, n);
    }
  }
  return sum;
}

static uint64_t tree_encode(void *ctx, long iters) {
  workload *x = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_bytes b = { 0 };
    if (sp_to_array(sp_format_value, &x->tree, NULL, &b, NULL) != SP_OK) die("untyped encode failed", x->name);
    sum += b.len + b.data[b.len - 1];
    sp_bytes_free(&b);
  }
  return sum;
}

static uint64_t tree_decode(void *ctx, long iters) {
  workload *x = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_doc doc = { 0 };
    sp_value v;
    if (sp_value_decode(x->bytes, x->len, NULL, &doc, &v, NULL) != SP_OK) die("untyped decode failed", x->name);
    sum += (uint64_t)v.kind;
    sp_doc_free(&doc);
  }
  return sum;
}

/* ---- loading and checking ----------------------------------------------- */

static void check_bytes(const workload *x, const sp_bytes *b, const char *what) {
  if (b->len != x->len || memcmp(b->data, x->bytes, x->len) != 0) {
    fprintf(stderr, "dotnet_workloads: %s: %s writes %zu B, C# wrote %zu B (not the same bytes)\n",
            x->name, what, b->len, x->len);
    exit(1);
  }
}

static void load(workload *x, const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  x->name = name;
  x->bytes = slurp(path, &x->len);
  if (x->bytes == NULL) die("cannot read the message (run `Peer speed-bytes DIR` first)", path);
  if (strcmp(name, "a.obj") == 0) { x->schema = &aobj_schema; x->obj = &the_aobj; }
  if (strcmp(name, "e.big") == 0) { x->schema = &bigobj_schema; x->obj = &the_big; }
  uint32_t n = 0;
  if (x->schema != NULL) {
    if (sp_schema_decode(x->schema, x->bytes, x->len, x->obj, 0, NULL) != SP_OK) die("C#'s bytes do not decode", name);
  } else if (strcmp(name, "b.records") == 0) {
    if (!read_records(x, &x->recs, &n)) die("C#'s bytes do not decode", name);
  } else if (strcmp(name, "c.ints") == 0) {
    if ((x->ints = read_ints(x, &n)) == NULL) die("C#'s bytes do not decode", name);
  } else if ((x->strs = read_strings(x, &n)) == NULL) {
    die("C#'s bytes do not decode", name);
  }
  x->n = n;
  if (sp_value_decode(x->bytes, x->len, NULL, &x->doc, &x->tree, NULL) != SP_OK) die("C#'s bytes do not decode as a tree", name);
  sp_bytes b = { 0 };
  sp_code c = x->schema != NULL ? sp_schema_to_array(x->schema, x->obj, NULL, &b, NULL)
              : x->recs != NULL ? sp_to_array(fmt_records, x, NULL, &b, NULL)
              : x->ints != NULL ? sp_to_array(fmt_ints, x, NULL, &b, NULL)
                                : sp_to_array(fmt_strings, x, NULL, &b, NULL);
  if (c != SP_OK) die("typed encode failed", name);
  check_bytes(x, &b, "the typed encode");
  sp_bytes_free(&b);
  if (sp_to_array(sp_format_value, &x->tree, NULL, &b, NULL) != SP_OK) die("untyped encode failed", name);
  check_bytes(x, &b, "the value tree's encode");
  sp_bytes_free(&b);
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: dotnet_workloads DIR [samples [sample_ms]]\n"); return 2; }
  int samples = argc > 2 ? atoi(argv[2]) : 3;
  double sample_ms = argc > 3 ? atof(argv[3]) : 20;
  if (samples < 1 || samples > 64) samples = 3;
  if (sample_ms <= 0) sample_ms = 20;
  const char *only = argc > 4 ? argv[4] : NULL;   /* one case, e.g. for perf */
  static const char *names[5] = { "a.obj", "b.records", "c.ints", "d.strings", "e.big" };
  for (int i = 0; i < 5; i++) load(&W[i], argv[1], names[i]);

  bench_case cases[20];
  const char *modes[20], *ops[20];
  int nc = 0;
  for (int i = 0; i < 5; i++) {
    uint64_t (*fns[4])(void *, long) = { typed_encode, typed_decode, tree_encode, tree_decode };
    for (int k = 0; k < 4; k++) {
      cases[nc] = (bench_case){ .name = names[i], .run = fns[k], .ctx = &W[i], .iters = 1 };
      modes[nc] = k < 2 ? "typed" : "untyped";
      ops[nc] = k % 2 ? "decode" : "encode";
      char label[64];
      snprintf(label, sizeof label, "%s %s %s", names[i], modes[nc], ops[nc]);
      if (only == NULL || strcmp(label, only) == 0) nc++;
    }
  }
  /* Calibrate to about sample_ms per sample; the calibration is the warm-up. */
  for (int c = 0; c < nc; c++) {
    for (;;) {
      double ns = cpu_sample(&cases[c]);
      if (ns * (double)cases[c].iters >= sample_ms * 1e6 / 4 || cases[c].iters > (1L << 24)) {
        long it = (long)(sample_ms * 1e6 / (ns > 0 ? ns : 1));
        cases[c].iters = it > 0 ? it : 1;
        break;
      }
      cases[c].iters *= 2;
    }
    cpu_sample(&cases[c]);
  }
  /* Samples interleaved across the cases, then each case's median. */
  for (int s = 0; s < samples; s++)
    for (int c = 0; c < nc; c++) cases[c].samples[s] = cpu_sample(&cases[c]);
  for (int c = 0; c < nc; c++)
    printf("%s %s %s %.1f\n", cases[c].name, modes[c], ops[c], bench_median(cases[c].samples, samples));
  printf("checksum %llu\n", (unsigned long long)bench_checksum);
  for (int i = 0; i < 5; i++) sp_doc_free(&W[i].doc);
  sp_schema_release(&aobj_schema, &the_aobj);
  sp_schema_release(&bigobj_schema, &the_big);
  if (W[1].recs) free_records(W[1].recs, W[1].n);
  free(W[2].ints);
  if (W[3].strs) free_strings(W[3].strs, W[3].n);
  for (int i = 0; i < 5; i++) free(W[i].bytes);
  sp_shutdown();
  return 0;
}
