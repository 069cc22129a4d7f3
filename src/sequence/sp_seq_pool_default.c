/*
** sp_seq_pool_default.c -- the process-wide default sequence pool.
** Owns: SequencePool.Shared's analogue (created on first use over the
** default array pool, freed by sp_shutdown through sp_seq_pool_default_free).
** Must not touch: the sequences' segments or anything above the sequences.
*/
#include <stdatomic.h>

#include "sp_sequence.h"
#include "sp_seq_pool_default.h"

static _Atomic(sp_seq_pool *) default_seq_pool;

/* 2 x CPUs sequences over the default array pool. */
sp_seq_pool *sp_seq_pool_default(void) {
  sp_seq_pool *p = atomic_load(&default_seq_pool), *expected = NULL;
  if (p != NULL) return p;
  if ((p = sp_seq_pool_create(0, sp_pool_default())) == NULL) return NULL;
  if (!atomic_compare_exchange_strong(&default_seq_pool, &expected, p)) {
    sp_seq_pool_destroy(p);            /* another thread won the race */
    p = expected;
  }
  return p;
}

void sp_seq_pool_default_free(void) { sp_seq_pool_destroy(atomic_exchange(&default_seq_pool, NULL)); }
