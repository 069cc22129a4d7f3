/*
** test_util.h -- small helpers several C test files share: counter
** snapshots, the pool bookkeeping identity, and input memory for tests.
*/
#ifndef SP_TEST_UTIL_H
#define SP_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"

/* A pool's counters now. */
static inline sp_pool_stats stats_of(sp_pool *p) {
  sp_pool_stats s;
  sp_pool_stats_get(p, &s);
  return s;
}

/* This thread's allocation counters now. */
static inline sp_alloc_stats alloc_now(void) {
  sp_alloc_stats a;
  sp_alloc_stats_get(&a);
  return a;
}

/* Arrays the pool allocated are cached, dropped, trimmed or still out
** ('held'), and every rent not returned is one of those held. */
static inline int adds_up(sp_pool *p, uint64_t held) {
  sp_pool_stats s = stats_of(p);
  return s.fresh == s.cached + s.drops + s.trims + held && s.rents - s.returns == held;
}

/* malloc that never returns NULL (the test's own memory, not the library's). */
static inline void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) { fprintf(stderr, "out of memory\n"); abort(); }
  return p;
}

/* n bytes that differ at every offset, so a lost, doubled or misplaced
** segment shows up (a period of 256 would hide shifts by 256). Free with
** free(). */
static inline uint8_t *pattern(size_t n, uint32_t seed) {
  uint8_t *p = xmalloc(n);
  uint32_t x = seed * 2654435761u | 1u;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    p[i] = (uint8_t)x;
  }
  return p;
}

/* A to_stream sink (and a plain appender) that adds the bytes at the end
** of the sp_buffer at ctx. Returns 1 when the buffer cannot grow. */
static inline int buffer_sink(void *ctx, const uint8_t *bytes, size_t len) {
  sp_buffer *dst = ctx;
  size_t avail;
  sp_output o = sp_buffer_output(dst);
  uint8_t *p = o.get_span(dst, len, &avail);
  if (p == NULL) return 1;
  if (len) memcpy(p, bytes, len);
  o.advance(dst, len);
  return 0;
}

/* The countdown of fail_nth_alloc: the allocation made when it reaches 0
** fails; -1 (the start) never. A function's static, so that a test file
** that does not use it has no unused variable. */
static inline long *fail_nth_countdown(void) {
  static long n = -1;
  return &n;
}

/* An sp_alloc_fn (sp_alloc_set_hook(fail_nth_alloc, NULL)) over realloc
** that fails the allocation *fail_nth_countdown() reaches 0 at. */
static inline void *fail_nth_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  long *n = fail_nth_countdown();
  (void)ud; (void)osize;
  if (nsize == 0) { free(ptr); return NULL; }
  if (*n >= 0 && (*n)-- == 0) return NULL;
  return realloc(ptr, nsize);
}

#endif
