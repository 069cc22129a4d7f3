/*
** sp_wasm_jobs.c -- jobs: one entry per encode in flight in JS, and the
** span record JS writes through. Owns: the span protocol below and a job's
** error. Must not touch: encodings (JS writes values into the span itself),
** the entries' insides (it calls the lifecycle of sp_serialize.h) or the
** pools (sp_wasm_options brings them).
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
**   job; js/abi.js reads its offsets from the table of sp_wasm_abi.c), then
**   before any call below stores its cursor into span.cur; every call
**   leaves the span up to date
**   sp_wasm_reserve(job, n)            the slow path: migrate / next segment
**   sp_wasm_write_array(job, ...)      a typed array through sp_bulk
**   sp_wasm_finish(job)                commit; then the pieces (copy-out,
**                                      stream) or sp_wasm_view (one piece)
**   sp_wasm_release(job)               end the entry: scratch / sequence back
** Every call that can fail returns an sp_code and leaves the error in the
** job's writer (sp_wasm_error_*); a failed job still must be released.
*/
#include <string.h>

#include "sp_wasm.h"

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

/* A job for one nesting level of encodes. Owned by JS for the module's
** life. NULL on no memory. */
sp_wasm_job *sp_wasm_job_new(void) {
  sp_wasm_job *job = sp_malloc(sizeof *job);
  if (job != NULL) memset(job, 0, sizeof *job);
  return job;
}

/* to_array: the thread's scratch when it is free, else a sequence -- the
** same choice sp_to_array makes, so a nested encode never overwrites the
** outer one and a live view over the scratch is never written over.
** SP_E_NOMEM when the scratch cannot be allocated. Compressing, the job's
** writer -- the span JS writes through -- is the plain writer, over pooled
** segments (never the scratch), and finish writes the compressed message
** to the entry's output, which the pieces, the view and the length then
** read. */
int sp_wasm_begin_array(sp_wasm_job *job, size_t scratch_size, int compression) {
  sp_options opt = sp_wasm_options(scratch_size, compression);
  return span_out(job, sp_entry_begin_array(&job->entry, &opt));
}

/* to_stream: pooled segments, kept until release (JS reads the pieces). */
int sp_wasm_begin_stream(sp_wasm_job *job, int compression) {
  sp_options opt = sp_wasm_options(0, compression);
  return span_out(job, sp_entry_begin_stream(&job->entry, NULL, NULL, &opt));
}

/* The slow path: at least n contiguous bytes at span.cur afterwards.
** Returns 1, or 0 with the error in the job. */
int sp_wasm_reserve(sp_wasm_job *job, size_t n) {
  int ok = sp_writer_reserve_slow(span_in(job), n) != NULL;
  span_out(job, SP_OK);
  return ok;
}

/* A whole numeric array (header and elements) from n elements staged at
** src, through sp_bulk. */
int sp_wasm_write_array(sp_wasm_job *job, int kind, const void *src, size_t n) {
  sp_writer *w = span_in(job);
  sp_write_numeric_array(w, (sp_num_kind)kind, src, n);
  return span_out(job, w->err.code);
}

/* Commits what was written. Returns the job's sticky error code. */
int sp_wasm_finish(sp_wasm_job *job) {
  span_in(job);
  return span_out(job, sp_entry_finish(&job->entry));
}

/* Bytes written so far: a double, as a stream may pass 4 GiB. Compressing,
** only after finish: the compressed message's (the sum of its pieces; the
** plain writer has given its segments back by then). */
double sp_wasm_length(sp_wasm_job *job) {
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
const uint8_t *sp_wasm_view(sp_wasm_job *job) {
  const uint8_t *data;
  size_t len;
  return sp_entry_view(&job->entry, &data, &len) == SP_OK ? data : NULL;
}

/* After finish: the message's pieces in order (some may be empty). */
size_t sp_wasm_piece_count(const sp_wasm_job *job) { return sp_entry_pieces(&job->entry); }
const uint8_t *sp_wasm_piece_data(const sp_wasm_job *job, size_t i) {
  size_t len;
  return sp_entry_piece(&job->entry, i, &len);
}
size_t sp_wasm_piece_len(const sp_wasm_job *job, size_t i) {
  size_t len;
  sp_entry_piece(&job->entry, i, &len);
  return len;
}

/* Ends the entry: gives back what it holds. Safe to call twice. */
void sp_wasm_release(sp_wasm_job *job) { sp_entry_end(&job->entry, NULL); }

/* The entry's error, whichever of its writers holds it (compressing, a
** failure to compress is the output writer's, not the plain one's). */
int sp_wasm_error_code(const sp_wasm_job *job) { return (int)sp_entry_error(&job->entry)->code; }
const char *sp_wasm_error_cause(const sp_wasm_job *job) {
  const char *cause = sp_entry_error(&job->entry)->cause;
  return cause ? cause : "";
}
double sp_wasm_error_offset(const sp_wasm_job *job) { return (double)sp_entry_error(&job->entry)->offset; }
