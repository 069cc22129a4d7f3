/*
** sp_flows_fanout.c -- flow 4: the pool fan-out of 003_*.txt, one renting
** thread and up to four returning ones on a shared, a lock-free or no
** pool, sampled per wave. Owns: its threads, waves and samples. Must not
** touch: pool internals (it rents and returns as any caller) or the trace
** store. The page's worker polls the samples and never blocks (the thread
** that runs the module must not wait on a lock or a join while its
** pthreads need it to answer).
*/
#include <string.h>

#include "sp_flows.h"

#ifndef SP_NO_THREADS
#include <pthread.h>
#include <sched.h>
#endif

#define FAN_WAVES 64
#define FAN_WAVE_MAX 2048           /* buffers in one wave */
#define FAN_SAMPLES (2 * FAN_WAVES + 1)
#define FAN_BUF 4096

enum { FAN_SHARED, FAN_LOCKFREE, FAN_NOPOOL };

static sp_flow_sample fan_samples[FAN_SAMPLES];
static atomic_int fan_nsamples;
static atomic_int fan_state;

const sp_flow_sample *sp_flow_fanout_samples(void) { return fan_samples; }
int sp_flow_fanout_count(void) { return atomic_load(&fan_nsamples); }
int sp_flow_fanout_state(void) { return atomic_load(&fan_state); }

#ifdef SP_NO_THREADS

int sp_flow_fanout_start(int kind, int consumers, const uint32_t *waves, int nwaves,
                         unsigned parts, unsigned per_part) {
  (void)kind; (void)consumers; (void)waves; (void)nwaves; (void)parts; (void)per_part;
  atomic_store(&fan_state, FAN_NO_THREADS);
  return FAN_NO_THREADS;
}
int sp_flow_fanout_finish(void) { return 0; }

#else

static struct {
  int kind;
  sp_pool *pool;                    /* NULL for FAN_NOPOOL: sp_malloc / sp_free */
  int consumers, nwaves;
  uint32_t waves[FAN_WAVES];
  void *bufs[FAN_WAVE_MAX];
  size_t caps[FAN_WAVE_MAX];
  uint32_t wave_n;                  /* buffers in the posted wave; under mu */
  unsigned posted;                  /* waves posted; under mu */
  int done, quit;                   /* under mu */
  pthread_mutex_t mu;               /* the flow's own lock, never the pool's */
  pthread_cond_t cv;
  atomic_uint returned[FAN_CONSUMERS];
  atomic_uint return_ns;            /* summed over the consumers' return loops */
  atomic_uint nopool_rents, nopool_returns;
  atomic_int alive;                 /* threads not yet finished */
  atomic_int ready;                 /* consumers at the start line, over all waves */
  double t0;
} fan = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

/* The counters of the run's pool; without a pool, the flow's own: every
** rent is a fresh array and every return frees one (counted as a drop). */
static void fan_stats(sp_pool_stats *st) {
  if (fan.pool != NULL) {
    sp_pool_stats_get(fan.pool, st);
    return;
  }
  memset(st, 0, sizeof *st);
  st->rents = st->fresh = atomic_load(&fan.nopool_rents);
  st->returns = st->drops = atomic_load(&fan.nopool_returns);
}

/* Taken by the producer only at the ends of a phase, while the consumers
** wait: reading the pool's stats takes its locks, and a sample taken while
** they return would add lock waits of its own. */
static void sample(uint32_t phase, uint32_t wave, uint32_t in_flight, double phase_ms) {
  int i = atomic_load(&fan_nsamples);
  sp_flow_sample *s = &fan_samples[i];
  sp_pool_stats st;
  if (i >= FAN_SAMPLES) return;
  fan_stats(&st);
  memset(s, 0, sizeof *s);
  s->phase = phase;
  s->wave = wave;
  s->t_us = (uint32_t)((sp_flows_now_ms() - fan.t0) * 1e3);
  s->in_flight = in_flight;
  s->rents = (uint32_t)st.rents;
  s->returns = (uint32_t)st.returns;
  s->slot_hits = (uint32_t)st.slot_hits;
  s->partition_hits = (uint32_t)st.partition_hits;
  s->lock_waits = (uint32_t)st.lock_waits;
  s->fresh = (uint32_t)st.fresh;
  s->drops = (uint32_t)st.drops;
  s->cached = (uint32_t)st.cached;
  s->return_ns = atomic_load(&fan.return_ns);
  s->phase_us = (uint32_t)(phase_ms * 1e3);
  s->kind = (uint32_t)fan.kind;
  s->consumers = (uint32_t)fan.consumers;
  for (int c = 0; c < fan.consumers; c++) s->returned[c] = atomic_load(&fan.returned[c]);
  atomic_store(&fan_nsamples, i + 1);            /* publishes the row to the page */
}

static void thread_done(void) {
  if (atomic_fetch_sub(&fan.alive, 1) == 1) atomic_store(&fan_state, FAN_DONE);
}

static void *fan_rent(size_t *cap) {
  if (fan.pool != NULL) return sp_pool_rent(fan.pool, FAN_BUF, cap);
  atomic_fetch_add(&fan.nopool_rents, 1);
  *cap = FAN_BUF;
  return sp_malloc(FAN_BUF);
}

static void fan_return(void *buf, size_t cap) {
  if (fan.pool != NULL) {
    sp_pool_return(fan.pool, buf, cap);
    return;
  }
  sp_free(buf, cap);
  atomic_fetch_add(&fan.nopool_returns, 1);
}

/* The one renting thread (the document's broadcaster): rents a wave, deals
** it out round-robin, waits until every buffer came back. */
static void *producer(void *arg) {
  (void)arg;
  for (int w = 0; w < fan.nwaves; w++) {
    uint32_t n = fan.waves[w];
    double t = sp_flows_now_ms();
    for (uint32_t k = 0; k < n; k++) {
      fan.bufs[k] = fan_rent(&fan.caps[k]);
      if (fan.bufs[k] != NULL) ((uint8_t *)fan.bufs[k])[0] = (uint8_t)k;   /* used, as a message would */
    }
    sample(1, (uint32_t)w, n, sp_flows_now_ms() - t);
    t = sp_flows_now_ms();
    pthread_mutex_lock(&fan.mu);
    fan.wave_n = n;
    fan.done = 0;
    fan.posted++;
    pthread_cond_broadcast(&fan.cv);
    while (fan.done < fan.consumers) pthread_cond_wait(&fan.cv, &fan.mu);
    pthread_mutex_unlock(&fan.mu);
    sample(2, (uint32_t)w, 0, sp_flows_now_ms() - t);
  }
  pthread_mutex_lock(&fan.mu);
  fan.quit = 1;
  pthread_cond_broadcast(&fan.cv);
  pthread_mutex_unlock(&fan.mu);
  thread_done();
  return NULL;
}

/* The consumers wait for each other before returning a wave, so that their
** returns overlap as the document's connections do (a condition variable
** wakes them one by one, and alone each would find every lock free). */
static void start_line(unsigned wave) {
  atomic_fetch_add(&fan.ready, 1);
  while (atomic_load(&fan.ready) < (int)wave * fan.consumers) sched_yield();
}

/* Returns consumer c's share of a wave of n and adds the time the loop took
** to fan.return_ns: the clock is read after the start line and after the
** last return, so waking up is not in it (the document's benchmark timed
** the returns alone too). */
static void return_share(int c, uint32_t n) {
  unsigned count = 0;
  double t0 = sp_flows_now_ms();
  for (uint32_t k = (uint32_t)c; k < n; k += (uint32_t)fan.consumers, count++)
    fan_return(fan.bufs[k], fan.caps[k]);
  atomic_fetch_add(&fan.return_ns, (unsigned)((sp_flows_now_ms() - t0) * 1e6));
  atomic_fetch_add(&fan.returned[c], count);      /* once: a shared counter in the loop would be timed too */
}

/* A returning thread (the document's per-connection consume loop): returns
** its share of each wave, buffers it never rented. */
static void *consumer(void *arg) {
  int c = (int)(intptr_t)arg;
  unsigned seen = 0;
  for (;;) {
    uint32_t n;
    pthread_mutex_lock(&fan.mu);
    while (fan.posted == seen && !fan.quit) pthread_cond_wait(&fan.cv, &fan.mu);
    if (fan.posted == seen) { pthread_mutex_unlock(&fan.mu); break; }
    seen = fan.posted;
    n = fan.wave_n;
    pthread_mutex_unlock(&fan.mu);
    start_line(seen);
    return_share(c, n);
    pthread_mutex_lock(&fan.mu);
    fan.done++;
    pthread_cond_broadcast(&fan.cv);
    pthread_mutex_unlock(&fan.mu);
  }
  thread_done();                    /* its slot arrays go back at thread exit */
  return NULL;
}

static int start_thread(void *(*fn)(void *), void *arg) {
  pthread_t id;
  if (pthread_create(&id, NULL, fn, arg) != 0) return 0;
  pthread_detach(id);
  return 1;
}

/* Lets the consumers already started go (they wait for a wave that never
** comes) and marks the run failed. */
static int start_failed(int not_started) {
  pthread_mutex_lock(&fan.mu);
  fan.quit = 1;
  pthread_cond_broadcast(&fan.cv);
  pthread_mutex_unlock(&fan.mu);
  atomic_fetch_sub(&fan.alive, not_started);
  atomic_store(&fan_state, FAN_FAILED);
  return -3;
}

/* Resets the run's state for 'consumers' threads and 'nwaves' waves. */
static void fan_reset(int kind, int consumers, int nwaves) {
  fan.kind = kind;
  fan.consumers = consumers;
  fan.nwaves = nwaves;
  fan.posted = 0;
  fan.done = fan.quit = 0;
  atomic_store(&fan.ready, 0);
  atomic_store(&fan.return_ns, 0);
  atomic_store(&fan.nopool_rents, 0);
  atomic_store(&fan.nopool_returns, 0);
  for (int c = 0; c < FAN_CONSUMERS; c++) atomic_store(&fan.returned[c], 0);
  atomic_store(&fan_nsamples, 0);
}

/* Starts the fan-out on pool 'kind' (0: shared, 'parts' partitions of
** 'per_part' arrays; 1: lock-free, a queue of parts * per_part arrays; 2: no
** pool, sp_malloc and sp_free) with 'consumers' returning threads and the
** given wave sizes. Returns at once: 0 started, -1 busy / bad arguments / no
** pool, -3 threads could not start (the module's pthread pool is too
** small). */
int sp_flow_fanout_start(int kind, int consumers, const uint32_t *waves, int nwaves,
                         unsigned parts, unsigned per_part) {
  int st = atomic_load(&fan_state);
  if (st == FAN_RUNNING || atomic_load(&fan.alive) > 0 || fan.pool != NULL) return -1;
  if (kind < FAN_SHARED || kind > FAN_NOPOOL) return -1;
  if (consumers < 1 || consumers > FAN_CONSUMERS || nwaves < 1 || nwaves > FAN_WAVES) return -1;
  for (int w = 0; w < nwaves; w++) {
    if (waves[w] > FAN_WAVE_MAX) return -1;
    fan.waves[w] = waves[w];
  }
  fan.pool = kind == FAN_SHARED ? sp_shared_pool_create(parts, per_part)
             : kind == FAN_LOCKFREE ? sp_lockfree_pool_create(FAN_BUF, parts * per_part) : NULL;
  if (kind != FAN_NOPOOL && fan.pool == NULL) return -1;
  fan_reset(kind, consumers, nwaves);
  fan.t0 = sp_flows_now_ms();
  atomic_store(&fan_state, FAN_RUNNING);
  atomic_store(&fan.alive, consumers + 1);
  for (int c = 0; c < consumers; c++)
    if (!start_thread(consumer, (void *)(intptr_t)c)) return start_failed(consumers - c + 1);
  if (!start_thread(producer, NULL)) return start_failed(1);
  return 0;
}

/* Destroys the run's pool once every thread of it has finished. Returns 1
** when done (or nothing to do), 0 while threads still run. */
int sp_flow_fanout_finish(void) {
  if (atomic_load(&fan.alive) > 0) return 0;
  sp_pool_destroy(fan.pool);
  fan.pool = NULL;
  if (atomic_load(&fan_state) == FAN_FAILED) atomic_store(&fan_state, FAN_IDLE);
  return 1;
}

#endif
