/*
** sp_wasm.c -- the one gate between JavaScript and the C core (Emscripten).
** Owns: jobs (one entry per encode in flight and the span record JS writes
** through), staging blocks JS copies typed arrays into, off-thread tasks
** and the worker threads that run them, the cap on linear memory (read by
** wasm/sp_memory.js when memory would grow), the instance's pools and what
** trimming gives back, the numbers behind stats(), C's LZ4 block calls for
** the JS tests and benchmark. Must not touch:
** encodings (JS writes values into the span itself; C formats only bulk
** numeric arrays), the entries' insides (it calls the lifecycle of
** sp_serialize.h) or pool internals.
**
** Pointers and sizes cross as wasm32 i32: JS reads every pointer and size
** C returns as unsigned (>>> 0; an address above 2 GiB arrives negative)
** and checks every size it passes against what the parameter can hold and
** the memory's cap before the call (js/sinks.js, Heap). Lengths that may
** pass 4 GiB (a stream's) come back as doubles.
**
** The span protocol, seen from JS (js/sinks.js):
**   job = sp_wasm_job_new()            once per nesting level, reused
**   sp_wasm_begin_array(job, size, c)  a to_array entry: the thread's scratch,
**                                      or a pooled sequence when an outer
**                                      encode or a live view holds it;
**                                      compressing (c: sp_compression), the
**                                      span is the plain writer's segments
**                                      and finish writes the compressed form
**   JS writes bytes at span.cur .. span.end (the sp_span at offset 0 of the
**   job; sp_wasm_span_layout gives its offsets), then before any call below
**   stores its cursor into span.cur; every call leaves the span up to date
**   sp_wasm_reserve(job, n)            the slow path: migrate / next segment
**   sp_wasm_write_array(job, ...)      a typed array through sp_bulk
**   sp_wasm_finish(job)                commit; then the pieces (copy-out,
**                                      stream) or sp_wasm_view (one piece)
**   sp_wasm_release(job)               end the entry: scratch / sequence back
** Every call that can fail returns an sp_code and leaves the error in the
** job's writer (sp_wasm_error_*); a failed job still must be released.
*/
#include <emscripten.h>
#include <emscripten/heap.h>
#include <malloc.h>
#include <stdatomic.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "scratchpack.h"

#ifndef SP_NO_THREADS
#include <emscripten/threading.h>
#include <pthread.h>
#endif

#define EXPORT EMSCRIPTEN_KEEPALIVE

typedef struct sp_wasm_job {
  sp_span span;       /* first: the record JS reads (sp_wasm_span_layout) */
  sp_entry entry;
} sp_wasm_job;

/* The sequence pool every job rents from: NULL (the process default) until
** sp_wasm_configure installs one of the caller's choosing. */
static sp_seq_pool *seq_pool;
static sp_pool *array_pool;

/* ---- the span record ------------------------------------------------------ */

/* js/sinks.js checks these when it loads: the span record's size, the
** offsets of cur, end, base and mode, and the mode that means "scratch". */
EXPORT const uint32_t *sp_wasm_span_layout(void) {
  static const uint32_t layout[] = {
    sizeof(sp_span), offsetof(sp_span, cur), offsetof(sp_span, end),
    offsetof(sp_span, base), offsetof(sp_span, mode), SP_MODE_SCRATCH,
  };
  return layout;
}

/* JS wrote up to span.cur: the writer takes it back. */
static sp_writer *span_in(sp_wasm_job *job) {
  sp_span_put(&job->span, &job->entry.w);
  return &job->entry.w;
}

/* The writer's span, for JS to read after the call; passes 'code' on. */
static int span_out(sp_wasm_job *job, sp_code code) {
  sp_span_get(&job->span, &job->entry.w);
  return (int)code;
}

/* ---- jobs ---------------------------------------------------------------- */

/* A job for one nesting level of encodes. Owned by JS for the module's
** life. NULL on no memory. */
EXPORT sp_wasm_job *sp_wasm_job_new(void) {
  sp_wasm_job *job = sp_malloc(sizeof *job);
  if (job != NULL) memset(job, 0, sizeof *job);
  return job;
}

/* The options every entry of this module begins with. 'compression' is an
** sp_compression (JS checks it; the entry refuses an unknown one with
** SP_E_INVALID_ARGUMENT). Compressing, the job's writer -- the span JS
** writes through -- is the plain writer, over pooled segments (never the
** scratch), and finish writes the compressed message to the entry's output,
** which the pieces, the view and the length then read. */
static sp_options options(size_t scratch_size, int compression) {
  sp_options opt;
  memset(&opt, 0, sizeof opt);
  opt.scratch_size = scratch_size;
  opt.seq_pool = seq_pool;
  opt.compression = (sp_compression)compression;
  return opt;
}

/* to_array: the thread's scratch when it is free, else a sequence -- the
** same choice sp_to_array makes, so a nested encode never overwrites the
** outer one and a live view over the scratch is never written over.
** SP_E_NOMEM when the scratch cannot be allocated. */
EXPORT int sp_wasm_begin_array(sp_wasm_job *job, size_t scratch_size, int compression) {
  sp_options opt = options(scratch_size, compression);
  return span_out(job, sp_entry_begin_array(&job->entry, &opt));
}

/* to_stream: pooled segments, kept until release (JS reads the pieces). */
EXPORT int sp_wasm_begin_stream(sp_wasm_job *job, int compression) {
  sp_options opt = options(0, compression);
  return span_out(job, sp_entry_begin_stream(&job->entry, NULL, NULL, &opt));
}

/* The slow path: at least n contiguous bytes at span.cur afterwards.
** Returns 1, or 0 with the error in the job. */
EXPORT int sp_wasm_reserve(sp_wasm_job *job, size_t n) {
  int ok = sp_writer_reserve_slow(span_in(job), n) != NULL;
  span_out(job, SP_OK);
  return ok;
}

/* Commits what was written. Returns the job's sticky error code. */
EXPORT int sp_wasm_finish(sp_wasm_job *job) {
  span_in(job);
  return span_out(job, sp_entry_finish(&job->entry));
}

/* Bytes written so far: a double, as a stream may pass 4 GiB. Compressing,
** only after finish: the compressed message's (the sum of its pieces; the
** plain writer has given its segments back by then). */
EXPORT double sp_wasm_length(sp_wasm_job *job) {
  double n = 0;
  size_t len;
  if (job->entry.compression == SP_COMPRESSION_NONE) return (double)sp_writer_length(span_in(job));
  for (size_t i = 0, k = sp_entry_pieces(&job->entry); i < k; i++) {
    sp_entry_piece(&job->entry, i, &len);
    n += (double)len;
  }
  return n;
}

/* After finish: the message in one piece (sp_entry_view), valid until
** release. NULL with the error in the job when a copy could not be made. */
EXPORT const uint8_t *sp_wasm_view(sp_wasm_job *job) {
  const uint8_t *data;
  size_t len;
  return sp_entry_view(&job->entry, &data, &len) == SP_OK ? data : NULL;
}

/* After finish: the message's pieces in order (some may be empty). */
EXPORT size_t sp_wasm_piece_count(const sp_wasm_job *job) { return sp_entry_pieces(&job->entry); }
EXPORT const uint8_t *sp_wasm_piece_data(const sp_wasm_job *job, size_t i) {
  size_t len;
  return sp_entry_piece(&job->entry, i, &len);
}
EXPORT size_t sp_wasm_piece_len(const sp_wasm_job *job, size_t i) {
  size_t len;
  sp_entry_piece(&job->entry, i, &len);
  return len;
}

/* Ends the entry: gives back what it holds. Safe to call twice. */
EXPORT void sp_wasm_release(sp_wasm_job *job) { sp_entry_end(&job->entry, NULL); }

EXPORT int sp_wasm_error_code(const sp_wasm_job *job) { return (int)job->entry.w.err.code; }
EXPORT const char *sp_wasm_error_cause(const sp_wasm_job *job) {
  return job->entry.w.err.cause ? job->entry.w.err.cause : "";
}
EXPORT double sp_wasm_error_offset(const sp_wasm_job *job) { return (double)job->entry.w.err.offset; }

/* ---- bulk numeric arrays -------------------------------------------------- */

/* A whole array (header and elements) from n elements staged at src. */
EXPORT int sp_wasm_write_array(sp_wasm_job *job, int kind, const void *src, size_t n) {
  sp_writer *w = span_in(job);
  sp_write_numeric_array(w, (sp_num_kind)kind, src, n);
  return span_out(job, w->err.code);
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
  ok = sp_read_numeric_array(&r, (sp_num_kind)kind, dst, cap, &n);
  return ok && n == cap ? (size_t)sp_reader_offset(&r) : 0;
}

typedef struct array_args { int kind; const void *src; size_t n; } array_args;

static int format_array(sp_writer *w, const void *value) {
  const array_args *a = value;
  sp_write_numeric_array(w, (sp_num_kind)a->kind, a->src, a->n);
  return 0;
}

/* Encodes n elements of 'kind' staged at src as one MessagePack array into
** dst[0..cap) (JS gives cap >= 9n + 5, the worst case). Returns its length,
** or 0 when it did not fit or the kind is unknown. Allocates nothing: this
** is how encodeInto writes typed arrays, and how any entry writes a big one
** a chunk at a time (JS writes the whole array's header and drops each
** chunk's own), so no staging block ever holds more than a chunk. */
EXPORT size_t sp_wasm_encode_array(int kind, const void *src, size_t n, uint8_t *dst, size_t cap) {
  array_args a = {kind, src, n};
  sp_buffer fixed = {dst, 0, cap, cap};
  sp_output out = sp_fixed_output(&fixed);
  return sp_to_output(&out, format_array, &a, NULL, NULL) == SP_OK ? fixed.len : 0;
}

/* ---- LZ4 blocks, for the tests and the benchmark ------------------------------- */

/* The LZ4 bound of n bytes (sp_lz4_bound): 0 past SP_LZ4_MAX_INPUT. */
EXPORT size_t sp_wasm_lz4_bound(size_t n) { return sp_lz4_bound(n); }

/* Compresses src[0..n) into one LZ4 block at dst[0..cap) with C's
** compressor (the one the entries use). Returns its length, or 0 when cap
** is below the bound or the 16 KiB state could not be allocated (it is
** allocated and freed per call: this is for tests, not a hot path). */
EXPORT size_t sp_wasm_lz4_compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) {
  sp_lz4_state *st = sp_malloc(sizeof *st);
  size_t len = 0;
  if (st == NULL) return 0;
  if (sp_lz4_compress(src, n, dst, cap, st, &len) != SP_OK) len = 0;
  sp_free(st, sizeof *st);
  return len;
}

/* Decompresses the block src[0..n) into dst[0..cap) with C's decompressor.
** Returns the bytes it decoded to, or minus its sp_code. */
EXPORT double sp_wasm_lz4_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) {
  size_t len;
  sp_code rc = sp_lz4_decompress(src, n, dst, cap, &len);
  return rc == SP_OK ? (double)len : -(double)rc;
}

/* ---- staging ------------------------------------------------------------- */

/* A block for staging typed arrays, through the counted allocator. The
** caller frees it with sp_wasm_free(p, n). NULL on no memory. */
EXPORT void *sp_wasm_alloc(size_t n) { return sp_malloc(n ? n : 1); }
EXPORT void sp_wasm_free(void *p, size_t n) { sp_free(p, n ? n : 1); }

/* ---- linear memory -------------------------------------------------------- */

/* The most bytes linear memory may grow to: set by JS (maxMemory), read by
** wasm/sp_memory.js on every growth, from any thread. 0 = the build's own
** maximum (sp_wasm_memory_max). */
static _Atomic uint32_t memory_cap;

EXPORT void sp_wasm_set_memory_cap(uint32_t bytes) { atomic_store(&memory_cap, bytes); }
EXPORT uint32_t sp_wasm_memory_cap(void) { return atomic_load(&memory_cap); }
/* The build's maximum: 4 GiB less one 64 KiB page (wasm32). */
EXPORT uint32_t sp_wasm_memory_max(void) { return (uint32_t)emscripten_get_heap_max(); }

/* ---- configuration and numbers ------------------------------------------ */

/* Installs a pool of the given kind under a sequence pool of max_seq idle
** sequences, for every job begun afterwards. Kinds: 0 a bounded bucket pool
** (buckets up to a = max length, b arrays each), 1 a shared pool (a
** partitions of b arrays), 2 a lock-free pool (buckets up to a, b arrays
** each); sp_pool.h describes them. The pool caches at most 'keep' bytes of
** arrays (0: only its counts bound it). A second call replaces (and frees)
** the pools of the first: call it only while no encode, view or task is in
** flight. Returns 0, SP_E_INVALID_ARGUMENT for an unknown kind or sizes the
** pool refuses (JS checks them first), or SP_E_NOMEM (the pools installed
** before stay). */
EXPORT int sp_wasm_configure(int kind, size_t a, unsigned b, unsigned max_seq, size_t keep) {
  sp_pool *arrays = NULL;
  sp_seq_pool *seqs;
  if (max_seq > SP_SEQ_POOL_MAX) return SP_E_INVALID_ARGUMENT;
  switch (kind) {
    case 0: arrays = sp_bucket_pool_create(a, b); break;
    case 1: arrays = a > UINT_MAX ? NULL : sp_shared_pool_create((unsigned)a, b); break;
    case 2: arrays = sp_lockfree_pool_create(a, b); break;
    default: return SP_E_INVALID_ARGUMENT;
  }
  if (arrays == NULL) return SP_E_INVALID_ARGUMENT;
  sp_pool_set_keep_limit(arrays, keep);             /* a new pool: cannot be refused */
  if ((seqs = sp_seq_pool_create(max_seq, arrays)) == NULL) {
    sp_pool_destroy(arrays);
    return SP_E_NOMEM;
  }
  sp_seq_pool_destroy(seq_pool);      /* a second call: nothing rents from these now */
  sp_pool_destroy(array_pool);
  array_pool = arrays;
  seq_pool = seqs;
  return SP_OK;
}

static sp_seq_pool *current_seq_pool(void) {
  return seq_pool != NULL ? seq_pool : sp_seq_pool_default();
}

enum { ST_ALLOC = 0, ST_LIVE = 6, ST_POOL = 7, ST_SEQ = 18, ST_HEAP = 24, ST_POOL_BYTES = 26,
       ST_COUNT = 27 };

/* Fills out[ST_COUNT]: the calling thread's allocation counters, live bytes,
** the array pool's and the sequence pool's counters, malloc's own view of
** the heap (bytes in use, bytes obtained from the memory) and the bytes of
** the arrays the pool caches. Creates the default pools if no call has
** yet. */
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
  out[ST_HEAP + 0] = (double)(uint32_t)mi.uordblks;   /* int fields: past 2 GiB they wrap */
  out[ST_HEAP + 1] = (double)(uint32_t)mi.arena;
  out[ST_POOL_BYTES] = (double)p.cached_bytes;
}

/* Gives back what this module caches: every array its pool keeps, its idle
** sequences, the calling thread's scratch (unless an entry or a lease holds
** it) and its slots in shared pools. What is rented or held stays. Returns
** how many bytes malloc has in use fewer than before. Cannot fail. */
EXPORT double sp_wasm_trim(void) {
  uint32_t before = (uint32_t)mallinfo().uordblks, after;
  if (seq_pool != NULL) {
    sp_seq_pool_clear(seq_pool);
    sp_pool_trim(array_pool);
  }
  sp_thread_cleanup();
  after = (uint32_t)mallinfo().uordblks;
  return before > after ? (double)(before - after) : 0;
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
  int32_t compression;       /* +40: sp_compression */
  struct sp_wasm_task *next; /* queue link */
} sp_wasm_task;

_Static_assert(offsetof(sp_wasm_task, cause) == 32 && offsetof(sp_wasm_task, scratch_size) == 36 &&
               offsetof(sp_wasm_task, compression) == 40,
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
  sp_write_numeric_array(w, (sp_num_kind)t->kind, t->src, t->n);
  return 0;
}

/* Runs a task on the calling thread and marks it done (waking waiters). */
EXPORT void sp_wasm_task_run(sp_wasm_task *t) {
  sp_options opt = options(t->scratch_size, t->compression);
  sp_bytes out;
  sp_error err;
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

EXPORT int sp_wasm_workers_start(int n) { (void)n; return 0; }
EXPORT int sp_wasm_task_submit(sp_wasm_task *t) { (void)t; return 0; }
EXPORT void sp_wasm_workers_stop(void) {}
EXPORT const int32_t *sp_wasm_workers_live(void) { static const int32_t none; return &none; }
EXPORT void sp_wasm_workers_join(void) {}

#else

#define MAX_WORKERS 64

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static sp_wasm_task *queue_head, *queue_tail;
static int workers, stopping;
static pthread_t worker_ids[MAX_WORKERS];
/* Workers that have not yet returned from worker_main; JS waits on it
** (Atomics.wait, or polling where it may not block) before it joins. */
static _Atomic int32_t workers_live;

/* The next task, or NULL once stopping with the queue drained. */
static sp_wasm_task *next_task(void) {
  sp_wasm_task *t;
  pthread_mutex_lock(&queue_lock);
  while (queue_head == NULL && !stopping) pthread_cond_wait(&queue_cond, &queue_lock);
  t = queue_head;
  if (t != NULL && (queue_head = t->next) == NULL) queue_tail = NULL;
  pthread_mutex_unlock(&queue_lock);
  return t;
}

/* Runs tasks until sp_wasm_workers_stop, then returns: the thread ends
** itself, so nothing of it is freed while it still runs. (Ending it from
** outside -- Emscripten's terminateAllThreads -- frees its stack and thread
** record while it may still wake from its timed wait, and it then crashed
** with "memory access out of bounds".) */
static void *worker_main(void *arg) {
  (void)arg;
  for (sp_wasm_task *t; (t = next_task()) != NULL;) sp_wasm_task_run(t);
  atomic_fetch_sub(&workers_live, 1);
  emscripten_futex_wake((volatile void *)&workers_live, INT32_MAX);
  return NULL;
}

/* Starts up to n worker threads (the pthread pool must hold them: the
** module is built with PTHREAD_POOL_SIZE_STRICT=2, so a create beyond the
** pool fails instead of deadlocking). Returns how many run now. They stay
** joinable: sp_wasm_workers_join ends them. */
EXPORT int sp_wasm_workers_start(int n) {
  while (workers < n && workers < MAX_WORKERS && !stopping) {
    atomic_fetch_add(&workers_live, 1);
    if (pthread_create(&worker_ids[workers], NULL, worker_main, NULL) != 0) {
      atomic_fetch_sub(&workers_live, 1);
      break;
    }
    workers++;
  }
  return workers;
}

/* Queues a task for a worker. Returns 1, or 0 when there is no worker or
** the workers are stopping (the caller then runs it itself, or not at all). */
EXPORT int sp_wasm_task_submit(sp_wasm_task *t) {
  int queued = 0;
  t->next = NULL;
  atomic_store(&t->state, TASK_QUEUED);
  pthread_mutex_lock(&queue_lock);
  if (workers > 0 && !stopping) {
    if (queue_tail != NULL) queue_tail->next = t; else queue_head = t;
    queue_tail = t;
    pthread_cond_signal(&queue_cond);
    queued = 1;
  }
  pthread_mutex_unlock(&queue_lock);
  return queued;
}

/* Tells every worker to end once the queue is empty (the caller sets the
** tasks' cancel flags first, so queued ones end at once with CANCELLED).
** Does not block. */
EXPORT void sp_wasm_workers_stop(void) {
  pthread_mutex_lock(&queue_lock);
  stopping = 1;
  pthread_cond_broadcast(&queue_cond);
  pthread_mutex_unlock(&queue_lock);
}

/* The count of workers still inside worker_main (an int32 JS can wait on). */
EXPORT const _Atomic int32_t *sp_wasm_workers_live(void) { return &workers_live; }

/* After sp_wasm_workers_stop: waits for every worker to end (blocks; call
** it once *sp_wasm_workers_live is 0 where the caller may not block) and
** lets Emscripten take their threads back. Their workers can then be
** terminated safely. */
EXPORT void sp_wasm_workers_join(void) {
  for (int i = 0; i < workers; i++) pthread_join(worker_ids[i], NULL);
  workers = 0;
}

#endif
