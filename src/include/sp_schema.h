/*
** sp_schema.h -- C structs described by descriptor tables: encode, decode,
** decode into an existing value, and the fixed-size fast path.
** Owns: the descriptor types (sp_field, sp_schema), the member types a
** decode fills (sp_str_field, sp_bin_field, sp_ext_field, sp_ts_field,
** sp_array_field)
** and the schema entries. Must not touch: writer modes, reader internals
** or pools (schemas only call the public writer and reader).
**
** A schema is MessagePack-CSharp's [MessagePackObject]: each field names a
** member by offsetof and carries either a string key (the map form) or an
** integer key (the array form, length maxKey+1, nil in the gaps):
**
**   typedef struct point { int32_t x, y; sp_str_field label; } point;
**   static const sp_field point_fields[] = {
**     SP_MEMBER(point, x, SP_F_I32),                   // key "x"
**     SP_MEMBER(point, y, SP_F_I32),
**     SP_MEMBER(point, label, SP_F_STR),
**   };
**   static sp_schema point_schema = SP_SCHEMA(point, point_fields, 0);
**
**   sp_schema_to_array(&point_schema, &pt, NULL, &bytes, &err);
**   sp_schema_decode(&point_schema, bytes.data, bytes.len, &pt2, 0, &err);
**   sp_schema_release(&point_schema, &pt2);
**
** A schema is resolved on first use and cached in the schema itself (the
** documents' static formatter cache): resolution checks the table, pre-encodes
** the keys, builds the key matcher and detects the fixed-size case. It is
** published with one atomic compare-and-swap, so threads may race to first
** use; the loser frees its copy. Schemas are therefore never const.
**
** Memory layout of the member types: every pointer a decode stores is either
** owned by the struct (cap > 0: sp_malloc'd, 'cap' bytes or elements) or
** not owned (cap == 0: the caller's memory, a borrowed slice of the input,
** or the static empty string). sp_schema_release frees what is owned.
*/
#ifndef SP_SCHEMA_H
#define SP_SCHEMA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_bulk.h"
#include "sp_error.h"
#include "sp_output.h"
#include "sp_reader.h"
#include "sp_serialize.h"
#include "sp_writer.h"

/* ---- member types ------------------------------------------------------ */

/* A string: 'len' UTF-8 bytes at 'ptr'. A decode NUL-terminates what it
** copies (ptr[len] == 0) and sizes the block 'cap' bytes (>= len + 1); an
** empty string decoded into a member that owns nothing points to a static
** "" with cap 0. ptr == NULL encodes as nil and is what nil decodes to. */
typedef struct sp_str_field {
  char *ptr;
  size_t len;      /* bytes, without the terminator */
  size_t cap;      /* bytes owned at ptr; 0 = not owned */
} sp_str_field;

/* Binary data, the same shape (no terminator; cap >= len when owned). A
** bin member also decodes from a str. */
typedef struct sp_bin_field {
  uint8_t *ptr;
  size_t len;
  size_t cap;
} sp_bin_field;

/* An ext value of any type: the type and its data, in the shape of
** sp_bin_field (ptr, len, cap: owned when cap > 0) plus the type.
** ptr == NULL encodes as nil and is what nil decodes to. A timestamp
** (ext -1) decodes into one as its raw bytes. */
typedef struct sp_ext_field {
  uint8_t *ptr;
  size_t len;
  size_t cap;
  int8_t type;
} sp_ext_field;

/* A timestamp (ext -1): seconds since the epoch and nanoseconds < 10^9. */
typedef struct sp_ts_field {
  int64_t sec;
  uint32_t nsec;
} sp_ts_field;

/* A variable-length array of 'count' elements of the field's type, stored
** inline one after another. Slots [count, cap) of an owned block are always
** zero, so nothing stale stays reachable past the end. */
typedef struct sp_array_field {
  void *ptr;
  size_t count;    /* elements in use */
  size_t cap;      /* elements owned at ptr; 0 = not owned */
} sp_array_field;

/* Initialisers for values the caller builds to encode (not owned, cap 0):
**   sp_str_field s = SP_STR_LIT("hello");
**   obj.tags = (sp_array_field)SP_ARRAY_OF(tags, 3);                     */
#define SP_STR_LIT(s) { (char *)(s), sizeof(s) - 1, 0 }
#define SP_ARRAY_OF(a, n) { (void *)(a), (n), 0 }

/* ---- descriptors --------------------------------------------------------- */

/* The element type of a field. The numeric types are the numeric kinds of
** sp_bulk.h plus one (zero is no type, so a zero entry is an error), and
** arrays of them go through the same bulk writers. Integer fields are the C
** types of that width; SP_F_BOOL is C 'bool'; SP_F_STRUCT is an inline
** struct described by the field's 'schema'. */
typedef enum sp_ftype {
  SP_F_I8 = 1 + SP_NUM_I8, SP_F_U8 = 1 + SP_NUM_U8,
  SP_F_I16 = 1 + SP_NUM_I16, SP_F_U16 = 1 + SP_NUM_U16,
  SP_F_I32 = 1 + SP_NUM_I32, SP_F_U32 = 1 + SP_NUM_U32,
  SP_F_FLOAT = 1 + SP_NUM_F32, SP_F_DOUBLE = 1 + SP_NUM_F64,
  SP_F_I64 = 1 + SP_NUM_I64, SP_F_U64 = 1 + SP_NUM_U64,
  SP_F_BOOL = 1 + SP_NUM_KINDS,
  SP_F_STR,          /* sp_str_field */
  SP_F_BIN,          /* sp_bin_field */
  SP_F_TIMESTAMP,    /* sp_ts_field */
  SP_F_STRUCT,
  SP_F_EXT           /* sp_ext_field */
} sp_ftype;

/* Field and schema flags. */
#define SP_FIELD_ARRAY 0x1u   /* the member is an sp_array_field of 'type' elements */
#define SP_FIXED_WIDTH 0x2u   /* integers always in their full-width form (i8 d0, i16 d1,
                                 i32 d2, i64 d3, u8 cc, u16 cd, u32 ce, u64 cf) and
                                 timestamps in the 96-bit form, so their size never
                                 depends on the value */

/* Integer key n, stored as n + 1 so that a zero-filled field has no key. */
#define SP_KEY(n) ((uint32_t)(n) + 1u)
#define SP_MAX_INT_KEY 65535u    /* the array form has maxKey + 1 slots */
#define SP_MAX_KEY_LEN 256u      /* bytes of a string key */

/* One member. A schema uses string keys (every field has a name, none a
** key) or integer keys (every field has a key; names are then only used in
** error paths). Set either 'count' (an inline array: type member[count]) or
** SP_FIELD_ARRAY (an sp_array_field), or neither (one value). */
typedef struct sp_field {
  const char *name;           /* string key: NUL-terminated UTF-8, or NULL */
  uint32_t key;               /* SP_KEY(n) for integer key n; 0 = none */
  sp_ftype type;              /* element type */
  size_t offset;              /* offsetof(struct, member) */
  struct sp_schema *schema;   /* SP_F_STRUCT: the element's schema */
  uint32_t count;             /* > 0: inline array of count elements */
  unsigned flags;             /* SP_FIELD_ARRAY | SP_FIXED_WIDTH */
} sp_field;

struct sp_resolved;

/* A struct type. 'flags' may hold SP_FIXED_WIDTH for every field. The
** 'resolved' member is the cache: leave it zero (SP_SCHEMA does). */
typedef struct sp_schema {
  const char *name;           /* the type's name, for messages */
  size_t size;                /* sizeof the struct */
  const sp_field *fields;
  size_t nfields;
  unsigned flags;
  _Atomic(struct sp_resolved *) resolved;
} sp_schema;

#define SP_SCHEMA(type, fields_, flags_)                                   \
  { .name = #type, .size = sizeof(type), .fields = (fields_),              \
    .nfields = sizeof(fields_) / sizeof((fields_)[0]), .flags = (flags_) }

/* A member keyed by its own name, or by integer key k; the type comes
** after the member, and more designators may follow it:
**   SP_MEMBER(t, kids, SP_F_STRUCT, .schema = &kid_schema, .flags = SP_FIELD_ARRAY)
** (The type is the first variadic argument, so that a call without extra
** designators is still strictly conforming C11.) */
#define SP_MEMBER(st, m, ...) \
  { .name = #m, .offset = offsetof(st, m), .type = __VA_ARGS__ }
#define SP_MEMBER_KEY(k, st, m, ...) \
  { .name = #m, .key = SP_KEY(k), .offset = offsetof(st, m), .type = __VA_ARGS__ }

/* ---- resolution ---------------------------------------------------------- */

/* Resolves the schema (and the inline schemas it contains) now instead of
** at first use. Returns SP_OK, or SP_E_INVALID_ARGUMENT with the reason in err->cause
** (mixed integer and string keys, a duplicate key, a member outside the
** struct, a struct field without schema, ...) and the field in err->path.
** Nothing is cached on failure. Allocates the resolved form once. */
sp_code sp_schema_resolve(sp_schema *s, sp_error *err);

/* The exact encoded size of every value of a fixed-size schema (every field
** of fixed encoded size), or 0 when sizes depend on values or the schema
** does not resolve. */
size_t sp_schema_fixed_size(sp_schema *s);

/* Bytes one element of field f takes in the struct: the member itself, or
** one element of an inline array (f->count) or of an sp_array_field (a
** decode allocates count times this). 0 for no type, or a struct field
** without schema. */
size_t sp_schema_elem_size(const sp_field *f);

/* Frees the cached resolution; the next use resolves again. Only when no
** other thread is using the schema. Inline schemas keep their own caches. */
void sp_schema_forget(sp_schema *s);

/* ---- encode -------------------------------------------------------------- */

/* What sp_schema_format writes: the struct at 'obj' described by 'schema'. */
typedef struct sp_schema_obj {
  sp_schema *schema;
  const void *obj;
} sp_schema_obj;

/* A formatter (value = const sp_schema_obj *) for every entry, or inside a
** value tree with sp_custom(sp_schema_format, &o). Errors carry the element
** path, e.g. ".kids[2].when". */
int sp_schema_format(sp_writer *w, const void *value);

/* Like sp_to_array. A fixed-size schema takes the fast path: one allocation
** of exactly sp_schema_fixed_size bytes, written directly, with no scratch,
** no sequence and no copy (the cancel flag is checked once). Other schemas,
** and every schema when compressing, go through sp_to_array. On failure *out is empty and nothing is held. */
sp_code sp_schema_to_array(sp_schema *s, const void *obj, const sp_options *opt,
                           sp_bytes *out, sp_error *err);

/* Like sp_to_output. A fixed-size schema up to SP_SCHEMA_ONE_SPAN bytes is
** written into one span of that exact size. */
sp_code sp_schema_to_output(const sp_output *out, sp_schema *s, const void *obj,
                            const sp_options *opt, sp_error *err);

#define SP_SCHEMA_ONE_SPAN 4096  /* larger fixed structs are written field by field */

/* ---- decode -------------------------------------------------------------- */

/* Decode flags. */
#define SP_DECODE_BORROW 0x1u    /* str/bin fields point into the input (cap 0) instead of
                                    being copied; the input must outlive them. A body that
                                    spans segments of a sequence fails with SP_E_LENGTH_LIMIT.
                                    A compressed message's are copied. */
#define SP_DECODE_NO_DECOMPRESS 0x2u  /* ext 98/99 at the top are not compressed messages
                                    (by default they are decompressed, sp_compress.h, with
                                    the default limit; sp_plain_open sets another) */

/* Decodes one value from 'r' into the struct at 'obj', which must hold a
** valid state: zero-filled, the caller's values, or a previous decode.
** Returns the reader's sticky error code (SP_OK on success).
**
** Decode into an existing value (the fix of MemoryPack's List traps):
**   - members missing from the input keep their current values;
**   - a str/bin reuses its block when it is big enough, else frees it and
**     allocates once;
**   - an owned array of the same length decodes into its elements in place
**     (nested structs and their strings reused); a shorter one releases the
**     elements past the new end and zeroes their slots, keeping the block;
**     a longer one grows once (the old elements move, with what they own);
**     an array with cap 0 is the caller's and is never written or freed.
** An integer-key schema reads an array, a string-key schema a map (nested
** structs too: nil or another type is SP_E_TYPE). Keys: string keys are
** matched without allocating; unknown keys and
** indices, and keys that are not strings, are skipped. A key given twice
** decodes twice into the same member: the last wins and the earlier value's
** memory is reused or freed, never leaked. nil decodes to NULL for str/bin
** and to an empty array for arrays.
** On failure the struct keeps what was decoded before the error: a mix of
** old and new values, always consistent (every block it points to is
** recorded with its size), so sp_schema_release frees it all and nothing
** leaks. Errors carry the offset of the failing token and the member path.
** A value that is a compressed message (Lz4Block or Lz4BlockArray) is
** decompressed into pooled memory and its plain message decoded instead.
** Budget: the array blocks one decode allocates total at most
** SP_DECODE_BUDGET_PER_BYTE bytes per input byte left in r, plus
** SP_DECODE_BUDGET_BASE; an array past it is SP_E_LENGTH_LIMIT at its header, before
** any allocation (sp_schema_decode.c explains the multiple). */
sp_code sp_schema_read(sp_reader *r, sp_schema *s, void *obj, unsigned flags);

#define SP_DECODE_BUDGET_PER_BYTE 64u
#define SP_DECODE_BUDGET_BASE (1u << 20)

/* Decodes one value from len bytes at data (sp_schema_read over a fresh
** reader); bytes left after the value are SP_E_TRAILING_BYTES. *err (if not NULL)
** gets the error. */
sp_code sp_schema_decode(sp_schema *s, const void *data, size_t len, void *obj,
                         unsigned flags, sp_error *err);

/* Frees every block the struct owns (cap > 0), recursively, and clears its
** str/bin/array members to {NULL, 0, 0}; other members keep their values.
** Never fails; does not need the schema to resolve. NULL obj: no operation. */
void sp_schema_release(sp_schema *s, void *obj);

#endif
