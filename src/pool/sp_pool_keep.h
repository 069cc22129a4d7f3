/*
** sp_pool_keep.h -- a pool's byte budget for cached arrays, for the pool
** implementations (sp_pool_bucket.c, sp_pool_shared.c, sp_pool_lockfree.c).
** Owns: the arithmetic of sp_pool.kept against sp_pool.keep_max. Must not
** touch: arrays or the pools' own structures.
**
** Under a budget (keep_max != 0) every array that enters a pool's cache is
** first added with keep_add (refused: the caller frees the array instead)
** and every array that leaves it (rented out, trimmed, freed at a thread's
** exit or by destroy) is taken off with keep_sub. Without one nothing is
** counted, so the pools' hot paths cost what they did. keep_max is fixed
** before the first rent (sp_pool_set_keep_limit), so adds and subs always
** pair up.
*/
#ifndef SP_POOL_KEEP_H
#define SP_POOL_KEEP_H

#include <stdatomic.h>

#include "sp_pool.h"

/* 1 when an array of n bytes may join the cache (and is now counted). */
static inline int sp_pool_keep_add(sp_pool *p, size_t n) {
  size_t was;
  if (p->keep_max == 0) return 1;
  was = atomic_fetch_add_explicit(&p->kept, n, memory_order_relaxed);
  if (was <= p->keep_max && n <= p->keep_max - was) return 1;
  atomic_fetch_sub_explicit(&p->kept, n, memory_order_relaxed);
  return 0;
}

/* An array of n bytes left the cache. */
static inline void sp_pool_keep_sub(sp_pool *p, size_t n) {
  if (p->keep_max != 0) atomic_fetch_sub_explicit(&p->kept, n, memory_order_relaxed);
}

#endif
