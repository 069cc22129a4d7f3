/*
** test_pool_shared.c -- the shared pool (ArrayPool<byte>.Shared): thread
** slot, partitions, drops, misuse, thread exit, trimming, destroy.
** Every test uses a private pool so its counters are the test's own, and
** reads sp_alloc_live_bytes (all threads) or the calling thread's sp_alloc
** counters to prove what was allocated and freed. Threaded tests are left
** out where the build has no threads.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "scratchpack.h"
#include "sp_test.h"
#include "test_util.h"

#if !defined(SP_NO_THREADS) && !(defined(__wasi__) && !defined(_REENTRANT))
#define HAVE_THREADS 1
#include <pthread.h>
#endif

#define GIB ((size_t)1 << 30)

/* ---- sizes and arguments ----------------------------------------------- */

static void shared_pool_rents_full_bucket_sizes_from_16_bytes(void) {
  static const size_t want[][2] = {{0, 16}, {1, 16}, {16, 16}, {17, 32}, {100, 128},
                                   {4096, 4096}, {4097, 8192}, {100007, 131072}};
  enum { N = sizeof want / sizeof want[0] };
  sp_pool *p = sp_shared_pool_create(2, 4);
  void *x[N];
  size_t c[N], bytes = 0;
  sp_alloc_stats a;
  CHECK(p != NULL && p->max_pooled == GIB);
  sp_alloc_stats_reset();
  for (int i = 0; i < N; i++) {
    x[i] = sp_pool_rent(p, want[i][0], &c[i]);
    CHECK(x[i] != NULL && c[i] == want[i][1]);
    memset(x[i], 0x5A, c[i]);                 /* the whole capacity is usable */
    bytes += c[i];
  }
  a = alloc_now();
  CHECK(stats_of(p).fresh == N && stats_of(p).rents == N);
  CHECK(a.alloc_bytes >= bytes && a.unpooled_calls == 0);   /* + the thread's block */
  for (int i = 0; i < N; i++) CHECK(sp_pool_return(p, x[i], c[i]) == 0);
  CHECK(adds_up(p, 0));
  sp_pool_destroy(p);
}

static void shared_pool_create_rejects_too_many_partitions_or_arrays(void) {
  CHECK(sp_shared_pool_create(1025, 32) == NULL);
  CHECK(sp_shared_pool_create(2, (1u << 20) + 1) == NULL);
}

/* 0, 0 means one partition per online CPU and 32 arrays in each (one
** partition where the build has no threads). */
static void shared_pool_defaults_to_32_arrays_per_cpu_partition(void) {
#ifdef HAVE_THREADS
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
#else
  long cpus = 1;
#endif
  size_t n = 1 + 32 * (size_t)(cpus < 1 ? 1 : cpus) + 3, c = 0;
  sp_pool *p = sp_shared_pool_create(0, 0);
  void **x = malloc(n * sizeof *x);
  sp_pool_stats s;
  for (size_t i = 0; i < n; i++) x[i] = sp_pool_rent(p, 64, &c);
  for (size_t i = 0; i < n; i++) sp_pool_return(p, x[i], c);
  s = stats_of(p);
  CHECK(s.drops == 3);
  CHECK(s.cached == n - 3);
  free(x);
  sp_pool_destroy(p);
}

/* ---- the tiers --------------------------------------------------------- */

static void slot_hit_after_return_on_the_same_thread(void) {
  sp_pool *p = sp_shared_pool_create(2, 4);
  size_t c1 = 0, c2 = 0;
  void *x = sp_pool_rent(p, 100, &c1), *y;
  sp_alloc_stats a;
  sp_pool_stats s;
  CHECK(sp_pool_return(p, x, c1) == 0);
  sp_alloc_stats_reset();
  y = sp_pool_rent(p, 120, &c2);
  a = alloc_now();
  s = stats_of(p);
  CHECK(y == x && c2 == 128);
  CHECK(s.slot_hits == 1 && s.partition_hits == 0 && s.fresh == 1);
  CHECK(s.lock_waits == 0);
  CHECK(a.alloc_calls == 0);
  sp_pool_return(p, y, c2);
  sp_pool_destroy(p);
}

/* The newest array stays in the slot; the one it displaces is pushed to a
** partition, where the next rent after the slot's finds it. */
static void displaced_array_goes_to_a_partition(void) {
  sp_pool *p = sp_shared_pool_create(2, 4);
  size_t c = 0;
  void *x = sp_pool_rent(p, 64, &c), *y = sp_pool_rent(p, 64, &c);
  sp_pool_stats s;
  sp_pool_return(p, x, c);                    /* slot: x */
  sp_pool_return(p, y, c);                    /* slot: y, partition: x */
  s = stats_of(p);
  CHECK(s.cached == 2 && s.drops == 0);
  CHECK(sp_pool_rent(p, 64, &c) == y);
  CHECK(sp_pool_rent(p, 64, &c) == x);
  s = stats_of(p);
  CHECK(s.slot_hits == 1 && s.partition_hits == 1 && s.fresh == 2);
  sp_pool_return(p, x, c);
  sp_pool_return(p, y, c);
  sp_pool_destroy(p);
}

static void returns_drop_when_the_slot_and_all_partitions_are_full(void) {
  sp_pool *p = sp_shared_pool_create(2, 2);
  size_t c = 0;
  void *x[7];
  sp_alloc_stats a;
  sp_pool_stats s;
  for (int i = 0; i < 7; i++) x[i] = sp_pool_rent(p, 1000, &c);
  sp_alloc_stats_reset();
  for (int i = 0; i < 7; i++) CHECK(sp_pool_return(p, x[i], c) == 0);
  a = alloc_now();
  s = stats_of(p);
  CHECK(c == 1024);
  CHECK(s.returns == 7 && s.cached == 5 && s.drops == 2);   /* 1 slot + 2 x 2 */
  CHECK(a.free_calls == 2 && a.free_bytes == 2 * 1024);
  CHECK(adds_up(p, 0));
  sp_pool_destroy(p);
}

static void wrong_size_return_is_misuse_and_keeps_nothing(void) {
  sp_pool *p = sp_shared_pool_create(2, 4);
  size_t c = 0;
  void *x = sp_pool_rent(p, 100, &c);
  sp_alloc_stats a;
  sp_pool_stats s;
  sp_alloc_stats_reset();
  CHECK(sp_pool_return(p, x, 100) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_pool_return(p, x, 0) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_pool_return(p, x, 8) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_pool_return(p, x, GIB - 1) == SP_E_INVALID_ARGUMENT);
  a = alloc_now();
  s = stats_of(p);
  CHECK(s.returns == 0 && s.cached == 0 && s.drops == 0);
  CHECK(a.free_calls == 0);
  CHECK(sp_pool_return(p, NULL, 100) == 0);   /* NULL is ignored, whatever the size */
  CHECK(sp_pool_return(p, x, c) == 0);        /* the caller still owns it */
  CHECK(stats_of(p).cached == 1);
  sp_pool_destroy(p);
}

/* Huge sizes without huge memory: the pool never touches array bytes. */
static void *small_for_huge(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) { free(ptr); return NULL; }
  return malloc(nsize >= GIB ? 64 : nsize);
}

static void rent_over_1_gib_is_exact_and_unpooled(void) {
  sp_pool *p;
  size_t c1 = 0, c2 = 0;
  void *top, *big;
  sp_alloc_stats a;
  sp_pool_stats s;
  sp_alloc_set_hook(small_for_huge, NULL);
  p = sp_shared_pool_create(1, 1);
  sp_alloc_stats_reset();
  top = sp_pool_rent(p, GIB, &c1);
  big = sp_pool_rent(p, GIB + 1, &c2);
  a = alloc_now();
  s = stats_of(p);
  CHECK(c1 == GIB && c2 == GIB + 1);
  CHECK(s.rents == 2 && s.fresh == 1 && s.unpooled == 1);
  CHECK(a.unpooled_calls == 1 && a.unpooled_bytes == GIB + 1);
  sp_alloc_stats_reset();
  CHECK(sp_pool_return(p, big, c2) == 0);
  CHECK(sp_pool_return(p, top, c1) == 0);
  a = alloc_now();
  s = stats_of(p);
  CHECK(s.returns == 2 && s.cached == 1 && s.drops == 0);   /* 1 GiB kept in the slot */
  CHECK(a.free_calls == 1 && a.free_bytes == GIB + 1);
  sp_pool_destroy(p);
  sp_alloc_set_hook(NULL, NULL);
}

/* ---- timed trimming ---------------------------------------------------- */

/* x and y end in the partition, z in the slot. */
static void fill_three(sp_pool *p, void *v[3]) {
  size_t c = 0;
  for (int i = 0; i < 3; i++) v[i] = sp_pool_rent(p, 64, &c);
  for (int i = 0; i < 3; i++) sp_pool_return(p, v[i], c);
}

static void timed_trim_first_only_stamps_then_frees_untouched_arrays(void) {
  sp_pool *p = sp_shared_pool_create(1, 8);
  void *v[3];
  sp_alloc_stats a;
  fill_three(p, v);
  CHECK(stats_of(p).cached == 3);
  CHECK(sp_shared_pool_trim_idle(p, 1000, 100) == 0);   /* first sighting */
  CHECK(sp_shared_pool_trim_idle(p, 1099, 100) == 0);   /* not idle long enough */
  sp_alloc_stats_reset();
  CHECK(sp_shared_pool_trim_idle(p, 1100, 100) == 3);
  a = alloc_now();
  CHECK(a.free_calls == 3 && a.free_bytes == 3 * 64);
  CHECK(stats_of(p).cached == 0 && stats_of(p).trims == 3);
  CHECK(adds_up(p, 0));
  sp_pool_destroy(p);
}

static void timed_trim_keeps_arrays_used_since_the_last_look(void) {
  sp_pool *p = sp_shared_pool_create(1, 8);
  size_t c = 0;
  void *v[3], *z, *y;
  fill_three(p, v);                           /* partition [x, y], slot z */
  CHECK(sp_shared_pool_trim_idle(p, 1000, 100) == 0);
  z = sp_pool_rent(p, 64, &c);                /* slot */
  y = sp_pool_rent(p, 64, &c);                /* partition top: only x stays below */
  CHECK(z == v[2] && y == v[1]);
  sp_pool_return(p, y, c);                    /* slot y */
  sp_pool_return(p, z, c);                    /* slot z, partition [x, y] */
  CHECK(sp_shared_pool_trim_idle(p, 1100, 100) == 1);   /* x; the slot is stamped anew */
  CHECK(stats_of(p).cached == 2);
  CHECK(sp_pool_rent(p, 64, &c) == z);        /* the refilled slot was kept */
  sp_pool_return(p, z, c);
  CHECK(sp_shared_pool_trim_idle(p, 1150, 100) == 0);   /* slot stamped at 1150 */
  CHECK(sp_shared_pool_trim_idle(p, 1250, 100) == 2);   /* y, then z */
  CHECK(stats_of(p).cached == 0 && stats_of(p).trims == 3);
  CHECK(adds_up(p, 0));
  sp_pool_destroy(p);
}

static void timed_trim_on_another_pool_kind_does_nothing(void) {
  sp_pool *b = sp_bucket_pool_create(1024, 4);
  size_t c = 0;
  void *x = sp_pool_rent(b, 100, &c);
  sp_pool_return(b, x, c);
  CHECK(sp_shared_pool_trim_idle(b, 1000, 0) == 0);
  CHECK(sp_shared_pool_trim_idle(b, 5000, 0) == 0);
  CHECK(sp_shared_pool_trim_idle(NULL, 5000, 0) == 0);
  CHECK(stats_of(b).cached == 1);
  sp_pool_destroy(b);
}

static void trim_frees_the_slot_and_partitions_of_this_thread(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *p = sp_shared_pool_create(2, 4);
  size_t c = 0;
  void *v[3], *held = sp_pool_rent(p, 5000, &c);
  int64_t live_held;
  fill_three(p, v);
  live_held = sp_alloc_live_bytes();
  CHECK(sp_pool_trim(p) == 3);
  CHECK(sp_alloc_live_bytes() == live_held - 3 * 64);
  CHECK(stats_of(p).cached == 0 && stats_of(p).trims == 3);
  CHECK(adds_up(p, 1));
  CHECK(sp_pool_return(p, held, c) == 0);     /* rented before the trim: still fine */
  CHECK(adds_up(p, 0));
  sp_pool_destroy(p);
  CHECK(sp_alloc_live_bytes() == live0);
}

/* A trim empties a slot its owner left full; the owner's next rent misses
** it and its next return refills it without displacing anything. */
static void owner_finds_its_trimmed_slot_empty(void) {
  sp_pool *p = sp_shared_pool_create(1, 4);
  size_t c = 0;
  void *v[3], *x, *y;
  fill_three(p, v);                           /* slot z, partition [x, y] */
  CHECK(sp_pool_trim(p) == 3);
  x = sp_pool_rent(p, 64, &c);                /* slot trimmed, partition empty */
  CHECK(stats_of(p).slot_hits == 0 && stats_of(p).fresh == 4);
  sp_pool_return(p, x, c);                    /* into the empty slot */
  y = sp_pool_rent(p, 64, &c);
  CHECK(y == x && stats_of(p).slot_hits == 1);
  CHECK(sp_pool_trim(p) == 0);                /* y is out; nothing cached */
  sp_pool_return(p, y, c);
  CHECK(stats_of(p).cached == 1 && stats_of(p).drops == 0);
  CHECK(adds_up(p, 0));
  sp_pool_destroy(p);
}

static void release_thread_frees_the_calling_threads_slots(void) {
  sp_pool *p = sp_shared_pool_create(2, 4), *q = sp_shared_pool_create(1, 1);
  size_t c = 0;
  void *a = sp_pool_rent(p, 300, &c), *b = sp_pool_rent(q, 300, &c);
  sp_alloc_stats s;
  sp_pool_return(p, a, c);
  sp_pool_return(q, b, c);
  sp_alloc_stats_reset();
  sp_shared_pool_release_thread();
  s = alloc_now();
  CHECK(s.free_calls >= 2 && s.free_bytes >= 2 * 512);   /* two arrays + two blocks */
  CHECK(stats_of(p).cached == 0 && stats_of(p).trims == 1);
  CHECK(stats_of(q).cached == 0 && stats_of(q).trims == 1);
  CHECK(stats_of(p).rents == 1 && stats_of(p).returns == 1);   /* counts were kept */
  a = sp_pool_rent(p, 300, &c);               /* the slot is empty: fresh */
  CHECK(a != NULL && stats_of(p).fresh == 2);
  sp_pool_return(p, a, c);
  sp_pool_destroy(q);
  sp_pool_destroy(p);
}

static void destroy_on_the_using_thread_leaves_nothing_allocated(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *p = sp_shared_pool_create(2, 2);
  size_t c[6];
  void *x[6];
  for (int r = 0; r < 3; r++) {
    for (int i = 0; i < 6; i++) x[i] = sp_pool_rent(p, (size_t)100 << i, &c[i]);
    for (int i = 0; i < 6; i++) sp_pool_return(p, x[i], c[i]);
  }
  CHECK(sp_alloc_live_bytes() > live0);
  sp_pool_destroy(p);
  CHECK(sp_alloc_live_bytes() == live0);
}

#ifdef HAVE_THREADS

/* ---- other threads ----------------------------------------------------- */

typedef struct worker {
  sp_pool *pool, *other;
  pthread_barrier_t *bar;
  void *kept[4];
  size_t cap;
} worker;

static void run_thread(void *(*fn)(void *), void *arg) {
  pthread_t t;
  CHECK(pthread_create(&t, NULL, fn, arg) == 0);
  pthread_join(t, NULL);
}

/* Returns x, y, z of 64 B (slot z, partition x, y) and one array each of
** 1 KiB and 8 KiB (slots), then exits. */
static void *return_five(void *arg) {
  worker *w = arg;
  static const size_t sizes[5] = {64, 64, 64, 1000, 5000};
  void *x[5];
  size_t c[5];
  for (int i = 0; i < 5; i++) x[i] = sp_pool_rent(w->pool, sizes[i], &c[i]);
  for (int i = 0; i < 5; i++) sp_pool_return(w->pool, x[i], c[i]);
  if (w->other) {
    x[0] = sp_pool_rent(w->other, 64, &c[0]);
    sp_pool_return(w->other, x[0], c[0]);
  }
  return NULL;
}

/* The thread's slots (64 B, 1 KiB, 8 KiB) are freed at its exit and counted
** as trims; the two arrays it pushed to partitions stay in the pool. */
static void thread_exit_releases_the_threads_cached_arrays(void) {
  sp_pool *p = sp_shared_pool_create(2, 4);
  worker w = {p, NULL, NULL, {0}, 0};
  size_t c = 0;
  void *warm1 = sp_pool_rent(p, 64, &c), *warm2 = sp_pool_rent(p, 64, &c);
  int64_t live;
  sp_pool_stats s;
  sp_pool_return(p, warm1, c);
  sp_pool_return(p, warm2, c);                /* now the 64 B partitions exist */
  CHECK(sp_pool_trim(p) == 2);
  live = sp_alloc_live_bytes();
  run_thread(return_five, &w);
  s = stats_of(p);
  CHECK(s.rents == 7 && s.returns == 7);
  CHECK(s.trims == 2 + 3);                    /* the warm-up trim, then the exit */
  CHECK(s.cached == 2);                       /* x and y, in partitions */
  CHECK(sp_alloc_live_bytes() == live + 2 * 64);   /* arrays and block were freed */
  CHECK(adds_up(p, 0));
  sp_pool_destroy(p);
}

static void thread_exit_releases_slots_of_every_shared_pool_it_used(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *p = sp_shared_pool_create(1, 4), *q = sp_shared_pool_create(1, 4);
  worker w = {p, q, NULL, {0}, 0};
  run_thread(return_five, &w);
  CHECK(stats_of(q).trims == 1 && stats_of(q).cached == 0);
  CHECK(stats_of(p).trims == 3 && stats_of(p).cached == 2);
  CHECK(adds_up(p, 0) && adds_up(q, 0));
  sp_pool_destroy(p);
  sp_pool_destroy(q);
  CHECK(sp_alloc_live_bytes() == live0);
}

/* Fills its slots, waits while the main thread acts, then rents again. */
static void *park_with_full_slots(void *arg) {
  worker *w = arg;
  size_t c = 0;
  void *x;
  for (int i = 0; i < 3; i++) w->kept[i] = sp_pool_rent(w->pool, (size_t)100 << (3 * i), &w->cap);
  for (int i = 0; i < 3; i++) sp_pool_return(w->pool, w->kept[i], (size_t)128 << (3 * i));
  pthread_barrier_wait(w->bar);               /* slots full */
  pthread_barrier_wait(w->bar);               /* main has trimmed */
  x = sp_pool_rent(w->pool, 100, &c);         /* the slot is empty now: fresh */
  sp_pool_return(w->pool, x, c);
  return NULL;
}

static void trim_frees_the_slots_of_other_running_threads(void) {
  sp_pool *p = sp_shared_pool_create(2, 4);
  pthread_barrier_t bar;
  worker w = {p, NULL, &bar, {0}, 0};
  pthread_t t;
  int64_t live;
  pthread_barrier_init(&bar, NULL, 2);
  pthread_create(&t, NULL, park_with_full_slots, &w);
  pthread_barrier_wait(&bar);
  CHECK(stats_of(p).cached == 3);
  live = sp_alloc_live_bytes();
  CHECK(sp_pool_trim(p) == 3);
  CHECK(sp_alloc_live_bytes() == live - (128 + 1024 + 8192));
  CHECK(stats_of(p).cached == 0);
  pthread_barrier_wait(&bar);
  pthread_join(t, NULL);
  CHECK(stats_of(p).fresh == 4 && stats_of(p).slot_hits == 0);
  CHECK(adds_up(p, 0));
  pthread_barrier_destroy(&bar);
  sp_pool_destroy(p);
}

/* Parks with full slots; after the pool is destroyed either uses another
** shared pool (which frees its dead block) or just exits (which does). */
static void *park_then_move_on(void *arg) {
  worker *w = arg;
  size_t c = 0;
  void *x = sp_pool_rent(w->pool, 2000, &c);
  sp_pool_return(w->pool, x, c);
  pthread_barrier_wait(w->bar);               /* slot full */
  pthread_barrier_wait(w->bar);               /* pool destroyed */
  if (w->other) {
    x = sp_pool_rent(w->other, 2000, &c);
    sp_pool_return(w->other, x, c);
    sp_shared_pool_release_thread();
  }
  pthread_barrier_wait(w->bar);               /* main checks */
  return NULL;
}

static void destroy_frees_the_slots_of_threads_still_running(void) {
  int64_t live0 = sp_alloc_live_bytes();
  sp_pool *p = sp_shared_pool_create(2, 4), *q = sp_shared_pool_create(2, 4);
  int64_t live_pools = sp_alloc_live_bytes();
  pthread_barrier_t bar;
  worker w1 = {p, q, &bar, {0}, 0}, w2 = {p, NULL, &bar, {0}, 0};
  pthread_t t1, t2;
  int64_t block;
  pthread_barrier_init(&bar, NULL, 3);
  pthread_create(&t1, NULL, park_then_move_on, &w1);
  pthread_create(&t2, NULL, park_then_move_on, &w2);
  pthread_barrier_wait(&bar);
  CHECK(stats_of(p).cached == 2);
  block = (sp_alloc_live_bytes() - live_pools - 2 * 2048) / 2;   /* two threads' blocks */
  sp_pool_destroy(p);                         /* both threads still hold a block */
  /* the arrays and the pool are gone; each thread's block stays its own */
  CHECK(sp_alloc_live_bytes() == live0 + (live_pools - live0) / 2 + 2 * block);
  CHECK(block > 0);
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar);                 /* t1 used q and released its slots */
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  CHECK(stats_of(q).trims == 1 && stats_of(q).cached == 0);
  sp_pool_destroy(q);
  CHECK(sp_alloc_live_bytes() == live0);
  pthread_barrier_destroy(&bar);
}

#endif

int main(void) {
  SP_RUN(shared_pool_rents_full_bucket_sizes_from_16_bytes);
  SP_RUN(shared_pool_create_rejects_too_many_partitions_or_arrays);
  SP_RUN(shared_pool_defaults_to_32_arrays_per_cpu_partition);
  SP_RUN(slot_hit_after_return_on_the_same_thread);
  SP_RUN(displaced_array_goes_to_a_partition);
  SP_RUN(returns_drop_when_the_slot_and_all_partitions_are_full);
  SP_RUN(wrong_size_return_is_misuse_and_keeps_nothing);
  SP_RUN(rent_over_1_gib_is_exact_and_unpooled);
  SP_RUN(timed_trim_first_only_stamps_then_frees_untouched_arrays);
  SP_RUN(timed_trim_keeps_arrays_used_since_the_last_look);
  SP_RUN(timed_trim_on_another_pool_kind_does_nothing);
  SP_RUN(trim_frees_the_slot_and_partitions_of_this_thread);
  SP_RUN(owner_finds_its_trimmed_slot_empty);
  SP_RUN(release_thread_frees_the_calling_threads_slots);
  SP_RUN(destroy_on_the_using_thread_leaves_nothing_allocated);
#ifdef HAVE_THREADS
  SP_RUN(thread_exit_releases_the_threads_cached_arrays);
  SP_RUN(thread_exit_releases_slots_of_every_shared_pool_it_used);
  SP_RUN(trim_frees_the_slots_of_other_running_threads);
  SP_RUN(destroy_frees_the_slots_of_threads_still_running);
#endif
  sp_shared_pool_release_thread();
  sp_shutdown();
  return sp_test_summary();
}
