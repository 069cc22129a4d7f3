/*
** test_sequence.c -- segmented sequences and the sequence pool.
** Each test rents from a private bucket pool (80 KiB / 100, like the default)
** so the array-pool counters are its own, and reads the calling thread's
** sp_alloc counters to prove what a call allocated. A test hook that can
** fail the next allocation is installed first thing in main().
*/
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "scratchpack.h"
#include "sp_test.h"
#include "test_util.h"

#define SEG (32u * 1024)

/* ---- an allocation hook that can fail on request ----------------------- */

static int fail_next_alloc;

static void *test_hook(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) { free(ptr); return NULL; }
  if (fail_next_alloc) { fail_next_alloc = 0; return NULL; }
  return realloc(ptr, nsize);
}

/* ---- helpers ----------------------------------------------------------- */

static sp_pool *make_arrays(void) { return sp_bucket_pool_create(80 * 1024, 100); }

static sp_pool_stats pstats(sp_pool *p) {
  sp_pool_stats s;
  sp_pool_stats_get(p, &s);
  return s;
}

static sp_seq_pool_stats qstats(sp_seq_pool *p) {
  sp_seq_pool_stats s;
  sp_seq_pool_stats_get(p, &s);
  return s;
}

static void fill_pattern(uint8_t *dst, size_t n, size_t start) {
  for (size_t i = 0; i < n; i++) dst[i] = (uint8_t)((start + i) * 131u + ((start + i) >> 8));
}

/* Asks for a span of 'hint', writes 'n' pattern bytes (n <= avail) and
** commits them. Returns 0 when no span came back. */
static int put(sp_sequence *s, size_t hint, size_t n) {
  size_t avail = 0;
  uint8_t *span = sp_seq_get_span(s, hint, &avail);
  if (!CHECK(span != NULL)) return 0;
  if (!CHECK(avail >= (hint ? hint : 1) && avail >= n)) return 0;
  fill_pattern(span, n, (size_t)s->length);
  sp_seq_advance(s, n);
  return 1;
}

/* ---- sequences --------------------------------------------------------- */

static void seq_init_allocates_nothing(void) {
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  sp_alloc_stats_reset();
  sp_seq_init(&s, arrays);
  CHECK(alloc_now().alloc_calls == 0);
  CHECK(s.pool == arrays);
  CHECK(s.nsegs == 0 && s.length == 0 && s.segs == NULL);
  CHECK(pstats(arrays).rents == 0);
  sp_seq_free(&s);
  sp_pool_destroy(arrays);
}

static void seq_first_span_rents_32k_segment(void) {
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  size_t avail = 0;
  uint8_t *span;
  sp_alloc_stats a;
  sp_pool_stats ps;
  sp_seq_init(&s, arrays);
  sp_alloc_stats_reset();
  span = sp_seq_get_span(&s, 0, &avail);
  a = alloc_now();
  ps = pstats(arrays);
  CHECK(span != NULL);
  CHECK(avail == SEG);
  CHECK(s.nsegs == 1);
  CHECK(s.segs[0].data == span && s.segs[0].capacity == SEG && s.segs[0].used == 0);
  CHECK(s.length == 0);
  CHECK(ps.rents == 1 && ps.fresh == 1);
  CHECK(a.unpooled_calls == 0);
  /* the segment plus the segment table */
  CHECK(a.alloc_calls == 2);
  CHECK(a.alloc_bytes == SEG + 8 * sizeof(sp_segment));
  /* a small hint also gets a whole 32 KiB segment */
  sp_seq_free(&s);
  sp_seq_init(&s, arrays);
  span = sp_seq_get_span(&s, 10, &avail);
  CHECK(span != NULL && avail == SEG);
  sp_seq_free(&s);
  sp_pool_destroy(arrays);
}

static void seq_span_with_large_hint_rents_at_least_hint(void) {
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  size_t avail = 0;
  uint8_t *span;
  sp_alloc_stats a;
  sp_seq_init(&s, arrays);
  span = sp_seq_get_span(&s, 40000, &avail);
  CHECK(span != NULL);
  CHECK(avail >= 40000);
  CHECK(avail == 65536);                     /* the 64 KiB bucket */
  CHECK(s.segs[0].capacity == 65536);
  sp_seq_free(&s);

  /* over the largest bucket: an exact, unpooled segment */
  sp_seq_init(&s, arrays);
  sp_alloc_stats_reset();
  span = sp_seq_get_span(&s, 200000, &avail);
  a = alloc_now();
  CHECK(span != NULL);
  CHECK(avail == 200000);
  CHECK(pstats(arrays).unpooled == 1);
  CHECK(a.unpooled_calls == 1 && a.unpooled_bytes == 200000);
  memset(span, 0xEE, avail);
  sp_seq_advance(&s, avail);
  CHECK(s.length == 200000);
  sp_alloc_stats_reset();
  sp_seq_reset(&s);
  a = alloc_now();
  CHECK(a.free_calls == 1 && a.free_bytes == 200000);   /* the unpooled segment */
  sp_seq_free(&s);
  sp_pool_destroy(arrays);
}

static void seq_advance_commits_and_next_span_follows(void) {
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  size_t avail = 0, avail2 = 0;
  uint8_t *span, *span2;
  sp_alloc_stats a;
  sp_seq_init(&s, arrays);
  span = sp_seq_get_span(&s, 0, &avail);
  memcpy(span, "0123456789", 10);
  sp_seq_advance(&s, 10);
  CHECK(s.length == 10);
  CHECK(s.segs[0].used == 10);
  sp_alloc_stats_reset();
  span2 = sp_seq_get_span(&s, 100, &avail2);
  a = alloc_now();
  CHECK(span2 == span + 10);
  CHECK(avail2 == SEG - 10);
  CHECK(a.alloc_calls == 0);
  CHECK(pstats(arrays).rents == 1);
  sp_seq_advance(&s, 5);
  sp_seq_advance(&s, 0);
  CHECK(s.length == 15 && s.segs[0].used == 15 && s.nsegs == 1);
  /* a hint exactly the free tail still fits */
  span2 = sp_seq_get_span(&s, SEG - 15, &avail2);
  CHECK(span2 == span + 15 && avail2 == SEG - 15);
  CHECK(s.nsegs == 1);
  sp_seq_free(&s);
  sp_pool_destroy(arrays);
}

static void seq_hint_not_fitting_tail_abandons_tail(void) {
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  size_t avail = 0;
  uint8_t *first, *span;
  sp_seq_init(&s, arrays);
  first = sp_seq_get_span(&s, 0, &avail);
  sp_seq_advance(&s, 32000);                 /* 768 bytes left */
  span = sp_seq_get_span(&s, 1000, &avail);
  CHECK(span != NULL && span != first + 32000);
  CHECK(avail == SEG);
  CHECK(s.nsegs == 2);
  CHECK(s.segs[0].data == first && s.segs[0].used == 32000);  /* tail abandoned */
  CHECK(s.segs[1].data == span && s.segs[1].used == 0);
  CHECK(s.length == 32000);
  CHECK(pstats(arrays).rents == 2);
  CHECK(pstats(arrays).returns == 0);
  sp_seq_advance(&s, 1000);
  CHECK(s.length == 33000 && s.segs[1].used == 1000);
  /* a hint over 32 KiB that does not fit rents max(32K, hint) */
  span = sp_seq_get_span(&s, 50000, &avail);
  CHECK(span != NULL && avail == 65536);
  CHECK(s.nsegs == 3 && s.segs[1].used == 1000);
  sp_seq_free(&s);
  CHECK(pstats(arrays).returns == 3);
  sp_pool_destroy(arrays);
}

static void seq_empty_last_segment_is_replaced_not_linked(void) {
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  size_t avail = 0;
  uint8_t *span;
  sp_pool_stats ps;
  sp_seq_init(&s, arrays);
  sp_seq_get_span(&s, 0, &avail);            /* 32 KiB, nothing committed */
  span = sp_seq_get_span(&s, 40000, &avail);
  ps = pstats(arrays);
  CHECK(span != NULL && avail == 65536);
  CHECK(s.nsegs == 1);                       /* replaced, not a second segment */
  CHECK(s.segs[0].data == span && s.segs[0].capacity == 65536 && s.segs[0].used == 0);
  CHECK(ps.rents == 2 && ps.returns == 1);   /* the 32 KiB one went back */
  CHECK(ps.cached == 1);
  /* also after committed segments: the empty one after them is replaced */
  sp_seq_advance(&s, 65536);
  sp_seq_get_span(&s, 0, &avail);            /* a new empty 32 KiB segment */
  CHECK(s.nsegs == 2);
  span = sp_seq_get_span(&s, 70000, &avail);
  CHECK(span != NULL && avail == 131072);
  CHECK(s.nsegs == 2 && s.segs[1].data == span && s.segs[0].used == 65536);
  CHECK(s.length == 65536);
  sp_seq_free(&s);
  ps = pstats(arrays);
  CHECK(ps.returns == ps.rents);
  sp_pool_destroy(arrays);
}

static void seq_copy_to_reproduces_bytes_across_segments(void) {
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  /* hint, bytes: several abandoned tails, a 64 KiB and an unpooled segment */
  static const size_t plan[][2] = {
    {0, 1000}, {31000, 31000}, {5000, 5000}, {0, 1}, {40000, 40000},
    {20000, 20000}, {150000, 150000}, {10, 10}, {0, 0}, {100, 7}, {SEG, SEG},
  };
  size_t total = 0;
  uint8_t *got, *want;
  sp_seq_init(&s, arrays);
  for (size_t i = 0; i < sizeof plan / sizeof plan[0]; i++) {
    if (!put(&s, plan[i][0], plan[i][1])) break;
    total += plan[i][1];
  }
  CHECK(s.length == total);
  CHECK(s.nsegs >= 5);
  got = malloc(total);
  want = malloc(total);
  if (got && want) {
    fill_pattern(want, total, 0);
    memset(got, 0, total);
    sp_seq_copy_to(&s, got);
    CHECK_BYTES(got, total, want, total);
  }
  free(got);
  free(want);
  sp_seq_free(&s);
  CHECK(pstats(arrays).returns == pstats(arrays).rents);
  sp_pool_destroy(arrays);
}

static void seq_table_grows_past_eight_segments(void) {
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  size_t total = 0;
  uint8_t *got, *want;
  sp_seq_init(&s, arrays);
  for (int i = 0; i < 20; i++) {             /* fill each segment completely */
    size_t avail = 0;
    uint8_t *span = sp_seq_get_span(&s, SEG, &avail);
    if (!CHECK(span != NULL && avail == SEG)) break;
    fill_pattern(span, avail, total);
    sp_seq_advance(&s, avail);
    total += avail;
  }
  CHECK(s.nsegs == 20);
  CHECK(s.cap_segs >= 20);
  CHECK(s.length == total && total == 20 * SEG);
  got = malloc(total);
  want = malloc(total);
  if (got && want) {
    fill_pattern(want, total, 0);
    sp_seq_copy_to(&s, got);
    CHECK_BYTES(got, total, want, total);
  }
  free(got);
  free(want);
  sp_seq_free(&s);
  sp_pool_destroy(arrays);
}

static void seq_reset_returns_every_segment_and_keeps_table(void) {
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  sp_segment *table;
  size_t cap_segs, avail = 0;
  sp_pool_stats ps;
  sp_alloc_stats a;
  sp_seq_init(&s, arrays);
  for (int i = 0; i < 12; i++) put(&s, 30000, 30000);   /* 12 segments, table grown */
  put(&s, 100000, 100000);
  CHECK(s.nsegs == 13);
  table = s.segs;
  cap_segs = s.cap_segs;
  sp_alloc_stats_reset();
  sp_seq_reset(&s);
  a = alloc_now();
  ps = pstats(arrays);
  CHECK(ps.rents == 13);
  CHECK(ps.returns == ps.rents);
  CHECK(ps.cached == 13);
  CHECK(a.free_calls == 0);                  /* all kept by the array pool */
  CHECK(s.nsegs == 0 && s.length == 0);
  CHECK(s.segs == table && s.cap_segs == cap_segs);
  CHECK(s.pool == arrays);
  /* the next use allocates nothing: table kept, segment from the pool */
  sp_alloc_stats_reset();
  CHECK(sp_seq_get_span(&s, 0, &avail) != NULL && avail == SEG);
  a = alloc_now();
  CHECK(a.alloc_calls == 0);
  CHECK(pstats(arrays).partition_hits == 1);
  sp_seq_reset(&s);
  sp_seq_reset(&s);                          /* resetting an empty one is harmless */
  ps = pstats(arrays);
  CHECK(ps.returns == ps.rents);
  sp_seq_free(&s);
  sp_pool_destroy(arrays);
}

static void seq_free_frees_table_and_segments(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *arrays = make_arrays();
  int64_t live_pool = sp_alloc_live_bytes();
  sp_sequence s;
  sp_seq_init(&s, arrays);
  for (int i = 0; i < 10; i++) put(&s, 20000, 20000);
  put(&s, 140000, 140000);                  /* one unpooled segment, freed at once */
  sp_seq_free(&s);
  CHECK(s.segs == NULL && s.cap_segs == 0 && s.nsegs == 0 && s.length == 0);
  CHECK(pstats(arrays).returns == pstats(arrays).rents);
  /* what is left is only what the array pool caches */
  {
    size_t trimmed = sp_pool_trim(arrays);
    CHECK(trimmed == pstats(arrays).trims && trimmed == 10);
  }
  CHECK(sp_alloc_live_bytes() == live_pool);
  sp_seq_free(NULL);                         /* no operation */
  sp_pool_destroy(arrays);
  CHECK(sp_alloc_live_bytes() == live0);
}

static void seq_get_span_failure_with_empty_last_segment_leaves_sequence_unchanged(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  size_t avail = 0;
  uint8_t *first, *span;
  sp_seq_init(&s, arrays);
  first = sp_seq_get_span(&s, 0, &avail);    /* empty 32 KiB segment */
  fail_next_alloc = 1;                       /* the 64 KiB rent will fail */
  span = sp_seq_get_span(&s, 40000, &avail);
  fail_next_alloc = 0;
  CHECK(span == NULL);
  /* "NULL when the pool or allocator fails (the sequence is unchanged)" */
  CHECK(s.nsegs == 1);
  CHECK(s.nsegs >= 1 && s.segs[0].data == first && s.segs[0].capacity == SEG);
  CHECK(s.length == 0);
  sp_seq_free(&s);
  sp_pool_destroy(arrays);
  CHECK(sp_alloc_live_bytes() == live0);     /* nothing leaked either way */
}

static void seq_get_span_failure_after_committed_bytes_leaves_sequence_unchanged(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *arrays = make_arrays();
  sp_sequence s;
  size_t avail = 0;
  uint8_t *span;
  sp_seq_init(&s, arrays);
  put(&s, 0, 32000);
  fail_next_alloc = 1;                       /* the segment rent fails */
  span = sp_seq_get_span(&s, 1000, &avail);
  fail_next_alloc = 0;
  CHECK(span == NULL);
  CHECK(s.nsegs == 1 && s.length == 32000 && s.segs[0].used == 32000);
  /* and when the table cannot grow */
  for (int i = 1; i < 8; i++) put(&s, SEG, SEG);
  CHECK(s.nsegs == 8 && s.cap_segs == 8);
  fail_next_alloc = 1;
  span = sp_seq_get_span(&s, 1000, &avail);
  fail_next_alloc = 0;
  CHECK(span == NULL);
  CHECK(s.nsegs == 8 && s.cap_segs == 8 && s.length == 32000 + 7 * SEG);
  /* it still works afterwards */
  CHECK(put(&s, 1000, 1000));
  CHECK(s.nsegs == 9);
  sp_seq_free(&s);
  CHECK(pstats(arrays).returns == 9);        /* every segment it holds went back */
  sp_pool_destroy(arrays);
  CHECK(sp_alloc_live_bytes() == live0);
}

/* ---- the sequence pool ------------------------------------------------- */

static void seq_pool_reuses_returned_sequence(void) {
  sp_pool *arrays = make_arrays();
  sp_seq_pool *q = sp_seq_pool_create(4, arrays);
  sp_sequence *s1, *s2;
  sp_seq_pool_stats qs;
  sp_alloc_stats a;
  CHECK(q != NULL);
  CHECK(sp_seq_pool_arrays(q) == arrays);
  s1 = sp_seq_pool_rent(q);
  CHECK(s1 != NULL && s1->pool == arrays && s1->nsegs == 0 && s1->length == 0);
  put(s1, 0, 5000);
  sp_seq_pool_return(q, s1);
  qs = qstats(q);
  CHECK(qs.rents == 1 && qs.returns == 1 && qs.fresh == 1 && qs.idle == 1);
  sp_alloc_stats_reset();
  s2 = sp_seq_pool_rent(q);
  a = alloc_now();
  qs = qstats(q);
  CHECK(s2 == s1);
  CHECK(s2->nsegs == 0 && s2->length == 0);  /* empty again */
  CHECK(qs.rents == 2 && qs.fresh == 1 && qs.idle == 0);
  CHECK(a.alloc_calls == 0);
  /* and its first span comes from the array pool without allocating */
  sp_alloc_stats_reset();
  put(s2, 0, 10);
  CHECK(alloc_now().alloc_calls == 0);
  sp_seq_pool_return(q, s2);
  sp_seq_pool_return(q, NULL);               /* no operation */
  CHECK(qstats(q).returns == 2);
  sp_seq_pool_destroy(q);
  sp_pool_destroy(arrays);
}

static void seq_pool_return_gives_segments_back_to_array_pool(void) {
  sp_pool *arrays = make_arrays();
  sp_seq_pool *q = sp_seq_pool_create(4, arrays);
  sp_sequence *s = sp_seq_pool_rent(q);
  sp_pool_stats ps;
  sp_alloc_stats a;
  put(s, 0, 30000);
  put(s, 10000, 10000);                      /* abandons a tail */
  put(s, 60000, 60000);
  put(s, 150000, 150000);                    /* unpooled */
  CHECK(s->nsegs == 4);
  sp_alloc_stats_reset();
  sp_seq_pool_return(q, s);
  a = alloc_now();
  ps = pstats(arrays);
  CHECK(ps.rents == 4 && ps.returns == 4);
  CHECK(ps.cached == 3);                     /* 32K, 32K, 64K; the unpooled one freed */
  CHECK(a.free_calls == 1 && a.free_bytes == 150000);
  CHECK(qstats(q).idle == 1);
  sp_seq_pool_destroy(q);
  sp_pool_destroy(arrays);
}

static void seq_pool_max_idle_drops_extras(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *arrays = make_arrays();
  sp_seq_pool *q = sp_seq_pool_create(2, arrays);
  sp_sequence *s[3];
  sp_seq_pool_stats qs;
  sp_pool_stats ps;
  for (int i = 0; i < 3; i++) { s[i] = sp_seq_pool_rent(q); put(s[i], 0, 100); }
  CHECK(s[0] != s[1] && s[1] != s[2] && s[0] != s[2]);
  for (int i = 0; i < 3; i++) sp_seq_pool_return(q, s[i]);
  qs = qstats(q);
  ps = pstats(arrays);
  CHECK(qs.fresh == 3 && qs.returns == 3);
  CHECK(qs.idle == 2);
  CHECK(qs.drops == 1);
  CHECK(ps.returns == ps.rents && ps.cached == 3);  /* even the dropped one gave back */
  /* renting three again: two idle ones, one fresh */
  for (int i = 0; i < 3; i++) s[i] = sp_seq_pool_rent(q);
  qs = qstats(q);
  CHECK(qs.fresh == 4 && qs.idle == 0);
  for (int i = 0; i < 3; i++) sp_seq_pool_return(q, s[i]);
  CHECK(qstats(q).drops == 2);
  sp_seq_pool_destroy(q);
  sp_pool_destroy(arrays);
  CHECK(sp_alloc_live_bytes() == live0);
}

static void seq_pool_default_max_is_twice_cpus(void) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned max = 2u * (unsigned)(cpus < 1 ? 1 : cpus);
  sp_pool *arrays = make_arrays();
  sp_seq_pool *q = sp_seq_pool_create(0, arrays);
  sp_sequence **s = calloc(max + 1, sizeof *s);
  sp_seq_pool_stats qs;
  CHECK(q != NULL && s != NULL);
  if (q && s) {
    for (unsigned i = 0; i <= max; i++) s[i] = sp_seq_pool_rent(q);
    for (unsigned i = 0; i <= max; i++) sp_seq_pool_return(q, s[i]);
    qs = qstats(q);
    CHECK(qs.idle == max);
    CHECK(qs.drops == 1);
  }
  free(s);
  sp_seq_pool_destroy(q);
  sp_pool_destroy(arrays);
}

static void seq_pool_clear_frees_idle_sequences(void) {
  sp_pool *arrays = make_arrays();
  sp_seq_pool *q = sp_seq_pool_create(8, arrays);
  int64_t live_empty = sp_alloc_live_bytes();
  sp_sequence *s[3];
  uint64_t cached;
  sp_alloc_stats a;
  for (int i = 0; i < 3; i++) { s[i] = sp_seq_pool_rent(q); put(s[i], 0, 1000); }
  for (int i = 0; i < 3; i++) sp_seq_pool_return(q, s[i]);
  CHECK(qstats(q).idle == 3);
  cached = pstats(arrays).cached;
  CHECK(cached == 3);
  sp_alloc_stats_reset();
  sp_seq_pool_clear(q);
  a = alloc_now();
  CHECK(qstats(q).idle == 0);
  /* three sequence objects and their segment tables */
  CHECK(a.free_calls == 6);
  CHECK(a.free_bytes == 3 * (sizeof(sp_sequence) + 8 * sizeof(sp_segment)));
  CHECK(pstats(arrays).cached == cached);    /* segments stay with the array pool */
  CHECK(sp_alloc_live_bytes() == live_empty + (int64_t)(cached * SEG));
  sp_seq_pool_clear(q);                      /* clearing an empty pool is harmless */
  /* the pool still works after a clear */
  s[0] = sp_seq_pool_rent(q);
  CHECK(s[0] != NULL && qstats(q).fresh == 4);
  sp_seq_pool_return(q, s[0]);
  sp_seq_pool_destroy(q);
  sp_pool_destroy(arrays);
}

static void seq_pool_clear_frees_more_than_one_batch(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *arrays = make_arrays();
  sp_seq_pool *q = sp_seq_pool_create(200, arrays);
  int64_t live_empty = sp_alloc_live_bytes();
  sp_sequence *s[150];
  for (int i = 0; i < 150; i++) s[i] = sp_seq_pool_rent(q);
  for (int i = 0; i < 150; i++) sp_seq_pool_return(q, s[i]);
  CHECK(qstats(q).idle == 150);
  sp_seq_pool_clear(q);
  CHECK(qstats(q).idle == 0);
  CHECK(sp_alloc_live_bytes() == live_empty);
  sp_seq_pool_destroy(q);
  sp_pool_destroy(arrays);
  CHECK(sp_alloc_live_bytes() == live0);
}

static void seq_pool_destroy_restores_live_bytes(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *arrays = make_arrays();
  sp_seq_pool *q = sp_seq_pool_create(3, arrays);
  sp_sequence *s[5];
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 5; i++) {
      s[i] = sp_seq_pool_rent(q);
      put(s[i], 40000, 40000);
      put(s[i], 200000, 200000);
    }
    for (int i = 0; i < 5; i++) sp_seq_pool_return(q, s[i]);
  }
  CHECK(sp_alloc_live_bytes() > live0);
  sp_seq_pool_destroy(q);
  CHECK(pstats(arrays).returns == pstats(arrays).rents);
  sp_pool_destroy(arrays);
  CHECK(sp_alloc_live_bytes() == live0);
  sp_seq_pool_destroy(NULL);                 /* no operation */
}

int main(void) {
  sp_alloc_set_hook(test_hook, NULL);        /* before any other call */
  SP_RUN(seq_init_allocates_nothing);
  SP_RUN(seq_first_span_rents_32k_segment);
  SP_RUN(seq_span_with_large_hint_rents_at_least_hint);
  SP_RUN(seq_advance_commits_and_next_span_follows);
  SP_RUN(seq_hint_not_fitting_tail_abandons_tail);
  SP_RUN(seq_empty_last_segment_is_replaced_not_linked);
  SP_RUN(seq_copy_to_reproduces_bytes_across_segments);
  SP_RUN(seq_table_grows_past_eight_segments);
  SP_RUN(seq_reset_returns_every_segment_and_keeps_table);
  SP_RUN(seq_free_frees_table_and_segments);
  SP_RUN(seq_get_span_failure_with_empty_last_segment_leaves_sequence_unchanged);
  SP_RUN(seq_get_span_failure_after_committed_bytes_leaves_sequence_unchanged);
  SP_RUN(seq_pool_reuses_returned_sequence);
  SP_RUN(seq_pool_return_gives_segments_back_to_array_pool);
  SP_RUN(seq_pool_max_idle_drops_extras);
  SP_RUN(seq_pool_default_max_is_twice_cpus);
  SP_RUN(seq_pool_clear_frees_idle_sequences);
  SP_RUN(seq_pool_clear_frees_more_than_one_batch);
  SP_RUN(seq_pool_destroy_restores_live_bytes);
  sp_shutdown();
  sp_alloc_set_hook(NULL, NULL);
  return sp_test_summary();
}
