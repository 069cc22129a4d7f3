/*
** sp_writer.c -- the writer's slow path and its longer formats.
** Owns: committing spans, migration from scratch to a sequence, raw copies
** across spans, str/bin/ext/timestamp. Must not touch: pool internals (it
** rents through sp_seq_pool and sp_sequence) or the scratch's lifetime (it
** only releases the scratch it was given).
*/
#include <string.h>

#include "sp_scratch.h"
#include "sp_trace.h"
#include "sp_writer.h"

/* Field by field: a memset of the whole struct (its error path is 96 bytes)
** was half the cost of encoding a 16-byte message. */
static void writer_clear(sp_writer *w, sp_mode mode) {
  w->cur = w->end = w->base = NULL;
  w->mode = mode;
  w->committed = 0;
  w->seq = NULL;
  w->seq_pool = NULL;
  w->out = NULL;
  w->scratch = NULL;
  w->cancel = NULL;
  w->trace = NULL;
  w->real_end = w->mark = NULL;
  w->err.code = SP_OK;
  w->err.inner = 0;
  w->err.cause = w->err.site = NULL;
  w->err.offset = 0;
  w->err.path[0] = '\0';
}

void sp_writer_init_output(sp_writer *w, const sp_output *out) {
  writer_clear(w, SP_MODE_OUTPUT);
  w->out = out;
}

void sp_writer_init_sequence(sp_writer *w, sp_seq_pool *pool) {
  writer_clear(w, SP_MODE_SEQUENCE);
  w->seq_pool = pool;
}

void sp_writer_init_array(sp_writer *w, uint8_t *scratch, size_t size, sp_seq_pool *pool) {
  writer_clear(w, SP_MODE_SCRATCH);
  w->seq_pool = pool;
  w->base = w->cur = scratch;
  w->end = scratch + size;
}

void sp_writer_set_trace(sp_writer *w, sp_trace *t) {
  w->trace = t;
  if (t == NULL) return;
  w->real_end = w->end;      /* hold the span shut: the first reservation comes to us */
  w->end = w->cur;
  w->mark = w->cur;
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

/* Commits the bytes written in the current span. A scratch has nobody to
** commit to: its bytes stay at base until the entry copies them out. */
static void commit(sp_writer *w) {
  size_t n = (size_t)(w->cur - w->base);
  if (n == 0 || w->mode == SP_MODE_SCRATCH) return;
  if (w->mode == SP_MODE_OUTPUT) w->out->advance(w->out->ctx, n);
  else if (w->mode == SP_MODE_SEQUENCE) sp_seq_advance(w->seq, n);
  w->committed += n;
  w->base = w->cur;
}

/* The sequence pool, resolving the default only when first needed, so a
** call that stays in its scratch never creates the shared pools. */
static sp_seq_pool *seq_pool_of(sp_writer *w) {
  if (w->seq_pool == NULL) w->seq_pool = sp_seq_pool_default();
  return w->seq_pool;
}

/* ---- tracing (only ever reached with w->trace set) ---------------------- */

/* Records the bytes written since the last record, where they lie. */
static void trace_writes(sp_writer *w) {
  sp_trace_event *e;
  size_t n = (size_t)(w->cur - w->mark);
  if (w->mark == NULL || n == 0 || (e = sp_trace_add(w->trace, SP_TR_WRITE)) == NULL) {
    w->mark = w->cur;
    return;
  }
  e->size = n;
  e->data = sp_trace_bytes(w->trace, w->mark, n);
  if (w->mode == SP_MODE_SCRATCH) {
    e->buffer = SP_TR_BUF_SCRATCH;
    e->offset = (uint64_t)(w->mark - w->base);
  } else if (w->mode == SP_MODE_SEQUENCE) {
    e->buffer = SP_TR_BUF_SEGMENT;
    e->index = (uint32_t)(w->seq->nsegs - 1);
    e->offset = (uint64_t)(w->mark - w->seq->segs[w->seq->nsegs - 1].data);
  } else {
    e->buffer = SP_TR_BUF_OUTPUT;
    e->offset = w->committed + (uint64_t)(w->mark - w->base);
  }
  e->addr = (uint64_t)(uintptr_t)w->mark;
  w->mark = w->cur;
}

void sp_writer_trace_flush(sp_writer *w) {
  if (w->trace != NULL) trace_writes(w);
}

/* Records a reservation; when it fits, holds 'end' to exactly n bytes so the
** next one comes back here, and returns the span. NULL: take the real path. */
static uint8_t *trace_reserve(sp_writer *w, size_t n) {
  sp_trace_event *e;
  int fits = w->real_end != NULL && (size_t)(w->real_end - w->cur) >= n;
  trace_writes(w);
  if ((e = sp_trace_add(w->trace, SP_TR_RESERVE)) != NULL) {
    e->offset = sp_writer_length(w);
    e->size = n;
    e->flag = (uint8_t)fits;
    e->buffer = w->mode == SP_MODE_SCRATCH ? SP_TR_BUF_SCRATCH
              : w->mode == SP_MODE_SEQUENCE ? SP_TR_BUF_SEGMENT : SP_TR_BUF_OUTPUT;
  }
  if (!fits) {
    if (w->real_end != NULL) w->end = w->real_end;
    return NULL;
  }
  w->end = w->cur + n;
  return w->cur;
}

/* After the real path found a new span: remember its end, hold 'end'. */
static void trace_hold(sp_writer *w, size_t n) {
  w->real_end = w->end;
  w->end = w->cur + n;
  w->mark = w->cur;
}

static int tier_of(const sp_pool_stats *a, const sp_pool_stats *b) {
  if (b->unpooled > a->unpooled) return SP_TR_TIER_UNPOOLED;
  if (b->fresh > a->fresh) return SP_TR_TIER_FRESH;
  if (b->fallback_hits > a->fallback_hits) return SP_TR_TIER_FALLBACK;
  return SP_TR_TIER_HIT;
}

/* sp_seq_get_span, recording a newly rented segment and its pool tier. */
static uint8_t *seq_span(sp_writer *w, size_t hint, size_t *avail) {
  sp_pool_stats before, after;
  size_t nsegs = w->seq->nsegs;
  uint8_t *span;
  sp_trace_event *e;
  if (w->trace == NULL) return sp_seq_get_span(w->seq, hint, avail);
  sp_pool_stats_get(w->seq->pool, &before);
  span = sp_seq_get_span(w->seq, hint, avail);
  if (span == NULL || (w->seq->nsegs == nsegs && span != w->seq->segs[nsegs - 1].data))
    return span;
  sp_pool_stats_get(w->seq->pool, &after);
  if ((e = sp_trace_add(w->trace, SP_TR_SEGMENT)) != NULL) {
    e->index = (uint32_t)(w->seq->nsegs - 1);
    e->size = w->seq->segs[w->seq->nsegs - 1].capacity;
    e->addr = (uint64_t)(uintptr_t)span;
    e->flag = (uint8_t)tier_of(&before, &after);
  }
  return span;
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
    uint8_t *span = seq_span(w, hint, &avail);
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
  if (w->trace != NULL) {
    sp_trace_event *e = sp_trace_add(w->trace, SP_TR_MIGRATE);
    if (e != NULL) { e->size = used; e->addr = (uint64_t)(uintptr_t)w->seq->segs[0].data; }
  }
  w->committed += used;
  w->mode = SP_MODE_SEQUENCE;
  sp_scratch_release(w->scratch);
  w->scratch = NULL;
  w->base = w->cur = w->end = NULL;
  return 1;
}

uint8_t *sp_writer_reserve_slow(sp_writer *w, size_t n) {
  size_t avail = 0;
  uint8_t *span = NULL;
  if (w->err.code != SP_OK) return NULL;
  if (w->trace != NULL && (span = trace_reserve(w, n)) != NULL) return span;
  if (w->mode == SP_MODE_SCRATCH) {
    if (!migrate(w, n)) return NULL;
  } else {
    commit(w);
  }
  if (w->mode == SP_MODE_OUTPUT) {
    span = w->out->get_span(w->out->ctx, n, &avail);
    if (span == NULL || avail < n) {
      sp_writer_fail(w, SP_E_BUFFER_TOO_SMALL, "the output gave no span of the size asked", __func__);
      return NULL;
    }
  } else {
    if (!rent_sequence(w)) return NULL;
    if ((span = seq_span(w, n, &avail)) == NULL) {
      sp_writer_fail(w, SP_E_NOMEM, "no segment for the output", __func__);
      return NULL;
    }
  }
  w->base = w->cur = span;
  w->end = span + avail;
  if (w->trace != NULL) trace_hold(w, n);
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

/* Room left in the current span (its real end when tracing). */
static size_t room_of(const sp_writer *w) {
  const uint8_t *end = w->trace != NULL && w->real_end != NULL ? w->real_end : w->end;
  return w->err.code == SP_OK ? (size_t)(end - w->cur) : 0;
}

void sp_write_raw_slow(sp_writer *w, const void *src, size_t n) {
  const uint8_t *p = src;
  while (n > 0) {
    size_t room = room_of(w), k;
    int reserved = 0;
    if (room == 0 || (room < n && w->mode == SP_MODE_SCRATCH)) {
      if (sp_writer_reserve_slow(w, raw_chunk(w, n)) == NULL) return;
      room = (size_t)(w->end - w->cur);
      reserved = 1;
    }
    k = room < n ? room : n;
    if (w->trace != NULL && !reserved && sp_writer_reserve_slow(w, k) == NULL) return;
    memcpy(w->cur, p, k);
    w->cur += k;
    p += k;
    n -= k;
  }
}

void sp_write_str_header(sp_writer *w, uint32_t n) {
  uint8_t *p = sp_writer_reserve(w, 5);
  if (p) w->cur = p + sp_put_str_header(p, n);
}

void sp_write_str_slow(sp_writer *w, const char *utf8, size_t len) {
  if ((uint64_t)len > 0xffffffffu) {
    sp_writer_fail(w, SP_E_LENGTH_LIMIT, "str longer than 2^32-1 bytes", __func__);
    return;
  }
  sp_write_str_header(w, (uint32_t)len);
  sp_write_raw(w, utf8, len);
}

void sp_write_bin_header(sp_writer *w, uint32_t n) {
  uint8_t *p = sp_writer_reserve(w, 5);
  if (!p) return;
  if (n <= 0xff) { p[0] = 0xc4; p[1] = (uint8_t)n; w->cur = p + 2; }
  else if (n <= 0xffff) { p[0] = 0xc5; sp_store16(p + 1, (uint16_t)n); w->cur = p + 3; }
  else { p[0] = 0xc6; sp_store32(p + 1, n); w->cur = p + 5; }
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
  size_t h;
  if (!p) return;
  switch (len) {
    case 1: p[0] = 0xd4; h = 1; break;
    case 2: p[0] = 0xd5; h = 1; break;
    case 4: p[0] = 0xd6; h = 1; break;
    case 8: p[0] = 0xd7; h = 1; break;
    case 16: p[0] = 0xd8; h = 1; break;
    default:
      if (len <= 0xff) { p[0] = 0xc7; p[1] = (uint8_t)len; h = 2; }
      else if (len <= 0xffff) { p[0] = 0xc8; sp_store16(p + 1, (uint16_t)len); h = 3; }
      else { p[0] = 0xc9; sp_store32(p + 1, len); h = 5; }
  }
  p[h] = (uint8_t)type;
  w->cur = p + h + 1;
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
  if (w->trace != NULL) trace_writes(w);
  if (w->err.code == SP_OK) commit(w);
  return w->err.code;
}

void sp_writer_release(sp_writer *w) {
  if (w->seq != NULL) {
    sp_seq_pool_return(w->seq_pool, w->seq);
    w->seq = NULL;
  }
  sp_scratch_release(w->scratch);
  w->scratch = NULL;
}
