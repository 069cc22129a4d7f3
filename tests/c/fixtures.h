/*
** fixtures.h -- the documents' example values, shared by the C tests.
** Small {Id, Name} (int keys -> array, string keys -> map), Outer {Before,
** Inner = Envelope(Small{7, "inner", 1.5}), After = 99}, the 100,007-byte
** object and the envelope formatter that calls to_array inside a formatter.
*/
#ifndef SP_FIXTURES_H
#define SP_FIXTURES_H

#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"

/* The inner value of the envelope: [7, "inner", 1.5] (17 bytes). */
typedef struct envelope {
  sp_value items[3];
  sp_value small;
  const sp_options *opt;       /* options of the nested to_array call */
} envelope;

/* The envelope formatter of 000_*.txt: serializes its value to a byte
** array with the to_array entry, then writes that array as bin. */
static inline int envelope_format(sp_writer *w, const void *value) {
  const envelope *e = value;
  sp_bytes inner;
  sp_error err;
  if (sp_to_array(sp_format_value, &e->small, e->opt, &inner, &err) != SP_OK) return (int)err.code;
  sp_write_bin(w, inner.data, inner.len);
  sp_bytes_free(&inner);
  return 0;
}

static inline void envelope_init(envelope *e, const sp_options *opt) {
  e->items[0] = sp_int(7);
  e->items[1] = sp_str("inner");
  e->items[2] = sp_double(1.5);
  e->small = sp_array(e->items, 3);
  e->opt = opt;
}

/* Outer {Before, Inner, After} with int keys: [before, bin(inner), 99]. */
typedef struct outer {
  envelope env;
  sp_value items[3];
  sp_value root;
} outer;

static inline void outer_init(outer *o, const char *before, size_t before_len,
                              const sp_options *inner_opt) {
  envelope_init(&o->env, inner_opt);
  o->items[0] = sp_strn(before, before_len);
  o->items[1] = sp_custom(envelope_format, &o->env);
  o->items[2] = sp_int(99);
  o->root = sp_array(o->items, 3);
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
