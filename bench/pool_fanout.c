/*
** pool_fanout.c -- the fan-out of 003_*.txt: one producer thread rents
** 4 KiB buffers and hands them to N consumer threads that return them.
** Owns: its threads, rounds and report. Uses only the public pool API.
**
** Rows (each round: R = 20,000 returns of 4 KiB buffers):
**   shared     sp_shared_pool_create(0, 0): CPUs partitions x 32 arrays. A
**              consumer's return fills its own slot, the displaced array
**              goes to a partition (a lock per try), and once all are full
**              it is freed -- .NET's ArrayPool<byte>.Shared under fan-out.
**   lockfree   sp_lockfree_pool_create(4096, 32768): one bounded MPMC queue
**              that holds all R (like the document's ConcurrentQueue pool).
**   ceiling    the shared pool with rent and return on one thread, so the
**              thread slot always hits; R rent+return pairs, timed whole
**              (so per return it is an upper bound).
**   no pool    the producer sp_mallocs, the consumers sp_free (glibc's
**              malloc here; .NET's GC in the document).
**
** Method, as in the document's BenchmarkDotNet run, only the returns are
** timed: the producer rents R buffers (writing one byte in each) outside
** the timed region and splits them evenly among the N consumers, which wait
** at a start line; the round's time runs from the producer's start signal
** to the last consumer's last return (each consumer reads the clock after
** its own last return; the producer sleeps meanwhile). Round r runs one
** round of every row, in an order rotated by r, after one warm-up round;
** cells are medians. Consumer threads live for all rounds of one N.
**
** Environment: SP_FANOUT_ROUNDS (default 21), SP_FANOUT_RETURNS (20000),
** SP_FANOUT_THREADS (consumer counts, default "1,2,4").
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scratchpack.h"

#define BUF 4096
#define MAX_CONSUMERS 64
#define MAX_ROUNDS 101

enum { SHARED, LOCKFREE, CEILING, NOPOOL, NROWS };
static const char *row_name[NROWS] = {"shared", "lockfree", "ceiling", "no pool"};

static void die(const char *what) {
  fprintf(stderr, "bench_pool_fanout: %s\n", what);
  exit(1);
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static long env_long(const char *name, long def) {
  const char *v = getenv(name);
  long n = v ? strtol(v, NULL, 10) : def;
  return n > 0 ? n : def;
}

/* ---- the consumers ------------------------------------------------------ */

typedef struct fanout {
  int n;                       /* consumers */
  pthread_mutex_t mu;
  pthread_cond_t posted_cv, done_cv;
  unsigned posted;             /* round number; under mu */
  int quit;                    /* under mu */
  int done;                    /* consumers finished this round; under mu */
  atomic_int ready;            /* consumers at the start line */
  atomic_uint go;              /* = posted when the round starts */
  sp_pool *pool;               /* NULL: sp_free */
  void **bufs;
  size_t count;
  uint64_t end[MAX_CONSUMERS]; /* each consumer's finish time */
} fanout;

typedef struct consumer { fanout *f; int id; } consumer;

static void return_share(fanout *f, int id) {
  size_t from = f->count * (size_t)id / (size_t)f->n;
  size_t to = f->count * (size_t)(id + 1) / (size_t)f->n;
  if (f->pool != NULL) {
    for (size_t i = from; i < to; i++)
      if (sp_pool_return(f->pool, f->bufs[i], BUF) != 0) die("a return was refused");
  } else {
    for (size_t i = from; i < to; i++) sp_free(f->bufs[i], BUF);
  }
}

static void *consumer_main(void *arg) {
  consumer *c = arg;
  fanout *f = c->f;
  unsigned seen = 0;
  for (;;) {
    pthread_mutex_lock(&f->mu);
    while (f->posted == seen && !f->quit) pthread_cond_wait(&f->posted_cv, &f->mu);
    seen = f->posted;
    if (f->quit) { pthread_mutex_unlock(&f->mu); break; }
    pthread_mutex_unlock(&f->mu);
    atomic_fetch_add(&f->ready, 1);
    while (atomic_load_explicit(&f->go, memory_order_acquire) != seen) sched_yield();
    return_share(f, c->id);
    f->end[c->id] = now_ns();
    pthread_mutex_lock(&f->mu);
    if (++f->done == f->n) pthread_cond_signal(&f->done_cv);
    pthread_mutex_unlock(&f->mu);
  }
  sp_shared_pool_release_thread();
  return NULL;
}

/* Starts the consumers on f->bufs and waits for them; returns the ns from
** the start signal to the last consumer's last return. */
static uint64_t run_consumers(fanout *f) {
  uint64_t t0, last = 0;
  unsigned round;
  atomic_store(&f->ready, 0);
  pthread_mutex_lock(&f->mu);
  f->done = 0;
  round = ++f->posted;
  pthread_cond_broadcast(&f->posted_cv);
  pthread_mutex_unlock(&f->mu);
  while (atomic_load(&f->ready) < f->n) sched_yield();
  t0 = now_ns();
  atomic_store_explicit(&f->go, round, memory_order_release);
  pthread_mutex_lock(&f->mu);
  while (f->done < f->n) pthread_cond_wait(&f->done_cv, &f->mu);
  pthread_mutex_unlock(&f->mu);
  for (int i = 0; i < f->n; i++) if (f->end[i] > last) last = f->end[i];
  return last - t0;
}

/* ---- one round of each row ---------------------------------------------- */

static void rent_all(fanout *f, sp_pool *pool) {
  for (size_t i = 0; i < f->count; i++) {
    size_t cap = 0;
    unsigned char *b = pool ? sp_pool_rent(pool, BUF, &cap) : sp_malloc(BUF);
    if (b == NULL || (pool && cap != BUF)) die("out of memory");
    b[i % BUF] = (unsigned char)i;          /* touch it, as a producer would */
    f->bufs[i] = b;
  }
  f->pool = pool;
}

static uint64_t round_fanout(fanout *f, sp_pool *pool) {
  rent_all(f, pool);
  return run_consumers(f);
}

/* The thread slot always hits: rent and return on the producer itself. */
static uint64_t round_ceiling(fanout *f, sp_pool *shared) {
  uint64_t t0 = now_ns();
  for (size_t i = 0; i < f->count; i++) {
    size_t cap = 0;
    unsigned char *b = sp_pool_rent(shared, BUF, &cap);
    if (b == NULL) die("out of memory");
    b[i % BUF] = (unsigned char)i;
    if (sp_pool_return(shared, b, cap) != 0) die("a return was refused");
  }
  return now_ns() - t0;
}

/* ---- report ------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static double median(uint64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_u64);
  return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

static void print_header(int rounds, size_t count, int cpus) {
  printf("pool fan-out (seeds/003): 1 producer rents 4 KiB buffers, N consumers return them\n");
  printf("%zu returns per round, rented outside the timed region; %d interleaved rounds after"
         " a warm-up; medians; %d CPUs\n", count, rounds, cpus);
  printf("document (.NET 10, BenchmarkDotNet, 20,000 cross-thread returns): lock-free queue pool"
         " ~126 us vs same-thread ceiling ~115 us (1.10x);\n"
         "          no pooling ~18x slower than pooling (there: GC, 134 gen1 collections in 10 s)\n");
  printf("x ceiling: this row's median / the ceiling's (1.00 = as fast as a thread-slot hit);"
         " x shared: the shared row's median / this row's\n");
  printf("shared keeps 1 array per thread + 32 per CPU partition, so most of the %zu returns"
         " lock every partition, find it full and free the buffer (drops)\n\n", count);
  printf("%3s  %-9s %10s %10s %12s %10s %9s   %s\n", "N", "row", "us/round", "ns/return",
         "M returns/s", "x ceiling", "x shared", "per round: fresh / drops / lock waits");
}

typedef struct tally { uint64_t fresh, drops, lock_waits; } tally;

static tally tally_of(sp_pool *p) {
  sp_pool_stats s;
  tally t;
  sp_pool_stats_get(p, &s);
  t.fresh = s.fresh;
  t.drops = s.drops;
  t.lock_waits = s.lock_waits;
  return t;
}

static void print_rows(int n, uint64_t ns[NROWS][MAX_ROUNDS], int rounds, size_t count,
                       tally per[NROWS]) {
  double med[NROWS];
  for (int r = 0; r < NROWS; r++) med[r] = median(ns[r], rounds);
  char nbuf[8];
  snprintf(nbuf, sizeof nbuf, "%d", n);
  for (int r = 0; r < NROWS; r++) {
    printf("%3s  %-9s %10.1f %10.2f %12.1f %10.2f %9.2f", r == 0 ? nbuf : "", row_name[r],
           med[r] / 1e3, med[r] / (double)count, (double)count / med[r] * 1e3,
           med[r] / med[CEILING], med[SHARED] / med[r]);
    if (r != NOPOOL)
      printf("   %.0f / %.0f / %.0f", (double)per[r].fresh / rounds, (double)per[r].drops / rounds,
             (double)per[r].lock_waits / rounds);
    printf("\n");
  }
}

/* ---- main --------------------------------------------------------------- */

static void start_consumers(fanout *f, pthread_t *t, consumer *c) {
  for (int i = 0; i < f->n; i++) {
    c[i].f = f;
    c[i].id = i;
    if (pthread_create(&t[i], NULL, consumer_main, &c[i]) != 0) die("pthread_create failed");
  }
}

static void stop_consumers(fanout *f, pthread_t *t) {
  pthread_mutex_lock(&f->mu);
  f->quit = 1;
  pthread_cond_broadcast(&f->posted_cv);
  pthread_mutex_unlock(&f->mu);
  for (int i = 0; i < f->n; i++) pthread_join(t[i], NULL);
}

/* One round of row r; returns its time and adds its pool's counter deltas. */
static uint64_t run_row(int r, fanout *f, sp_pool *pools[NROWS], tally *acc) {
  tally before = {0, 0, 0}, after;
  uint64_t ns;
  if (pools[r]) before = tally_of(pools[r]);
  ns = r == CEILING ? round_ceiling(f, pools[r]) : round_fanout(f, pools[r]);
  if (pools[r] && acc) {
    after = tally_of(pools[r]);
    acc->fresh += after.fresh - before.fresh;
    acc->drops += after.drops - before.drops;
    acc->lock_waits += after.lock_waits - before.lock_waits;
  }
  return ns;
}

static void bench_n(int n, int rounds, size_t count) {
  static uint64_t ns[NROWS][MAX_ROUNDS];
  tally per[NROWS];
  sp_pool *pools[NROWS];
  pthread_t t[MAX_CONSUMERS];
  consumer c[MAX_CONSUMERS];
  fanout f;
  memset(&f, 0, sizeof f);
  memset(per, 0, sizeof per);
  f.n = n;
  f.count = count;
  if ((f.bufs = malloc(count * sizeof *f.bufs)) == NULL) die("out of memory");
  pthread_mutex_init(&f.mu, NULL);
  pthread_cond_init(&f.posted_cv, NULL);
  pthread_cond_init(&f.done_cv, NULL);
  pools[SHARED] = sp_shared_pool_create(0, 0);
  pools[LOCKFREE] = sp_lockfree_pool_create(BUF, 32768);
  pools[CEILING] = sp_shared_pool_create(0, 0);
  pools[NOPOOL] = NULL;
  if (!pools[SHARED] || !pools[LOCKFREE] || !pools[CEILING]) die("pool creation failed");
  start_consumers(&f, t, c);
  for (int r = 0; r < NROWS; r++) run_row(r, &f, pools, NULL);   /* warm-up */
  for (int k = 0; k < rounds; k++)
    for (int j = 0; j < NROWS; j++) {
      int r = (j + k) % NROWS;
      ns[r][k] = run_row(r, &f, pools, &per[r]);
    }
  stop_consumers(&f, t);
  print_rows(n, ns, rounds, count, per);
  for (int r = 0; r < NROWS; r++) sp_pool_destroy(pools[r]);
  pthread_cond_destroy(&f.done_cv);
  pthread_cond_destroy(&f.posted_cv);
  pthread_mutex_destroy(&f.mu);
  free(f.bufs);
}

int main(void) {
  int rounds = (int)env_long("SP_FANOUT_ROUNDS", 21);
  size_t count = (size_t)env_long("SP_FANOUT_RETURNS", 20000);
  const char *list = getenv("SP_FANOUT_THREADS");
  char buf[128];
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
  snprintf(buf, sizeof buf, "%s", list && *list ? list : "1,2,4");
  print_header(rounds, count, (int)cpus);
  for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
    int n = atoi(tok);
    if (n < 1 || n > MAX_CONSUMERS) die("SP_FANOUT_THREADS: counts are 1..64");
    bench_n(n, rounds, count);
  }
  sp_shared_pool_release_thread();
  sp_shutdown();
  return 0;
}
