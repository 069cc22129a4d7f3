/*
** sp_alloc.h -- the one place scratchpack allocates and frees, with counters.
** Owns: the allocation hook and the per-thread allocation counters. Must not
** touch: pools, writers (they call in here; this file knows nothing of them).
**
** The counters are this library's GC.GetAllocatedBytesForCurrentThread(): a
** test reads them before and after a call to prove what the call allocated.
*/
#ifndef SP_ALLOC_H
#define SP_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* Allocation hook, shaped like lua_Alloc: (ud, NULL, 0, n) allocates n bytes;
** (ud, p, osize, 0) frees p of size osize and returns NULL. */
typedef void *(*sp_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

/* Replaces the process-wide hook (NULL restores malloc/free). Call it before
** any other scratchpack call; memory allocated by one hook must not be freed
** by another. */
void sp_alloc_set_hook(sp_alloc_fn fn, void *ud);

/* What the calling thread has asked of the hook since it started (or since
** sp_alloc_stats_reset). 'unpooled' counts requests a pool could not serve
** from its buckets because they were larger than its largest bucket. */
typedef struct sp_alloc_stats {
  uint64_t alloc_calls, alloc_bytes;
  uint64_t free_calls, free_bytes;
  uint64_t unpooled_calls, unpooled_bytes;
} sp_alloc_stats;

void sp_alloc_stats_get(sp_alloc_stats *out);
void sp_alloc_stats_reset(void);

/* Bytes allocated and not yet freed, process-wide (all threads). */
int64_t sp_alloc_live_bytes(void);

/* Allocates n bytes (n > 0) through the hook. Returns NULL on failure; the
** caller owns the block and releases it with sp_free(p, n). */
void *sp_malloc(size_t n);

/* Frees a block from sp_malloc; 'n' must be the size it was allocated with.
** No operation if p is NULL. */
void sp_free(void *p, size_t n);

/* Marks an allocation of n bytes as unpooled (a pool calls this when it
** serves a request from the hook because no bucket can hold it). */
void sp_alloc_note_unpooled(size_t n);

#endif
