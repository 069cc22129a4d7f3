/*
** sp_wasm_memory.c -- linear memory as JS asks for it: staging blocks JS
** copies typed arrays and strings into, and the cap on how far memory may
** grow (read by wasm/sp_memory.js whenever memory would grow). Owns: those
** blocks and the cap. Must not touch: what is staged, or trimming (the
** pools' caches are sp_wasm_pools.c's).
*/
#include <emscripten/heap.h>

#include "sp_wasm.h"

/* A block for staging, through the counted allocator. The caller frees it
** with sp_wasm_free(p, n). NULL on no memory. */
void *sp_wasm_alloc(size_t n) { return sp_malloc(n ? n : 1); }
void sp_wasm_free(void *p, size_t n) { sp_free(p, n ? n : 1); }

/* The most bytes linear memory may grow to: set by JS (maxMemory), read by
** wasm/sp_memory.js on every growth, from any thread. 0 = the build's own
** maximum (sp_wasm_memory_max). */
static _Atomic uint32_t memory_cap;

void sp_wasm_set_memory_cap(uint32_t bytes) { atomic_store(&memory_cap, bytes); }
uint32_t sp_wasm_memory_cap(void) { return atomic_load(&memory_cap); }
/* The build's maximum: 4 GiB less one 64 KiB page (wasm32). */
uint32_t sp_wasm_memory_max(void) { return (uint32_t)emscripten_get_heap_max(); }
