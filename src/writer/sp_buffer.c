/*
** sp_buffer.c -- growable and fixed caller buffers as sp_output.
** Owns: sp_buffer memory. Must not touch: writers, pools.
*/
#include <string.h>

#include "sp_alloc.h"
#include "sp_output.h"

void sp_buffer_init(sp_buffer *b) { memset(b, 0, sizeof *b); }

void sp_buffer_free(sp_buffer *b) {
  if (b == NULL) return;
  sp_free(b->data, b->cap);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* Grows so that 'min' more bytes fit; 0 on failure (buffer unchanged). */
static int buffer_grow(sp_buffer *b, size_t min) {
  size_t need = b->len + min, ncap = b->cap ? b->cap : 256;
  uint8_t *d;
  if (need < b->len) return 0;                      /* overflow */
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2) { ncap = need; break; }
    ncap *= 2;
  }
  if (b->max_cap && ncap > b->max_cap) ncap = b->max_cap;
  if (ncap < need || (d = sp_malloc(ncap)) == NULL) return 0;
  if (b->len) memcpy(d, b->data, b->len);
  sp_free(b->data, b->cap);
  b->data = d;
  b->cap = ncap;
  return 1;
}

/* The span after growing: a call of its own, so the usual span (it fits)
** is a compare and a return, with no registers to save. */
__attribute__((noinline)) static uint8_t *grown_span(sp_buffer *b, size_t min, size_t *avail) {
  if (!buffer_grow(b, min)) return NULL;
  *avail = b->cap - b->len;
  return b->data + b->len;
}

static uint8_t *growable_span(void *ctx, size_t min, size_t *avail) {
  sp_buffer *b = ctx;
  if (min == 0) min = 1;
  if (b->cap - b->len < min) return grown_span(b, min, avail);
  *avail = b->cap - b->len;
  return b->data + b->len;
}

static uint8_t *fixed_span(void *ctx, size_t min, size_t *avail) {
  sp_buffer *b = ctx;
  if (min == 0) min = 1;
  if (b->cap - b->len < min) return NULL;
  *avail = b->cap - b->len;
  return b->data + b->len;
}

static void buffer_advance(void *ctx, size_t n) { ((sp_buffer *)ctx)->len += n; }

sp_output sp_buffer_output(sp_buffer *b) {
  sp_output o = { growable_span, buffer_advance, b };
  return o;
}

sp_output sp_fixed_output(sp_buffer *fixed) {
  sp_output o = { fixed_span, buffer_advance, fixed };
  return o;
}
