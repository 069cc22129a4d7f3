/*
** test_pool_lockfree.c -- the lock-free pool: one bounded MPMC queue per
** bucket. FIFO reuse, capacity rounding, drops when full, misuse, unpooled
** sizes, trimming, and arrays returned on one thread rented on another.
** Every test uses a private pool; sp_alloc counters prove what was freed.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>

#include "scratchpack.h"
#include "sp_test.h"
#include "test_util.h"

#if !defined(SP_NO_THREADS) && !(defined(__wasi__) && !defined(_REENTRANT))
#define HAVE_THREADS 1
#include <pthread.h>
#endif

static void lockfree_create_rejects_zero_or_huge_arguments(void) {
  CHECK(sp_lockfree_pool_create(0, 8) == NULL);
  CHECK(sp_lockfree_pool_create(4096, 0) == NULL);
  CHECK(sp_lockfree_pool_create(4096, (1u << 24) + 1) == NULL);
}

static void lockfree_largest_bucket_is_max_len_rounded_up(void) {
  sp_pool *p = sp_lockfree_pool_create(80 * 1024, 4);
  CHECK(p != NULL && p->max_pooled == 128 * 1024);
  sp_pool_destroy(p);
  p = sp_lockfree_pool_create(1, 4);
  CHECK(p != NULL && p->max_pooled == 16);
  sp_pool_destroy(p);
  p = sp_lockfree_pool_create(SIZE_MAX, 2);          /* clamped to 1 GiB */
  CHECK(p != NULL && p->max_pooled == (size_t)1 << 30);
  sp_pool_destroy(p);
}

static void lockfree_rent_rounds_up_to_bucket_size(void) {
  sp_pool *p = sp_lockfree_pool_create(64 * 1024, 4);
  static const size_t want[][2] = {{0, 16}, {1, 16}, {17, 32}, {100, 128}, {4097, 8192},
                                   {65536, 65536}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    size_t c = 0;
    void *x = sp_pool_rent(p, want[i][0], &c);
    CHECK(x != NULL && c == want[i][1]);
    memset(x, 0xEE, c);
    CHECK(sp_pool_return(p, x, c) == 0);
  }
  CHECK(stats_of(p).cached == 5 && stats_of(p).partition_hits == 1);   /* 0 and 1 share 16 B */
  CHECK(adds_up(p, 0));
  sp_pool_destroy(p);
}

/* A queue hands arrays out in the order they came back. */
static void lockfree_reuses_returned_arrays_first_in_first_out(void) {
  sp_pool *p = sp_lockfree_pool_create(4096, 8);
  size_t c = 0;
  void *x = sp_pool_rent(p, 200, &c), *y = sp_pool_rent(p, 200, &c);
  sp_alloc_stats a;
  sp_pool_stats s;
  sp_pool_return(p, x, c);
  sp_pool_return(p, y, c);
  sp_alloc_stats_reset();
  CHECK(sp_pool_rent(p, 256, &c) == x);
  CHECK(sp_pool_rent(p, 129, &c) == y);
  a = alloc_now();
  s = stats_of(p);
  CHECK(a.alloc_calls == 0);
  CHECK(s.rents == 4 && s.fresh == 2 && s.partition_hits == 2);
  CHECK(s.slot_hits == 0 && s.lock_waits == 0);   /* no slot tier, no lock */
  sp_pool_return(p, x, c);
  sp_pool_return(p, y, c);
  sp_pool_destroy(p);
}

/* per_bucket 3 holds 4 arrays (a power of two); 1 holds 2. */
static void lockfree_drops_returns_when_the_queue_is_full(void) {
  sp_pool *p = sp_lockfree_pool_create(4096, 3), *q = sp_lockfree_pool_create(4096, 1);
  size_t c = 0;
  void *x[6];
  sp_alloc_stats a;
  for (int i = 0; i < 6; i++) x[i] = sp_pool_rent(p, 1000, &c);
  sp_alloc_stats_reset();
  for (int i = 0; i < 6; i++) CHECK(sp_pool_return(p, x[i], c) == 0);
  a = alloc_now();
  CHECK(stats_of(p).cached == 4 && stats_of(p).drops == 2);
  CHECK(a.free_calls == 2 && a.free_bytes == 2 * 1024);
  CHECK(adds_up(p, 0));
  for (int i = 0; i < 3; i++) x[i] = sp_pool_rent(q, 16, &c);
  for (int i = 0; i < 3; i++) sp_pool_return(q, x[i], c);
  CHECK(stats_of(q).cached == 2 && stats_of(q).drops == 1);
  sp_pool_destroy(p);
  sp_pool_destroy(q);
}

static void lockfree_wrong_size_return_is_misuse_and_keeps_nothing(void) {
  sp_pool *p = sp_lockfree_pool_create(4096, 4);
  size_t c = 0;
  void *x = sp_pool_rent(p, 100, &c);
  sp_alloc_stats a;
  sp_alloc_stats_reset();
  CHECK(sp_pool_return(p, x, 100) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_pool_return(p, x, 0) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_pool_return(p, x, 4095) == SP_E_INVALID_ARGUMENT);
  a = alloc_now();
  CHECK(a.free_calls == 0);
  CHECK(stats_of(p).returns == 0 && stats_of(p).cached == 0);
  CHECK(sp_pool_return(p, NULL, 100) == 0);
  CHECK(sp_pool_return(p, x, c) == 0);
  CHECK(stats_of(p).cached == 1);
  sp_pool_destroy(p);
}

static void lockfree_rent_over_largest_bucket_is_exact_and_unpooled(void) {
  sp_pool *p = sp_lockfree_pool_create(4096, 4);
  size_t c = 0;
  void *x;
  sp_alloc_stats a;
  sp_alloc_stats_reset();
  x = sp_pool_rent(p, 4097, &c);
  a = alloc_now();
  CHECK(x != NULL && c == 4097);
  CHECK(a.unpooled_calls == 1 && a.unpooled_bytes == 4097);
  CHECK(stats_of(p).unpooled == 1 && stats_of(p).fresh == 0);
  sp_alloc_stats_reset();
  CHECK(sp_pool_return(p, x, c) == 0);
  a = alloc_now();
  CHECK(a.free_calls == 1 && a.free_bytes == 4097);
  CHECK(stats_of(p).returns == 1 && stats_of(p).cached == 0 && stats_of(p).drops == 0);
  sp_pool_destroy(p);
}

static void lockfree_trim_frees_every_cached_array(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *p = sp_lockfree_pool_create(64 * 1024, 8);
  int64_t live_empty = sp_alloc_live_bytes();
  size_t c[5], held_cap = 0;
  void *x[5], *held = sp_pool_rent(p, 3000, &held_cap);
  for (int i = 0; i < 5; i++) x[i] = sp_pool_rent(p, (size_t)50 << (2 * i), &c[i]);
  for (int i = 0; i < 5; i++) sp_pool_return(p, x[i], c[i]);
  CHECK(stats_of(p).cached == 5);
  CHECK(sp_pool_trim(p) == 5);
  CHECK(sp_alloc_live_bytes() == live_empty + (int64_t)held_cap);
  CHECK(stats_of(p).trims == 5 && stats_of(p).cached == 0);
  CHECK(sp_pool_trim(p) == 0);
  CHECK(adds_up(p, 1));
  CHECK(sp_pool_return(p, held, held_cap) == 0);
  sp_pool_destroy(p);
  CHECK(sp_alloc_live_bytes() == live0);
}

/* The queue wraps around its ring many times without losing its place. */
static void lockfree_queue_keeps_order_over_many_laps(void) {
  sp_pool *p = sp_lockfree_pool_create(16, 4);
  size_t c = 0;
  void *x[4];
  int ok = 1;
  for (int i = 0; i < 4; i++) x[i] = sp_pool_rent(p, 16, &c);
  for (int i = 0; i < 4; i++) sp_pool_return(p, x[i], c);
  for (int lap = 0; lap < 1000 && ok; lap++) {
    void *got = sp_pool_rent(p, 16, &c);
    ok = got == x[lap % 4];
    sp_pool_return(p, got, c);
  }
  CHECK(ok);
  CHECK(stats_of(p).fresh == 4 && stats_of(p).drops == 0 && stats_of(p).cached == 4);
  sp_pool_destroy(p);
}

#ifdef HAVE_THREADS

typedef struct handoff {
  sp_pool *pool;
  void *x[8];
  size_t cap;
} handoff;

static void *return_all(void *arg) {
  handoff *h = arg;
  for (int i = 0; i < 8; i++) sp_pool_return(h->pool, h->x[i], h->cap);
  return NULL;
}

/* The document's fan-out: arrays rented here, returned on another thread,
** come back here without an allocation. */
static void lockfree_rents_arrays_another_thread_returned(void) {
  sp_pool *p = sp_lockfree_pool_create(4096, 16);
  handoff h = {p, {0}, 0};
  pthread_t t;
  sp_alloc_stats a;
  int same = 1;
  for (int i = 0; i < 8; i++) h.x[i] = sp_pool_rent(p, 4096, &h.cap);
  pthread_create(&t, NULL, return_all, &h);
  pthread_join(t, NULL);
  sp_alloc_stats_reset();
  for (int i = 0; i < 8; i++) same &= sp_pool_rent(p, 4096, &h.cap) == h.x[i];
  a = alloc_now();
  CHECK(same && a.alloc_calls == 0);
  CHECK(stats_of(p).partition_hits == 8 && stats_of(p).returns == 8);
  pthread_create(&t, NULL, return_all, &h);
  pthread_join(t, NULL);
  CHECK(adds_up(p, 0));
  sp_pool_destroy(p);
}

#endif

int main(void) {
  SP_RUN(lockfree_create_rejects_zero_or_huge_arguments);
  SP_RUN(lockfree_largest_bucket_is_max_len_rounded_up);
  SP_RUN(lockfree_rent_rounds_up_to_bucket_size);
  SP_RUN(lockfree_reuses_returned_arrays_first_in_first_out);
  SP_RUN(lockfree_drops_returns_when_the_queue_is_full);
  SP_RUN(lockfree_wrong_size_return_is_misuse_and_keeps_nothing);
  SP_RUN(lockfree_rent_over_largest_bucket_is_exact_and_unpooled);
  SP_RUN(lockfree_trim_frees_every_cached_array);
  SP_RUN(lockfree_queue_keeps_order_over_many_laps);
#ifdef HAVE_THREADS
  SP_RUN(lockfree_rents_arrays_another_thread_returned);
#endif
  sp_shutdown();
  return sp_test_summary();
}
