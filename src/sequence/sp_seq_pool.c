/*
** sp_seq_pool.c -- the pool of sequences (SequencePool).
** Owns: idle sequences and the lock that guards them. Must not touch: the
** segments inside a rented sequence (its renter does) or encoding.
** What an idle sequence keeps: no segments (they go back to the array pool
** on return) and a segment table of at most SP_SEQ_KEEP_SEGS entries (a
** bigger one, left by a big message, is freed on return).
*/
#include <stdatomic.h>
#include <string.h>

#include "sp_alloc.h"
#include "sp_sequence.h"
#include "base/sp_thread.h"

struct sp_seq_pool {
  sp_lock lock;
  sp_pool *arrays;             /* not owned */
  sp_sequence **idle;          /* idle[0..nidle) */
  unsigned nidle, max;
  atomic_ullong rents, returns, fresh, drops, lock_waits;
};

static void count(atomic_ullong *c) {
  atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

static uint64_t load(atomic_ullong *c) {
  return atomic_load_explicit(c, memory_order_relaxed);
}

sp_seq_pool *sp_seq_pool_create(unsigned max, sp_pool *arrays) {
  sp_seq_pool *p;
  if (max > SP_SEQ_POOL_MAX) return NULL;          /* max * sizeof *idle must not wrap */
  if ((p = sp_malloc(sizeof *p)) == NULL) return NULL;
  memset(p, 0, sizeof *p);
  p->max = max ? max : 2u * (unsigned)sp_cpu_count();
  p->arrays = arrays ? arrays : sp_pool_default();
  p->idle = sp_malloc(p->max * sizeof *p->idle);
  if (p->arrays == NULL || p->idle == NULL || sp_lock_init(&p->lock) != 0) {
    sp_free(p->idle, p->max * sizeof *p->idle);
    sp_free(p, sizeof *p);
    return NULL;
  }
  return p;
}

static void free_sequence(sp_sequence *s) {
  sp_seq_free(s);
  sp_free(s, sizeof *s);
}

void sp_seq_pool_clear(sp_seq_pool *p) {
  sp_sequence *drop[64];
  unsigned n;
  do {                                   /* free outside the lock, in batches */
    if (sp_lock_take(&p->lock)) count(&p->lock_waits);
    for (n = 0; n < 64 && p->nidle > 0; n++) drop[n] = p->idle[--p->nidle];
    sp_lock_give(&p->lock);
    for (unsigned i = 0; i < n; i++) free_sequence(drop[i]);
  } while (n == 64);
}

void sp_seq_pool_destroy(sp_seq_pool *p) {
  if (p == NULL) return;
  sp_seq_pool_clear(p);
  sp_lock_destroy(&p->lock);
  sp_free(p->idle, p->max * sizeof *p->idle);
  sp_free(p, sizeof *p);
}

sp_sequence *sp_seq_pool_rent(sp_seq_pool *p) {
  sp_sequence *s = NULL;
  count(&p->rents);
  if (sp_lock_take(&p->lock)) count(&p->lock_waits);
  if (p->nidle > 0) s = p->idle[--p->nidle];
  sp_lock_give(&p->lock);
  if (s != NULL) return s;
  count(&p->fresh);
  if ((s = sp_malloc(sizeof *s)) != NULL) sp_seq_init(s, p->arrays);
  return s;
}

void sp_seq_pool_return(sp_seq_pool *p, sp_sequence *s) {
  int kept = 0;
  if (s == NULL) return;
  count(&p->returns);
  sp_seq_reset(s);                       /* segments go back outside the lock */
  if (s->cap_segs > SP_SEQ_KEEP_SEGS) sp_seq_free(s);   /* the table of a big message */
  if (sp_lock_take(&p->lock)) count(&p->lock_waits);
  if (p->nidle < p->max) { p->idle[p->nidle++] = s; kept = 1; }
  sp_lock_give(&p->lock);
  if (!kept) { count(&p->drops); free_sequence(s); }
}

void sp_seq_pool_stats_get(sp_seq_pool *p, sp_seq_pool_stats *out) {
  out->rents = load(&p->rents);
  out->returns = load(&p->returns);
  out->fresh = load(&p->fresh);
  out->drops = load(&p->drops);
  out->lock_waits = load(&p->lock_waits);
  sp_lock_take(&p->lock);
  out->idle = p->nidle;
  sp_lock_give(&p->lock);
}

sp_pool *sp_seq_pool_arrays(sp_seq_pool *p) { return p->arrays; }
