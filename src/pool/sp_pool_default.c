/*
** sp_pool_default.c -- the process-wide default array pool.
** Owns: the pool every layer falls back on when its caller names none
** (created on first use, freed by sp_shutdown through sp_pool_default_free).
** Must not touch: pool internals, sequences or anything above the pools.
*/
#include <stdatomic.h>

#include "sp_pool.h"
#include "sp_pool_default.h"

static _Atomic(sp_pool *) default_pool;

/* ArrayPool<byte>.Create(80 * 1024, 100): buckets 16 B .. 128 KiB. */
sp_pool *sp_pool_default(void) {
  sp_pool *p = atomic_load(&default_pool), *expected = NULL;
  if (p != NULL) return p;
  if ((p = sp_bucket_pool_create(80 * 1024, 100)) == NULL) return NULL;
  if (!atomic_compare_exchange_strong(&default_pool, &expected, p)) {
    sp_pool_destroy(p);                /* another thread won the race */
    p = expected;
  }
  return p;
}

void sp_pool_default_free(void) { sp_pool_destroy(atomic_exchange(&default_pool, NULL)); }
