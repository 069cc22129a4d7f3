/*
** sp_wasm.c -- the one gate between JavaScript and the C core (Emscripten).
** Owns: jobs (one writer per encode in flight, and what it holds: the
** thread's scratch, a rented sequence, a flattened copy), growable output
** buffers, staging blocks JS copies typed arrays into, off-thread tasks and
** the worker threads that run them, the numbers behind stats(). Must not
** touch: encodings (JS writes values into the writer's span itself; C
** formats only bulk numeric arrays) or pool internals.
**
** The span protocol, seen from JS (js/sinks.js):
**   job = sp_wasm_job_new()            once per nesting level, reused
**   sp_wasm_begin_array(job, size)     the thread's scratch (to_array), or a
**                                      pooled sequence when the scratch is
**                                      held by an outer call or a live view
**   JS writes bytes at job->w.cur .. job->w.end (offsets 0 and 4 of the job)
**   store cur, sp_wasm_reserve(job, n) the slow path: migrate / next segment
**   store cur, sp_wasm_write_array()   a typed array through sp_bulk
**   sp_wasm_finish(job)                commit; then copy the scratch span or
**                                      the segments out, or sp_wasm_flatten
**   sp_wasm_release(job)               give the scratch / sequence back
** Every call that can fail returns an sp_code and leaves the error in the
** job's writer (sp_wasm_error_*); a failed job still must be released.
*/
#include <emscripten.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "scratchpack.h"
#include "sp_bulk.h"
#include "sp_scratch.h"

#ifndef SP_NO_THREADS
#include <emscripten/threading.h>
#include <pthread.h>
#endif

#define EXPORT EMSCRIPTEN_KEEPALIVE

typedef struct sp_wasm_job {
  sp_writer w;        /* first: JS reads and writes w.cur (+0), reads w.end (+4), w.base (+8) */
  sp_output out;      /* begin_buffer: the output the writer fills */
  uint8_t *flat;      /* flatten: a contiguous copy of a multi-segment result */
  size_t flat_len;
} sp_wasm_job;

_Static_assert(offsetof(sp_writer, cur) == 0 && offsetof(sp_writer, end) == 4 &&
               offsetof(sp_writer, base) == 8 && offsetof(sp_writer, mode) == 12 &&
               sizeof(sp_mode) == 4 && SP_MODE_SCRATCH == 0,
               "js/sinks.js reads the writer's cur, end, base and mode at 0, 4, 8, 12");

/* The sequence pool every job rents from: NULL (the process default) until
** sp_wasm_configure installs one of the caller's choosing. */
static sp_seq_pool *seq_pool;
static sp_pool *array_pool;

/* ---- jobs ---------------------------------------------------------------- */

/* A job for one nesting level of encodes. Owned by JS; free with
** sp_wasm_job_free after its last release. NULL on no memory. */
EXPORT sp_wasm_job *sp_wasm_job_new(void) {
  sp_wasm_job *job = sp_malloc(sizeof *job);
  if (job != NULL) {
    memset(job, 0, sizeof *job);
    sp_writer_init_sequence(&job->w, seq_pool);
  }
  return job;
}

EXPORT void sp_wasm_job_free(sp_wasm_job *job) { sp_free(job, sizeof *job); }

/* to_array: the scratch when this thread's is free, else a sequence -- the
** same choice sp_to_array makes, so a nested encode never overwrites the
** outer one and a live view over the scratch is never written over. */
EXPORT void sp_wasm_begin_array(sp_wasm_job *job, size_t scratch_size) {
  int fresh;
  sp_scratch *s = sp_scratch_acquire(scratch_size ? scratch_size : SP_SCRATCH_DEFAULT, 0, &fresh);
  if (s != NULL) {
    sp_writer_init_array(&job->w, s->data, s->size, seq_pool);
    job->w.scratch = s;
  } else {
    sp_writer_init_sequence(&job->w, seq_pool);
  }
  job->flat = NULL;
}

/* to_stream: always a pooled sequence. */
EXPORT void sp_wasm_begin_sequence(sp_wasm_job *job) {
  sp_writer_init_sequence(&job->w, seq_pool);
  job->flat = NULL;
}

/* to_output into a growable buffer C owns (encodeInto's bulk arrays). */
EXPORT void sp_wasm_begin_buffer(sp_wasm_job *job, sp_buffer *buf) {
  job->out = sp_buffer_output(buf);
  sp_writer_init_output(&job->w, &job->out);
  job->flat = NULL;
}

/* The slow path: at least n contiguous bytes at w.cur afterwards. JS stores
** its cursor into w.cur first. Returns 1, or 0 with the error in the job. */
EXPORT int sp_wasm_reserve(sp_wasm_job *job, size_t n) {
  return sp_writer_reserve_slow(&job->w, n) != NULL;
}

/* Commits what was written. Returns the job's sticky error code. */
EXPORT int sp_wasm_finish(sp_wasm_job *job) { return (int)sp_writer_flush(&job->w); }

/* Bytes written so far (a message is at most the 4 GiB of wasm32 memory). */
EXPORT uint32_t sp_wasm_length(const sp_wasm_job *job) {
  return (uint32_t)sp_writer_length(&job->w);
}

static size_t used_segments(const sp_sequence *s, size_t *last) {
  size_t count = 0;
  for (size_t i = 0; i < s->nsegs; i++)
    if (s->segs[i].used > 0) { count++; *last = i; }
  return count;
}

/* The finished message in one piece, for a view: the scratch span, the only
** used segment, or a copy of all segments (kept until release). NULL with
** SP_E_NOMEM in the job when the copy cannot be allocated. */
EXPORT uint8_t *sp_wasm_flatten(sp_wasm_job *job) {
  sp_writer *w = &job->w;
  size_t last = 0, len = (size_t)sp_writer_length(w);
  if (w->mode == SP_MODE_SCRATCH) return w->base;
  if (w->mode == SP_MODE_OUTPUT) return w->cur - len;
  if (w->seq == NULL || len == 0) return w->cur;
  if (used_segments(w->seq, &last) == 1) return w->seq->segs[last].data;
  if ((job->flat = sp_malloc(len)) == NULL) {
    sp_writer_fail(w, SP_E_NOMEM, "no memory for a contiguous view", __func__);
    return NULL;
  }
  job->flat_len = len;
  sp_seq_copy_to(w->seq, job->flat);
  return job->flat;
}

/* Gives back what the job holds. Safe to call twice. */
EXPORT void sp_wasm_release(sp_wasm_job *job) {
  sp_writer_release(&job->w);
  if (job->flat != NULL) sp_free(job->flat, job->flat_len);
  job->flat = NULL;
}

EXPORT size_t sp_wasm_seg_count(const sp_wasm_job *job) {
  return job->w.seq != NULL ? job->w.seq->nsegs : 0;
}
EXPORT uint8_t *sp_wasm_seg_data(const sp_wasm_job *job, size_t i) {
  return job->w.seq->segs[i].data;
}
EXPORT size_t sp_wasm_seg_used(const sp_wasm_job *job, size_t i) {
  return job->w.seq->segs[i].used;
}

EXPORT int sp_wasm_error_code(const sp_wasm_job *job) { return (int)job->w.err.code; }
EXPORT const char *sp_wasm_error_cause(const sp_wasm_job *job) {
  return job->w.err.cause ? job->w.err.cause : "";
}
EXPORT size_t sp_wasm_error_offset(const sp_wasm_job *job) { return job->w.err.offset; }

/* ---- bulk numeric arrays -------------------------------------------------- */

/* Element kinds, as js/typed.js numbers them. */
enum { K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_F32, K_F64, K_I64, K_U64 };

static void write_array(sp_writer *w, int kind, const void *src, size_t n) {
  switch (kind) {
    case K_I8: sp_write_i8_array(w, src, n); break;
    case K_U8: sp_write_u8_array(w, src, n); break;
    case K_I16: sp_write_i16_array(w, src, n); break;
    case K_U16: sp_write_u16_array(w, src, n); break;
    case K_I32: sp_write_i32_array(w, src, n); break;
    case K_U32: sp_write_u32_array(w, src, n); break;
    case K_F32: sp_write_f32_array(w, src, n); break;
    case K_F64: sp_write_f64_array(w, src, n); break;
    case K_I64: sp_write_i64_array(w, src, n); break;
    case K_U64: sp_write_u64_array(w, src, n); break;
    default: sp_writer_fail(w, SP_E_INVALID_ARGUMENT, "unknown array element kind", __func__);
  }
}

/* A whole array (header and elements) from n elements staged at src. JS
** stores its cursor into w.cur first and reads w.cur / w.end afterwards. */
EXPORT int sp_wasm_write_array(sp_wasm_job *job, int kind, const void *src, size_t n) {
  write_array(&job->w, kind, src, n);
  return (int)job->w.err.code;
}

/* Reads one array of 'kind' elements from src[0..len) into dst (room for
** cap elements) with the C reader (sp_bulk_read.c). Returns the bytes the
** array took, or 0 when it is not such an array (an element of another type
** or out of range, truncated, longer than cap): the JS decoder then reads
** it itself and reports any error with its own offsets. */
EXPORT size_t sp_wasm_read_array(int kind, const uint8_t *src, size_t len, void *dst, size_t cap) {
  sp_reader r;
  uint32_t n = 0;
  int ok;
  sp_reader_init(&r, src, len);
  switch (kind) {
    case K_I8: ok = sp_read_i8_array(&r, dst, cap, &n); break;
    case K_U8: ok = sp_read_u8_array(&r, dst, cap, &n); break;
    case K_I16: ok = sp_read_i16_array(&r, dst, cap, &n); break;
    case K_U16: ok = sp_read_u16_array(&r, dst, cap, &n); break;
    case K_I32: ok = sp_read_i32_array(&r, dst, cap, &n); break;
    case K_U32: ok = sp_read_u32_array(&r, dst, cap, &n); break;
    case K_F32: ok = sp_read_f32_array(&r, dst, cap, &n); break;
    case K_F64: ok = sp_read_f64_array(&r, dst, cap, &n); break;
    case K_I64: ok = sp_read_i64_array(&r, dst, cap, &n); break;
    case K_U64: ok = sp_read_u64_array(&r, dst, cap, &n); break;
    default: ok = 0;
  }
  return ok && n == cap ? (size_t)sp_reader_offset(&r) : 0;
}

/* ---- buffers and staging ------------------------------------------------- */

/* A growable buffer owned by JS; free with sp_wasm_buffer_free. */
EXPORT sp_buffer *sp_wasm_buffer_new(void) {
  sp_buffer *b = sp_malloc(sizeof *b);
  if (b != NULL) sp_buffer_init(b);
  return b;
}
EXPORT void sp_wasm_buffer_free(sp_buffer *b) {
  if (b == NULL) return;
  sp_buffer_free(b);
  sp_free(b, sizeof *b);
}
EXPORT uint8_t *sp_wasm_buffer_data(const sp_buffer *b) { return b->data; }
EXPORT size_t sp_wasm_buffer_len(const sp_buffer *b) { return b->len; }
EXPORT void sp_wasm_buffer_clear(sp_buffer *b) { sp_buffer_clear(b); }

/* A block for staging typed arrays, through the counted allocator. The
** caller frees it with sp_wasm_free(p, n). NULL on no memory. */
EXPORT void *sp_wasm_alloc(size_t n) { return sp_malloc(n ? n : 1); }
EXPORT void sp_wasm_free(void *p, size_t n) { sp_free(p, n ? n : 1); }

/* ---- configuration and numbers ------------------------------------------ */

/* Installs a pool of the given kind under a sequence pool of max_seq idle
** sequences, for every job begun afterwards. Kinds: 0 a bounded bucket pool
** (buckets up to a = max length, b arrays each), 1 a shared pool (a
** partitions of b arrays), 2 a lock-free pool (buckets up to a, b arrays
** each); sp_pool.h describes them. Call once, before any encode. Returns 0,
** SP_E_INVALID_ARGUMENT for an unknown kind or bad sizes, or SP_E_NOMEM. */
EXPORT int sp_wasm_configure(int kind, size_t a, unsigned b, unsigned max_seq) {
  sp_pool *arrays = NULL;
  sp_seq_pool *seqs;
  switch (kind) {
    case 0: arrays = sp_bucket_pool_create(a, b); break;
    case 1: arrays = sp_shared_pool_create((unsigned)a, b); break;
    case 2: arrays = sp_lockfree_pool_create(a, b); break;
    default: return SP_E_INVALID_ARGUMENT;
  }
  if (arrays == NULL) return SP_E_INVALID_ARGUMENT;
  if ((seqs = sp_seq_pool_create(max_seq, arrays)) == NULL) {
    sp_pool_destroy(arrays);
    return SP_E_NOMEM;
  }
  array_pool = arrays;
  seq_pool = seqs;
  return SP_OK;
}

static sp_seq_pool *current_seq_pool(void) {
  return seq_pool != NULL ? seq_pool : sp_seq_pool_default();
}

enum { ST_ALLOC = 0, ST_LIVE = 6, ST_POOL = 7, ST_SEQ = 18, ST_HEAP = 24, ST_COUNT = 26 };

/* Fills out[ST_COUNT]: the calling thread's allocation counters, live bytes,
** the array pool's and the sequence pool's counters, and malloc's own view
** of the heap (bytes in use, bytes obtained from the memory). Creates the
** default pools if no call has yet. */
EXPORT void sp_wasm_stats(double *out) {
  sp_alloc_stats a;
  sp_pool_stats p;
  sp_seq_pool_stats s;
  sp_seq_pool *sp = current_seq_pool();
  struct mallinfo mi;
  sp_alloc_stats_get(&a);
  out[ST_ALLOC + 0] = (double)a.alloc_calls;   out[ST_ALLOC + 1] = (double)a.alloc_bytes;
  out[ST_ALLOC + 2] = (double)a.free_calls;    out[ST_ALLOC + 3] = (double)a.free_bytes;
  out[ST_ALLOC + 4] = (double)a.unpooled_calls; out[ST_ALLOC + 5] = (double)a.unpooled_bytes;
  out[ST_LIVE] = (double)sp_alloc_live_bytes();
  memset(&p, 0, sizeof p);
  memset(&s, 0, sizeof s);
  if (sp != NULL) { sp_pool_stats_get(sp_seq_pool_arrays(sp), &p); sp_seq_pool_stats_get(sp, &s); }
  out[ST_POOL + 0] = (double)p.rents;        out[ST_POOL + 1] = (double)p.returns;
  out[ST_POOL + 2] = (double)p.slot_hits;    out[ST_POOL + 3] = (double)p.partition_hits;
  out[ST_POOL + 4] = (double)p.fallback_hits; out[ST_POOL + 5] = (double)p.lock_waits;
  out[ST_POOL + 6] = (double)p.fresh;        out[ST_POOL + 7] = (double)p.unpooled;
  out[ST_POOL + 8] = (double)p.drops;        out[ST_POOL + 9] = (double)p.trims;
  out[ST_POOL + 10] = (double)p.cached;
  out[ST_SEQ + 0] = (double)s.rents;  out[ST_SEQ + 1] = (double)s.returns;
  out[ST_SEQ + 2] = (double)s.fresh;  out[ST_SEQ + 3] = (double)s.drops;
  out[ST_SEQ + 4] = (double)s.lock_waits; out[ST_SEQ + 5] = (double)s.idle;
  mi = mallinfo();
  out[ST_HEAP + 0] = (double)mi.uordblks;
  out[ST_HEAP + 1] = (double)mi.arena;
}

EXPORT const char *sp_wasm_kernel(void) { return sp_bulk_i32_kernel(); }

/* ---- off-thread tasks ---------------------------------------------------- */

/* One numeric array encoded by sp_to_array on a worker thread. JS fills the
** input fields, submits it, waits on 'state' (Atomics.waitAsync) and reads
** the result; it owns the task and frees the result with sp_wasm_free. */
typedef struct sp_wasm_task {
  _Atomic int32_t state;     /* +0: 0 queued, 1 running, 2 done */
  atomic_int cancel;         /* +4: nonzero -> SP_E_CANCELLED */
  int32_t kind;              /* +8 */
  uint32_t n;                /* +12: elements */
  const void *src;           /* +16: staged elements (JS frees them after 'done') */
  uint8_t *result;           /* +20: exact-size message, or NULL */
  uint32_t result_len;       /* +24 */
  int32_t code;              /* +28: sp_code */
  const char *cause;         /* +32 */
  uint32_t scratch_size;     /* +36: 0 -> the default */
  struct sp_wasm_task *next; /* queue link */
} sp_wasm_task;

_Static_assert(offsetof(sp_wasm_task, cause) == 32 && offsetof(sp_wasm_task, scratch_size) == 36,
               "js/tasks.js reads the task at fixed offsets");

enum { TASK_QUEUED, TASK_RUNNING, TASK_DONE };

EXPORT sp_wasm_task *sp_wasm_task_new(void) {
  sp_wasm_task *t = sp_malloc(sizeof *t);
  if (t != NULL) memset(t, 0, sizeof *t);
  return t;
}
EXPORT void sp_wasm_task_free(sp_wasm_task *t) { sp_free(t, sizeof *t); }

static int format_task(sp_writer *w, const void *value) {
  const sp_wasm_task *t = value;
  write_array(w, t->kind, t->src, t->n);
  return 0;
}

/* Runs a task on the calling thread and marks it done (waking waiters). */
EXPORT void sp_wasm_task_run(sp_wasm_task *t) {
  sp_options opt;
  sp_bytes out;
  sp_error err;
  memset(&opt, 0, sizeof opt);
  opt.scratch_size = t->scratch_size;
  opt.seq_pool = seq_pool;
  opt.cancel = &t->cancel;
  atomic_store(&t->state, TASK_RUNNING);
  t->code = (int32_t)sp_to_array(format_task, t, &opt, &out, &err);
  t->result = out.data;
  t->result_len = (uint32_t)out.len;
  t->cause = t->code != SP_OK && err.cause ? err.cause : "";
  atomic_store(&t->state, TASK_DONE);
#ifndef SP_NO_THREADS
  emscripten_futex_wake((volatile void *)&t->state, INT32_MAX);
#endif
}

#ifdef SP_NO_THREADS

EXPORT int sp_wasm_has_threads(void) { return 0; }
EXPORT int sp_wasm_workers_start(int n) { (void)n; return 0; }
EXPORT int sp_wasm_task_submit(sp_wasm_task *t) { (void)t; return 0; }
EXPORT void sp_wasm_workers_stop(void) {}

#else

#define MAX_WORKERS 64

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static sp_wasm_task *queue_head, *queue_tail;
static int stopping, workers;

static sp_wasm_task *next_task(void) {
  sp_wasm_task *t;
  pthread_mutex_lock(&queue_lock);
  while (queue_head == NULL && !stopping) pthread_cond_wait(&queue_cond, &queue_lock);
  t = queue_head;
  if (t != NULL && (queue_head = t->next) == NULL) queue_tail = NULL;
  pthread_mutex_unlock(&queue_lock);
  return t;
}

static void *worker_main(void *arg) {
  sp_wasm_task *t;
  (void)arg;
  while ((t = next_task()) != NULL) sp_wasm_task_run(t);
  sp_thread_cleanup();
  return NULL;
}

EXPORT int sp_wasm_has_threads(void) { return 1; }

/* Starts up to n worker threads (the pthread pool must hold them: the
** module is built with PTHREAD_POOL_SIZE_STRICT=2, so a create beyond the
** pool fails instead of deadlocking). Returns how many run now. */
EXPORT int sp_wasm_workers_start(int n) {
  while (workers < n && workers < MAX_WORKERS) {
    pthread_t id;
    if (pthread_create(&id, NULL, worker_main, NULL) != 0) break;
    pthread_detach(id);
    workers++;
  }
  return workers;
}

/* Queues a task for a worker. Returns 1, or 0 when there is no worker (the
** caller then runs it itself). */
EXPORT int sp_wasm_task_submit(sp_wasm_task *t) {
  if (workers == 0) return 0;
  t->next = NULL;
  atomic_store(&t->state, TASK_QUEUED);
  pthread_mutex_lock(&queue_lock);
  if (queue_tail != NULL) queue_tail->next = t; else queue_head = t;
  queue_tail = t;
  pthread_cond_signal(&queue_cond);
  pthread_mutex_unlock(&queue_lock);
  return 1;
}

/* Asks the workers to finish the queue and exit; does not wait for them. */
EXPORT void sp_wasm_workers_stop(void) {
  pthread_mutex_lock(&queue_lock);
  stopping = 1;
  pthread_cond_broadcast(&queue_cond);
  pthread_mutex_unlock(&queue_lock);
}

#endif

/* Frees the pools this module created and the calling thread's scratch.
** Only when no encode is in flight and no worker runs. */
EXPORT void sp_wasm_shutdown(void) {
  sp_seq_pool_destroy(seq_pool);
  sp_pool_destroy(array_pool);
  seq_pool = NULL;
  array_pool = NULL;
  sp_shutdown();
}
