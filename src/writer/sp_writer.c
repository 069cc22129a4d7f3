/*
** sp_writer.c -- the writer's slow path and its longer formats.
** Owns: committing spans (to an output, a sequence, a stream's sink),
** migration from scratch to a sequence, raw copies across spans,
** str/bin/ext/timestamp, calling the observer. Must not touch: pool
** internals (it rents through sp_seq_pool and sp_sequence), the scratch's
** lifetime (it only releases the scratch it was given), what an observer
** does with what it is told.
*/
#include <string.h>

#include "sp_scratch.h"
#include "sp_writer.h"

void sp_writer_init_sequence(sp_writer *w, sp_seq_pool *pool) {
  sp_writer_reset(w, SP_MODE_SEQUENCE);
  w->seq_pool = pool;
}

void sp_writer_init_stream(sp_writer *w, sp_seq_pool *pool, sp_sink_fn sink, void *ctx) {
  sp_writer_init_sequence(w, pool);
  w->sink = sink;
  w->sink_ctx = ctx;
}

void sp_writer_init_array(sp_writer *w, uint8_t *scratch, size_t size, sp_seq_pool *pool) {
  sp_writer_reset(w, SP_MODE_SCRATCH);
  w->seq_pool = pool;
  w->base = w->cur = scratch;
  w->end = scratch != NULL ? scratch + size : NULL;   /* NULL + 0 is undefined */
}

sp_code sp_writer_fail(sp_writer *w, sp_code code, const char *cause, const char *site) {
  if (w->err.code == SP_OK) {
    w->err.code = code;
    w->err.cause = cause;
    w->err.site = site;
    w->err.offset = (size_t)sp_writer_length(w);
  }
  w->end = w->cur;                     /* every later reservation goes slow and fails */
  return code;
}

/* ---- the observer: a call each, nothing when there is none --------------- */

__attribute__((noinline)) static void tell(sp_writer *w, sp_note_kind kind, uint32_t index,
                                           uint64_t size) {
  sp_note n = {kind, 0, index, size, NULL};
  w->observer->hooks->note(w->observer, w, &n);
}

/* The test inline, the note built out of line: flush runs once per call. */
static inline void notify(sp_writer *w, sp_note_kind kind, uint32_t index, uint64_t size) {
  if (w->observer != NULL) tell(w, kind, index, size);
}

/* Room left in the current span ('end' may be held short by an observer). */
static size_t room_of(const sp_writer *w) {
  if (w->observer != NULL) return w->observer->hooks->room(w->observer, w);
  return (size_t)(w->end - w->cur);
}

/* ---- committing ---------------------------------------------------------- */

/* OUTPUT: the staged bytes (a reservation the output could not give) go to
** the output now that their size is known. Out of line: rare. */
__attribute__((noinline)) static int unstage(sp_writer *w, size_t n) {
  size_t avail = 0;
  uint8_t *span = w->out->get_span(w->out->ctx, n, &avail);
  if (span == NULL || avail < n) {
    sp_writer_fail(w, SP_E_BUFFER_TOO_SMALL, "the output gave no span of the size asked", __func__);
    return 0;
  }
  memcpy(span, w->stage, n);
  return 1;
}

/* Commits the bytes written in the current span. A scratch has nobody to
** commit to: its bytes stay at base until the entry copies them out. */
static int commit(sp_writer *w) {
  size_t n = (size_t)(w->cur - w->base);
  if (n == 0 || w->mode == SP_MODE_SCRATCH) return 1;
  if (w->mode == SP_MODE_OUTPUT) {
    if (w->base == w->stage && !unstage(w, n)) return 0;
    w->out->advance(w->out->ctx, n);
  } else {
    sp_seq_advance(w->seq, n);
  }
  w->committed += n;
  w->base = w->cur;
  return 1;
}

/* A stream writer moving past its segments: each goes to the sink, then
** all go back to the pool. */
static int pass_segments(sp_writer *w) {
  sp_sequence *s = w->seq;
  for (size_t i = 0; i < s->nsegs; i++) {
    int rc;
    if (s->segs[i].used == 0) continue;
    if (sp_writer_stopped(w)) return 0;
    notify(w, SP_NOTE_SINK, (uint32_t)i, s->segs[i].used);
    if ((rc = w->sink(w->sink_ctx, s->segs[i].data, s->segs[i].used)) != 0) {
      sp_writer_fail(w, SP_E_SINK, "the sink reported failure", __func__);
      w->err.inner = rc;
      return 0;
    }
  }
  sp_seq_reset(s);
  return 1;
}

/* 1 when the sequence's last segment has room for n more bytes. */
static int seq_fits(const sp_sequence *s, size_t n) {
  const sp_segment *last = s->nsegs ? &s->segs[s->nsegs - 1] : NULL;
  return last != NULL && last->capacity - last->used >= (n ? n : 1);
}

/* ---- new spans ------------------------------------------------------------ */

/* The sequence pool, resolving the default only when first needed, so a
** call that stays in its scratch never creates the shared pools. */
static sp_seq_pool *seq_pool_of(sp_writer *w) {
  if (w->seq_pool == NULL) w->seq_pool = sp_seq_pool_default();
  return w->seq_pool;
}

static int rent_sequence(sp_writer *w) {
  if (w->seq != NULL) return 1;
  if (seq_pool_of(w) == NULL || (w->seq = sp_seq_pool_rent(w->seq_pool)) == NULL) {
    sp_writer_fail(w, SP_E_NOMEM, "no sequence for the output", __func__);
    return 0;
  }
  return 1;
}

/* Appends len bytes to the sequence, the first span sized for 'hint'. */
static int seq_append(sp_writer *w, const uint8_t *src, size_t len, size_t hint) {
  while (len > 0) {
    size_t avail, k;
    uint8_t *span = sp_seq_get_span(w->seq, hint, &avail);
    if (span == NULL) {
      sp_writer_fail(w, SP_E_NOMEM, "no segment for the output", __func__);
      return 0;
    }
    k = avail < len ? avail : len;
    memcpy(span, src, k);
    sp_seq_advance(w->seq, k);
    src += k;
    len -= k;
    hint = 0;
  }
  return 1;
}

/* SCRATCH -> SEQUENCE, once: rent a sequence, copy what was written (in one
** segment that also fits the pending 'need' when the pool can hold both),
** let go of the scratch. */
static int migrate(sp_writer *w, size_t need) {
  size_t used = (size_t)(w->cur - w->base), hint;
  size_t pooled;
  if (!rent_sequence(w)) return 0;
  pooled = w->seq->pool->max_pooled;
  hint = used + need <= pooled ? used + need : (used < pooled ? used : pooled);
  if (used > 0 && !seq_append(w, w->base, used, hint)) return 0;
  w->committed += used;
  w->mode = SP_MODE_SEQUENCE;
  sp_scratch_release(w->scratch);
  w->scratch = NULL;
  w->base = w->cur = w->end = NULL;
  return 1;
}

/* OUTPUT: a span of n from the output, or the writer's stage when n is
** small (the output may still hold the bytes really written). */
static uint8_t *output_span(sp_writer *w, size_t n, size_t *avail) {
  uint8_t *span = w->out->get_span(w->out->ctx, n, avail);
  if (span != NULL && *avail >= n) return span;
  if (n <= SP_WRITER_STAGE) {
    *avail = SP_WRITER_STAGE;
    return w->stage;
  }
  sp_writer_fail(w, SP_E_BUFFER_TOO_SMALL, "the output gave no span of the size asked", __func__);
  return NULL;
}

/* The real slow path: commits what was written and finds a span of n. */
static uint8_t *next_span(sp_writer *w, size_t n) {
  size_t avail = 0;
  uint8_t *span;
  if (w->mode == SP_MODE_SCRATCH ? !migrate(w, n) : !commit(w)) return NULL;
  if (w->mode == SP_MODE_OUTPUT) {
    if ((span = output_span(w, n, &avail)) == NULL) return NULL;
  } else {
    if (!rent_sequence(w)) return NULL;
    if (w->sink != NULL && !seq_fits(w->seq, n) && !pass_segments(w)) return NULL;
    if ((span = sp_seq_get_span(w->seq, n, &avail)) == NULL) {
      sp_writer_fail(w, SP_E_NOMEM, "no segment for the output", __func__);
      return NULL;
    }
  }
  w->base = w->cur = span;
  w->end = span + avail;
  return span;
}

uint8_t *sp_writer_reserve_slow(sp_writer *w, size_t n) {
  sp_observer *o = w->observer;
  uint8_t *span;
  if (w->err.code != SP_OK) return NULL;
  if (o != NULL && (span = o->hooks->reserve(o, w, n)) != NULL) return span;
  if ((span = next_span(w, n)) != NULL && o != NULL) o->hooks->spanned(o, w, n);
  return span;
}

/* How much of a long copy to reserve at once. Sequences: what their pool
** still keeps in a bucket, so a big copy never rents an unpooled array.
** Outputs: a little; their spans may be longer, and a small ask lets a
** fixed output fill to its last byte. */
static size_t raw_chunk(sp_writer *w, size_t n) {
  size_t limit = 4096;
  if (w->mode != SP_MODE_OUTPUT && seq_pool_of(w) != NULL) {
    size_t used = w->mode == SP_MODE_SCRATCH ? (size_t)(w->cur - w->base) : 0;
    limit = sp_seq_pool_arrays(w->seq_pool)->max_pooled;
    limit = limit > used ? limit - used : 1;
  }
  return n < limit ? n : limit;
}

/* Fills what is left of the span, then reserves chunk by chunk. A scratch
** that cannot take the rest migrates first, so the copy is not split at
** the scratch's end. */
void sp_write_raw_slow(sp_writer *w, const void *src, size_t n) {
  const uint8_t *p = src;
  while (n > 0 && w->err.code == SP_OK) {
    size_t room = room_of(w), k;
    int again = room == 0 || (room < n && w->mode == SP_MODE_SCRATCH);   /* a new span */
    k = again ? raw_chunk(w, n) : room < n ? room : n;
    if ((again || (size_t)(w->end - w->cur) < k) && sp_writer_reserve_slow(w, k) == NULL) return;
    k = (size_t)(w->end - w->cur) < n ? (size_t)(w->end - w->cur) : n;
    memcpy(w->cur, p, k);
    w->cur += k;
    p += k;
    n -= k;
  }
}

/* The inline formats when their worst case, n, does not fit the span: the
** format is put into 'tmp' (k bytes), then copied to a reservation of n.
** Each returns the write position (unchanged after an error). */
static uint8_t *put_slow(sp_writer *w, size_t n, const uint8_t *tmp, size_t k) {
  uint8_t *p = sp_writer_reserve_slow(w, n);
  if (p) { memcpy(p, tmp, k); w->cur = p + k; }
  return w->cur;
}

uint8_t *sp_write_byte_slow(sp_writer *w, uint8_t b) { return put_slow(w, 1, &b, 1); }

uint8_t *sp_write_uint_slow(sp_writer *w, uint64_t v) {
  uint8_t tmp[9];
  return put_slow(w, 9, tmp, sp_put_uint(tmp, v));
}

uint8_t *sp_write_int_slow(sp_writer *w, int64_t v) {
  uint8_t tmp[9];
  return put_slow(w, 9, tmp, sp_put_int(tmp, v));
}

uint8_t *sp_write_float_slow(sp_writer *w, float f) {
  uint8_t tmp[5];
  return put_slow(w, 5, tmp, sp_put_float(tmp, f));
}

uint8_t *sp_write_double_slow(sp_writer *w, double d) {
  uint8_t tmp[9];
  return put_slow(w, 9, tmp, sp_put_double(tmp, d));
}

uint8_t *sp_write_array_header_slow(sp_writer *w, uint32_t n) {
  uint8_t tmp[5];
  return put_slow(w, 5, tmp, sp_put_header(tmp, n, 0x90, 15, 0xdc));
}

uint8_t *sp_write_map_header_slow(sp_writer *w, uint32_t n) {
  uint8_t tmp[5];
  return put_slow(w, 5, tmp, sp_put_header(tmp, n, 0x80, 15, 0xde));
}

void sp_write_str_header(sp_writer *w, uint32_t n) {
  uint8_t *p = sp_writer_reserve(w, 5);
  if (p) w->cur = p + sp_put_str_header(p, n);
}

uint8_t *sp_put_str_long(uint8_t *p, const void *utf8, size_t n) {
  p += sp_put_str_header(p, (uint32_t)n);
  memcpy(p, utf8, n);
  return p + n;
}

uint8_t *sp_write_str_slow(sp_writer *w, const char *utf8, size_t len) {
  size_t room = (size_t)(w->end - w->cur);
  if ((uint64_t)len > 0xffffffffu) {
    sp_writer_fail(w, SP_E_LENGTH_LIMIT, "str longer than 2^32-1 bytes", __func__);
    return w->cur;
  }
  /* Fits: longer than sp_write_str writes inline, so straight to the long form. */
  if (room > len && room - len >= 5) return sp_put_str_long(w->cur, utf8, len);
  sp_write_str_header(w, (uint32_t)len);
  sp_write_raw(w, utf8, len);
  return w->cur;
}

void sp_write_bin_header(sp_writer *w, uint32_t n) {
  uint8_t *p = sp_writer_reserve(w, 5);
  if (p) w->cur = p + sp_put_bin_header(p, n);
}

void sp_write_bin(sp_writer *w, const void *data, size_t len) {
  if ((uint64_t)len > 0xffffffffu) {
    sp_writer_fail(w, SP_E_LENGTH_LIMIT, "bin longer than 2^32-1 bytes", __func__);
    return;
  }
  sp_write_bin_header(w, (uint32_t)len);
  sp_write_raw(w, data, len);
}

void sp_write_ext_header(sp_writer *w, int8_t type, uint32_t len) {
  uint8_t *p = sp_writer_reserve(w, 6);
  if (p) w->cur = p + sp_put_ext_header(p, type, len);
}

void sp_write_ext(sp_writer *w, int8_t type, const void *data, size_t len) {
  if ((uint64_t)len > 0xffffffffu) {
    sp_writer_fail(w, SP_E_LENGTH_LIMIT, "ext longer than 2^32-1 bytes", __func__);
    return;
  }
  sp_write_ext_header(w, type, (uint32_t)len);
  sp_write_raw(w, data, len);
}

void sp_write_timestamp(sp_writer *w, int64_t sec, uint32_t nsec) {
  uint8_t *p;
  if (nsec >= 1000000000u) {
    sp_writer_fail(w, SP_E_VALUE_RANGE, "timestamp nanoseconds >= 10^9", __func__);
    return;
  }
  if ((p = sp_writer_reserve(w, 15)) == NULL) return;
  if (sec >= 0 && ((uint64_t)sec >> 34) == 0) {
    uint64_t d64 = ((uint64_t)nsec << 34) | (uint64_t)sec;
    if ((d64 >> 32) == 0) {           /* 32-bit form: whole seconds below 2^32 */
      p[0] = 0xd6; p[1] = 0xff; sp_store32(p + 2, (uint32_t)d64);
      w->cur = p + 6;
    } else {
      p[0] = 0xd7; p[1] = 0xff; sp_store64(p + 2, d64);
      w->cur = p + 10;
    }
    return;
  }
  p[0] = 0xc7; p[1] = 12; p[2] = 0xff;
  sp_store32(p + 3, nsec);
  sp_store64(p + 7, (uint64_t)sec);
  w->cur = p + 15;
}

sp_code sp_writer_flush(sp_writer *w) {
  notify(w, SP_NOTE_FLUSH, 0, 0);
  if (w->err.code == SP_OK && commit(w) && w->sink != NULL && w->seq != NULL) pass_segments(w);
  return w->err.code;
}

void sp_writer_release(sp_writer *w) {
  if (w->seq != NULL) {
    notify(w, SP_NOTE_RELEASE, 0, w->seq->nsegs);
    sp_seq_pool_return(w->seq_pool, w->seq);
    w->seq = NULL;
  }
  if (w->scratch != NULL) {
    sp_scratch_release(w->scratch);
    w->scratch = NULL;
  }
}
