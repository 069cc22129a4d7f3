/*
** test_pool_budget.c -- what pools may keep: the byte budget every pool kind
** honours (sp_pool_set_keep_limit), the limits on their sizes that keep
** count x size from wrapping on 32-bit targets (wasm32: these tests also run
** under wasm32-wasi), and what an idle sequence keeps.
*/
#include <stdint.h>

#include "scratchpack.h"
#include "sp_test.h"

#define KB 1024u

enum { BUCKET, SHARED, LOCKFREE, KINDS };
static const char *kind_name[] = {"bucket", "shared", "lockfree"};

static sp_pool *make(int kind) {
  switch (kind) {
    case BUCKET: return sp_bucket_pool_create(128 * KB, 100);
    case SHARED: return sp_shared_pool_create(2, 64);
    default: return sp_lockfree_pool_create(128 * KB, 64);
  }
}

static sp_pool_stats stats_of(sp_pool *p) {
  sp_pool_stats s;
  sp_pool_stats_get(p, &s);
  return s;
}

/* Rents n arrays of 64 KiB, returns them all: with a 256 KiB budget four
** stay, the rest are freed, and the pool says so in arrays and bytes. */
static void pool_keeps_no_more_bytes_than_its_budget(void) {
  for (int kind = 0; kind < KINDS; kind++) {
    int64_t live0 = sp_alloc_live_bytes();
    sp_pool *p = make(kind);
    void *a[10];
    size_t cap[10];
    sp_pool_stats s;
    if (!CHECK(p != NULL && sp_pool_set_keep_limit(p, 256 * KB) == 0)) { sp_pool_destroy(p); continue; }
    for (int i = 0; i < 10; i++) a[i] = sp_pool_rent(p, 64 * KB, &cap[i]);
    for (int i = 0; i < 10; i++) CHECK(sp_pool_return(p, a[i], cap[i]) == 0);
    s = stats_of(p);
    if (!CHECK(s.cached_bytes == 256 * KB && s.cached == 4)) fprintf(stderr, "    (%s)\n", kind_name[kind]);
    CHECK(s.drops == 6);
    for (int i = 0; i < 4; i++) a[i] = sp_pool_rent(p, 64 * KB, &cap[i]);   /* the four come back */
    CHECK(stats_of(p).fresh == 10 && stats_of(p).cached == 0);
    for (int i = 0; i < 4; i++) sp_pool_return(p, a[i], cap[i]);
    sp_pool_destroy(p);
    sp_shared_pool_release_thread();                 /* this thread's block for the shared pool */
    CHECK(sp_alloc_live_bytes() == live0);
  }
}

/* Mixed sizes: what is kept never passes the budget, whatever the order. */
static void pool_budget_holds_for_mixed_sizes(void) {
  static const size_t sizes[] = {16, 100 * KB, 4 * KB, 128 * KB, 33, 70 * KB, 1, 9 * KB};
  for (int kind = 0; kind < KINDS; kind++) {
    sp_pool *p = make(kind);
    void *a[8];
    size_t cap[8];
    if (!CHECK(p != NULL && sp_pool_set_keep_limit(p, 200 * KB) == 0)) { sp_pool_destroy(p); continue; }
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 8; i++) a[i] = sp_pool_rent(p, sizes[i], &cap[i]);
      for (int i = 0; i < 8; i++) sp_pool_return(p, a[(i * 3 + round) % 8], cap[(i * 3 + round) % 8]);
      CHECK(stats_of(p).cached_bytes <= 200 * KB);
      CHECK(stats_of(p).cached_bytes > 0);
    }
    sp_pool_destroy(p);
  }
}

/* Trimming takes arrays off the budget: the pool can keep as many again. */
static void pool_budget_frees_up_after_trim(void) {
  for (int kind = 0; kind < KINDS; kind++) {
    sp_pool *p = make(kind);
    void *a[4];
    size_t cap[4];
    if (!CHECK(p != NULL && sp_pool_set_keep_limit(p, 128 * KB) == 0)) { sp_pool_destroy(p); continue; }
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 4; i++) a[i] = sp_pool_rent(p, 64 * KB, &cap[i]);
      for (int i = 0; i < 4; i++) sp_pool_return(p, a[i], cap[i]);
      CHECK(stats_of(p).cached_bytes == 128 * KB);
      CHECK(sp_pool_trim(p) == 2 && stats_of(p).cached_bytes == 0);
    }
    sp_pool_destroy(p);
  }
}

/* Without a budget only the counts bound a pool; a budget must be set
** before the first rent (arrays counted without it may be cached). */
static void pool_budget_is_fixed_before_first_rent(void) {
  for (int kind = 0; kind < KINDS; kind++) {
    sp_pool *p = make(kind);
    size_t cap;
    void *a;
    if (!CHECK(p != NULL)) continue;
    a = sp_pool_rent(p, 64 * KB, &cap);
    CHECK(sp_pool_set_keep_limit(p, 1) == SP_E_INVALID_ARGUMENT);
    sp_pool_return(p, a, cap);
    CHECK(stats_of(p).cached == 1);                 /* no budget: kept */
    sp_pool_destroy(p);
  }
}

/* A budget smaller than any array keeps nothing, and the pool still works. */
static void pool_budget_of_one_byte_keeps_nothing(void) {
  for (int kind = 0; kind < KINDS; kind++) {
    sp_pool *p = make(kind);
    size_t cap;
    void *a;
    if (!CHECK(p != NULL && sp_pool_set_keep_limit(p, 1) == 0)) { sp_pool_destroy(p); continue; }
    for (int i = 0; i < 5; i++) {
      a = sp_pool_rent(p, 16, &cap);
      CHECK(a != NULL);
      sp_pool_return(p, a, cap);
    }
    CHECK(stats_of(p).cached == 0 && stats_of(p).fresh == 5 && stats_of(p).drops == 5);
    sp_pool_destroy(p);
  }
}

/* The bucket pool's slot tables are per_bucket pointers per bucket: 2^30 +
** 1000 of them is 4 GiB + 4000 bytes, which wraps to 4000 with a 32-bit
** size_t (the table was then written far past its end). */
static void pool_sizes_whose_tables_would_wrap_are_refused(void) {
  sp_pool *p;
  CHECK(sp_bucket_pool_create(80 * KB, (1u << 30) + 1000) == NULL);
  CHECK(sp_bucket_pool_create(80 * KB, SP_POOL_MAX_PER_BUCKET + 1) == NULL);
  CHECK(sp_lockfree_pool_create(80 * KB, SP_POOL_MAX_PER_BUCKET + 1) == NULL);
  /* 1024 partitions of 2^20 pointers are 4 GiB per bucket: 0 on wasm32. */
  CHECK(sp_shared_pool_create(1024, 1u << 20) == NULL);
  CHECK(sp_shared_pool_create(32, 1u << 20) == NULL);
  p = sp_shared_pool_create(16, 1u << 20);        /* 2^24 in all: the limit */
  CHECK(p != NULL);
  sp_pool_destroy(p);
  p = sp_bucket_pool_create(80 * KB, 4096);
  CHECK(p != NULL);
  sp_pool_destroy(p);
}

/* The sequence pool's table of idle sequences is allocated up front. */
static void seq_pool_size_is_limited(void) {
  sp_seq_pool *sp = sp_seq_pool_create(SP_SEQ_POOL_MAX, NULL);
  CHECK(sp != NULL);
  sp_seq_pool_destroy(sp);
  CHECK(sp_seq_pool_create(SP_SEQ_POOL_MAX + 1, NULL) == NULL);
  CHECK(sp_seq_pool_create((1u << 30) + 1, NULL) == NULL);   /* x4 wraps on wasm32 */
}

/* An idle sequence keeps no segments and at most SP_SEQ_KEEP_SEGS entries
** of segment table: a big message's table is freed when it comes back. */
static void idle_sequence_keeps_a_small_table(void) {
  sp_pool *arrays = sp_bucket_pool_create(128 * KB, 4);
  sp_seq_pool *sp = sp_seq_pool_create(1, arrays);
  sp_sequence *s;
  size_t avail;
  if (!CHECK(arrays != NULL && sp != NULL)) return;
  s = sp_seq_pool_rent(sp);
  for (int i = 0; i < 20; i++) {                        /* 20 segments: a table of 32 */
    CHECK(sp_seq_get_span(s, 64 * KB, &avail) != NULL);
    sp_seq_advance(s, avail);
  }
  sp_seq_pool_return(sp, s);
  s = sp_seq_pool_rent(sp);
  CHECK(s->cap_segs == 32 && s->nsegs == 0);            /* small: kept */
  for (int i = 0; i < 100; i++) {                       /* 100: a table of 128 */
    CHECK(sp_seq_get_span(s, 64 * KB, &avail) != NULL);
    sp_seq_advance(s, avail);
  }
  sp_seq_pool_return(sp, s);
  s = sp_seq_pool_rent(sp);
  CHECK(s->cap_segs == 0 && s->segs == NULL);           /* big: freed */
  CHECK(sp_seq_get_span(s, 10, &avail) != NULL);        /* and it still works */
  sp_seq_pool_return(sp, s);
  sp_seq_pool_destroy(sp);
  sp_pool_destroy(arrays);
}

int main(void) {
  SP_RUN(pool_keeps_no_more_bytes_than_its_budget);
  SP_RUN(pool_budget_holds_for_mixed_sizes);
  SP_RUN(pool_budget_frees_up_after_trim);
  SP_RUN(pool_budget_is_fixed_before_first_rent);
  SP_RUN(pool_budget_of_one_byte_keeps_nothing);
  SP_RUN(pool_sizes_whose_tables_would_wrap_are_refused);
  SP_RUN(seq_pool_size_is_limited);
  SP_RUN(idle_sequence_keeps_a_small_table);
  sp_shared_pool_release_thread();
  sp_shutdown();
  return sp_test_summary();
}
