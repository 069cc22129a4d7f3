/*
** sp_wasm_abi.c -- the layout of every record the package's JS shares with
** this module, as this build's compiler lays it out. Owns: the table
** sp_wasm_abi returns (format: wasm/sp_abi.h), read once per module by
** js/abi.js. Must not touch: the records (sp_wasm.h) or what JS does with
** them.
*/
#include "sp_abi.h"
#include "sp_wasm.h"

#define TASK(m) SP_ABI_FIELD("task", sp_wasm_task, m)
#define STATS(m) SP_ABI_FIELD("stats", sp_wasm_stats_record, m)

static const sp_abi_entry table[] = {
  SP_ABI_RECORD("span", sp_span),
  SP_ABI_FIELD("span", sp_span, cur), SP_ABI_FIELD("span", sp_span, end),
  SP_ABI_FIELD("span", sp_span, base), SP_ABI_FIELD("span", sp_span, mode),
  SP_ABI_CONST("mode_scratch", SP_MODE_SCRATCH),

  SP_ABI_RECORD("task", sp_wasm_task),
  TASK(state), TASK(cancel), TASK(kind), TASK(n), TASK(src), TASK(result), TASK(result_len),
  TASK(code), TASK(cause), TASK(scratch_size), TASK(compression),
  SP_ABI_CONST("task_done", SP_WASM_TASK_DONE),

  SP_ABI_RECORD("stats", sp_wasm_stats_record),
  STATS(alloc.alloc_calls), STATS(alloc.alloc_bytes), STATS(alloc.free_calls),
  STATS(alloc.free_bytes), STATS(alloc.unpooled_calls), STATS(alloc.unpooled_bytes),
  STATS(live_bytes),
  STATS(pool.rents), STATS(pool.returns), STATS(pool.slot_hits), STATS(pool.partition_hits),
  STATS(pool.fallback_hits), STATS(pool.lock_waits), STATS(pool.fresh), STATS(pool.unpooled),
  STATS(pool.drops), STATS(pool.trims), STATS(pool.cached), STATS(pool.cached_bytes),
  STATS(sequences.rents), STATS(sequences.returns), STATS(sequences.fresh),
  STATS(sequences.drops), STATS(sequences.lock_waits), STATS(sequences.idle),
  STATS(heap.used), STATS(heap.total),
  SP_ABI_END,
};

const sp_abi_entry *sp_wasm_abi(void) { return table; }
