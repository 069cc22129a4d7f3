/*
** sp_wasm_pools.c -- the module's pools: the ones an instance configures,
** the options every entry begins with, and what trimming gives back. Owns:
** the installed array pool and sequence pool. Must not touch: pool
** internals (sp_pool.h's calls only) or the numbers (sp_wasm_stats.c reads
** them).
*/
#include <limits.h>
#include <malloc.h>
#include <string.h>

#include "sp_wasm.h"

/* The sequence pool every job rents from: NULL (the process default) until
** sp_wasm_configure installs one of the caller's choosing. */
static sp_seq_pool *seq_pool;
static sp_pool *array_pool;

sp_options sp_wasm_options(size_t scratch_size, int compression) {
  sp_options opt;
  memset(&opt, 0, sizeof opt);
  opt.scratch_size = scratch_size;
  opt.seq_pool = seq_pool;
  opt.compression = (sp_compression)compression;   /* JS checks it; the entry refuses an unknown one */
  return opt;
}

sp_seq_pool *sp_wasm_seq_pool(void) {
  return seq_pool != NULL ? seq_pool : sp_seq_pool_default();
}

/* Installs a pool of the given kind under a sequence pool of max_seq idle
** sequences, for every job begun afterwards. Kinds: 0 a bounded bucket pool
** (buckets up to a = max length, b arrays each), 1 a shared pool (a
** partitions of b arrays), 2 a lock-free pool (buckets up to a, b arrays
** each); sp_pool.h describes them. The pool caches at most 'keep' bytes of
** arrays (0: only its counts bound it). A second call replaces (and frees)
** the pools of the first: call it only while no encode, view or task is in
** flight. Returns 0, SP_E_INVALID_ARGUMENT for an unknown kind or sizes the
** pool refuses (JS checks them first), or SP_E_NOMEM (the pools installed
** before stay). */
int sp_wasm_configure(int kind, size_t a, unsigned b, unsigned max_seq, size_t keep) {
  sp_pool *arrays = NULL;
  sp_seq_pool *seqs;
  if (max_seq > SP_SEQ_POOL_MAX) return SP_E_INVALID_ARGUMENT;
  switch (kind) {
    case 0: arrays = sp_bucket_pool_create(a, b); break;
    case 1: arrays = a > UINT_MAX ? NULL : sp_shared_pool_create((unsigned)a, b); break;
    case 2: arrays = sp_lockfree_pool_create(a, b); break;
    default: return SP_E_INVALID_ARGUMENT;
  }
  if (arrays == NULL) return SP_E_INVALID_ARGUMENT;
  sp_pool_set_keep_limit(arrays, keep);             /* a new pool: cannot be refused */
  if ((seqs = sp_seq_pool_create(max_seq, arrays)) == NULL) {
    sp_pool_destroy(arrays);
    return SP_E_NOMEM;
  }
  sp_seq_pool_destroy(seq_pool);      /* a second call: nothing rents from these now */
  sp_pool_destroy(array_pool);
  array_pool = arrays;
  seq_pool = seqs;
  return SP_OK;
}

/* Gives back what this module caches: every array its pool keeps, its idle
** sequences, the calling thread's scratch (unless an entry or a lease holds
** it) and its slots in shared pools. What is rented or held stays. Returns
** how many bytes malloc has in use fewer than before. Cannot fail. */
double sp_wasm_trim(void) {
  uint32_t before = (uint32_t)mallinfo().uordblks, after;
  if (seq_pool != NULL) {
    sp_seq_pool_clear(seq_pool);
    sp_pool_trim(array_pool);
  }
  sp_thread_cleanup();
  after = (uint32_t)mallinfo().uordblks;
  return before > after ? (double)(before - after) : 0;
}
