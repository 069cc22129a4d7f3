/*
** fuzz_schemas.h -- the schemas fuzz_schema_decode.c decodes into and
** make_seeds.c encodes its seeds from, and a comparison of two structs by
** their schema. Owns: these types and their tables. Must not touch: the
** library (only its public schema API).
**
** Between them every field kind: integers of every width, float, double,
** bool, str, bin, timestamp, a nested struct, inline arrays of numbers and
** of structs, variable arrays of every numeric kind (the bulk readers), of
** str, bin, bool, timestamps and structs, a fixed-width member, string keys
** and integer keys (with gaps), a recursive type and a fixed-size schema.
*/
#ifndef SP_FUZZ_SCHEMAS_H
#define SP_FUZZ_SCHEMAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "scratchpack.h"

/* Integer keys: [x, y]. */
typedef struct fz_pt { int16_t x; uint16_t y; } fz_pt;
static const sp_field fz_pt_fields[] = {
  SP_MEMBER_KEY(0, fz_pt, x, SP_F_I16),
  SP_MEMBER_KEY(1, fz_pt, y, SP_F_U16),
};
static sp_schema fz_pt_schema = SP_SCHEMA(fz_pt, fz_pt_fields, 0);

/* String keys: {"id", "name"}. */
typedef struct fz_kid { int32_t id; sp_str_field name; } fz_kid;
static const sp_field fz_kid_fields[] = {
  SP_MEMBER(fz_kid, id, SP_F_I32),
  SP_MEMBER(fz_kid, name, SP_F_STR),
};
static sp_schema fz_kid_schema = SP_SCHEMA(fz_kid, fz_kid_fields, 0);

/* Every kind and shape, string keys. */
typedef struct fz_all {
  int8_t i8; int16_t i16; int32_t i32; int64_t i64;
  uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
  float f; double d; bool b;
  sp_str_field s;
  sp_bin_field bin;
  sp_ts_field ts;
  fz_kid kid;                    /* nested struct */
  int16_t three[3];              /* inline array of numbers */
  fz_pt pts[2];                  /* inline array of structs */
  sp_array_field i8s, u8s, i16s, u16s, i32s, u32s, f32s, f64s, i64s, u64s;
  sp_array_field strs, bins, bools, stamps;
  sp_array_field kids;           /* fz_kid */
  int64_t wide;                  /* SP_FIXED_WIDTH */
  sp_ext_field x;                /* an ext of any type */
  sp_array_field exts;           /* sp_ext_field */
} fz_all;

#define FZ_ARRAY(m, t) SP_MEMBER(fz_all, m, t, .flags = SP_FIELD_ARRAY)
static const sp_field fz_all_fields[] = {
  SP_MEMBER(fz_all, i8, SP_F_I8), SP_MEMBER(fz_all, i16, SP_F_I16),
  SP_MEMBER(fz_all, i32, SP_F_I32), SP_MEMBER(fz_all, i64, SP_F_I64),
  SP_MEMBER(fz_all, u8, SP_F_U8), SP_MEMBER(fz_all, u16, SP_F_U16),
  SP_MEMBER(fz_all, u32, SP_F_U32), SP_MEMBER(fz_all, u64, SP_F_U64),
  SP_MEMBER(fz_all, f, SP_F_FLOAT), SP_MEMBER(fz_all, d, SP_F_DOUBLE),
  SP_MEMBER(fz_all, b, SP_F_BOOL),
  SP_MEMBER(fz_all, s, SP_F_STR), SP_MEMBER(fz_all, bin, SP_F_BIN),
  SP_MEMBER(fz_all, ts, SP_F_TIMESTAMP),
  SP_MEMBER(fz_all, kid, SP_F_STRUCT, .schema = &fz_kid_schema),
  SP_MEMBER(fz_all, three, SP_F_I16, .count = 3),
  SP_MEMBER(fz_all, pts, SP_F_STRUCT, .schema = &fz_pt_schema, .count = 2),
  FZ_ARRAY(i8s, SP_F_I8), FZ_ARRAY(u8s, SP_F_U8), FZ_ARRAY(i16s, SP_F_I16),
  FZ_ARRAY(u16s, SP_F_U16), FZ_ARRAY(i32s, SP_F_I32), FZ_ARRAY(u32s, SP_F_U32),
  FZ_ARRAY(f32s, SP_F_FLOAT), FZ_ARRAY(f64s, SP_F_DOUBLE), FZ_ARRAY(i64s, SP_F_I64),
  FZ_ARRAY(u64s, SP_F_U64),
  FZ_ARRAY(strs, SP_F_STR), FZ_ARRAY(bins, SP_F_BIN), FZ_ARRAY(bools, SP_F_BOOL),
  FZ_ARRAY(stamps, SP_F_TIMESTAMP),
  SP_MEMBER(fz_all, kids, SP_F_STRUCT, .schema = &fz_kid_schema, .flags = SP_FIELD_ARRAY),
  SP_MEMBER(fz_all, wide, SP_F_I64, .flags = SP_FIXED_WIDTH),
  SP_MEMBER(fz_all, x, SP_F_EXT), FZ_ARRAY(exts, SP_F_EXT),
};
#undef FZ_ARRAY
static sp_schema fz_all_schema = SP_SCHEMA(fz_all, fz_all_fields, 0);

/* The records workload's element (bench/workload_bytes.h): string keys. */
typedef struct fz_rec {
  int64_t id;
  sp_str_field name;
  double score;
  sp_array_field tags;           /* sp_str_field */
} fz_rec;
static const sp_field fz_rec_fields[] = {
  SP_MEMBER(fz_rec, id, SP_F_I64),
  SP_MEMBER(fz_rec, name, SP_F_STR),
  SP_MEMBER(fz_rec, score, SP_F_DOUBLE),
  SP_MEMBER(fz_rec, tags, SP_F_STR, .flags = SP_FIELD_ARRAY),
};
static sp_schema fz_rec_schema = SP_SCHEMA(fz_rec, fz_rec_fields, 0);

/* Recursive, integer keys with gaps: [v, nil, kids, label, nil, nums]. */
typedef struct fz_node {
  int32_t v;
  sp_array_field kids;           /* fz_node */
  sp_str_field label;
  sp_array_field nums;           /* double */
} fz_node;
static sp_schema fz_node_schema;
static const sp_field fz_node_fields[] = {
  SP_MEMBER_KEY(0, fz_node, v, SP_F_I32),
  SP_MEMBER_KEY(2, fz_node, kids, SP_F_STRUCT, .schema = &fz_node_schema, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(5, fz_node, nums, SP_F_DOUBLE, .flags = SP_FIELD_ARRAY),
  SP_MEMBER_KEY(3, fz_node, label, SP_F_STR),
};
static sp_schema fz_node_schema = SP_SCHEMA(fz_node, fz_node_fields, 0);

/* Fixed size (every field full width), integer keys. */
typedef struct fz_fixed {
  int8_t i8; uint16_t u16; int32_t i32; uint64_t u64;
  float f; double d; bool ok;
  sp_ts_field when;
  fz_pt at;
  uint8_t hist[4];
} fz_fixed;
static sp_schema fz_pt_fixed_schema = SP_SCHEMA(fz_pt, fz_pt_fields, SP_FIXED_WIDTH);
static const sp_field fz_fixed_fields[] = {
  SP_MEMBER_KEY(0, fz_fixed, i8, SP_F_I8), SP_MEMBER_KEY(1, fz_fixed, u16, SP_F_U16),
  SP_MEMBER_KEY(2, fz_fixed, i32, SP_F_I32), SP_MEMBER_KEY(3, fz_fixed, u64, SP_F_U64),
  SP_MEMBER_KEY(4, fz_fixed, f, SP_F_FLOAT), SP_MEMBER_KEY(5, fz_fixed, d, SP_F_DOUBLE),
  SP_MEMBER_KEY(6, fz_fixed, ok, SP_F_BOOL), SP_MEMBER_KEY(8, fz_fixed, when, SP_F_TIMESTAMP),
  SP_MEMBER_KEY(9, fz_fixed, at, SP_F_STRUCT, .schema = &fz_pt_fixed_schema),
  SP_MEMBER_KEY(10, fz_fixed, hist, SP_F_U8, .count = 4),
};
static sp_schema fz_fixed_schema = SP_SCHEMA(fz_fixed, fz_fixed_fields, SP_FIXED_WIDTH);

/* A list of records, integer key: [[rec, ...]]. */
typedef struct fz_list { sp_array_field recs; } fz_list;
static const sp_field fz_list_fields[] = {
  SP_MEMBER_KEY(0, fz_list, recs, SP_F_STRUCT, .schema = &fz_rec_schema, .flags = SP_FIELD_ARRAY),
};
static sp_schema fz_list_schema = SP_SCHEMA(fz_list, fz_list_fields, 0);

/* The schemas a control byte chooses from (index % FZ_NSCHEMAS). */
static sp_schema *const fz_schemas[] = {
  &fz_all_schema, &fz_rec_schema, &fz_node_schema, &fz_fixed_schema, &fz_list_schema,
  &fz_kid_schema, &fz_pt_schema,
};
#define FZ_NSCHEMAS (sizeof fz_schemas / sizeof fz_schemas[0])

/* ---- equality by schema --------------------------------------------------------- */

static inline int fz_equal(const sp_schema *s, const void *a, const void *b);

/* Same bytes, or both absent (NULL: what nil decodes to). */
static inline int fz_same_bytes(const void *p, size_t n, const void *q, size_t m) {
  if (p == NULL || q == NULL) return p == q;
  return n == m && (n == 0 || memcmp(p, q, n) == 0);
}

static inline int fz_elem_equal(const sp_field *f, const uint8_t *p, const uint8_t *q) {
  switch (f->type) {
    case SP_F_BOOL: return *(const bool *)p == *(const bool *)q;
    case SP_F_STR: {
      const sp_str_field *x = (const void *)p, *y = (const void *)q;
      return fz_same_bytes(x->ptr, x->len, y->ptr, y->len);
    }
    case SP_F_BIN: {
      const sp_bin_field *x = (const void *)p, *y = (const void *)q;
      return fz_same_bytes(x->ptr, x->len, y->ptr, y->len);
    }
    case SP_F_EXT: {                                    /* nil (NULL) has no type */
      const sp_ext_field *x = (const void *)p, *y = (const void *)q;
      return fz_same_bytes(x->ptr, x->len, y->ptr, y->len) && (x->ptr == NULL || x->type == y->type);
    }
    case SP_F_TIMESTAMP: {
      const sp_ts_field *x = (const void *)p, *y = (const void *)q;
      return x->sec == y->sec && x->nsec == y->nsec;
    }
    case SP_F_STRUCT: return fz_equal(f->schema, p, q);
    default: return memcmp(p, q, sp_schema_elem_size(f)) == 0;    /* floats too: bit for bit */
  }
}

/* Field by field: numbers bit for bit, strings by content, arrays by count
** and elements (not by capacity or where they live). */
static inline int fz_equal(const sp_schema *s, const void *a, const void *b) {
  for (size_t i = 0; i < s->nfields; i++) {
    const sp_field *f = &s->fields[i];
    const uint8_t *p = (const uint8_t *)a + f->offset, *q = (const uint8_t *)b + f->offset;
    size_t es = sp_schema_elem_size(f), n = f->count ? f->count : 1;
    if (f->flags & SP_FIELD_ARRAY) {
      const sp_array_field *x = (const void *)p, *y = (const void *)q;
      if (x->count != y->count) return 0;
      n = x->count;
      p = x->ptr;
      q = y->ptr;
    }
    for (size_t k = 0; k < n; k++)
      if (!fz_elem_equal(f, p + k * es, q + k * es)) return 0;
  }
  return 1;
}

#endif
