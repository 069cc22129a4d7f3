/*
** sp_schema_internal.h -- the resolved form of a schema, shared by the
** schema files (resolve, keys, encode, decode, release).
** Owns: sp_resolved, sp_rfield, sp_keyset and the cross-file helpers (type
** kinds, error paths, resolving inside a walk).
** Must not touch: anything outside the schema files.
**
** A resolved schema is one sp_malloc'd block: the header struct, then the
** per-field table, the integer-key slot table, the pre-encoded keys and the
** key matcher, carved one after another (sp_resolved.alloc_size frees it).
*/
#ifndef SP_SCHEMA_INTERNAL_H
#define SP_SCHEMA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sp_schema.h"

enum { SHAPE_ONE, SHAPE_INLINE, SHAPE_ARRAY };   /* one value, type m[count], sp_array_field */

/* How the encoder's inline loop writes a field (sp_schema_encode.c): one
** value of a scalar type, str or bin in its smallest form (the sp_ftype
** itself), or one of these; anything else goes to the general path. */
enum {
  OP_GENERAL = 0,
  OP_WIDE = SP_F_EXT + 1,  /* one SP_FIXED_WIDTH integer */
  OP_STR_ARRAY,            /* an sp_array_field of str */
  OP_COUNT
};

#define SP_KEY_INLINE 16   /* key tokens up to this long are compared and copied as two words */

/* A field as the encoder and decoder need it. */
typedef struct sp_rfield {
  const sp_field *f;
  uint8_t type;          /* sp_ftype */
  uint8_t shape;         /* SHAPE_* */
  uint8_t fixed_width;   /* SP_FIXED_WIDTH applies (field or schema flag) */
  uint8_t op;            /* OP_* or the sp_ftype: the encoder's inline path */
  uint32_t need;         /* encode: room the inline path needs besides a str/bin body */
  size_t offset;         /* f->offset */
  uint64_t kw[2];        /* key token (key_len <= SP_KEY_INLINE) as two words, zero-padded */
  uint64_t km[2];        /* 0xff over its key_len bytes, 0 past them */
  uint32_t count;        /* SHAPE_INLINE: elements */
  size_t esize;          /* bytes of one element in memory */
  uint32_t efixed;       /* encoded bytes of one element when fixed, else 0 */
  uint64_t fixed;        /* encoded bytes of the whole field when fixed, else 0 */
  uint32_t key_off;      /* string keys: pre-encoded key at keys + key_off */
  uint32_t key_len;
  uint32_t name_len;     /* strlen(name), 0 without a name */
} sp_rfield;

/* One string key of the matcher: its 8-byte little-endian chunks. */
typedef struct sp_keyent {
  const uint64_t *chunks;   /* ceil(len / 8) chunks, the last zero-extended */
  const char *name;         /* the key itself, for a length only it has */
  uint32_t len;
  uint32_t field;           /* index into sp_resolved.fields */
} sp_keyent;

/* String keys by exact length, then chunk by chunk (see sp_schema_keys.c).
** Entries of length L are ents[len_start[L] .. len_start[L + 1]), sorted by
** their chunk sequence. */
typedef struct sp_keyset {
  uint32_t max_len;
  uint32_t *len_start;      /* max_len + 2 entries */
  sp_keyent *ents;
} sp_keyset;

typedef struct sp_resolved {
  size_t alloc_size;        /* of the whole block, for sp_free */
  const sp_schema *schema;
  int int_keys;             /* 1: array form; 0: map form */
  uint32_t nfields;
  uint32_t nslots;          /* int keys: maxKey + 1 */
  uint64_t fixed_size;      /* encoded bytes of every value when fixed, else 0 */
  sp_rfield *fields;        /* declaration order */
  int32_t *slot;            /* int keys: slot[i] = field index, or -1 for a gap */
  uint8_t *keys;            /* string keys: str header + UTF-8, field after field */
  uint8_t header[8];        /* array header (maxKey + 1) or map header (nfields), zero-padded */
  uint8_t header_len;
  sp_keyset ks;
} sp_resolved;

/* The cached resolution, resolving on first use. NULL on a bad schema,
** with the reason in *err (which may be NULL). */
const sp_resolved *sp_schema_get_slow(sp_schema *s, sp_error *err);

static inline const sp_resolved *sp_schema_get(sp_schema *s, sp_error *err) {
  const sp_resolved *rs = atomic_load_explicit(&s->resolved, memory_order_acquire);
  return rs ? rs : sp_schema_get_slow(s, err);
}

/* The numeric kind of a field type (sp_bulk.h), or -1 when it is no number. */
static inline int sp_ftype_kind(unsigned type) {
  return type >= SP_F_I8 && type <= SP_F_I8 + SP_NUM_KINDS - 1 ? (int)(type - SP_F_I8) : -1;
}

/* Whether a field type is an integer (fixed-width encodings apply to it). */
static inline int sp_ftype_is_int(unsigned type) {
  return sp_ftype_kind(type) >= 0 && type != SP_F_FLOAT && type != SP_F_DOUBLE;
}

/* ---- failures of a walk (sp_schema.c) ----------------------------------- */

/* Puts field f in front of err's path: ".name", or "[index]" for a field
** without a name. Returns 0, so that a failing step can return it. */
int sp_schema_path_field(sp_error *err, const sp_field *f, size_t index);

/* The same for a field met while encoding or decoding: "[key]" without a name. */
static inline int sp_schema_path(sp_error *err, const sp_rfield *rf) {
  return sp_schema_path_field(err, rf->f, rf->f->key - 1);
}

/* The resolved form of s (the entry's schema or a struct field's) for an
** encode on w or a decode on r (the other one NULL). NULL when s does not
** resolve: the failure (code, cause, site and the path to the bad field)
** becomes the walk's first error, at the walk's offset. */
const sp_resolved *sp_schema_get_walking(sp_writer *w, sp_reader *r, sp_schema *s);

/* The cached form inline; the first use and failures out of line. */
static inline const sp_resolved *sp_schema_get_writing(sp_writer *w, sp_schema *s) {
  const sp_resolved *rs = atomic_load_explicit(&s->resolved, memory_order_acquire);
  return rs ? rs : sp_schema_get_walking(w, NULL, s);
}
static inline const sp_resolved *sp_schema_get_reading(sp_reader *r, sp_schema *s) {
  const sp_resolved *rs = atomic_load_explicit(&s->resolved, memory_order_acquire);
  return rs ? rs : sp_schema_get_walking(NULL, r, s);
}

/* Frees what one element at p owns (str, bin, struct) and zeroes its
** str/bin/array members; other types own nothing. */
void sp_schema_release_elem(const sp_field *f, uint8_t *p);

/* ---- key matcher (sp_schema_keys.c) ------------------------------------ */

/* Bytes the matcher for the names of fields[0..n) needs inside the resolved
** block (8-byte aligned parts). Every field must have a name. */
size_t sp_keyset_size(const sp_field *fields, uint32_t n);

/* Builds the matcher in 'mem' (sp_keyset_size bytes, 8-byte aligned).
** Returns the index of a field whose key repeats another's, or -1. */
int32_t sp_keyset_build(sp_keyset *ks, void *mem, const sp_field *fields, uint32_t n);

/* The field whose key is exactly the 'len' bytes at 'key', or -1. */
int32_t sp_keyset_find(const sp_keyset *ks, const uint8_t *key, size_t len);

#endif
