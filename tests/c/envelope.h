/*
** envelope.h -- the documents' Outer {Before, Inner = Envelope(Small{Id,
** Name, 1.5}), After = 99} and the envelope formatter that calls to_array
** inside a formatter (000_*.txt). Owns: those types, their one formatter
** and their initialisation. Shared by the C tests (through fixtures.h,
** which fixes Small at {7, "inner"}) and the page's flows module
** (wasm/flows/sp_flows_envelope.c, whose Id and Name come from the page),
** so that what the page shows is what the tests check. Must not touch:
** anything but the public API.
*/
#ifndef SP_ENVELOPE_H
#define SP_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>

#include "scratchpack.h"

/* The inner value of the envelope: Small {Id, Name, 1.5} with int keys. */
typedef struct envelope {
  sp_value items[3];
  sp_value small;
  const sp_options *opt;       /* options of the nested to_array call */
} envelope;

/* Outer {Before, Inner, After} with int keys: [before, bin(inner), 99]. */
typedef struct outer {
  envelope env;
  sp_value items[3];
  sp_value root;
} outer;

/* The envelope formatter: serializes its value to a byte array with the
** to_array entry, then writes that array as bin -- the call that overwrites
** a busy scratch in MessagePack-CSharp. */
static inline int envelope_format(sp_writer *w, const void *value) {
  const envelope *e = value;
  sp_bytes inner;
  sp_error err;
  if (sp_to_array(sp_format_value, &e->small, e->opt, &inner, &err) != SP_OK) return (int)err.code;
  sp_write_bin(w, inner.data, inner.len);
  sp_bytes_free(&inner);
  return 0;
}

static inline void envelope_set(envelope *e, int32_t id, const char *name, size_t name_len,
                                const sp_options *opt) {
  e->items[0] = sp_int(id);
  e->items[1] = sp_strn(name, name_len);
  e->items[2] = sp_double(1.5);
  e->small = sp_array(e->items, 3);
  e->opt = opt;
}

static inline void outer_set(outer *o, const char *before, size_t before_len, int32_t id,
                             const char *name, size_t name_len, const sp_options *inner_opt) {
  envelope_set(&o->env, id, name, name_len, inner_opt);
  o->items[0] = sp_strn(before, before_len);
  o->items[1] = sp_custom(envelope_format, &o->env);
  o->items[2] = sp_int(99);
  o->root = sp_array(o->items, 3);
}

#endif
