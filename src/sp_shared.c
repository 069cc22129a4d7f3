/*
** sp_shared.c -- the process-wide default pools and shutdown.
** Owns: the default array pool and the default sequence pool (created on
** first use, freed by sp_shutdown). Must not touch: pool internals.
*/
#include <stdatomic.h>

#include "sp_pool.h"
#include "sp_scratch.h"
#include "sp_sequence.h"
#include "sp_serialize.h"

static _Atomic(sp_pool *) default_pool;
static _Atomic(sp_seq_pool *) default_seq_pool;

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

/* SequencePool.Shared: 2 x CPUs sequences over the default array pool. */
sp_seq_pool *sp_seq_pool_default(void) {
  sp_seq_pool *p = atomic_load(&default_seq_pool), *expected = NULL;
  if (p != NULL) return p;
  if ((p = sp_seq_pool_create(0, sp_pool_default())) == NULL) return NULL;
  if (!atomic_compare_exchange_strong(&default_seq_pool, &expected, p)) {
    sp_seq_pool_destroy(p);
    p = expected;
  }
  return p;
}

void sp_shutdown(void) {
  sp_scratch_free_now();
  sp_seq_pool_destroy(atomic_exchange(&default_seq_pool, NULL));
  sp_pool_destroy(atomic_exchange(&default_pool, NULL));
}
