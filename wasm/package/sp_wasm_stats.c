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

static void alloc_stats(sp_wasm_stats_record *out) {
  sp_alloc_stats a;
  sp_alloc_stats_get(&a);
  out->alloc.alloc_calls = (double)a.alloc_calls;
  out->alloc.alloc_bytes = (double)a.alloc_bytes;
  out->alloc.free_calls = (double)a.free_calls;
  out->alloc.free_bytes = (double)a.free_bytes;
  out->alloc.unpooled_calls = (double)a.unpooled_calls;
  out->alloc.unpooled_bytes = (double)a.unpooled_bytes;
  out->live_bytes = (double)sp_alloc_live_bytes();
}

static void pool_stats(sp_wasm_stats_record *out, const sp_pool_stats *p) {
  out->pool.rents = (double)p->rents;
  out->pool.returns = (double)p->returns;
  out->pool.slot_hits = (double)p->slot_hits;
  out->pool.partition_hits = (double)p->partition_hits;
  out->pool.fallback_hits = (double)p->fallback_hits;
  out->pool.lock_waits = (double)p->lock_waits;
  out->pool.fresh = (double)p->fresh;
  out->pool.unpooled = (double)p->unpooled;
  out->pool.drops = (double)p->drops;
  out->pool.trims = (double)p->trims;
  out->pool.cached = (double)p->cached;
  out->pool.cached_bytes = (double)p->cached_bytes;
}

static void sequence_stats(sp_wasm_stats_record *out, const sp_seq_pool_stats *s) {
  out->sequences.rents = (double)s->rents;
  out->sequences.returns = (double)s->returns;
  out->sequences.fresh = (double)s->fresh;
  out->sequences.drops = (double)s->drops;
  out->sequences.lock_waits = (double)s->lock_waits;
  out->sequences.idle = (double)s->idle;
}

/* Fills *out: the calling thread's allocation counters, live bytes, the
** array pool's and the sequence pool's counters, malloc's own view of the
** heap. Creates the default pools if no call has yet. */
void sp_wasm_stats(sp_wasm_stats_record *out) {
  sp_pool_stats p;
  sp_seq_pool_stats s;
  sp_seq_pool *sp = sp_wasm_seq_pool();
  struct mallinfo mi;
  memset(&p, 0, sizeof p);
  memset(&s, 0, sizeof s);
  if (sp != NULL) { sp_pool_stats_get(sp_seq_pool_arrays(sp), &p); sp_seq_pool_stats_get(sp, &s); }
  alloc_stats(out);
  pool_stats(out, &p);
  sequence_stats(out, &s);
  mi = mallinfo();                                   /* after the default pools were made */
  out->heap.used = (double)(uint32_t)mi.uordblks;    /* int fields: past 2 GiB they wrap */
  out->heap.total = (double)(uint32_t)mi.arena;
}

const char *sp_wasm_kernel(void) { return sp_bulk_i32_kernel(); }
