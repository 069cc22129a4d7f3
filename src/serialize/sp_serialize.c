/*
** sp_serialize.c -- the hub, the entry lifecycle and the one-call entries.
** Owns: preparing an entry's writer (the scratch or a sequence, the output,
** the sink), the to_array result (copy-out, contiguous view, pieces),
** reporting errors, thread cleanup. Must not touch: encodings, pool
** internals, the scratch's storage (sp_scratch.c), what an observer does
** with what it is told.
*/
#include <string.h>

#include "sp_alloc.h"
#include "writer/sp_scratch.h"
#include "sp_serialize.h"

static const sp_options default_options;

void sp_bytes_free(sp_bytes *b) {
  if (b == NULL || b->data == NULL) return;
  sp_free(b->data, b->len);
  b->data = NULL;
  b->len = 0;
}

/* The hub's body, inline in the one-call entries: runs fn and maps its
** result (the failure out of line). */
static void formatter_failed(sp_writer *w, int rc) {
  sp_writer_fail(w, SP_E_CALLBACK, "the formatter reported failure", "sp_serialize");
  w->err.inner = rc;
}

static inline sp_code hub(sp_writer *w, sp_format_fn fn, const void *value) {
  int rc;
  if (sp_writer_stopped(w)) return w->err.code;
  rc = fn(w, value);
  if (rc != 0 && w->err.code == SP_OK) formatter_failed(w, rc);
  return w->err.code;
}

sp_code sp_serialize(sp_writer *w, sp_format_fn fn, const void *value) {
  return hub(w, fn, value);
}

/* The writer the entry's output goes to: 'w' itself, or, compressing,
** 'packed' ('w' then takes the plain message). Const when e is. */
#define output_of(e) ((e)->compression != SP_COMPRESSION_NONE ? &(e)->packed : &(e)->w)

/* Tells the entry's observer, if there is one. */
static void notify(sp_entry *e, sp_note_kind kind, int flag, uint32_t index, uint64_t size,
                   const void *addr) {
  sp_writer *out = output_of(e);
  sp_note n = {kind, flag, index, size, addr};
  if (out->observer != NULL) out->observer->hooks->note(out->observer, out, &n);
}

/* Where begin sets up the output: decided by the options, before anything. */
static sp_writer *prepare(sp_entry *e, const sp_options *opt) {
  e->compression = opt->compression;
  e->compression_min_length = opt->compression_min_length;
  return output_of(e);
}

/* Compressing: the plain message goes to a pooled sequence. It stops at
** once when the output could not be set up, or the mode is unknown. */
static void begin_plain(sp_entry *e, const sp_options *opt, const sp_writer *out) {
  sp_writer_init_sequence(&e->w, opt->seq_pool);
  e->w.cancel = opt->cancel;          /* no observer: it watches the output */
  if (out->err.code != SP_OK)
    sp_writer_fail(&e->w, out->err.code, out->err.cause, out->err.site);
  else if (e->compression > SP_COMPRESSION_LZ4_BLOCK_ARRAY)
    sp_writer_fail(&e->w, SP_E_INVALID_ARGUMENT, "unknown compression", __func__);
}

/* What every begin shares once the output is set up. */
static sp_code begin(sp_entry *e, const sp_options *opt, sp_entry_kind kind) {
  sp_writer *out = output_of(e);
  e->kind = kind;
  e->flat = NULL;
  e->flat_len = 0;
  out->cancel = opt->cancel;
  out->observer = opt->observer;
  notify(e, SP_NOTE_BEGIN, kind, 0, opt->scratch_size ? opt->scratch_size : SP_SCRATCH_DEFAULT,
         NULL);
  if (out != &e->w) begin_plain(e, opt, out);
  return e->w.err.code;              /* a cancel flag set already stops the hub */
}

/* A to_array writer: over the thread's scratch, or a sequence when the
** scratch is held (a nested call) or could not be had (then the sticky
** SP_E_NOMEM). *s is the scratch it holds, or NULL. */
static sp_scratch_status init_on_scratch(sp_writer *w, const sp_options *opt, sp_scratch **s) {
  sp_scratch_status st = sp_scratch_acquire(
      opt->scratch_size ? opt->scratch_size : SP_SCRATCH_DEFAULT, opt->legacy_nested_scratch, s);
  if (*s != NULL) {
    sp_writer_init_array(w, (*s)->data, (*s)->size, opt->seq_pool);
    w->scratch = *s;
  } else {
    sp_writer_init_sequence(w, opt->seq_pool);
  }
  if (st == SP_SCRATCH_NOMEM)
    sp_writer_fail(w, SP_E_NOMEM, "no memory for the thread's scratch", "sp_entry_begin_array");
  return st;
}

sp_code sp_entry_begin_array(sp_entry *e, const sp_options *opt) {
  sp_scratch *s;
  sp_scratch_status st;
  if (opt == NULL) opt = &default_options;
  st = init_on_scratch(prepare(e, opt), opt, &s);
  begin(e, opt, SP_ENTRY_ARRAY);
  if (s != NULL)
    notify(e, SP_NOTE_SCRATCH, st == SP_SCRATCH_NEW, st == SP_SCRATCH_SHARED, s->size, s->data);
  else if (st == SP_SCRATCH_HELD)
    notify(e, SP_NOTE_SCRATCH_BUSY, 0, 0, 0, NULL);
  return e->w.err.code;
}

sp_code sp_entry_begin_output(sp_entry *e, const sp_output *out, const sp_options *opt) {
  if (opt == NULL) opt = &default_options;
  sp_writer_init_output(prepare(e, opt), out);
  return begin(e, opt, SP_ENTRY_OUTPUT);
}

sp_code sp_entry_begin_stream(sp_entry *e, sp_sink_fn sink, void *ctx, const sp_options *opt) {
  if (opt == NULL) opt = &default_options;
  sp_writer_init_stream(prepare(e, opt), opt->seq_pool, sink, ctx);
  return begin(e, opt, SP_ENTRY_STREAM);
}

/* The plain message, committed, goes to the output in its compressed form;
** an error of the plain writer becomes the output's. The plain sequence
** goes back at once. */
static sp_code finish_compressed(sp_entry *e, sp_writer *out) {
  if (sp_writer_flush(&e->w) != SP_OK) {
    if (out->err.code == SP_OK) {
      sp_writer_fail(out, e->w.err.code, e->w.err.cause, e->w.err.site);
      out->err = e->w.err;                           /* inner, offset and path too */
    }
  } else if (e->w.seq != NULL) {
    sp_write_compressed(out, e->compression, e->compression_min_length, e->w.seq,
                        sp_seq_pool_arrays(e->w.seq_pool));
  }
  sp_writer_release(&e->w);
  return sp_writer_flush(out);
}

sp_code sp_entry_finish(sp_entry *e) {
  sp_writer *out = output_of(e);
  return out == &e->w ? sp_writer_flush(out) : finish_compressed(e, out);
}

size_t sp_entry_pieces(const sp_entry *e) {
  const sp_writer *w = output_of(e);
  if (w->mode == SP_MODE_SCRATCH) return 1;
  return w->mode == SP_MODE_SEQUENCE && w->seq != NULL ? w->seq->nsegs : 0;
}

const uint8_t *sp_entry_piece(const sp_entry *e, size_t i, size_t *len) {
  const sp_writer *w = output_of(e);
  if (w->mode == SP_MODE_SCRATCH) {
    *len = (size_t)(w->cur - w->base);
    return w->base;
  }
  *len = w->seq->segs[i].used;
  return w->seq->segs[i].data;
}

/* The message's length as a size_t, or SP_E_LENGTH_LIMIT when it is not one. */
static sp_code length_of(sp_writer *w, size_t *len) {
  uint64_t n = sp_writer_length(w);
  *len = 0;
  if (w->err.code != SP_OK) return w->err.code;
  if (n > SIZE_MAX) return sp_writer_fail(w, SP_E_LENGTH_LIMIT, "output larger than memory", __func__);
  *len = (size_t)n;
  return SP_OK;
}

/* Copies the message a committed scratch or sequence writer holds to dst,
** in order. */
static void copy_written(const sp_writer *w, uint8_t *dst) {
  if (w->mode == SP_MODE_SCRATCH) {                 /* the usual case */
    memcpy(dst, w->base, (size_t)(w->cur - w->base));
    return;
  }
  for (size_t i = 0; w->seq != NULL && i < w->seq->nsegs; i++) {
    size_t k = w->seq->segs[i].used;
    if (k > 0) memcpy(dst, w->seq->segs[i].data, k);
    dst += k;
  }
}

/* The message of a committed scratch or sequence writer, in one exact-size
** array *out owns (empty when there are no bytes or on an error). */
static sp_code copy_out(sp_writer *w, sp_bytes *out) {
  size_t len;
  if (length_of(w, &len) != SP_OK || len == 0) return w->err.code;
  if ((out->data = sp_malloc(len)) == NULL)
    return sp_writer_fail(w, SP_E_NOMEM, "no memory for the result", "sp_entry_copy");
  out->len = len;
  copy_written(w, out->data);
  return SP_OK;
}

sp_code sp_entry_copy(sp_entry *e, sp_bytes *out) {
  sp_writer *w = output_of(e);
  out->data = NULL;
  out->len = 0;
  if (w->err.code == SP_OK && w->mode == SP_MODE_OUTPUT)
    return sp_writer_fail(w, SP_E_INVALID_ARGUMENT, "a to_output entry has no bytes of its own", __func__);
  if (copy_out(w, out) == SP_OK && out->data != NULL)
    notify(e, SP_NOTE_COPY_OUT, 0, 0, out->len, out->data);
  return w->err.code;
}

/* The one used piece, or NULL when there are several. */
static const uint8_t *only_piece(const sp_entry *e) {
  const uint8_t *found = NULL;
  for (size_t i = 0, n = sp_entry_pieces(e); i < n; i++) {
    size_t k;
    const uint8_t *p = sp_entry_piece(e, i, &k);
    if (k == 0) continue;
    if (found != NULL) return NULL;
    found = p;
  }
  return found;
}

sp_code sp_entry_view(sp_entry *e, const uint8_t **data, size_t *len) {
  sp_writer *w = output_of(e);
  *data = NULL;
  if (length_of(w, len) != SP_OK || *len == 0) return w->err.code;
  if (w->mode == SP_MODE_OUTPUT)
    return sp_writer_fail(w, SP_E_INVALID_ARGUMENT, "a to_output entry has no bytes of its own", __func__);
  if ((*data = only_piece(e)) != NULL) return SP_OK;
  if (e->flat == NULL) {
    if ((e->flat = sp_malloc(*len)) == NULL) {
      *len = 0;
      return sp_writer_fail(w, SP_E_NOMEM, "no memory for a contiguous view", __func__);
    }
    e->flat_len = *len;
    copy_written(output_of(e), e->flat);
  }
  *data = e->flat;
  return SP_OK;
}

/* Copies the error out: all of it only when there is one (it is 136 bytes). */
static void report(const sp_writer *w, sp_error *err) {
  if (err == NULL) return;
  if (w->err.code != SP_OK) {
    *err = w->err;
    return;
  }
  err->code = SP_OK;
  err->inner = 0;
  err->cause = err->site = NULL;
  err->offset = 0;
  err->path[0] = '\0';
}

/* Ends the entry. Compressing, the plain writer's error comes first: it
** is the one a failed formatter left. */
/* The writer whose error the entry reports: the plain one first. */
static const sp_writer *failed_writer(const sp_entry *e) {
  return e->w.err.code != SP_OK ? &e->w : output_of(e);
}

const sp_error *sp_entry_error(const sp_entry *e) { return &failed_writer(e)->err; }

sp_code sp_entry_end(sp_entry *e, sp_error *err) {
  sp_writer *out = output_of(e);
  const sp_writer *failed;
  if (e->kind != SP_ENTRY_NONE) {
    sp_writer_release(&e->w);
    if (out != &e->w) sp_writer_release(out);
    if (e->flat != NULL) sp_free(e->flat, e->flat_len);
    e->flat = NULL;
    notify(e, SP_NOTE_END, 0, 0, 0, NULL);
    e->kind = SP_ENTRY_NONE;
  }
  failed = failed_writer(e);
  report(failed, err);
  return failed->err.code;
}

/* ---- the entries in one call ---------------------------------------------- */

/* The usual to_array -- no compression, no observer -- is the lifecycle
** with nothing in it to tell: one writer over the scratch, the hub, the
** commit, one exact-size copy, the writer let go. For a small message the
** general entry's set-up was about half the call (npm run bench, a.obj). */
static sp_code to_array_plain(sp_format_fn fn, const void *value, const sp_options *opt,
                              sp_bytes *out, sp_error *err) {
  sp_writer w;
  sp_scratch *s;
  init_on_scratch(&w, opt, &s);
  w.cancel = opt->cancel;
  if (hub(&w, fn, value) == SP_OK && sp_writer_flush(&w) == SP_OK) copy_out(&w, out);
  sp_writer_release(&w);
  report(&w, err);
  return w.err.code;
}

/* Compressing or observed: the whole lifecycle. */
__attribute__((noinline)) static sp_code to_array_entry(sp_format_fn fn, const void *value,
                                                        const sp_options *opt, sp_bytes *out,
                                                        sp_error *err) {
  sp_entry e;
  if (sp_entry_begin_array(&e, opt) == SP_OK && hub(&e.w, fn, value) == SP_OK &&
      sp_entry_finish(&e) == SP_OK)
    sp_entry_copy(&e, out);
  return sp_entry_end(&e, err);
}

sp_code sp_to_array(sp_format_fn fn, const void *value, const sp_options *opt,
                    sp_bytes *out, sp_error *err) {
  out->data = NULL;
  out->len = 0;
  if (opt == NULL) return to_array_plain(fn, value, &default_options, out, err);
  if (opt->compression == SP_COMPRESSION_NONE && opt->observer == NULL)
    return to_array_plain(fn, value, opt, out, err);
  return to_array_entry(fn, value, opt, out, err);
}

/* The usual to_output -- no compression, no observer -- is the lifecycle
** with nothing in it to tell or to give back: an output writer never holds
** a scratch or a sequence, so end has nothing to release. One writer on the
** stack, set up, run through the hub, committed, reported: for a 16-byte
** message the entry's fixed cost was most of the call (sp_entry carries a
** second writer, and begin, finish and end each looked for an observer). */
static sp_code to_output_plain(const sp_output *out, sp_format_fn fn, const void *value,
                               const atomic_int *cancel, sp_error *err) {
  sp_writer w;
  sp_writer_init_output(&w, out);
  w.cancel = cancel;
  if (hub(&w, fn, value) == SP_OK) sp_writer_flush_fast(&w);
  report(&w, err);
  return w.err.code;
}

/* Compressing or observed: the whole lifecycle (out of line, so the plain
** call does not set up its frame). */
__attribute__((noinline)) static sp_code to_output_entry(const sp_output *out, sp_format_fn fn,
                                                         const void *value, const sp_options *opt,
                                                         sp_error *err) {
  sp_entry e;
  if (sp_entry_begin_output(&e, out, opt) == SP_OK && hub(&e.w, fn, value) == SP_OK)
    sp_entry_finish(&e);
  return sp_entry_end(&e, err);
}

sp_code sp_to_output(const sp_output *out, sp_format_fn fn, const void *value,
                     const sp_options *opt, sp_error *err) {
  if (opt == NULL) return to_output_plain(out, fn, value, NULL, err);
  if (opt->compression == SP_COMPRESSION_NONE && opt->observer == NULL)
    return to_output_plain(out, fn, value, opt->cancel, err);
  return to_output_entry(out, fn, value, opt, err);
}

sp_code sp_to_stream(sp_sink_fn sink, void *sink_ctx, sp_format_fn fn, const void *value,
                     const sp_options *opt, sp_error *err) {
  sp_entry e;
  if (sp_entry_begin_stream(&e, sink, sink_ctx, opt) == SP_OK &&
      sp_serialize(&e.w, fn, value) == SP_OK)
    sp_entry_finish(&e);
  return sp_entry_end(&e, err);
}

void sp_thread_cleanup(void) {
  sp_scratch_free_now();
  sp_shared_pool_release_thread();   /* the main thread has no exit callbacks */
}
