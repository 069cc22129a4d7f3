/*
** sp_sequence.c -- segmented byte buffer over an array pool.
** Owns: the segment table and the rented segments of one sequence. Must not
** touch: the sequence pool (sp_seq_pool.c) or encoding.
*/
#include <string.h>

#include "sp_alloc.h"
#include "sp_sequence.h"

void sp_seq_init(sp_sequence *s, sp_pool *pool) {
  memset(s, 0, sizeof *s);
  s->pool = pool;
  s->min_span = SP_SEQ_MIN_SPAN;
}

/* Makes room for one more segment entry; 0 on no memory. */
static int grow_table(sp_sequence *s) {
  size_t ncap = s->cap_segs ? s->cap_segs * 2 : 8;
  sp_segment *t;
  if (s->cap_segs > SIZE_MAX / 2 / sizeof *t) return 0;   /* ncap * sizeof must not wrap */
  if ((t = sp_malloc(ncap * sizeof *t)) == NULL) return 0;
  if (s->nsegs) memcpy(t, s->segs, s->nsegs * sizeof *t);
  sp_free(s->segs, s->cap_segs * sizeof *t);
  s->segs = t;
  s->cap_segs = ncap;
  return 1;
}

uint8_t *sp_seq_get_span(sp_sequence *s, size_t hint, size_t *avail) {
  sp_segment *last = s->nsegs ? &s->segs[s->nsegs - 1] : NULL;
  size_t want = hint ? hint : 1, cap;
  int replace = last != NULL && last->used == 0;   /* an empty last segment is replaced */
  uint8_t *data;
  if (last && last->capacity - last->used >= want) {
    *avail = last->capacity - last->used;
    return last->data + last->used;
  }
  if (!replace && s->nsegs == s->cap_segs && !grow_table(s)) return NULL;
  data = sp_pool_rent(s->pool, want > s->min_span ? want : s->min_span, &cap);
  if (data == NULL) return NULL;                   /* nothing changed yet */
  if (replace) {
    s->nsegs--;
    sp_pool_return(s->pool, s->segs[s->nsegs].data, s->segs[s->nsegs].capacity);
  }
  s->segs[s->nsegs].data = data;                   /* the old tail, if any, is abandoned */
  s->segs[s->nsegs].used = 0;
  s->segs[s->nsegs].capacity = cap;
  s->nsegs++;
  *avail = cap;
  return data;
}

void sp_seq_advance(sp_sequence *s, size_t n) {
  s->segs[s->nsegs - 1].used += n;
  s->length += n;
}

void sp_seq_copy_to(const sp_sequence *s, uint8_t *dst) {
  for (size_t i = 0; i < s->nsegs; i++) {
    if (s->segs[i].used == 0) continue;
    memcpy(dst, s->segs[i].data, s->segs[i].used);
    dst += s->segs[i].used;
  }
}

void sp_seq_reset(sp_sequence *s) {
  for (size_t i = 0; i < s->nsegs; i++)
    sp_pool_return(s->pool, s->segs[i].data, s->segs[i].capacity);
  s->nsegs = 0;
  s->length = 0;
  s->min_span = SP_SEQ_MIN_SPAN;
}

void sp_seq_free(sp_sequence *s) {
  if (s == NULL) return;
  sp_seq_reset(s);
  sp_free(s->segs, s->cap_segs * sizeof *s->segs);
  s->segs = NULL;
  s->cap_segs = 0;
}
