/*
** sp_flows.c -- the page's flows, run in the real module with tracing on.
** Owns: the trace store the page reads (events and the bytes they point
** into), the last flow's result, the documents' values (the writer's two
** cases, Outer/Envelope, the small and the big object), the per-entry
** allocation measurements and the pool fan-out (its threads, waves and
** samples). Must not touch: encodings or pool internals -- it uses the public
** API only, as any caller of the library would.
**
** Built into the page's own module (dist-web/), never into the published
** ones. JS (web/trace.js) calls one sp_flow_* run, then reads the trace
** through the accessors: events are sp_trace_event (40 bytes each, the layout pinned
** by the assert below), bytes are the trace's byte store. Every run happens
** on the calling thread except the fan-out, which starts its own pthreads
** and returns at once; the page's worker polls its samples and never blocks
** (the thread that runs the module must not wait on a lock or a join while
** its pthreads need it to answer).
*/
#include <emscripten.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scratchpack.h"
#include "sp_trace.h"

#ifndef SP_NO_THREADS
#include <pthread.h>
#include <sched.h>
#endif

#define EXPORT EMSCRIPTEN_KEEPALIVE

_Static_assert(sizeof(sp_trace_event) == 40 && offsetof(sp_trace_event, index) == 4 &&
               offsetof(sp_trace_event, data) == 8 && offsetof(sp_trace_event, thread) == 12 &&
               offsetof(sp_trace_event, offset) == 16 && offsetof(sp_trace_event, size) == 24 &&
               offsetof(sp_trace_event, addr) == 32,
               "web/trace.js reads events at these offsets");

/* ---- the trace store and the last result --------------------------------- */

#define EVENTS_CAP 16384
#define BYTES_CAP (2u << 20)        /* the 64 KiB cases write ~66 KB; the big object 100 KB */
#define RESULT_CAP (256u << 10)

static sp_trace_event events[EVENTS_CAP];
static uint8_t bytes[BYTES_CAP];
static sp_trace trace;
static uint8_t result[RESULT_CAP];  /* static: keeping a result must not count as allocation */
static size_t result_len;
static char message[256];

EXPORT const sp_trace_event *sp_flow_events(void) { return events; }
EXPORT size_t sp_flow_event_count(void) { return trace.nevents; }
EXPORT const uint8_t *sp_flow_bytes(void) { return bytes; }
EXPORT size_t sp_flow_byte_count(void) { return trace.nbytes; }
EXPORT int sp_flow_overflow(void) { return trace.overflow; }
EXPORT const uint8_t *sp_flow_result(void) { return result; }
EXPORT size_t sp_flow_result_len(void) { return result_len; }
EXPORT const char *sp_flow_message(void) { return message; }

/* A fresh trace that the entries given 'opt' record into. */
static void trace_start(sp_options *opt) {
  sp_trace_init(&trace, events, EVENTS_CAP, bytes, BYTES_CAP);
  opt->observer = &trace.observer;
}

/* Copies a result out (cut at RESULT_CAP; the page shows its length). */
static void keep(const uint8_t *p, size_t n) {
  result_len = n < RESULT_CAP ? n : RESULT_CAP;
  if (result_len) memcpy(result, p, result_len);
}

static void keep_bytes(sp_bytes *b) {
  keep(b->data, b->len);
  sp_bytes_free(b);
}

/* ---- flow 1: the to_array writer's two modes ------------------------------ */

typedef struct writer_case {
  int nints;                        /* [1, 2, .. nints, s] */
  const char *s;
  size_t len;
} writer_case;

/* Each leaf reserves exactly its size, as MessagePack-CSharp's writer does
** (GetSpan(1) for a fixint). scratchpack's value formatter reserves the worst
** case (9 B for any int), which an 8-byte scratch could never hold; the
** document draws 8 cells, so the page's formatter writes exactly. */
static int format_writer_case(sp_writer *w, const void *value) {
  const writer_case *v = value;
  uint8_t leaf[9];
  sp_write_raw(w, leaf, sp_put_header(leaf, (uint32_t)v->nints + 1, 0x90, 15, 0xdc));
  for (int i = 1; i <= v->nints; i++) sp_write_raw(w, leaf, sp_put_int(leaf, i));
  sp_write_str(w, v->s, v->len);
  return 0;
}

/* [1 .. nints, s] through to_array with a scratch of scratch_size bytes.
** One untraced call first: the document's thread "already called once", so
** the traced call finds its scratch and a warm pool. Returns the sp_code. */
EXPORT int sp_flow_writer(int nints, const char *s, size_t len, size_t scratch_size) {
  writer_case v = {nints, s, len};
  sp_options opt;
  sp_bytes out;
  sp_code code;
  memset(&opt, 0, sizeof opt);
  opt.scratch_size = scratch_size;
  sp_to_array(format_writer_case, &v, &opt, &out, NULL);
  sp_bytes_free(&out);
  trace_start(&opt);
  code = sp_to_array(format_writer_case, &v, &opt, &out, NULL);
  keep_bytes(&out);
  return (int)code;
}

/* ---- flow 2: the envelope formatter's nested to_array --------------------- */

typedef struct envelope {
  sp_value items[3];                /* Small {Id, Name, 1.5} with int keys */
  sp_value small;
  const sp_options *opt;            /* options of the nested call */
} envelope;

typedef struct outer {
  envelope env;
  sp_value items[3];                /* Outer {Before, Inner, After = 99} */
  sp_value root;
} outer;

/* The document's EnvelopeFormatter: the child through the byte-array entry,
** then written as bin -- the call that overwrites a busy scratch. */
static int format_envelope(sp_writer *w, const void *value) {
  const envelope *e = value;
  sp_bytes inner;
  sp_error err;
  if (sp_to_array(sp_format_value, &e->small, e->opt, &inner, &err) != SP_OK) return (int)err.code;
  sp_write_bin(w, inner.data, inner.len);
  sp_bytes_free(&inner);
  return 0;
}

static void outer_init(outer *o, const char *before, size_t before_len, int32_t id,
                       const char *name, size_t name_len, const sp_options *inner_opt) {
  o->env.items[0] = sp_int(id);
  o->env.items[1] = sp_strn(name, name_len);
  o->env.items[2] = sp_double(1.5);
  o->env.small = sp_array(o->env.items, 3);
  o->env.opt = inner_opt;
  o->items[0] = sp_strn(before, before_len);
  o->items[1] = sp_custom(format_envelope, &o->env);
  o->items[2] = sp_int(99);
  o->root = sp_array(o->items, 3);
}

enum { OUTER_ARRAY_LEGACY, OUTER_OUTPUT, OUTER_ARRAY_SAFE };

static sp_buffer abw;               /* the caller's reused buffer writer */

static sp_code run_outer(int mode, const outer *o, const sp_options *opt) {
  sp_bytes out;
  sp_code code;
  if (mode == OUTER_OUTPUT) {
    sp_output sink = sp_buffer_output(&abw);
    sp_buffer_clear(&abw);
    code = sp_to_output(&sink, sp_format_value, &o->root, opt, NULL);
    keep(abw.data, abw.len);
    return code;
  }
  code = sp_to_array(sp_format_value, &o->root, opt, &out, NULL);
  keep_bytes(&out);
  return code;
}

/* Outer {before, Envelope(Small{id, name, 1.5}), 99} with the outer entry of
** 'mode'. The legacy modes are MessagePack-CSharp's behaviour (the nested
** call takes the scratch even while it is held); the safe mode is
** scratchpack's default. Returns the sp_code. */
EXPORT int sp_flow_envelope(int mode, const char *before, size_t before_len, int32_t id,
                            const char *name, size_t name_len, size_t scratch_size) {
  sp_options opt;
  outer o;
  memset(&opt, 0, sizeof opt);
  opt.scratch_size = scratch_size;
  opt.legacy_nested_scratch = mode != OUTER_ARRAY_SAFE;
  outer_init(&o, before, before_len, id, name, name_len, &opt);
  run_outer(mode, &o, &opt);                       /* warm: scratch, pools, abw */
  trace_start(&opt);                               /* the nested call's options too */
  return (int)run_outer(mode, &o, &opt);
}

/* Reads the last result back as Outer {str, bin([int, str, double]), int},
** as a typed deserializer would. Returns 1 when it reads; the message says
** what was read, or where and why reading failed. */
EXPORT int sp_flow_check_outer(void) {
  sp_reader r, ir;
  uint32_t n = 0, len = 0, blen = 0, nlen = 0;
  const char *before = NULL, *name = NULL;
  const uint8_t *bin = NULL;
  int64_t after = 0, id = 0;
  double x = 0;
  const char *where = "";
  sp_reader_init(&r, result, result_len);
  if (sp_read_array_header(&r, &n) && n == 3 && sp_read_str(&r, &before, &len) &&
      sp_read_bin(&r, &bin, &blen) && sp_read_int64(&r, &after)) {
    sp_reader_init(&ir, bin, blen);
    if (sp_read_array_header(&ir, &n) && n == 3 && sp_read_int64(&ir, &id) &&
        sp_read_str(&ir, &name, &nlen) && sp_read_double(&ir, &x)) {
      snprintf(message, sizeof message, "Before=\"%.*s\" Inner.Id=%lld Inner.Name=\"%.*s\" After=%lld",
               (int)(len < 40 ? len : 40), before, (long long)id, (int)(nlen < 40 ? nlen : 40),
               name, (long long)after);
      return 1;
    }
    r = ir;
    where = "Inner's bin, ";
  }
  if (r.err.code == SP_OK) sp_reader_fail(&r, SP_E_TYPE, "not an Outer of 3 fields", __func__);
  snprintf(message, sizeof message, "%s at %sbyte %zu: %s", sp_code_name(r.err.code), where,
           r.err.offset, r.err.cause ? r.err.cause : "");
  return 0;
}

/* ---- flow 3: the three entries' allocation per call ----------------------- */

enum { ENTRY_ARRAY, ENTRY_OUTPUT, ENTRY_STREAM };

static sp_value small_items[3], small_value, big_items[2], big_value;
static char big_text[100000];       /* static: building the value allocates nothing */

/* The documents' objects: Small {7, "inner", 1.5} (17 B) and [1, "A" x
** 100,000] (100,007 B). */
static const sp_value *document_value(int big) {
  if (big_text[0] == 0) {
    memset(big_text, 'A', sizeof big_text);
    small_items[0] = sp_int(7);
    small_items[1] = sp_str("inner");
    small_items[2] = sp_double(1.5);
    small_value = sp_array(small_items, 3);
    big_items[0] = sp_int(1);
    big_items[1] = sp_strn(big_text, sizeof big_text);
    big_value = sp_array(big_items, 2);
  }
  return big ? &big_value : &small_value;
}

static size_t streamed;

/* The stream's sink: the document's MemoryStream, reused (SetLength(0)). */
static int stream_sink(void *ctx, const uint8_t *p, size_t n) {
  (void)ctx;
  if (streamed < RESULT_CAP) memcpy(result + streamed, p, n < RESULT_CAP - streamed ? n : RESULT_CAP - streamed);
  streamed += n;
  return 0;
}

/* One call of 'entry'; leaves its output in 'result'. */
static sp_code run_entry(int entry, const sp_value *v, const sp_options *opt) {
  sp_code code;
  sp_bytes out;
  if (entry == ENTRY_ARRAY) {
    code = sp_to_array(sp_format_value, v, opt, &out, NULL);
    keep_bytes(&out);
  } else if (entry == ENTRY_OUTPUT) {
    sp_output sink = sp_buffer_output(&abw);
    sp_buffer_clear(&abw);
    code = sp_to_output(&sink, sp_format_value, v, opt, NULL);
    keep(abw.data, abw.len);
  } else {
    streamed = 0;
    code = sp_to_stream(stream_sink, NULL, sp_format_value, v, opt, NULL);
    result_len = streamed < RESULT_CAP ? streamed : RESULT_CAP;
  }
  return code;
}

/* One traced call of 'entry' on the small (big = 0) or big object, after
** one warm-up call. Returns the sp_code. */
EXPORT int sp_flow_entry(int entry, int big) {
  const sp_value *v = document_value(big);
  sp_options opt;
  memset(&opt, 0, sizeof opt);
  run_entry(entry, v, &opt);
  trace_start(&opt);
  return (int)run_entry(entry, v, &opt);
}

/* performance.now() in ms, on any thread of the module. */
static double now_ms(void) { return emscripten_get_now(); }

/* The document's method: 'warm' calls, then the mean over 'n' calls, read
** from this thread's allocation counters. out[0] bytes allocated per call,
** out[1] allocations per call, out[2] the output's length, out[3] µs per
** call. Returns the sp_code of the last call. */
EXPORT int sp_flow_measure(int entry, int big, int warm, int n, double *out) {
  const sp_value *v = document_value(big);
  sp_alloc_stats s;
  sp_code code = SP_OK;
  double t0;
  for (int i = 0; i < warm; i++) run_entry(entry, v, NULL);
  sp_alloc_stats_reset();
  t0 = now_ms();
  for (int i = 0; i < n && code == SP_OK; i++) code = run_entry(entry, v, NULL);
  out[3] = (now_ms() - t0) * 1e3 / (n > 0 ? n : 1);
  sp_alloc_stats_get(&s);
  out[0] = n > 0 ? (double)s.alloc_bytes / n : 0;
  out[1] = n > 0 ? (double)s.alloc_calls / n : 0;
  out[2] = (double)result_len;
  return (int)code;
}

/* ---- flow 4: the pool fan-out of 003_*.txt -------------------------------- */

#define FAN_CONSUMERS 4             /* at most */
#define FAN_WAVES 64
#define FAN_WAVE_MAX 2048           /* buffers in one wave */
#define FAN_SAMPLES (2 * FAN_WAVES + 1)
#define FAN_BUF 4096

enum { FAN_SHARED, FAN_LOCKFREE, FAN_NOPOOL };

/* One sample: 20 uint32 so JS reads it as a row of HEAPU32. Counters are
** cumulative since the start of the run. */
typedef struct fan_sample {
  uint32_t phase;                   /* 1 = the wave was rented, 2 = it came back */
  uint32_t wave, t_us, in_flight;
  uint32_t rents, returns, slot_hits, partition_hits, lock_waits, fresh, drops, cached;
  uint32_t return_ns;               /* time the consumers spent inside their return
                                       loops, summed over them: no wake-up in it */
  uint32_t phase_us;                /* this phase as the producer saw it, wake-ups included */
  uint32_t kind, consumers;
  uint32_t returned[FAN_CONSUMERS]; /* returns so far, per consumer */
} fan_sample;
_Static_assert(sizeof(fan_sample) == 80, "web/trace.js reads samples as 20 uint32");

enum { FAN_IDLE, FAN_RUNNING, FAN_DONE, FAN_FAILED = -1, FAN_NO_THREADS = -2 };

static fan_sample fan_samples[FAN_SAMPLES];
static atomic_int fan_nsamples;
static atomic_int fan_state;

EXPORT const fan_sample *sp_flow_fanout_samples(void) { return fan_samples; }
EXPORT int sp_flow_fanout_count(void) { return atomic_load(&fan_nsamples); }
EXPORT int sp_flow_fanout_state(void) { return atomic_load(&fan_state); }

#ifdef SP_NO_THREADS

EXPORT int sp_flow_fanout_start(int kind, int consumers, const uint32_t *waves, int nwaves,
                                unsigned parts, unsigned per_part) {
  (void)kind; (void)consumers; (void)waves; (void)nwaves; (void)parts; (void)per_part;
  atomic_store(&fan_state, FAN_NO_THREADS);
  return FAN_NO_THREADS;
}
EXPORT int sp_flow_fanout_finish(void) { return 0; }

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
  fan_sample *s = &fan_samples[i];
  sp_pool_stats st;
  if (i >= FAN_SAMPLES) return;
  fan_stats(&st);
  memset(s, 0, sizeof *s);
  s->phase = phase;
  s->wave = wave;
  s->t_us = (uint32_t)((now_ms() - fan.t0) * 1e3);
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
    double t = now_ms();
    for (uint32_t k = 0; k < n; k++) {
      fan.bufs[k] = fan_rent(&fan.caps[k]);
      if (fan.bufs[k] != NULL) ((uint8_t *)fan.bufs[k])[0] = (uint8_t)k;   /* used, as a message would */
    }
    sample(1, (uint32_t)w, n, now_ms() - t);
    t = now_ms();
    pthread_mutex_lock(&fan.mu);
    fan.wave_n = n;
    fan.done = 0;
    fan.posted++;
    pthread_cond_broadcast(&fan.cv);
    while (fan.done < fan.consumers) pthread_cond_wait(&fan.cv, &fan.mu);
    pthread_mutex_unlock(&fan.mu);
    sample(2, (uint32_t)w, 0, now_ms() - t);
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
  double t0 = now_ms();
  for (uint32_t k = (uint32_t)c; k < n; k += (uint32_t)fan.consumers, count++)
    fan_return(fan.bufs[k], fan.caps[k]);
  atomic_fetch_add(&fan.return_ns, (unsigned)((now_ms() - t0) * 1e6));
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
EXPORT int sp_flow_fanout_start(int kind, int consumers, const uint32_t *waves, int nwaves,
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
  fan.t0 = now_ms();
  atomic_store(&fan_state, FAN_RUNNING);
  atomic_store(&fan.alive, consumers + 1);
  for (int c = 0; c < consumers; c++)
    if (!start_thread(consumer, (void *)(intptr_t)c)) return start_failed(consumers - c + 1);
  if (!start_thread(producer, NULL)) return start_failed(1);
  return 0;
}

/* Destroys the run's pool once every thread of it has finished. Returns 1
** when done (or nothing to do), 0 while threads still run. */
EXPORT int sp_flow_fanout_finish(void) {
  if (atomic_load(&fan.alive) > 0) return 0;
  sp_pool_destroy(fan.pool);
  fan.pool = NULL;
  if (atomic_load(&fan_state) == FAN_FAILED) atomic_store(&fan_state, FAN_IDLE);
  return 1;
}

#endif
