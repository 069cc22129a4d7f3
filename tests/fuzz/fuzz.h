/*
** fuzz.h -- what every libFuzzer target in tests/fuzz shares.
**
** A target is one file, tests/fuzz/fuzz_<name>.c, defining
** LLVMFuzzerTestOneInput; run.sh builds and runs every such file. Optional:
** seed inputs in tests/fuzz/seeds/<name>/ (small: they are committed) and
** the seeds make_seeds.c writes for it at build time, and a line
** "** fuzz-args: <libFuzzer flags>" in the file's header comment.
** Every target links the C core (built with ASan, UBSan and coverage) and
** liblz4, for differential checks.
**
** The targets that compare a contiguous input with the same bytes in
** segments share one input layout (fuzz_in_parse): byte 0 holds the number
** of cut bytes (low nibble) and of control bytes (high nibble); the cut
** bytes follow (the lengths of the first segments), then the control bytes
** (which read, which kind, which schema: each target says), then the
** message. A mutated header only moves cuts or changes choices, so the
** fuzzer explores both independently.
*/
#ifndef SP_FUZZ_H
#define SP_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_sequence.h"

/* A property that must hold: abort (and so report the input) when not. */
#define FUZZ_ASSERT(c)                                                    \
  do {                                                                    \
    if (!(c)) {                                                           \
      fprintf(stderr, "fuzz: %s:%d: %s does not hold\n", __FILE__, __LINE__, #c); \
      abort();                                                            \
    }                                                                     \
  } while (0)

/* ---- the shared input layout ------------------------------------------- */

typedef struct fuzz_in {
  const uint8_t *cuts, *ctl, *msg;
  size_t ncuts, nctl, len;
} fuzz_in;

/* Splits data into header and message; 0 when it is too short to hold
** its own header (the target then ignores it). */
static inline int fuzz_in_parse(fuzz_in *in, const uint8_t *data, size_t size) {
  size_t head;
  if (size == 0) return 0;
  in->ncuts = data[0] & 0x0fu;
  in->nctl = data[0] >> 4;
  head = 1 + in->ncuts + in->nctl;
  if (size < head) return 0;
  in->cuts = data + 1;
  in->ctl = in->cuts + in->ncuts;
  in->msg = data + head;
  in->len = size - head;
  return 1;
}

/* The i-th control byte, for any i: the bytes repeat, shifted by one on
** each round so that a short list still varies; i itself without any. */
static inline uint8_t fuzz_ctl(const fuzz_in *in, size_t i) {
  if (in->nctl == 0) return (uint8_t)(i * 37u);
  return (uint8_t)(in->ctl[i % in->nctl] + i / in->nctl);
}

/* ---- the same bytes in segments ------------------------------------------ */

/* A sequence over copies of the message: each segment its own exact-size
** heap block, so ASan reports a read of one byte past any of them; an
** empty segment has no block at all (data NULL). */
typedef struct fuzz_seq {
  sp_segment *segs;
  sp_sequence seq;
} fuzz_seq;

/* Segments of the given sizes (the last takes whatever the others leave). */
static inline void fuzz_seq_build(fuzz_seq *f, const uint8_t *msg, size_t len,
                                  const size_t *sizes, size_t n) {
  size_t at = 0;
  f->segs = calloc(n, sizeof *f->segs);
  FUZZ_ASSERT(f->segs != NULL);
  for (size_t i = 0; i < n; i++) {
    size_t k = i + 1 == n ? len - at : sizes[i] < len - at ? sizes[i] : len - at;
    if (k > 0) {
      f->segs[i].data = malloc(k);
      FUZZ_ASSERT(f->segs[i].data != NULL);
      memcpy(f->segs[i].data, msg + at, k);
    }
    f->segs[i].used = f->segs[i].capacity = k;
    at += k;
  }
  memset(&f->seq, 0, sizeof f->seq);
  f->seq.segs = f->segs;
  f->seq.nsegs = f->seq.cap_segs = n;
  f->seq.length = len;
}

/* The message cut where the input's cut bytes say: segment i < ncuts holds
** cuts[i] bytes (0..255, fewer at the end), the last one the rest. */
static inline void fuzz_seq_cut(fuzz_seq *f, const fuzz_in *in) {
  size_t sizes[16];
  for (size_t i = 0; i < in->ncuts; i++) sizes[i] = in->cuts[i];
  fuzz_seq_build(f, in->msg, in->len, sizes, in->ncuts + 1);
}

/* Every byte its own segment: every token straddles. */
static inline void fuzz_seq_bytes(fuzz_seq *f, const uint8_t *msg, size_t len) {
  size_t *sizes = malloc((len + 1) * sizeof *sizes);
  FUZZ_ASSERT(sizes != NULL);
  for (size_t i = 0; i <= len; i++) sizes[i] = 1;
  fuzz_seq_build(f, msg, len, sizes, len + 1);
  free(sizes);
}

static inline void fuzz_seq_free(fuzz_seq *f) {
  for (size_t i = 0; i < f->seq.nsegs; i++) free(f->segs[i].data);
  free(f->segs);
}

/* ---- what a walk saw ------------------------------------------------------- */

/* A growing byte record: two walks that must agree write theirs and compare. */
typedef struct fuzz_log {
  uint8_t *p;
  size_t n, cap;
} fuzz_log;

static inline void fuzz_log_put(fuzz_log *l, const void *p, size_t n) {
  if (l->cap - l->n < n) {
    size_t cap = l->cap ? l->cap : 256;
    while (cap - l->n < n) cap *= 2;
    l->p = realloc(l->p, cap);
    FUZZ_ASSERT(l->p != NULL);
    l->cap = cap;
  }
  if (n) memcpy(l->p + l->n, p, n);
  l->n += n;
}

static inline void fuzz_log_u64(fuzz_log *l, uint64_t v) { fuzz_log_put(l, &v, sizeof v); }

static inline int fuzz_log_same(const fuzz_log *a, const fuzz_log *b) {
  return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, a->n) == 0);
}

static inline void fuzz_log_free(fuzz_log *l) {
  free(l->p);
  memset(l, 0, sizeof *l);
}

#endif
