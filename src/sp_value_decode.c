/*
** sp_value_decode.c -- MessagePack into an sp_value tree.
** Owns: the document arena and the recursive descent (bounded by the
** reader's depth limit). Must not touch: encoding, pools.
**
** Allocation: items of a container come from the arena in one piece, after
** the reader checked that the input can hold that many values; bodies are
** copied into the arena unless borrowed. Blocks are 16 KiB or one exact
** block for a bigger request, so a document makes few allocations; a
** document reset and decoded into again reuses its blocks and, once warm,
** allocates nothing (freeing and re-allocating ~200 KB per decode made glibc
** hand the pages back to the kernel and fault them in again every time).
*/
#include <string.h>

#include "sp_alloc.h"
#include "sp_value.h"

#define BLOCK_SIZE 16384

typedef struct sp_doc_block {
  struct sp_doc_block *next;
  size_t size, used;        /* bytes after the header */
} sp_doc_block;

#define HEADER ((sizeof(sp_doc_block) + 15) & ~(size_t)15)

/* A block of at least n bytes: a spare one kept by sp_doc_reset when one
** is big enough, else a new one. */
static sp_doc_block *new_block(sp_doc *doc, size_t n) {
  size_t block = doc->block_hint ? doc->block_hint : BLOCK_SIZE;
  size_t size = n > block ? n : block;
  sp_doc_block **link = &doc->spare, *b;
  for (; *link != NULL; link = &(*link)->next)
    if ((*link)->size >= n) {
      b = *link;
      *link = b->next;
      b->used = 0;
      return b;
    }
  doc->block_hint = BLOCK_SIZE;
  if (size > SIZE_MAX - HEADER || (b = sp_malloc(HEADER + size)) == NULL) return NULL;
  doc->bytes += HEADER + size;
  b->size = size;
  b->used = 0;
  return b;
}

/* n bytes, 16-aligned, from the document; NULL on no memory. */
static void *doc_alloc(sp_doc *doc, size_t n) {
  sp_doc_block *b = doc->blocks;
  n = (n + 15) & ~(size_t)15;
  if (b == NULL || b->size - b->used < n) {
    if ((b = new_block(doc, n)) == NULL) return NULL;
    if (b->size - n < BLOCK_SIZE / 4 && doc->blocks != NULL) {   /* keep filling the current one */
      b->next = doc->blocks->next;
      doc->blocks->next = b;
    } else {
      b->next = doc->blocks;
      doc->blocks = b;
    }
  }
  b->used += n;
  return (uint8_t *)b + HEADER + b->used - n;
}

static void free_list(sp_doc_block *b) {
  while (b != NULL) {
    sp_doc_block *next = b->next;
    sp_free(b, HEADER + b->size);
    b = next;
  }
}

void sp_doc_free(sp_doc *doc) {
  if (doc == NULL) return;
  free_list(doc->blocks);
  free_list(doc->spare);
  doc->blocks = doc->spare = NULL;
  doc->bytes = 0;
}

void sp_doc_reset(sp_doc *doc) {
  while (doc->blocks != NULL) {
    sp_doc_block *b = doc->blocks;
    doc->blocks = b->next;
    b->next = doc->spare;
    doc->spare = b;
  }
}

typedef struct decoder {
  sp_reader *r;
  sp_doc *doc;
  int borrow;
} decoder;

static int decode_value(decoder *d, sp_value *out);

static int no_memory(decoder *d) {
  return sp_reader_fail(d->r, SP_E_NOMEM, "no memory for the value tree", __func__);
}

/* A body of len bytes: borrowed from the input when asked and contiguous,
** else copied into the document. */
static int body(decoder *d, uint32_t len, const void **out) {
  const uint8_t *view;
  void *copy;
  if (d->borrow && sp_read_view(d->r, len, &view)) { *out = view; return 1; }
  if (d->r->err.code != SP_OK) return 0;
  if ((copy = doc_alloc(d->doc, len ? len : 1)) == NULL) return no_memory(d);
  if (!sp_read_raw(d->r, copy, len)) return 0;
  *out = copy;
  return 1;
}

/* Items of a container whose header was read (depth already entered). */
static int decode_items(decoder *d, sp_value *out, uint32_t n, int map) {
  uint64_t count = map ? 2 * (uint64_t)n : n;
  sp_value *items = NULL;
  if (count > 0 && (items = doc_alloc(d->doc, (size_t)count * sizeof *items)) == NULL)
    return no_memory(d);
  for (uint64_t i = 0; i < count; i++)
    if (!decode_value(d, &items[i])) return 0;
  sp_reader_leave(d->r);
  *out = map ? sp_map(items, n) : sp_array(items, n);
  return 1;
}

static int decode_ext(decoder *d, sp_value *out) {
  int8_t type;
  uint32_t len;
  const void *data;
  sp_reader peek = *d->r;                 /* ext -1 is a timestamp: read it as one */
  if (!sp_read_ext_header(&peek, &type, &len)) return sp_read_ext_header(d->r, &type, &len);
  if (type == -1) {
    int64_t sec;
    uint32_t nsec;
    if (!sp_read_timestamp(d->r, &sec, &nsec)) return 0;
    *out = sp_timestamp(sec, nsec);
    return 1;
  }
  if (!sp_read_ext_header(d->r, &type, &len) || !body(d, len, &data)) return 0;
  *out = sp_ext(type, data, len);
  return 1;
}

static int decode_number(decoder *d, sp_type t, sp_value *out) {
  if (t == SP_T_UINT) { uint64_t u; if (!sp_read_uint64(d->r, &u)) return 0; *out = sp_uint(u); }
  else if (t == SP_T_INT) {
    int64_t i;
    if (!sp_read_int64(d->r, &i)) return 0;
    *out = i < 0 ? sp_int(i) : sp_uint((uint64_t)i);
  } else if (t == SP_T_FLOAT) { float f; if (!sp_read_float(d->r, &f)) return 0; *out = sp_float(f); }
  else { double x; if (!sp_read_double(d->r, &x)) return 0; *out = sp_double(x); }
  return 1;
}

static uint64_t big64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | p[i];
  return v;
}

/* The commonest values, read in place when the next 9 bytes lie in the
** current segment: fixints, nil, bools, 8/16-bit ints, doubles and fixstr
** bodies that are borrowed or copied. Returns 0 for anything else. */
static int decode_quick(decoder *d, sp_value *out) {
  sp_reader *r = d->r;
  const uint8_t *p = r->cur;
  size_t k;
  uint8_t b;
  if (r->end - p < 9) return 0;
  b = p[0];
  if (b <= 0x7f) { *out = sp_uint(b); k = 1; }
  else if (b >= 0xe0) { *out = sp_int((int8_t)b); k = 1; }
  else if (b == 0xc0) { *out = sp_nil(); k = 1; }
  else if (b == 0xc2 || b == 0xc3) { *out = sp_bool(b == 0xc3); k = 1; }
  else if (b == 0xcc) { *out = sp_uint(p[1]); k = 2; }
  else if (b == 0xcd) { *out = sp_uint((uint64_t)(p[1] << 8 | p[2])); k = 3; }
  else if (b == 0xcb) {
    uint64_t bits = big64(p + 1);
    double x;
    memcpy(&x, &bits, 8);
    *out = sp_double(x);
    k = 9;
  } else if (b >= 0xa0 && b <= 0xbf && (size_t)(r->end - p) > (size_t)(b & 0x1f)) {
    size_t n = b & 0x1f;
    const void *data = p + 1;
    if (!d->borrow) {
      void *copy = doc_alloc(d->doc, n ? n : 1);
      if (copy == NULL) return 0;                 /* the slow path reports it */
      memcpy(copy, p + 1, n);
      data = copy;
    }
    *out = sp_strn(data, n);
    k = 1 + n;
  } else {
    return 0;
  }
  r->cur += k;
  r->remaining -= k;
  return 1;
}

static int decode_value(decoder *d, sp_value *out) {
  sp_type t;
  if (decode_quick(d, out)) return 1;
  t = sp_peek(d->r);
  uint32_t n;
  const void *data;
  int b;
  *out = sp_nil();
  switch (t) {
    case SP_T_NIL: return sp_read_nil(d->r);
    case SP_T_BOOL: if (!sp_read_bool(d->r, &b)) return 0; *out = sp_bool(b); return 1;
    case SP_T_UINT: case SP_T_INT: case SP_T_FLOAT: case SP_T_DOUBLE:
      return decode_number(d, t, out);
    case SP_T_STR:
      if (!sp_read_str_header(d->r, &n) || !body(d, n, &data)) return 0;
      *out = sp_strn(data, n);
      return 1;
    case SP_T_BIN:
      if (!sp_read_bin_header(d->r, &n) || !body(d, n, &data)) return 0;
      *out = sp_bin(data, n);
      return 1;
    case SP_T_ARRAY:   /* depth is entered first, so its error names the header */
      return sp_reader_enter(d->r) && sp_read_array_header(d->r, &n) && decode_items(d, out, n, 0);
    case SP_T_MAP:
      return sp_reader_enter(d->r) && sp_read_map_header(d->r, &n) && decode_items(d, out, n, 1);
    case SP_T_EXT: return decode_ext(d, out);
    default:
      if (d->r->err.code == SP_OK)
        sp_reader_fail(d->r, SP_E_TRUNCATED, "input ends where a value was expected", __func__);
      return 0;
  }
}

sp_code sp_value_decode(sp_reader *r, const sp_decode_options *opt, sp_doc *doc, sp_value *out) {
  decoder d;
  d.r = r;
  d.doc = doc;
  d.borrow = opt ? opt->borrow : 0;
  if (opt && opt->max_depth) r->max_depth = opt->max_depth;
  if (doc->blocks == NULL && doc->spare == NULL && doc->block_hint == 0)   /* small message, small block */
    doc->block_hint = r->remaining < BLOCK_SIZE / 4 ? (size_t)r->remaining * 4 + 64 : BLOCK_SIZE;
  if (!decode_value(&d, out)) *out = sp_nil();
  return r->err.code;
}

sp_code sp_value_decode_bytes(const void *data, size_t len, const sp_decode_options *opt,
                              sp_doc *doc, sp_value *out, sp_error *err) {
  sp_reader r;
  sp_reader_init(&r, data, len);
  if (sp_value_decode(&r, opt, doc, out) == SP_OK && r.remaining != 0)
    sp_reader_fail(&r, SP_E_TRAILING_BYTES, "bytes after the end of the value", __func__);
  if (r.err.code != SP_OK) *out = sp_nil();
  if (err != NULL) *err = r.err;
  return r.err.code;
}
