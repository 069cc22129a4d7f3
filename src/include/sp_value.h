/*
** sp_value.h -- a small dynamic value model and its formatter.
** Owns: sp_value (a borrowed view of a tree of values), the formatter that
** writes it, and extension handlers (the caller's types as ext values, both
** ways). Must not touch: the entries or pools. Values only borrow:
** strings, bins, items, pairs and ext objects stay owned by whoever built
** the tree.
*/
#ifndef SP_VALUE_H
#define SP_VALUE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sp_serialize.h"

typedef enum sp_kind {
  SP_NIL, SP_BOOL, SP_INT, SP_UINT, SP_FLOAT, SP_DOUBLE, SP_STR, SP_BIN,
  SP_ARRAY, SP_MAP, SP_EXT, SP_TIMESTAMP,
  SP_CUSTOM,          /* written by a formatter of the caller's */
  SP_EXT_OBJ           /* an object of the caller's, written as an ext by its handler */
} sp_kind;

typedef struct sp_value sp_value;
typedef struct sp_ext_handler sp_ext_handler;

struct sp_value {
  sp_kind kind;
  union {
    int b;
    int64_t i;
    uint64_t u;
    float f;
    double d;
    struct { const char *ptr; size_t len; } str;          /* UTF-8 */
    struct { const void *ptr; size_t len; } bin;
    struct { const sp_value *items; uint32_t n; } array;
    struct { const sp_value *pairs; uint32_t n; } map;     /* 2n values: key, value, ... */
    struct { const void *ptr; uint32_t len; int8_t type; } ext;
    struct { int64_t sec; uint32_t nsec; } ts;
    struct { sp_format_fn fn; const void *value; } custom;
    struct { const sp_ext_handler *handler; const void *obj; } ext_obj;
  } as;
};

/* Nesting deeper than this is refused (SP_E_DEPTH_LIMIT) so a cyclic tree fails
** cleanly instead of overflowing the stack. */
#define SP_VALUE_MAX_DEPTH 500

/* The formatter for an sp_value tree: sp_to_array(sp_format_value, &v, ...). */
int sp_format_value(sp_writer *w, const void *value);

/* Constructors (no allocation). */
static inline sp_value sp_nil(void) { sp_value v; v.kind = SP_NIL; v.as.u = 0; return v; }
static inline sp_value sp_bool(int b) { sp_value v; v.kind = SP_BOOL; v.as.b = b; return v; }
static inline sp_value sp_int(int64_t i) { sp_value v; v.kind = SP_INT; v.as.i = i; return v; }
static inline sp_value sp_uint(uint64_t u) { sp_value v; v.kind = SP_UINT; v.as.u = u; return v; }
static inline sp_value sp_float(float f) { sp_value v; v.kind = SP_FLOAT; v.as.f = f; return v; }
static inline sp_value sp_double(double d) { sp_value v; v.kind = SP_DOUBLE; v.as.d = d; return v; }
static inline sp_value sp_strn(const char *s, size_t len) {
  sp_value v; v.kind = SP_STR; v.as.str.ptr = s; v.as.str.len = len; return v;
}
static inline sp_value sp_str(const char *s) { return sp_strn(s, strlen(s)); }
static inline sp_value sp_bin(const void *p, size_t len) {
  sp_value v; v.kind = SP_BIN; v.as.bin.ptr = p; v.as.bin.len = len; return v;
}
static inline sp_value sp_array(const sp_value *items, uint32_t n) {
  sp_value v; v.kind = SP_ARRAY; v.as.array.items = items; v.as.array.n = n; return v;
}
static inline sp_value sp_map(const sp_value *pairs, uint32_t n) {
  sp_value v; v.kind = SP_MAP; v.as.map.pairs = pairs; v.as.map.n = n; return v;
}
static inline sp_value sp_ext(int8_t type, const void *p, uint32_t len) {
  sp_value v; v.kind = SP_EXT; v.as.ext.type = type; v.as.ext.ptr = p; v.as.ext.len = len;
  return v;
}
static inline sp_value sp_timestamp(int64_t sec, uint32_t nsec) {
  sp_value v; v.kind = SP_TIMESTAMP; v.as.ts.sec = sec; v.as.ts.nsec = nsec; return v;
}
static inline sp_value sp_custom(sp_format_fn fn, const void *value) {
  sp_value v; v.kind = SP_CUSTOM; v.as.custom.fn = fn; v.as.custom.value = value; return v;
}
static inline sp_value sp_ext_obj(const sp_ext_handler *h, const void *obj) {
  sp_value v; v.kind = SP_EXT_OBJ; v.as.ext_obj.handler = h; v.as.ext_obj.obj = obj; return v;
}

/* ---- extension handlers ------------------------------------------------ */

/* Where a handler's encode puts an ext's data: up to SP_EXT_INLINE bytes in
** 'buf' (ptr = buf), or anywhere the handler keeps them (its object, its
** ctx) as long as they stay valid until encode returns to the formatter,
** which copies them at once. */
#define SP_EXT_INLINE 64
typedef struct sp_ext_data {
  const void *ptr;             /* NULL only when len == 0 */
  size_t len;                  /* at most 2^32-1 (SP_E_LENGTH_LIMIT) */
  uint8_t buf[SP_EXT_INLINE];
} sp_ext_data;

struct sp_doc;

/* One of the caller's types as an ext type, 0..127 (MessagePack keeps
** -128..-1 for its own types; -1 is the timestamp).
**   encode: the data of 'obj' (an SP_EXT_OBJ value's object) into *out.
**     Returns 0, or a nonzero code of its own: the formatter stops with
**     SP_E_CALLBACK, that code in err.inner, the value's path in err.path.
**   decode: the object for 'len' bytes at 'data' (valid only during the
**     call) into *obj. Memory for it may come from sp_doc_alloc(doc, n):
**     the document owns it (sp_doc_free frees it with the tree); memory from
**     elsewhere stays the handler's to free. Returns 0, or a nonzero code:
**     the decode stops with SP_E_CALLBACK at the ext's offset, the code in
**     err.inner (return SP_E_NOMEM when sp_doc_alloc failed).
** Either may be NULL when that direction is not used (a value of a handler
** without encode is SP_E_INVALID_ARGUMENT). 'ctx' is passed as it is. The
** handler must outlive every tree that points to it. */
struct sp_ext_handler {
  int8_t type;
  int (*encode)(void *ctx, const void *obj, sp_ext_data *out);
  int (*decode)(void *ctx, const uint8_t *data, uint32_t len, struct sp_doc *doc, const void **obj);
  void *ctx;
};

/* ---- decoding into a value tree (sp_value_decode.c) ------------------ */

#include "sp_reader.h"

/* A decoded tree's memory: every container's items and (unless borrowed)
** every str/bin/ext body, in a few arena blocks. Free with sp_doc_free. */
typedef struct sp_doc {
  struct sp_doc_block *blocks;
  struct sp_doc_block *spare;  /* kept by sp_doc_reset for the next decode */
  uint64_t bytes;            /* allocated for this document */
  size_t block_hint;         /* size of the next block; 0 -> 16 KiB */
} sp_doc;

typedef struct sp_decode_options {
  unsigned max_depth;        /* 0 -> 500 */
  int borrow;                /* 1: str/bin/ext point into the input (which must
                                outlive the tree) when they lie in one segment;
                                a compressed message's are copied */
  sp_decompress_options decompress;  /* detection on, 64 MiB limit by default */
  const sp_ext_handler *ext;         /* ext_count handlers: an ext of one of their types
                                        decodes to SP_EXT_OBJ through its decode (types
                                        0..127, each at most once, decode set: else
                                        SP_E_INVALID_ARGUMENT before anything is read) */
  size_t ext_count;
} sp_decode_options;

/* Reads one value from r into *out, allocating in doc (which starts
** zeroed: sp_doc d = {0}). Positive integers become SP_UINT, negative ones
** SP_INT, ext -1 of 4/8/12 bytes SP_TIMESTAMP. A value that is a compressed
** message (Lz4Block or Lz4BlockArray, sp_compress.h) is decompressed into
** pooled memory and its plain message decoded instead (which must be one
** value: SP_E_TRAILING_BYTES otherwise); opt->decompress turns that off or
** sets the limit. The reader's limits apply,
** and one budget for the whole decode: its containers together may claim
** no more values than the bytes r had left (SP_E_LENGTH_LIMIT), so a decode
** allocates at most a fixed multiple of its input (sp_value_decode.c says
** which; what ext handlers allocate with sp_doc_alloc comes on top). On
** failure returns the reader's error code; *out is nil and doc
** may hold partial allocations (sp_doc_free releases them). */
sp_code sp_value_read(sp_reader *r, const sp_decode_options *opt, sp_doc *doc, sp_value *out);

/* Decodes the whole of len bytes at data (sp_value_read over a fresh
** reader; trailing bytes are SP_E_TRAILING_BYTES). *err (if not NULL) gets the
** error. */
sp_code sp_value_decode(const void *data, size_t len, const sp_decode_options *opt,
                        sp_doc *doc, sp_value *out, sp_error *err);

/* n bytes, 16-aligned, owned by doc (for an ext handler's decode): freed
** by sp_doc_free, reused after sp_doc_reset. NULL when there is no memory. */
void *sp_doc_alloc(sp_doc *doc, size_t n);

/* Frees everything a decode allocated in doc. No operation on NULL. */
void sp_doc_free(sp_doc *doc);

/* Forgets the tree (its values become invalid) but keeps the memory for
** the next decode into doc: decoding similar messages into one document,
** reset in between, allocates nothing once warm. */
void sp_doc_reset(sp_doc *doc);

#endif
