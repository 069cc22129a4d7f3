/*
** test_pool_stress.c -- every pool under cross-thread rent and return.
** 8 threads stand in a ring. Each rents arrays (sizes 32 B .. 20,000 B),
** tags them and hands them to the next thread through a handoff queue of
** its own (single producer, single consumer, C11 atomics); the next thread
** checks the tag and returns the array. So every return is on another thread
** than its rent, and every thread both rents and returns.
**
** The tag at the start of an array: a state word the renter exchanges to
** HELD|renter (finding HELD there means the pool handed out an array that
** someone still holds), the renter's serial number (the receiver expects
** them in order) and a canary; a second canary sits in the array's last 8
** bytes, so the whole capacity must be usable. The returner sets the state
** to FREE. ASan catches a pool that frees an array still held, TSan one that
** hands an array to two threads at once (their plain writes would race).
** At the end each thread still holds its first 2 received arrays: rents -
** returns must equal them, and fresh = cached + drops + trims + held; after
** they come back and the pool is destroyed, sp_alloc_live_bytes is as before.
**
** A second part trims while 4 threads rent and return in 3 waves (threads
** exit between waves, which frees their shared-pool slots): sp_pool_trim,
** the shared pool's timed trim and the stats, in a loop on a fifth thread.
**
** Operations per thread: env SP_STRESS_OPS; default 1,000,000 in an
** optimized build without sanitizers, 100,000 under ASan or TSan or without
** optimization (so that the suite stays near 20 s under TSan on 2 cores).
** The pools with tiny tiers (which drop and allocate most of the time) run a
** tenth of that; the trimming part an eighth per thread and wave.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "scratchpack.h"
#include "sp_test.h"
#include "test_util.h"

#if !defined(SP_NO_THREADS) && !(defined(__wasi__) && !defined(_REENTRANT))
#define HAVE_THREADS 1
#include <pthread.h>
#include <sched.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__OPTIMIZE__)
#define DEFAULT_OPS 100000L
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DEFAULT_OPS 100000L
#endif
#endif
#ifndef DEFAULT_OPS
#define DEFAULT_OPS 1000000L
#endif

#ifdef HAVE_THREADS

#define RING 8
#define HANDOFF 64            /* arrays in flight between two neighbours */
#define KEEP 2                /* arrays each thread still holds at the end */

#define HELD 0x48454C4400000000ull
#define FREE 0x4652454546524545ull
#define CANARY 0xC0FFEE5EED5EA5EDull

typedef struct tag {
  atomic_ullong state;        /* HELD | renter, or FREE */
  uint64_t serial;            /* the renter's count, in handoff order */
  uint64_t canary;            /* CANARY ^ serial */
} tag;

typedef struct item { void *a; size_t cap; } item;

/* Single producer, single consumer: the queue between two neighbours. */
typedef struct handoff {
  atomic_size_t head;
  char pad0[64];
  atomic_size_t tail;
  char pad1[64];
  item items[HANDOFF];
} handoff;

static int handoff_push(handoff *h, item e) {
  size_t t = atomic_load_explicit(&h->tail, memory_order_relaxed);
  if (t - atomic_load_explicit(&h->head, memory_order_acquire) == HANDOFF) return 0;
  h->items[t % HANDOFF] = e;
  atomic_store_explicit(&h->tail, t + 1, memory_order_release);
  return 1;
}

static int handoff_pop(handoff *h, item *e) {
  size_t hd = atomic_load_explicit(&h->head, memory_order_relaxed);
  if (hd == atomic_load_explicit(&h->tail, memory_order_acquire)) return 0;
  *e = h->items[hd % HANDOFF];
  atomic_store_explicit(&h->head, hd + 1, memory_order_release);
  return 1;
}

typedef struct worker {
  sp_pool *pool;
  uint64_t id, from;          /* this thread's tag id and its sender's */
  long ops;
  handoff *in, *out;
  uint64_t sent, got;         /* serials sent and received so far */
  uint32_t rng;
  unsigned long double_handouts, bad_tags, failures;
  item kept[KEEP];
  int nkept;
} worker;

static const size_t sizes[] = {32, 100, 1000, 4096, 20000};

static uint32_t next_rand(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static uint64_t *tail_of(item e) { return (uint64_t *)((char *)e.a + e.cap - 8); }

/* Rents one array, claims and tags it, hands it on. 0 if the queue is full. */
static int rent_and_send(worker *w) {
  item e;
  tag *t;
  uint64_t old;
  if (atomic_load_explicit(&w->out->tail, memory_order_relaxed) -
          atomic_load_explicit(&w->out->head, memory_order_acquire) == HANDOFF)
    return 0;
  e.a = sp_pool_rent(w->pool, sizes[next_rand(&w->rng) % 5], &e.cap);
  if (e.a == NULL) { w->failures++; return 1; }
  t = e.a;
  old = atomic_exchange_explicit(&t->state, HELD | w->id, memory_order_acq_rel);
  if ((old & ~0xFFull) == HELD) w->double_handouts++;
  t->serial = w->sent;
  t->canary = CANARY ^ w->sent;
  *tail_of(e) = CANARY ^ w->sent ^ e.cap;
  w->sent++;
  handoff_push(w->out, e);
  return 1;
}

/* Takes one array from the sender, checks its tag, frees the tag and returns
** the array (or keeps it). 0 if nothing is waiting. */
static int receive_and_return(worker *w) {
  item e;
  tag *t;
  if (!handoff_pop(w->in, &e)) return 0;
  t = e.a;
  if (atomic_load_explicit(&t->state, memory_order_acquire) != (HELD | w->from) ||
      t->serial != w->got || t->canary != (CANARY ^ w->got) ||
      *tail_of(e) != (CANARY ^ w->got ^ e.cap))
    w->bad_tags++;
  w->got++;
  atomic_store_explicit(&t->state, FREE, memory_order_release);
  if (w->nkept < KEEP) { w->kept[w->nkept++] = e; return 1; }
  if (sp_pool_return(w->pool, e.a, e.cap) != 0) w->failures++;
  return 1;
}

static void *ring_thread(void *arg) {
  worker *w = arg;
  while ((long)w->sent < w->ops || (long)w->got < w->ops) {
    int moved = 0;
    if ((long)w->sent < w->ops) moved |= rent_and_send(w);
    for (int k = 0; k < 4 && (long)w->got < w->ops; k++) moved |= receive_and_return(w);
    if (!moved) sched_yield();
  }
  return NULL;
}

static long ops_per_thread(void) {
  const char *env = getenv("SP_STRESS_OPS");
  long n = env ? strtol(env, NULL, 10) : DEFAULT_OPS;
  return n > 0 ? n : DEFAULT_OPS;
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Runs n threads in a ring for 'ops' each; checks every tag; returns the
** number of arrays the threads still hold (their kept ones, in *kept). */
static int run_ring(sp_pool *p, int n, long ops, item *kept) {
  pthread_t t[RING];
  worker w[RING];
  handoff *h = calloc((size_t)n, sizeof *h);
  int held = 0;
  unsigned long doubles = 0, bad = 0, failures = 0;
  for (int i = 0; i < n; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].pool = p;
    w[i].id = (uint64_t)i + 1;
    w[i].from = (uint64_t)((i + n - 1) % n) + 1;
    w[i].ops = ops;
    w[i].out = &h[i];
    w[i].in = &h[(i + n - 1) % n];
    w[i].rng = 0x9E3779B9u * (uint32_t)(i + 1);
  }
  for (int i = 0; i < n; i++) CHECK(pthread_create(&t[i], NULL, ring_thread, &w[i]) == 0);
  for (int i = 0; i < n; i++) {
    pthread_join(t[i], NULL);
    doubles += w[i].double_handouts;
    bad += w[i].bad_tags;
    failures += w[i].failures;
    for (int k = 0; k < w[i].nkept; k++) kept[held++] = w[i].kept[k];
  }
  CHECK(doubles == 0);
  CHECK(bad == 0);
  CHECK(failures == 0);
  free(h);
  return held;
}

/* fresh = cached + drops + trims + held, and rents - returns = held. */
static void check_books(sp_pool *p, int held) {
  sp_pool_stats s = stats_of(p);
  CHECK(s.rents - s.returns == (uint64_t)held);
  CHECK(s.fresh == s.cached + s.drops + s.trims + (uint64_t)held);
  CHECK(s.rents == s.slot_hits + s.partition_hits + s.fallback_hits + s.fresh + s.unpooled);
}

static void give_back(sp_pool *p, item *kept, int held) {
  for (int i = 0; i < held; i++) CHECK(sp_pool_return(p, kept[i].a, kept[i].cap) == 0);
}

static void stress_ring(const char *name, sp_pool *p, int64_t live0, long ops) {
  item kept[RING * KEEP];
  struct timespec t0;
  sp_pool_stats s;
  int held;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  held = run_ring(p, RING, ops, kept);
  s = stats_of(p);
  printf("    %s: %d threads x %ld cross-thread rent/return in %.2f s; "
         "hits %llu+%llu, fresh %llu, drops %llu, lock waits %llu\n",
         name, RING, ops, seconds_since(&t0), (unsigned long long)s.slot_hits,
         (unsigned long long)(s.partition_hits + s.fallback_hits),
         (unsigned long long)s.fresh, (unsigned long long)s.drops,
         (unsigned long long)s.lock_waits);
  CHECK(held == RING * KEEP);
  CHECK(s.rents == (uint64_t)(RING * ops));
  check_books(p, held);
  give_back(p, kept, held);
  check_books(p, 0);
  sp_shared_pool_release_thread();
  check_books(p, 0);
  sp_pool_destroy(p);
  CHECK(sp_alloc_live_bytes() == live0);
}

static void shared_pool_survives_8_threads_renting_and_returning_across_threads(void) {
  int64_t live0 = sp_alloc_live_bytes();
  stress_ring("shared(CPUs x 32)", sp_shared_pool_create(0, 0), live0,
              ops_per_thread());
}

static void shared_pool_with_tiny_partitions_survives_the_same(void) {
  int64_t live0 = sp_alloc_live_bytes();
  stress_ring("shared(3 x 2)", sp_shared_pool_create(3, 2), live0, ops_per_thread() / 10);
}

static void lockfree_pool_survives_8_threads_renting_and_returning_across_threads(void) {
  int64_t live0 = sp_alloc_live_bytes();
  stress_ring("lockfree(32 KiB, 64)", sp_lockfree_pool_create(32 * 1024, 64), live0,
              ops_per_thread());
}

static void lockfree_pool_with_tiny_queues_survives_the_same(void) {
  int64_t live0 = sp_alloc_live_bytes();
  stress_ring("lockfree(32 KiB, 2)", sp_lockfree_pool_create(32 * 1024, 2), live0,
              ops_per_thread() / 10);
}

static void bucket_pool_survives_8_threads_renting_and_returning_across_threads(void) {
  int64_t live0 = sp_alloc_live_bytes();
  stress_ring("bucket(80 KiB, 100)", sp_bucket_pool_create(80 * 1024, 100), live0,
              ops_per_thread());
}

/* ---- trimming while others work ---------------------------------------- */

typedef struct trimmer {
  sp_pool *pool;
  atomic_int stop;
  unsigned long rounds;
  uint64_t freed;
} trimmer;

static void *trim_loop(void *arg) {
  trimmer *t = arg;
  uint64_t now = 1;
  while (!atomic_load_explicit(&t->stop, memory_order_acquire)) {
    sp_pool_stats s;
    t->freed += sp_pool_trim(t->pool);
    for (int k = 0; k < 4; k++) t->freed += sp_shared_pool_trim_idle(t->pool, now += 3, 5);
    sp_pool_stats_get(t->pool, &s);
    t->rounds++;
    sched_yield();
  }
  return NULL;
}

static void trim_while_threads_rent_and_return(const char *name, sp_pool *p, int64_t live0) {
  long ops = ops_per_thread() / 8;
  item kept[3][4 * KEEP];
  trimmer tr;
  pthread_t t;
  int held = 0;
  sp_pool_stats s;
  memset(&tr, 0, sizeof tr);
  tr.pool = p;
  CHECK(pthread_create(&t, NULL, trim_loop, &tr) == 0);
  for (int wave = 0; wave < 3; wave++) held += run_ring(p, 4, ops, kept[wave]);
  atomic_store_explicit(&tr.stop, 1, memory_order_release);
  pthread_join(t, NULL);
  s = stats_of(p);
  printf("    %s: 3 waves of 4 threads x %ld while %lu trim rounds freed %llu arrays\n",
         name, ops, tr.rounds, (unsigned long long)tr.freed);
  CHECK(held == 3 * 4 * KEEP);
  CHECK(tr.rounds > 0);
  CHECK(s.trims >= tr.freed);                 /* plus shared-pool slots freed at exit */
  check_books(p, held);
  for (int wave = 0; wave < 3; wave++) give_back(p, kept[wave], 4 * KEEP);
  check_books(p, 0);
  sp_shared_pool_release_thread();
  sp_pool_destroy(p);
  CHECK(sp_alloc_live_bytes() == live0);
}

static void trimming_the_shared_pool_while_threads_work_loses_nothing(void) {
  int64_t live0 = sp_alloc_live_bytes();
  trim_while_threads_rent_and_return("shared(2 x 4)", sp_shared_pool_create(2, 4), live0);
}

static void trimming_the_lockfree_pool_while_threads_work_loses_nothing(void) {
  int64_t live0 = sp_alloc_live_bytes();
  trim_while_threads_rent_and_return("lockfree(32 KiB, 16)",
                                     sp_lockfree_pool_create(32 * 1024, 16), live0);
}

static void trimming_the_bucket_pool_while_threads_work_loses_nothing(void) {
  int64_t live0 = sp_alloc_live_bytes();
  trim_while_threads_rent_and_return("bucket(32 KiB, 8)", sp_bucket_pool_create(32 * 1024, 8), live0);
}

#endif

int main(void) {
#ifdef HAVE_THREADS
  SP_RUN(shared_pool_survives_8_threads_renting_and_returning_across_threads);
  SP_RUN(shared_pool_with_tiny_partitions_survives_the_same);
  SP_RUN(lockfree_pool_survives_8_threads_renting_and_returning_across_threads);
  SP_RUN(lockfree_pool_with_tiny_queues_survives_the_same);
  SP_RUN(bucket_pool_survives_8_threads_renting_and_returning_across_threads);
  SP_RUN(trimming_the_shared_pool_while_threads_work_loses_nothing);
  SP_RUN(trimming_the_lockfree_pool_while_threads_work_loses_nothing);
  SP_RUN(trimming_the_bucket_pool_while_threads_work_loses_nothing);
#else
  printf("  (no threads in this build: the stress tests are skipped)\n");
#endif
  sp_shutdown();
  return sp_test_summary();
}
