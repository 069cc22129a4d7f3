/*
** fixtures.h -- the documents' example values, shared by the C tests.
** Small {Id, Name} (int keys -> array, string keys -> map), Outer {Before,
** Inner = Envelope(Small{7, "inner", 1.5}), After = 99}, the 100,007-byte
** object. Outer, the envelope and its formatter are envelope.h's (shared
** with the page's flows module); here Small is fixed at {7, "inner"}.
*/
#ifndef SP_FIXTURES_H
#define SP_FIXTURES_H

#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "scratchpack.h"

/* The envelope's inner value, Small {7, "inner", 1.5} (17 bytes). */
static inline void envelope_init(envelope *e, const sp_options *opt) {
  envelope_set(e, 7, "inner", 5, opt);
}

/* Outer {before, Envelope(Small {7, "inner", 1.5}), 99}. */
static inline void outer_init(outer *o, const char *before, size_t before_len,
                              const sp_options *inner_opt) {
  outer_set(o, before, before_len, 7, "inner", 5, inner_opt);
}

/* [1, "A" x n]: with n = 100,000 the documents' 100,007-byte object. */
typedef struct big_object {
  char *text;
  sp_value items[2];
  sp_value root;
} big_object;

static inline void big_object_init(big_object *b, size_t n) {
  b->text = malloc(n);
  memset(b->text, 'A', n);
  b->items[0] = sp_int(1);
  b->items[1] = sp_strn(b->text, n);
  b->root = sp_array(b->items, 2);
}

static inline void big_object_free(big_object *b) { free(b->text); }

/* Allocation counters of this thread since the last reset. */
static inline sp_alloc_stats alloc_since(void) {
  sp_alloc_stats s;
  sp_alloc_stats_get(&s);
  return s;
}

#endif
