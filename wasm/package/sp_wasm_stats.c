/*
** sp_wasm_stats.c -- the numbers behind the package's stats(): C's
** counters, gathered into one record JS reads by the layout table. Owns:
** filling sp_wasm_stats_record, and the name of the bulk kernel. Must not
** touch: the counters themselves (the allocator's and the pools') or the
** pools (sp_wasm_pools.c).
*/
#include <malloc.h>
#include <string.h>

#include "sp_wasm.h"

/* Fills *out: the calling thread's allocation counters, live bytes, the
** array pool's and the sequence pool's counters, malloc's own view of the
** heap. Creates the default pools if no call has yet. */
void sp_wasm_stats(sp_wasm_stats_record *out) {
  sp_seq_pool *sp = sp_wasm_seq_pool();
  struct mallinfo mi;
  memset(out, 0, sizeof *out);
  sp_alloc_stats_get(&out->alloc);
  out->live_bytes = sp_alloc_live_bytes();
  if (sp != NULL) {
    sp_pool_stats_get(sp_seq_pool_arrays(sp), &out->pool);
    sp_seq_pool_stats_get(sp, &out->sequences);
  }
  mi = mallinfo();                                   /* after the default pools were made */
  out->heap.used = (uint32_t)mi.uordblks;            /* int fields: past 2 GiB they wrap */
  out->heap.total = (uint32_t)mi.arena;
}

const char *sp_wasm_kernel(void) { return sp_bulk_i32_kernel(); }
