/*
** sp_wasm.h -- what the files of the package's module (wasm/package/) share.
** Owns: the records JS reads or writes in linear memory (the job, whose
** first field is the span; the off-thread task; the stats record) and the
** options every entry of the module begins with. Must not touch: the
** exports themselves (each file owns its own; wasm/package/exports.txt
** lists them) or the layout JS sees (sp_wasm_abi.c tells it).
**
** Pointers and sizes cross as wasm32 i32: JS reads every pointer and size
** C returns as unsigned (>>> 0; an address above 2 GiB arrives negative)
** and checks every size it passes against what the parameter can hold and
** the memory's cap before the call (js/sinks.js, Heap). Lengths that may
** pass 4 GiB (a stream's) come back as doubles.
*/
#ifndef SP_WASM_H
#define SP_WASM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "scratchpack.h"

/* One nesting level of encodes in JS (sp_wasm_jobs.c). */
typedef struct sp_wasm_job {
  sp_span span;               /* the record JS writes through (table: "span") */
  sp_entry entry;
} sp_wasm_job;

/* One numeric array encoded by sp_to_array on a worker thread
** (sp_wasm_tasks.c). JS fills the input fields, submits it, waits on
** 'state' (Atomics.waitAsync) and reads the result; it owns the task and
** frees the result with sp_wasm_free. Every field JS touches is 32 bits
** wide (table: "task"). */
typedef struct sp_wasm_task {
  _Atomic int32_t state;      /* SP_WASM_TASK_* */
  atomic_int cancel;          /* nonzero -> SP_E_CANCELLED */
  int32_t kind;               /* sp_num_kind */
  uint32_t n;                 /* elements */
  const void *src;            /* staged elements (JS frees them after 'done') */
  uint8_t *result;            /* exact-size message, or NULL */
  uint32_t result_len;
  int32_t code;               /* sp_code */
  const char *cause;
  uint32_t scratch_size;      /* 0 -> the default */
  int32_t compression;        /* sp_compression */
  struct sp_wasm_task *next;  /* the workers' queue link (C only) */
} sp_wasm_task;

enum { SP_WASM_TASK_QUEUED, SP_WASM_TASK_RUNNING, SP_WASM_TASK_DONE };

/* Runs a task on the calling thread and marks it done (an export; the
** workers run their tasks with it too). */
void sp_wasm_task_run(sp_wasm_task *t);

/* What stats() reports from C (sp_wasm_stats.c; table: "stats", whose
** field paths name the JS object's keys). The counters' own structs are
** embedded, so that a counter is named where it is declared and in the
** table, nowhere else. Every field is a 64-bit integer: js/abi.js reads
** each as signed (live_bytes may be; the counters stay below 2^63). */
typedef struct sp_wasm_stats_record {
  sp_alloc_stats alloc;       /* the calling thread's counters */
  int64_t live_bytes;
  sp_pool_stats pool;         /* the array pool under the sequences */
  sp_seq_pool_stats sequences;
  struct {
    int64_t used, total;      /* malloc's view: bytes in use, bytes obtained */
  } heap;
} sp_wasm_stats_record;

/* The options every entry of this module begins with: the pools
** sp_wasm_configure installed, the scratch size and compression
** (sp_wasm_pools.c). */
sp_options sp_wasm_options(size_t scratch_size, int compression);

/* The sequence pool entries rent from now (the process default until
** sp_wasm_configure); NULL if even the default could not be made. */
sp_seq_pool *sp_wasm_seq_pool(void);

#endif
