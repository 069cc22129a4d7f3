/*
** sp_trace.c -- the trace: an observer that records into caller storage.
** Owns: appending events and bytes, the frame of each traced entry, holding
** a traced writer's span short so each reservation reaches the slow path.
** Must not touch: the writer's decisions (it only watches them and moves
** 'end' between the cursor and the span's real end) or pool internals.
*/
#include <stdatomic.h>
#include <string.h>

#include "sp_serialize.h"
#include "sp_trace.h"
#include "base/sp_thread.h"

static SP_THREAD_LOCAL uint32_t thread_id;
static atomic_uint next_thread_id;

/* ---- the store ------------------------------------------------------------ */

/* Appends an event (dropped, with overflow set, when full). */
static sp_trace_event *add(sp_trace *t, sp_trace_kind kind) {
  sp_trace_event *e;
  if (t->nevents == t->cap_events) { t->overflow = 1; return NULL; }
  if (thread_id == 0) thread_id = atomic_fetch_add(&next_thread_id, 1) + 1;
  e = &t->events[t->nevents++];
  memset(e, 0, sizeof *e);
  e->kind = (uint8_t)kind;
  e->depth = (uint8_t)t->depth;
  e->thread = thread_id;
  return e;
}

/* Appends bytes to the byte store; returns their offset there. */
static uint32_t keep_bytes(sp_trace *t, const void *p, size_t n) {
  uint32_t at = (uint32_t)t->nbytes;
  if (t->cap_bytes - t->nbytes < n) { t->overflow = 1; n = t->cap_bytes - t->nbytes; }
  if (n > 0) memcpy(t->bytes + t->nbytes, p, n);
  t->nbytes += n;
  return at;
}

/* ---- frames ---------------------------------------------------------------- */

static sp_trace_frame *frame_of(sp_trace *t, const sp_writer *w) {
  for (unsigned i = t->depth < SP_TRACE_MAX_DEPTH ? t->depth : SP_TRACE_MAX_DEPTH; i-- > 0;)
    if (t->frames[i].w == w) return &t->frames[i];
  return NULL;
}

static uint8_t buffer_of(const sp_writer *w) {
  return w->mode == SP_MODE_SCRATCH ? SP_TR_BUF_SCRATCH
       : w->mode == SP_MODE_SEQUENCE ? SP_TR_BUF_SEGMENT : SP_TR_BUF_OUTPUT;
}

/* Records the bytes written since the last record, where they lie. */
static void record_writes(sp_trace *t, sp_trace_frame *f) {
  sp_writer *w = f->w;
  sp_trace_event *e;
  size_t n = f->mark != NULL ? (size_t)(w->cur - f->mark) : 0;
  if (n == 0 || (e = add(t, SP_TR_WRITE)) == NULL) {
    f->mark = w->cur;
    return;
  }
  e->size = n;
  e->data = keep_bytes(t, f->mark, n);
  e->buffer = buffer_of(w);
  if (w->mode == SP_MODE_SCRATCH) {
    e->offset = (uint64_t)(f->mark - w->base);
  } else if (w->mode == SP_MODE_SEQUENCE) {
    e->index = (uint32_t)(w->seq->nsegs - 1);
    e->offset = (uint64_t)(f->mark - w->seq->segs[w->seq->nsegs - 1].data);
  } else {
    e->offset = w->committed + (uint64_t)(f->mark - w->base);
  }
  e->addr = (uint64_t)(uintptr_t)f->mark;
  f->mark = w->cur;
}

/* An entry starts: the caller's pending bytes first (a legacy nested call
** may overwrite them), then a frame with the span held shut. */
static void enter(sp_trace *t, sp_writer *w, const sp_note *n) {
  sp_trace_frame *f;
  sp_trace_event *e;
  if (t->depth > 0 && t->depth <= SP_TRACE_MAX_DEPTH) record_writes(t, &t->frames[t->depth - 1]);
  if (++t->depth > SP_TRACE_MAX_DEPTH) { t->overflow = 1; return; }
  f = &t->frames[t->depth - 1];
  memset(f, 0, sizeof *f);
  f->w = w;
  f->real_end = w->end;
  f->mark = w->cur;
  w->end = w->cur;
  if ((e = add(t, SP_TR_ENTRY)) != NULL) { e->flag = (uint8_t)n->flag; e->size = n->size; }
}

static void leave(sp_trace *t, sp_trace_frame *f) {
  sp_trace_event *e;
  if (f != NULL && (e = add(t, SP_TR_EXIT)) != NULL) {
    e->flag = (uint8_t)f->w->err.code;
    e->size = sp_writer_length(f->w);
  }
  if (f != NULL) f->w = NULL;
  if (t->depth > 0) t->depth--;
}

/* ---- what the entries say ---------------------------------------------------- */

static void record_note(sp_trace *t, sp_trace_frame *f, const sp_note *n) {
  static const uint8_t kinds[] = {
    [SP_NOTE_SCRATCH] = SP_TR_SCRATCH, [SP_NOTE_SCRATCH_BUSY] = SP_TR_SCRATCH_BUSY,
    [SP_NOTE_COPY_OUT] = SP_TR_COPY_OUT, [SP_NOTE_SINK] = SP_TR_SINK,
    [SP_NOTE_RELEASE] = SP_TR_RELEASE,
  };
  sp_trace_event *e = add(t, (sp_trace_kind)kinds[n->kind]);
  if (e == NULL) return;
  e->flag = (uint8_t)n->flag;
  e->index = n->index;
  e->size = n->size;
  e->addr = (uint64_t)(uintptr_t)n->addr;
  if (n->kind == SP_NOTE_COPY_OUT) e->flag = buffer_of(f->w);
}

static void on_note(sp_observer *o, sp_writer *w, const sp_note *n) {
  sp_trace *t = (sp_trace *)o;
  sp_trace_frame *f;
  if (n->kind == SP_NOTE_BEGIN) { enter(t, w, n); return; }
  f = frame_of(t, w);
  if (n->kind == SP_NOTE_END) { leave(t, f); return; }
  if (f == NULL) return;                       /* nested too deep */
  if (n->kind == SP_NOTE_FLUSH) { record_writes(t, f); return; }
  if (n->kind == SP_NOTE_SINK) f->nsegs = 0;   /* the sequence starts again after its sinks */
  record_note(t, f, n);
}

/* ---- the writer's slow path ---------------------------------------------------- */

/* The pool the writer's next segment comes from (the default one is what
** the writer's slow path is about to resolve anyway). */
static sp_pool *pool_of(const sp_writer *w) {
  sp_seq_pool *sp;
  if (w->seq != NULL) return w->seq->pool;
  sp = w->seq_pool != NULL ? w->seq_pool : sp_seq_pool_default();
  return sp != NULL ? sp_seq_pool_arrays(sp) : NULL;
}

/* Before the writer finds a new span: what it has now, to tell afterwards
** which segments it rented and from which tier of its pool. */
static void snapshot(sp_trace_frame *f, const sp_writer *w) {
  sp_pool *pool = w->mode != SP_MODE_OUTPUT ? pool_of(w) : NULL;
  f->mode = (int)w->mode;
  f->nsegs = w->seq != NULL ? w->seq->nsegs : 0;
  f->last_seg = f->nsegs > 0 ? w->seq->segs[f->nsegs - 1].data : NULL;
  if (pool != NULL) sp_pool_stats_get(pool, &f->pool);
  else memset(&f->pool, 0, sizeof f->pool);
}

static int tier_of(const sp_pool_stats *a, const sp_pool_stats *b) {
  if (b->unpooled > a->unpooled) return SP_TR_TIER_UNPOOLED;
  if (b->fresh > a->fresh) return SP_TR_TIER_FRESH;
  if (b->fallback_hits > a->fallback_hits) return SP_TR_TIER_FALLBACK;
  return SP_TR_TIER_HIT;
}

/* After the writer found a new span: a SEGMENT per segment rented (one
** that replaced the last counts), the migration right after segment 0. */
static void record_segments(sp_trace *t, sp_trace_frame *f, const sp_writer *w) {
  const sp_sequence *s = w->seq;
  sp_pool_stats after;
  size_t first = f->nsegs;
  int tier;
  if (s == NULL) return;
  if (first > s->nsegs) first = 0;
  else if (first > 0 && s->segs[first - 1].data != f->last_seg) first--;
  sp_pool_stats_get(s->pool, &after);
  tier = tier_of(&f->pool, &after);
  for (size_t i = first; i < s->nsegs; i++) {
    sp_trace_event *e = add(t, SP_TR_SEGMENT);
    if (e != NULL) {
      e->index = (uint32_t)i;
      e->size = s->segs[i].capacity;
      e->addr = (uint64_t)(uintptr_t)s->segs[i].data;
      e->flag = (uint8_t)tier;
    }
    if (i == 0 && f->mode == SP_MODE_SCRATCH && (e = add(t, SP_TR_MIGRATE)) != NULL) {
      e->size = w->committed;              /* what the scratch held, now in segment 0 */
      e->addr = (uint64_t)(uintptr_t)s->segs[0].data;
    }
  }
}

/* Records the reservation; serves it inside the held span when it fits
** there, holding 'end' to exactly n bytes so the next one comes back. */
static uint8_t *on_reserve(sp_observer *o, sp_writer *w, size_t n) {
  sp_trace *t = (sp_trace *)o;
  sp_trace_frame *f = frame_of(t, w);
  sp_trace_event *e;
  int fits;
  if (f == NULL) return NULL;
  fits = f->real_end != NULL && (size_t)(f->real_end - w->cur) >= n;
  record_writes(t, f);
  if ((e = add(t, SP_TR_RESERVE)) != NULL) {
    e->offset = sp_writer_length(w);
    e->size = n;
    e->flag = (uint8_t)fits;
    e->buffer = buffer_of(w);
  }
  if (fits) {
    w->end = w->cur + n;
    return w->cur;
  }
  if (f->real_end != NULL) w->end = f->real_end;
  snapshot(f, w);
  return NULL;
}

static void on_spanned(sp_observer *o, sp_writer *w, size_t n) {
  sp_trace *t = (sp_trace *)o;
  sp_trace_frame *f = frame_of(t, w);
  if (f == NULL) return;
  if (w->mode != SP_MODE_OUTPUT) record_segments(t, f, w);
  f->real_end = w->end;
  w->end = w->cur + n;
  f->mark = w->cur;
}

static size_t on_room(sp_observer *o, const sp_writer *w) {
  sp_trace_frame *f = frame_of((sp_trace *)o, w);
  const uint8_t *end = f != NULL && f->real_end != NULL ? f->real_end : w->end;
  return (size_t)(end - w->cur);
}

static const sp_observer_hooks trace_hooks = {on_note, on_reserve, on_spanned, on_room};

void sp_trace_init(sp_trace *t, sp_trace_event *events, size_t cap_events,
                   uint8_t *bytes, size_t cap_bytes) {
  memset(t, 0, sizeof *t);
  t->observer.hooks = &trace_hooks;
  t->events = events;
  t->cap_events = cap_events;
  t->bytes = bytes;
  t->cap_bytes = cap_bytes;
}
