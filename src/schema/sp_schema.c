/*
** sp_schema.c -- resolving a schema once, caching it, releasing structs.
** Owns: validation of descriptor tables, the resolved block (pre-encoded
** header and keys, integer-key slots, fixed sizes, each field's op and
** key words for the inline paths), its lock-free
** publication, resolve failures inside an encode or decode (and the field
** path every schema error carries), and sp_schema_release. Must not touch: encoding or decoding
** of values (sp_schema_encode.c, sp_schema_decode.c) or key matching
** internals (sp_schema_keys.c).
**
** The cache is the documents' static formatter cache in C: one atomic
** pointer per schema. A thread that finds it empty resolves privately and
** publishes with compare-and-swap (release); a thread that loses the race
** frees its copy and uses the winner's (acquire). The resolved form is
** complete before it is published, so a reader never sees a half-built one
** (MemoryPack #458: publish the formatter first). Only C11 atomics: no
** locks, so the single-threaded WASI build needs nothing else.
*/
#include <string.h>

#include "sp_alloc.h"
#include "sp_schema_internal.h"

#define MAX_FIELDS 65536u
#define MAX_INLINE_NESTING 32u   /* inline structs inside inline structs */

/* ---- element sizes ------------------------------------------------------- */

size_t sp_schema_elem_size(const sp_field *f) {
  int kind = sp_ftype_kind(f->type);
  if (kind >= 0) return sp_num_kind_size((sp_num_kind)kind);
  switch (f->type) {
    case SP_F_BOOL: return sizeof(bool);
    case SP_F_STR: return sizeof(sp_str_field);
    case SP_F_BIN: return sizeof(sp_bin_field);
    case SP_F_EXT: return sizeof(sp_ext_field);
    case SP_F_TIMESTAMP: return sizeof(sp_ts_field);
    case SP_F_STRUCT: return f->schema ? f->schema->size : 0;
    default: return 0;
  }
}

/* Encoded bytes of one element when they never depend on the value: a
** number in its full-width form is its type byte and its memory bytes. */
static uint64_t elem_fixed(const sp_field *f, int fixed_width, uint64_t nested_fixed) {
  int kind = sp_ftype_kind(f->type);
  if (kind >= 0)
    return fixed_width || !sp_ftype_is_int(f->type) ? 1 + sp_num_kind_size((sp_num_kind)kind) : 0;
  switch (f->type) {
    case SP_F_BOOL: return 1;
    case SP_F_TIMESTAMP: return fixed_width ? 15 : 0;   /* c7 0c ff nsec32 sec64 */
    case SP_F_STRUCT: return nested_fixed;
    default: return 0;                                  /* str, bin, ext: value-sized */
  }
}

/* Bytes of an array or map header for n entries. */
static uint32_t header_size(uint64_t n) { return n <= 15 ? 1 : n <= 0xffff ? 3 : 5; }

/* ---- validation ---------------------------------------------------------- */

/* A resolve failure: MISUSE with a static cause and the field in the path. */
static void fail(sp_error *err, const sp_field *f, size_t index, const char *cause) {
  if (err == NULL) return;
  memset(err, 0, sizeof *err);
  err->code = SP_E_INVALID_ARGUMENT;
  err->cause = cause;
  err->site = "sp_schema_resolve";
  if (f != NULL) sp_schema_path_field(err, f, index);
}

static size_t member_size(const sp_field *f, size_t esize) {
  if (f->flags & SP_FIELD_ARRAY) return sizeof(sp_array_field);
  if (f->count > 0) return f->count > SIZE_MAX / (esize ? esize : 1) ? SIZE_MAX : f->count * esize;
  return esize;
}

/* Checks one field on its own; returns a cause, or NULL when it is sound. */
static const char *check_field(const sp_schema *s, const sp_field *f) {
  size_t esize = sp_schema_elem_size(f), msize;
  if (f->type < SP_F_I8 || f->type > SP_F_EXT) return "field has no valid type";
  if (f->type == SP_F_STRUCT && f->schema == NULL) return "struct field without a schema";
  if (esize == 0) return "struct field whose schema has size 0";
  if (f->count > 0 && (f->flags & SP_FIELD_ARRAY))
    return "field is both an inline array (count) and SP_FIELD_ARRAY";
  msize = member_size(f, esize);
  if (f->offset > s->size || msize > s->size - f->offset) return "member lies outside the struct";
  if (f->name && strlen(f->name) > SP_MAX_KEY_LEN) return "string key longer than 256 bytes";
  if (f->key > SP_KEY(SP_MAX_INT_KEY)) return "integer key above 65535";
  return NULL;
}

/* Decides the key kind: 1 integer keys, 0 string keys, -1 on error. */
static int key_kind(const sp_schema *s, sp_error *err) {
  size_t keyed = 0;
  for (size_t i = 0; i < s->nfields; i++) keyed += s->fields[i].key != 0;
  for (size_t i = 0; i < s->nfields; i++) {
    const sp_field *f = &s->fields[i];
    if (keyed > 0 && f->key == 0) {
      fail(err, f, i, f->name ? "schema mixes integer and string keys"
                              : "field has neither a name nor an integer key");
      return -1;
    }
    if (keyed == 0 && f->name == NULL) {
      fail(err, f, i, "field has neither a name nor an integer key");
      return -1;
    }
  }
  return keyed > 0;
}

static int check_schema(const sp_schema *s, sp_error *err) {
  if (s->size == 0) { fail(err, NULL, 0, "schema size is 0"); return 0; }
  if (s->nfields > 0 && s->fields == NULL) { fail(err, NULL, 0, "schema has no field table"); return 0; }
  if (s->nfields > MAX_FIELDS) { fail(err, NULL, 0, "schema has more than 65536 fields"); return 0; }
  for (size_t i = 0; i < s->nfields; i++) {
    const char *cause = check_field(s, &s->fields[i]);
    if (cause) { fail(err, &s->fields[i], i, cause); return 0; }
  }
  return 1;
}

/* ---- the resolved block -------------------------------------------------- */

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

static const sp_resolved *get_at(sp_schema *s, sp_error *err, unsigned depth);

/* Fills the per-field table (everything but key bytes). Resolves inline
** struct schemas for their fixed size. Returns 0 on error. */
static int fill_fields(sp_resolved *rs, const sp_schema *s, sp_error *err, unsigned depth) {
  for (uint32_t i = 0; i < rs->nfields; i++) {
    const sp_field *f = &s->fields[i];
    sp_rfield *rf = &rs->fields[i];
    uint64_t nested = 0, ef;
    memset(rf, 0, sizeof *rf);
    rf->f = f;
    rf->type = (uint8_t)f->type;
    rf->offset = f->offset;
    rf->shape = (f->flags & SP_FIELD_ARRAY) ? SHAPE_ARRAY : f->count ? SHAPE_INLINE : SHAPE_ONE;
    rf->fixed_width = ((f->flags | s->flags) & SP_FIXED_WIDTH) != 0;
    rf->count = f->count;
    rf->esize = sp_schema_elem_size(f);
    rf->name_len = f->name ? (uint32_t)strlen(f->name) : 0;
    if (f->type == SP_F_STRUCT && rf->shape != SHAPE_ARRAY) {   /* arrays resolve lazily */
      const sp_resolved *in = get_at(f->schema, err, depth + 1);
      if (in == NULL) return err ? sp_schema_path_field(err, f, i) : 0;   /* this field in front */
      nested = in->fixed_size;
    }
    ef = elem_fixed(f, rf->fixed_width, nested);
    rf->efixed = ef <= UINT32_MAX ? (uint32_t)ef : 0;
    if (rf->efixed && rf->shape == SHAPE_ONE) rf->fixed = ef;
    if (rf->efixed && rf->shape == SHAPE_INLINE) rf->fixed = header_size(f->count) + f->count * ef;
  }
  return 1;
}

/* Integer keys: the slot table, nil gaps counted into the fixed size. */
static int fill_slots(sp_resolved *rs, sp_error *err) {
  for (uint32_t i = 0; i < rs->nslots; i++) rs->slot[i] = -1;
  for (uint32_t i = 0; i < rs->nfields; i++) {
    uint32_t k = rs->fields[i].f->key - 1;
    if (rs->slot[k] >= 0) { fail(err, rs->fields[i].f, i, "duplicate integer key"); return 0; }
    rs->slot[k] = (int32_t)i;
  }
  return 1;
}

/* String keys: str header + UTF-8 of each name, and the matcher. */
static int fill_keys(sp_resolved *rs, void *matcher, sp_error *err) {
  uint32_t off = 0;
  int32_t dup;
  for (uint32_t i = 0; i < rs->nfields; i++) {
    sp_rfield *rf = &rs->fields[i];
    rf->key_off = off;
    rf->key_len = (uint32_t)sp_put_str_header(rs->keys + off, rf->name_len);
    memcpy(rs->keys + off + rf->key_len, rf->f->name, rf->name_len);
    rf->key_len += rf->name_len;
    off += rf->key_len;
  }
  if ((dup = sp_keyset_build(&rs->ks, matcher, rs->schema->fields, rs->nfields)) >= 0) {
    fail(err, rs->fields[dup].f, (size_t)dup, "duplicate string key");
    return 0;
  }
  return 1;
}

/* The inline encoder's op of a field (sp_schema_internal.h): the types it
** writes in place, with a value bound below; the rest are OP_GENERAL. */
static uint8_t op_of(const sp_rfield *rf) {
  if (rf->shape == SHAPE_ARRAY) return rf->type == SP_F_STR ? OP_STR_ARRAY : OP_GENERAL;
  if (rf->shape != SHAPE_ONE) return OP_GENERAL;
  if (sp_ftype_is_int(rf->type)) return rf->fixed_width ? OP_WIDE : rf->type;
  switch (rf->type) {
    case SP_F_FLOAT: case SP_F_DOUBLE: case SP_F_BOOL: case SP_F_STR: case SP_F_BIN: return rf->type;
    default: return OP_GENERAL;
  }
}

/* Worst-case bytes of the op's value, a str/bin body or array elements aside. */
static uint32_t op_bound(uint8_t op) {
  switch (op) {
    case SP_F_BOOL: return 1;
    case SP_F_FLOAT: case SP_F_STR: case SP_F_BIN: case OP_STR_ARRAY: return 5;   /* and headers */
    default: return 9;
  }
}

/* The inline paths' view of each field: its op, the room it needs (the key
** is copied as SP_KEY_INLINE bytes when it is at most that long) and its
** key token as two zero-padded words with their byte mask, for the
** encoder's copy and the decoder's compare. */
static void plan_inline(sp_resolved *rs) {
  for (uint32_t i = 0; i < rs->nfields; i++) {
    sp_rfield *rf = &rs->fields[i];
    uint8_t kb[2 * SP_KEY_INLINE] = {0};
    rf->op = op_of(rf);
    rf->need = (rf->key_len <= SP_KEY_INLINE ? SP_KEY_INLINE : rf->key_len) + op_bound(rf->op);
    if (rf->key_len > SP_KEY_INLINE) continue;
    memcpy(kb, rs->keys + rf->key_off, rf->key_len);             /* nothing for integer keys */
    memset(kb + SP_KEY_INLINE, 0xff, rf->key_len);
    memcpy(rf->kw, kb, SP_KEY_INLINE);
    memcpy(rf->km, kb + SP_KEY_INLINE, SP_KEY_INLINE);
  }
}

/* The fixed size of the whole struct, or 0 when any field varies. */
static uint64_t struct_fixed(const sp_resolved *rs) {
  uint64_t total = rs->header_len + (rs->int_keys ? rs->nslots - rs->nfields : 0);
  for (uint32_t i = 0; i < rs->nfields; i++) {
    if (rs->fields[i].fixed == 0) return 0;
    total += rs->fields[i].key_len + rs->fields[i].fixed;
    if (total > ((uint64_t)1 << 31)) return 0;       /* too big to be worth a fast path */
  }
  return total;
}

static uint32_t max_slot(const sp_schema *s) {
  uint32_t m = 0;
  for (size_t i = 0; i < s->nfields; i++) if (s->fields[i].key > m) m = s->fields[i].key;
  return m;   /* maxKey + 1, i.e. the slot count */
}

static uint32_t key_bytes(const sp_schema *s) {
  uint32_t n = 0;
  for (size_t i = 0; i < s->nfields; i++) {
    uint32_t len = (uint32_t)strlen(s->fields[i].name);
    n += (uint32_t)sp_str_header_size(len) + len;
  }
  return n;
}

/* Byte sizes of the block's parts, each 8-byte aligned. */
typedef struct layout { size_t head, fields, slots, keys, matcher; } layout;

static layout plan(const sp_schema *s, int int_keys) {
  layout l;
  l.head = align8(sizeof(sp_resolved));
  l.fields = align8(s->nfields * sizeof(sp_rfield));
  l.slots = int_keys ? align8(max_slot(s) * sizeof(int32_t)) : 0;
  l.keys = int_keys ? 0 : align8(key_bytes(s));
  l.matcher = int_keys ? 0 : sp_keyset_size(s->fields, (uint32_t)s->nfields);
  return l;
}

static void header_of(sp_resolved *rs) {
  uint32_t n = rs->int_keys ? rs->nslots : rs->nfields;
  rs->header_len = (uint8_t)sp_put_header(rs->header, n, rs->int_keys ? 0x90 : 0x80, 15,
                                          rs->int_keys ? 0xdc : 0xde);
}

/* Allocates the block and points its parts into it. */
static sp_resolved *allocate(const sp_schema *s, int int_keys, const layout *l, sp_error *err) {
  size_t size = l->head + l->fields + l->slots + l->keys + l->matcher;
  uint8_t *p = sp_malloc(size);
  sp_resolved *rs = (sp_resolved *)(void *)p;
  if (rs == NULL) {
    fail(err, NULL, 0, "no memory to resolve the schema");
    if (err) err->code = SP_E_NOMEM;
    return NULL;
  }
  memset(rs, 0, sizeof *rs);
  rs->alloc_size = size;
  rs->schema = s;
  rs->int_keys = int_keys;
  rs->nfields = (uint32_t)s->nfields;
  rs->nslots = int_keys ? max_slot(s) : 0;
  rs->fields = (sp_rfield *)(void *)(p += l->head);
  rs->slot = (int32_t *)(void *)(p += l->fields);
  rs->keys = (p += l->slots);
  header_of(rs);
  return rs;
}

/* Builds a private resolved block; NULL (nothing held) on error. */
static sp_resolved *build(sp_schema *s, sp_error *err, unsigned depth) {
  int int_keys;
  layout l;
  sp_resolved *rs;
  if (!check_schema(s, err) || (int_keys = key_kind(s, err)) < 0) return NULL;
  l = plan(s, int_keys);
  if ((rs = allocate(s, int_keys, &l, err)) == NULL) return NULL;
  if (!fill_fields(rs, s, err, depth) ||
      (int_keys ? !fill_slots(rs, err) : !fill_keys(rs, rs->keys + l.keys, err))) {
    sp_free(rs, rs->alloc_size);
    return NULL;
  }
  plan_inline(rs);
  rs->fixed_size = struct_fixed(rs);
  return rs;
}

/* Resolves and publishes; 'depth' counts inline structs being resolved. */
static const sp_resolved *get_at(sp_schema *s, sp_error *err, unsigned depth) {
  sp_resolved *rs = atomic_load_explicit(&s->resolved, memory_order_acquire), *expected = NULL;
  if (rs != NULL) return rs;
  if (depth > MAX_INLINE_NESTING) {
    fail(err, NULL, 0, "inline structs nest deeper than 32 (does a schema contain itself?)");
    return NULL;
  }
  if ((rs = build(s, err, depth)) == NULL) return NULL;
  if (atomic_compare_exchange_strong_explicit(&s->resolved, &expected, rs, memory_order_acq_rel,
                                              memory_order_acquire))
    return rs;
  sp_free(rs, rs->alloc_size);           /* another thread published first */
  return expected;
}

const sp_resolved *sp_schema_get_slow(sp_schema *s, sp_error *err) { return get_at(s, err, 0); }

sp_code sp_schema_resolve(sp_schema *s, sp_error *err) {
  sp_error local;
  if (err == NULL) err = &local;
  memset(err, 0, sizeof *err);
  return sp_schema_get(s, err) ? SP_OK : err->code;
}

size_t sp_schema_fixed_size(sp_schema *s) {
  const sp_resolved *rs = sp_schema_get(s, NULL);
  return rs ? (size_t)rs->fixed_size : 0;
}

void sp_schema_forget(sp_schema *s) {
  sp_resolved *rs = atomic_exchange_explicit(&s->resolved, NULL, memory_order_acq_rel);
  if (rs != NULL) sp_free(rs, rs->alloc_size);
}

/* ---- failures of a walk ------------------------------------------------------ */

int sp_schema_path_field(sp_error *err, const sp_field *f, size_t index) {
  if (f->name) sp_error_path_key(err, f->name, strlen(f->name));
  else sp_error_path_index(err, index);
  return 0;
}

/* The writer or reader records the code, cause and site at its own offset
** (and stops); the path comes from the resolve failure. A walk that has
** failed already keeps its first error. */
const sp_resolved *sp_schema_get_walking(sp_writer *w, sp_reader *r, sp_schema *s) {
  sp_error e, *walk = w ? &w->err : &r->err;
  const sp_resolved *rs = sp_schema_get(s, &e);
  if (rs || walk->code != SP_OK) return rs;
  if (w) sp_writer_fail(w, e.code, e.cause, e.site);
  else sp_reader_fail(r, e.code, e.cause, e.site);
  memcpy(walk->path, e.path, sizeof e.path);
  return NULL;
}

/* ---- release --------------------------------------------------------------- */

void sp_schema_release_elem(const sp_field *f, uint8_t *p) {
  if (f->type == SP_F_STR) {
    sp_str_field *v = (sp_str_field *)(void *)p;
    if (v->cap) sp_free(v->ptr, v->cap);
    memset(v, 0, sizeof *v);
  } else if (f->type == SP_F_BIN) {
    sp_bin_field *v = (sp_bin_field *)(void *)p;
    if (v->cap) sp_free(v->ptr, v->cap);
    memset(v, 0, sizeof *v);
  } else if (f->type == SP_F_EXT) {
    sp_ext_field *v = (sp_ext_field *)(void *)p;
    if (v->cap) sp_free(v->ptr, v->cap);
    memset(v, 0, sizeof *v);
  } else if (f->type == SP_F_STRUCT && f->schema != NULL) {
    sp_schema_release(f->schema, p);
  }
}

/* Only str, bin, ext and struct elements can own memory. */
static int owns_memory(const sp_field *f) {
  return f->type == SP_F_STR || f->type == SP_F_BIN || f->type == SP_F_EXT || f->type == SP_F_STRUCT;
}

static void release_array(const sp_field *f, sp_array_field *a) {
  size_t esize = sp_schema_elem_size(f);
  if (a->cap > 0 && esize > 0) {
    if (owns_memory(f))
      for (size_t i = 0; i < a->count; i++) sp_schema_release_elem(f, (uint8_t *)a->ptr + i * esize);
    sp_free(a->ptr, a->cap * esize);
  }
  memset(a, 0, sizeof *a);
}

void sp_schema_release(sp_schema *s, void *obj) {
  if (s == NULL || obj == NULL || s->fields == NULL) return;
  for (size_t i = 0; i < s->nfields; i++) {
    const sp_field *f = &s->fields[i];
    uint8_t *p = (uint8_t *)obj + f->offset;
    size_t esize = sp_schema_elem_size(f);
    if (f->flags & SP_FIELD_ARRAY) release_array(f, (sp_array_field *)(void *)p);
    else if (owns_memory(f) && esize > 0)
      for (uint32_t k = 0; k < (f->count ? f->count : 1); k++) sp_schema_release_elem(f, p + k * esize);
  }
}
