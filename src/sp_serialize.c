/*
** sp_serialize.c -- the hub and the three entries.
** Owns: preparing a writer per entry, copy-out of the to_array result,
** handing to_stream segments to the sink, reporting errors. Must not touch:
** encodings, pool internals, the scratch's storage (sp_scratch.c).
*/
#include <string.h>

#include "sp_alloc.h"
#include "sp_scratch.h"
#include "sp_serialize.h"
#include "sp_trace.h"

static const sp_options default_options;

void sp_bytes_free(sp_bytes *b) {
  if (b == NULL || b->data == NULL) return;
  sp_free(b->data, b->len);
  b->data = NULL;
  b->len = 0;
}

sp_code sp_serialize(sp_writer *w, sp_format_fn fn, const void *value) {
  int rc;
  if (sp_writer_stopped(w)) return w->err.code;
  rc = fn(w, value);
  if (rc != 0 && w->err.code == SP_OK) {
    sp_writer_fail(w, SP_E_CALLBACK, "the formatter reported failure", __func__);
    w->err.inner = rc;
  }
  return w->err.code;
}

/* Copies the writer's error out and returns its code. */
static sp_code report(const sp_writer *w, sp_error *err) {
  if (err != NULL) *err = w->err;
  return w->err.code;
}

/* ---- tracing: each call below is a no-op when no trace is active -------- */

static sp_trace_event *note(sp_writer *w, sp_trace_kind kind) {
  return w->trace != NULL ? sp_trace_add(w->trace, kind) : NULL;
}

static void trace_entry(sp_writer *w, int entry, size_t scratch_size) {
  sp_trace_event *e;
  sp_trace *t = w->trace;
  if (t == NULL) return;
  if (t->depth > 0 && t->depth <= SP_TRACE_MAX_DEPTH && t->writers[t->depth - 1] != NULL)
    sp_writer_trace_flush(t->writers[t->depth - 1]);   /* nested: the caller's bytes first */
  if (++t->depth <= SP_TRACE_MAX_DEPTH) t->writers[t->depth - 1] = w;
  if ((e = note(w, SP_TR_ENTRY)) != NULL) { e->flag = (uint8_t)entry; e->size = scratch_size; }
}

static void trace_exit(sp_writer *w) {
  sp_trace_event *e;
  if (w->trace == NULL) return;
  if ((e = note(w, SP_TR_EXIT)) != NULL) { e->flag = (uint8_t)w->err.code; e->size = sp_writer_length(w); }
  if (w->trace->depth <= SP_TRACE_MAX_DEPTH) w->trace->writers[w->trace->depth - 1] = NULL;
  w->trace->depth--;
}

static void trace_release(sp_writer *w) {
  sp_trace_event *e;
  if (w->seq != NULL && (e = note(w, SP_TR_RELEASE)) != NULL) e->size = w->seq->nsegs;
}

static void prepare(sp_writer *w, const sp_options *opt, int entry) {
  w->cancel = opt->cancel;
  w->trace = sp_trace_active();
  trace_entry(w, entry, opt->scratch_size ? opt->scratch_size : SP_SCRATCH_DEFAULT);
}

/* The copy-out of to_array: one allocation of exactly the output size. */
static sp_code copy_result(sp_writer *w, sp_bytes *out) {
  uint64_t len = sp_writer_length(w);
  if (len > SIZE_MAX) return sp_writer_fail(w, SP_E_LENGTH_LIMIT, "output larger than memory", __func__);
  if (len == 0) return SP_OK;
  if ((out->data = sp_malloc((size_t)len)) == NULL)
    return sp_writer_fail(w, SP_E_NOMEM, "no memory for the result", __func__);
  out->len = (size_t)len;
  if (w->mode == SP_MODE_SCRATCH) memcpy(out->data, w->base, out->len);
  else sp_seq_copy_to(w->seq, out->data);
  if (w->trace != NULL) {
    sp_trace_event *e = sp_trace_add(w->trace, SP_TR_COPY_OUT);
    if (e != NULL) {
      e->size = out->len;
      e->addr = (uint64_t)(uintptr_t)out->data;
      e->flag = w->mode == SP_MODE_SCRATCH ? SP_TR_BUF_SCRATCH : SP_TR_BUF_SEGMENT;
    }
  }
  return SP_OK;
}

/* A to_array writer: the scratch when it is free (or in legacy mode), else
** a pooled sequence, so a nested call never writes over its caller. */
static void init_array_writer(sp_writer *w, const sp_options *opt) {
  size_t size = opt->scratch_size ? opt->scratch_size : SP_SCRATCH_DEFAULT;
  int fresh;
  int held = sp_scratch_held();
  sp_scratch *s = sp_scratch_acquire(size, opt->legacy_nested_scratch, &fresh);
  sp_trace_event *e;
  if (s != NULL) {
    sp_writer_init_array(w, s->data, s->size, opt->seq_pool);
    w->scratch = s;
  } else {
    sp_writer_init_sequence(w, opt->seq_pool);
  }
  prepare(w, opt, SP_TR_ARRAY);
  if ((e = note(w, s != NULL ? SP_TR_SCRATCH : SP_TR_SCRATCH_BUSY)) != NULL && s != NULL) {
    e->addr = (uint64_t)(uintptr_t)s->data;
    e->size = s->size;
    e->flag = (uint8_t)fresh;
    e->index = (uint32_t)held;       /* 1: handed out while an outer call holds it */
  }
  sp_writer_set_trace(w, w->trace);
}

sp_code sp_to_array(sp_format_fn fn, const void *value, const sp_options *opt,
                    sp_bytes *out, sp_error *err) {
  sp_writer w;
  if (opt == NULL) opt = &default_options;
  out->data = NULL;
  out->len = 0;
  init_array_writer(&w, opt);
  if (sp_serialize(&w, fn, value) == SP_OK && sp_writer_flush(&w) == SP_OK)
    copy_result(&w, out);
  trace_release(&w);
  sp_writer_release(&w);
  trace_exit(&w);
  return report(&w, err);
}

sp_code sp_to_output(const sp_output *out, sp_format_fn fn, const void *value,
                     const sp_options *opt, sp_error *err) {
  sp_writer w;
  if (opt == NULL) opt = &default_options;
  sp_writer_init_output(&w, out);
  prepare(&w, opt, SP_TR_OUTPUT);
  sp_writer_set_trace(&w, w.trace);
  if (sp_serialize(&w, fn, value) == SP_OK) sp_writer_flush(&w);
  trace_exit(&w);
  return report(&w, err);
}

static void drain(sp_writer *w, sp_sink_fn sink, void *ctx) {
  const sp_sequence *s = w->seq;
  for (size_t i = 0; s != NULL && i < s->nsegs; i++) {
    int rc;
    if (s->segs[i].used == 0) continue;
    if (sp_writer_stopped(w)) return;
    if (w->trace != NULL) {
      sp_trace_event *e = sp_trace_add(w->trace, SP_TR_SINK);
      if (e != NULL) { e->index = (uint32_t)i; e->size = s->segs[i].used; }
    }
    if ((rc = sink(ctx, s->segs[i].data, s->segs[i].used)) != 0) {
      sp_writer_fail(w, SP_E_SINK, "the sink reported failure", __func__);
      w->err.inner = rc;
      return;
    }
  }
}

sp_code sp_to_stream(sp_sink_fn sink, void *sink_ctx, sp_format_fn fn, const void *value,
                     const sp_options *opt, sp_error *err) {
  sp_writer w;
  if (opt == NULL) opt = &default_options;
  sp_writer_init_sequence(&w, opt->seq_pool);
  prepare(&w, opt, SP_TR_STREAM);
  sp_writer_set_trace(&w, w.trace);
  if (sp_serialize(&w, fn, value) == SP_OK && sp_writer_flush(&w) == SP_OK)
    drain(&w, sink, sink_ctx);
  trace_release(&w);
  sp_writer_release(&w);
  trace_exit(&w);
  return report(&w, err);
}

void sp_thread_cleanup(void) {
  sp_scratch_free_now();
  sp_shared_pool_release_thread();   /* the main thread has no exit callbacks */
}
