/*
** sp_alloc.c -- allocation hook and per-thread counters.
** Owns: the hook, the thread-local counters, the process-wide live count.
** Must not touch: anything above it; every other file allocates through here.
*/
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sp_alloc.h"
#include "sp_thread.h"

static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) { free(ptr); return NULL; }
  return ptr == NULL ? malloc(nsize) : realloc(ptr, nsize);   /* glibc's realloc(NULL) costs a call more */
}

static sp_alloc_fn hook = default_alloc;
static void *hook_ud;
static SP_THREAD_LOCAL sp_alloc_stats counters;
static atomic_llong live_bytes;

void sp_alloc_set_hook(sp_alloc_fn fn, void *ud) {
  hook = fn ? fn : default_alloc;
  hook_ud = fn ? ud : NULL;
}

void sp_alloc_stats_get(sp_alloc_stats *out) { *out = counters; }

void sp_alloc_stats_reset(void) { memset(&counters, 0, sizeof counters); }

int64_t sp_alloc_live_bytes(void) {
  return atomic_load_explicit(&live_bytes, memory_order_relaxed);
}

void *sp_malloc(size_t n) {
  void *p = hook(hook_ud, NULL, 0, n);
  if (p == NULL) return NULL;
  counters.alloc_calls++;
  counters.alloc_bytes += n;
  atomic_fetch_add_explicit(&live_bytes, (long long)n, memory_order_relaxed);
  return p;
}

void sp_free(void *p, size_t n) {
  if (p == NULL) return;
  hook(hook_ud, p, n, 0);
  counters.free_calls++;
  counters.free_bytes += n;
  atomic_fetch_sub_explicit(&live_bytes, (long long)n, memory_order_relaxed);
}

void sp_alloc_note_unpooled(size_t n) {
  counters.unpooled_calls++;
  counters.unpooled_bytes += n;
}
