/*
** test_pool_bucket.c -- the bounded bucket pool (ArrayPool<byte>.Create(80K, 100)).
** Every test uses a private pool so the pool counters are its own, and reads
** the calling thread's sp_alloc counters (reset, act, read) to prove what a
** call allocated or freed.
*/
#define _POSIX_C_SOURCE 200809L

#ifndef SP_NO_THREADS
#include <pthread.h>
#endif
#include <stdint.h>
#include <stdlib.h>

#include "scratchpack.h"
#include "sp_test.h"
#include "test_util.h"

#define KB 1024u
#define MAX_POOLED (128u * KB)

static sp_pool *make_pool(void) { return sp_bucket_pool_create(80 * 1024, 100); }

/* ---- bucket index mapping ---------------------------------------------- */

static void pool_bucket_index_maps_sizes_to_power_of_two_buckets(void) {
  for (size_t n = 1; n <= 16; n++) CHECK(sp_pool_bucket_index(n) == 0);
  CHECK(sp_pool_bucket_index(17) == 1);
  CHECK(sp_pool_bucket_index(32) == 1);
  CHECK(sp_pool_bucket_index(33) == 2);
  CHECK(sp_pool_bucket_index(128) == 3);
  CHECK(sp_pool_bucket_index(129) == 4);
  CHECK(sp_pool_bucket_index(4096) == 8);
  CHECK(sp_pool_bucket_index(4097) == 9);
  CHECK(sp_pool_bucket_index(32768) == 11);
  CHECK(sp_pool_bucket_index(81920) == 13);
  CHECK(sp_pool_bucket_index(131072) == 13);
  CHECK(sp_pool_bucket_index(131073) == 14);
}

static void pool_create_80k_has_buckets_up_to_128k(void) {
  sp_pool *p = make_pool();
  CHECK(p != NULL);
  if (!p) return;
  CHECK(p->max_pooled == MAX_POOLED);
  sp_pool_destroy(p);

  p = sp_bucket_pool_create(1, 1);          /* below 16 B: one 16 B bucket */
  CHECK(p != NULL && p->max_pooled == 16);
  sp_pool_destroy(p);

  p = sp_bucket_pool_create(SIZE_MAX, 1);   /* clamped to 1 GiB ((size_t)4 << 30 is 0 with a 32-bit size_t) */
  CHECK(p != NULL && p->max_pooled == ((size_t)1 << 30));
  sp_pool_destroy(p);
}

static void pool_create_rejects_zero_arguments(void) {
  CHECK(sp_bucket_pool_create(0, 100) == NULL);
  CHECK(sp_bucket_pool_create(80 * 1024, 0) == NULL);
  sp_pool_destroy(NULL);                    /* no operation */
}

/* ---- rent sizes -------------------------------------------------------- */

static void pool_rent_rounds_up_to_bucket_size(void) {
  sp_pool *p = make_pool();
  size_t c1 = 0, c2 = 0, c3 = 0, c4 = 0;
  void *a1, *a2, *a3, *a4;
  sp_alloc_stats a;
  sp_pool_stats s;
  sp_alloc_stats_reset();
  a1 = sp_pool_rent(p, 1, &c1);
  a2 = sp_pool_rent(p, 100, &c2);
  a3 = sp_pool_rent(p, 32768, &c3);
  a4 = sp_pool_rent(p, 100007, &c4);
  a = alloc_now();
  s = stats_of(p);
  CHECK(a1 && a2 && a3 && a4);
  CHECK(c1 == 16);
  CHECK(c2 == 128);
  CHECK(c3 == 32768);
  CHECK(c4 == 131072);
  CHECK(s.rents == 4);
  CHECK(s.fresh == 4);
  CHECK(s.unpooled == 0);
  CHECK(s.partition_hits == 0 && s.fallback_hits == 0);
  CHECK(a.alloc_calls == 4);
  CHECK(a.alloc_bytes == 16 + 128 + 32768 + 131072);
  CHECK(a.unpooled_calls == 0 && a.unpooled_bytes == 0);
  /* the whole capacity is usable */
  memset(a1, 0xA1, c1);
  memset(a4, 0xA4, c4);
  CHECK(sp_pool_return(p, a1, c1) == 0);
  CHECK(sp_pool_return(p, a2, c2) == 0);
  CHECK(sp_pool_return(p, a3, c3) == 0);
  CHECK(sp_pool_return(p, a4, c4) == 0);
  s = stats_of(p);
  CHECK(s.returns == 4);
  CHECK(s.cached == 4);
  sp_pool_destroy(p);
}

static void pool_rent_over_largest_bucket_is_exact_and_unpooled(void) {
  sp_pool *p = make_pool();
  size_t cap = 0;
  void *big;
  sp_alloc_stats a;
  sp_pool_stats s;
  sp_alloc_stats_reset();
  big = sp_pool_rent(p, 131073, &cap);
  a = alloc_now();
  s = stats_of(p);
  CHECK(big != NULL);
  CHECK(cap == 131073);
  CHECK(s.rents == 1);
  CHECK(s.unpooled == 1);
  CHECK(s.fresh == 0);
  CHECK(a.alloc_calls == 1 && a.alloc_bytes == 131073);
  CHECK(a.unpooled_calls == 1 && a.unpooled_bytes == 131073);
  memset(big, 0x5A, cap);

  sp_alloc_stats_reset();
  CHECK(sp_pool_return(p, big, cap) == 0);
  a = alloc_now();
  s = stats_of(p);
  CHECK(s.returns == 1);
  CHECK(s.cached == 0);                      /* never kept */
  CHECK(s.drops == 0);
  CHECK(a.free_calls == 1 && a.free_bytes == 131073);
  CHECK(a.alloc_calls == 0);
  sp_pool_destroy(p);
}

static void pool_unpooled_rent_is_never_served_from_cache(void) {
  sp_pool *p = make_pool();
  size_t cap = 0;
  void *x = sp_pool_rent(p, 131072, &cap);   /* a full largest bucket array */
  sp_alloc_stats a;
  CHECK(sp_pool_return(p, x, cap) == 0);
  sp_alloc_stats_reset();
  x = sp_pool_rent(p, 200000, &cap);
  a = alloc_now();
  CHECK(cap == 200000);
  CHECK(a.alloc_calls == 1 && a.unpooled_calls == 1 && a.unpooled_bytes == 200000);
  CHECK(stats_of(p).cached == 1);            /* the 128 KiB one is still there */
  CHECK(sp_pool_return(p, x, cap) == 0);
  sp_pool_destroy(p);
}

/* ---- reuse, fresh, fallback, per-bucket limit -------------------------- */

static void pool_reuses_returned_array(void) {
  sp_pool *p = make_pool();
  size_t c1 = 0, c2 = 0;
  void *first = sp_pool_rent(p, 100, &c1), *second;
  sp_alloc_stats a;
  sp_pool_stats s;
  CHECK(sp_pool_return(p, first, c1) == 0);
  CHECK(stats_of(p).cached == 1);
  sp_alloc_stats_reset();
  second = sp_pool_rent(p, 120, &c2);
  a = alloc_now();
  s = stats_of(p);
  CHECK(second == first);
  CHECK(c2 == 128);
  CHECK(a.alloc_calls == 0 && a.alloc_bytes == 0);
  CHECK(s.rents == 2);
  CHECK(s.fresh == 1);
  CHECK(s.partition_hits == 1);
  CHECK(s.cached == 0);
  CHECK(sp_pool_return(p, second, c2) == 0);
  sp_pool_destroy(p);
}

static void pool_rent_allocates_fresh_when_bucket_empty(void) {
  sp_pool *p = make_pool();
  size_t c1 = 0, c2 = 0;
  void *x, *y;
  sp_alloc_stats a;
  sp_alloc_stats_reset();
  x = sp_pool_rent(p, 100, &c1);
  y = sp_pool_rent(p, 100, &c2);
  a = alloc_now();
  CHECK(x != y);
  CHECK(c1 == 128 && c2 == 128);
  CHECK(stats_of(p).fresh == 2);
  CHECK(a.alloc_calls == 2 && a.alloc_bytes == 256);
  sp_pool_return(p, x, c1);
  sp_pool_return(p, y, c2);
  sp_pool_destroy(p);
}

/* As in .NET, a bucket allocates its arrays lazily: while it has slots
** left it allocates rather than borrow from the next bucket. */
static void pool_rent_allocates_while_its_bucket_has_slots(void) {
  sp_pool *p = make_pool();
  size_t c = 0, cf = 0;
  void *big = sp_pool_rent(p, 256, &c), *got;
  sp_pool_stats s;
  CHECK(sp_pool_return(p, big, c) == 0);
  got = sp_pool_rent(p, 100, &cf);           /* bucket 128 has 100 unused slots */
  s = stats_of(p);
  CHECK(got != big && cf == 128);
  CHECK(s.fallback_hits == 0 && s.fresh == 2 && s.cached == 1);
  sp_pool_return(p, got, cf);
  sp_pool_destroy(p);
}

/* Only when every array of its bucket is rented out does a rent take the
** next bucket's (ConfigurableArrayPool's MaxBucketsToTry = 2). */
static void pool_rent_falls_back_to_next_bucket_when_exhausted(void) {
  sp_pool *p = sp_bucket_pool_create(80 * 1024, 2);
  size_t c = 0, cf = 0, cx[2];
  void *big = sp_pool_rent(p, 256, &c), *got, *x[2];
  sp_alloc_stats a;
  sp_pool_stats s;
  CHECK(sp_pool_return(p, big, c) == 0);
  for (int i = 0; i < 2; i++) x[i] = sp_pool_rent(p, 100, &cx[i]);   /* bucket 128 exhausted */
  sp_alloc_stats_reset();
  got = sp_pool_rent(p, 100, &cf);
  a = alloc_now();
  s = stats_of(p);
  CHECK(got == big);
  CHECK(cf == 256);                          /* the capacity is the larger size */
  CHECK(s.fallback_hits == 1 && s.partition_hits == 0);
  CHECK(a.alloc_calls == 0);
  /* it goes back to the 256 bucket, where a 256 rent finds it */
  CHECK(sp_pool_return(p, got, cf) == 0);
  got = sp_pool_rent(p, 256, &c);
  CHECK(got == big && c == 256);
  CHECK(stats_of(p).partition_hits == 1);
  sp_pool_return(p, got, c);
  for (int i = 0; i < 2; i++) sp_pool_return(p, x[i], cx[i]);
  sp_pool_destroy(p);
}

static void pool_rent_falls_back_only_one_bucket(void) {
  sp_pool *p = make_pool();
  size_t c = 0, c2 = 0;
  void *x = sp_pool_rent(p, 512, &c), *y;
  sp_alloc_stats a;
  sp_pool_return(p, x, c);
  sp_alloc_stats_reset();
  y = sp_pool_rent(p, 100, &c2);             /* 128 and 256 empty; 512 is two away */
  a = alloc_now();
  CHECK(y != x);
  CHECK(c2 == 128);
  CHECK(stats_of(p).fallback_hits == 0);
  CHECK(stats_of(p).fresh == 2);
  CHECK(a.alloc_calls == 1 && a.alloc_bytes == 128);
  sp_pool_return(p, y, c2);
  sp_pool_destroy(p);
}

static void pool_largest_bucket_has_no_fallback(void) {
  sp_pool *p = make_pool();
  size_t c = 0;
  void *x = sp_pool_rent(p, 100007, &c);
  CHECK(c == MAX_POOLED);
  CHECK(stats_of(p).fresh == 1 && stats_of(p).unpooled == 0);
  sp_pool_return(p, x, c);
  sp_pool_destroy(p);
}

/* With both buckets exhausted a rent allocates outside the slots; when all
** arrays come home, the one without a slot is freed (a drop). */
static void pool_return_beyond_per_bucket_drops_extra(void) {
  sp_pool *p = sp_bucket_pool_create(80 * 1024, 2);
  size_t c[5];
  void *x[5];
  sp_alloc_stats a;
  sp_pool_stats s;
  for (int i = 0; i < 2; i++) x[i] = sp_pool_rent(p, 100, &c[i]);    /* 128 bucket */
  for (int i = 2; i < 4; i++) x[i] = sp_pool_rent(p, 200, &c[i]);    /* 256 bucket */
  x[4] = sp_pool_rent(p, 100, &c[4]);        /* both exhausted: a fresh 128 */
  CHECK(c[4] == 128 && stats_of(p).fresh == 5);
  sp_alloc_stats_reset();
  for (int i = 0; i < 5; i++) CHECK(sp_pool_return(p, x[i], c[i]) == 0);
  a = alloc_now();
  s = stats_of(p);
  CHECK(s.returns == 5);
  CHECK(s.drops == 1);
  CHECK(s.cached == 4);
  CHECK(a.free_calls == 1 && a.free_bytes == 128);
  /* the two kept 128s are handed out again; nothing is allocated */
  sp_alloc_stats_reset();
  for (int i = 0; i < 2; i++) x[i] = sp_pool_rent(p, 100, &c[i]);
  a = alloc_now();
  CHECK(a.alloc_calls == 0);
  CHECK(stats_of(p).partition_hits == 2);
  for (int i = 0; i < 2; i++) sp_pool_return(p, x[i], c[i]);
  sp_pool_destroy(p);
}

/* ---- misuse ------------------------------------------------------------ */

static void pool_return_wrong_size_is_misuse_and_keeps_nothing(void) {
  sp_pool *p = make_pool();
  size_t c = 0;
  void *x = sp_pool_rent(p, 100, &c);
  sp_alloc_stats a;
  sp_pool_stats s;
  CHECK(c == 128);
  sp_alloc_stats_reset();
  CHECK(sp_pool_return(p, x, 100) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_pool_return(p, x, 127) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_pool_return(p, x, 0) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_pool_return(p, x, 131071) == SP_E_INVALID_ARGUMENT);
  a = alloc_now();
  s = stats_of(p);
  CHECK(s.returns == 0);
  CHECK(s.cached == 0);
  CHECK(s.drops == 0);
  CHECK(a.free_calls == 0 && a.alloc_calls == 0);
  /* the caller still owns it and can return it correctly */
  CHECK(sp_pool_return(p, x, c) == 0);
  CHECK(stats_of(p).cached == 1);
  sp_pool_destroy(p);
}

static void pool_return_null_is_noop(void) {
  sp_pool *p = make_pool();
  sp_alloc_stats a;
  sp_pool_stats s;
  sp_alloc_stats_reset();
  CHECK(sp_pool_return(p, NULL, 128) == 0);
  CHECK(sp_pool_return(p, NULL, 100) == 0);  /* even with a bad size */
  CHECK(sp_pool_return(p, NULL, 200000) == 0);
  a = alloc_now();
  s = stats_of(p);
  CHECK(s.returns == 0 && s.cached == 0 && s.drops == 0);
  CHECK(a.alloc_calls == 0 && a.free_calls == 0);
  sp_pool_destroy(p);
}

/* ---- trim and destroy -------------------------------------------------- */

static void pool_trim_frees_every_cached_array(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *p = make_pool();
  int64_t live_empty = sp_alloc_live_bytes();
  static const size_t sizes[] = {1, 16, 17, 100, 100, 4096, 4097, 32768, 100007};
  enum { N = sizeof sizes / sizeof sizes[0] };
  void *x[N];
  size_t c[N], total = 0, held_cap = 0;
  void *held;
  sp_alloc_stats a;
  sp_pool_stats s;
  for (int i = 0; i < N; i++) { x[i] = sp_pool_rent(p, sizes[i], &c[i]); total += c[i]; }
  held = sp_pool_rent(p, 64, &held_cap);   /* still rented across the trim */
  for (int i = 0; i < N; i++) sp_pool_return(p, x[i], c[i]);
  CHECK(stats_of(p).cached == N);
  sp_alloc_stats_reset();
  CHECK(sp_pool_trim(p) == N);
  a = alloc_now();
  s = stats_of(p);
  CHECK(s.trims == N);
  CHECK(s.cached == 0);
  CHECK(a.free_calls == N && a.free_bytes == total);
  CHECK(sp_alloc_live_bytes() == live_empty + (int64_t)held_cap);
  CHECK(sp_pool_trim(p) == 0);               /* nothing left */
  CHECK(stats_of(p).trims == N);
  /* an array rented before the trim may still be returned */
  CHECK(sp_pool_return(p, held, held_cap) == 0);
  CHECK(stats_of(p).cached == 1);
  sp_pool_destroy(p);
  CHECK(sp_alloc_live_bytes() == live0);
}

static void pool_destroy_after_all_returned_restores_live_bytes(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *p;
  void *x[8];
  size_t c[8];
  static const size_t sizes[8] = {1, 100, 300, 5000, 32768, 100007, 131073, 500000};
  sp_alloc_stats a;
  sp_alloc_stats_reset();
  p = make_pool();
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 8; i++) x[i] = sp_pool_rent(p, sizes[i], &c[i]);
    for (int i = 0; i < 8; i++) CHECK(sp_pool_return(p, x[i], c[i]) == 0);
  }
  CHECK(sp_alloc_live_bytes() > live0);      /* pool metadata + cached arrays */
  sp_pool_destroy(p);
  a = alloc_now();
  CHECK(sp_alloc_live_bytes() == live0);
  CHECK(a.alloc_bytes == a.free_bytes);
  CHECK(a.alloc_calls == a.free_calls);
  CHECK(a.unpooled_calls == 6);              /* 131073 and 500000, three rounds */
  CHECK(a.unpooled_bytes == 3u * (131073 + 500000));
}

#ifndef SP_NO_THREADS   /* the WASI build has no threads */
/* ---- two threads on one bucket ----------------------------------------- */

#define HAMMER_THREADS 2
#define HAMMER_ROUNDS 200000

typedef struct hammer_arg {
  sp_pool *pool;
  sp_alloc_stats alloc;      /* this thread's sp_alloc counters at the end */
  unsigned long bad;         /* rents that came back wrong */
} hammer_arg;

static void *hammer(void *vp) {
  hammer_arg *h = vp;
  sp_alloc_stats_reset();
  for (int i = 0; i < HAMMER_ROUNDS; i++) {
    size_t cap = 0;
    unsigned char *a = sp_pool_rent(h->pool, 100, &cap);
    if (a == NULL || cap != 128) { h->bad++; continue; }
    a[0] = (unsigned char)i;                 /* touch it: TSan sees any sharing */
    a[cap - 1] = (unsigned char)i;
    if (sp_pool_return(h->pool, a, cap) != 0) h->bad++;
  }
  sp_alloc_stats_get(&h->alloc);
  return NULL;
}

static void pool_two_threads_on_one_bucket_lose_nothing(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *p = make_pool();
  int64_t live_empty = sp_alloc_live_bytes();
  pthread_t t[HAMMER_THREADS];
  hammer_arg h[HAMMER_THREADS];
  uint64_t thread_allocs = 0, thread_frees = 0;
  sp_pool_stats s;
  for (int i = 0; i < HAMMER_THREADS; i++) {
    memset(&h[i], 0, sizeof h[i]);
    h[i].pool = p;
    CHECK(pthread_create(&t[i], NULL, hammer, &h[i]) == 0);
  }
  for (int i = 0; i < HAMMER_THREADS; i++) {
    pthread_join(t[i], NULL);
    CHECK(h[i].bad == 0);
    thread_allocs += h[i].alloc.alloc_calls;
    thread_frees += h[i].alloc.free_calls;
  }
  s = stats_of(p);
  CHECK(s.rents == (uint64_t)HAMMER_THREADS * HAMMER_ROUNDS);
  CHECK(s.returns == s.rents);
  /* every rent was served exactly one way */
  CHECK(s.partition_hits + s.fallback_hits + s.fresh == s.rents);
  CHECK(s.fallback_hits == 0);               /* nothing was ever in the 256 bucket */
  CHECK(s.unpooled == 0);
  /* at most one array per thread was out at a time: nothing dropped */
  CHECK(s.fresh >= 1 && s.fresh <= HAMMER_THREADS);
  CHECK(s.drops == 0);
  CHECK(s.cached == s.fresh - s.drops);
  /* the threads' own counters saw exactly the fresh allocations */
  CHECK(thread_allocs == s.fresh);
  CHECK(thread_frees == 0);
  CHECK(sp_alloc_live_bytes() == live_empty + (int64_t)(s.cached * 128));
  /* lock_waits is timing-dependent: only bound it by the acquisitions made */
  CHECK(s.lock_waits <= 2 * s.rents + s.returns);
  sp_pool_destroy(p);
  CHECK(sp_alloc_live_bytes() == live0);
}
#endif

static void *refuse_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) free(ptr);
  return NULL;
}

/* A rent the allocator refuses is not counted and leaves its slot usable. */
static void pool_failed_rent_counts_nothing_and_keeps_the_slot(void) {
  sp_pool *p = sp_bucket_pool_create(80 * 1024, 1);
  size_t c = 0;
  void *x;
  sp_pool_stats s;
  sp_alloc_set_hook(refuse_alloc, NULL);
  x = sp_pool_rent(p, 100, &c);
  sp_alloc_set_hook(NULL, NULL);
  s = stats_of(p);
  CHECK(x == NULL && s.rents == 0 && s.fresh == 0);
  x = sp_pool_rent(p, 100, &c);              /* the one slot of bucket 128 */
  CHECK(x != NULL && c == 128 && stats_of(p).fresh == 1);
  CHECK(sp_pool_return(p, x, c) == 0 && stats_of(p).drops == 0);
  sp_pool_destroy(p);
}

int main(void) {
  SP_RUN(pool_bucket_index_maps_sizes_to_power_of_two_buckets);
  SP_RUN(pool_create_80k_has_buckets_up_to_128k);
  SP_RUN(pool_create_rejects_zero_arguments);
  SP_RUN(pool_rent_rounds_up_to_bucket_size);
  SP_RUN(pool_rent_over_largest_bucket_is_exact_and_unpooled);
  SP_RUN(pool_unpooled_rent_is_never_served_from_cache);
  SP_RUN(pool_reuses_returned_array);
  SP_RUN(pool_rent_allocates_fresh_when_bucket_empty);
  SP_RUN(pool_rent_allocates_while_its_bucket_has_slots);
  SP_RUN(pool_rent_falls_back_to_next_bucket_when_exhausted);
  SP_RUN(pool_rent_falls_back_only_one_bucket);
  SP_RUN(pool_largest_bucket_has_no_fallback);
  SP_RUN(pool_return_beyond_per_bucket_drops_extra);
  SP_RUN(pool_return_wrong_size_is_misuse_and_keeps_nothing);
  SP_RUN(pool_return_null_is_noop);
  SP_RUN(pool_trim_frees_every_cached_array);
  SP_RUN(pool_destroy_after_all_returned_restores_live_bytes);
  SP_RUN(pool_failed_rent_counts_nothing_and_keeps_the_slot);
#ifndef SP_NO_THREADS
  SP_RUN(pool_two_threads_on_one_bucket_lose_nothing);
#endif
  sp_shutdown();
  return sp_test_summary();
}
