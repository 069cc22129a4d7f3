/*
** sp_value_decode.c -- MessagePack into an sp_value tree.
** Owns: the document arena, the recursive descent (bounded by the reader's
** depth limit), the decode's value budget, and the calls of ext handlers'
** decode. Must not touch: encoding,
** pools, the reader's cursor (every value is read through sp_reader.h's
** inline reads).
**
** Allocation: items of a container come from the arena in one piece, after
** the reader checked that the input can hold that many values; bodies are
** copied into the arena unless borrowed (an empty one points to a static
** ""). Blocks are 16 KiB or one exact block for a bigger request, so a
** document makes few allocations; a document reset and decoded into again
** reuses its blocks and, once warm, allocates nothing (freeing and
** re-allocating ~200 KB per decode made glibc hand the pages back to the
** kernel and fault them in again every time).
**
** Budget (mpack's "possible nodes left"): every value takes at least one
** input byte, so all the containers of one decode together can hold at most
** as many values as the input has bytes. The decode starts with that many
** and takes each container's count (x2 for maps) from it before allocating
** its items; a header whose count exceeds what is left of it is
** SP_E_TRUNCATED at the header: the bytes cannot hold what the containers
** claim, so the message ends past them (a streaming caller waits for more,
** as for the reader's own check). Valid input never runs out. The reader's
** own check (count <= bytes left, else SP_E_TRUNCATED) is per header:
** without the budget, nested headers each claiming
** nearly all the bytes left would each allocate that many items, level
** after level (up to the depth limit: ~500 x 24 bytes per input byte).
** With it, the multiple is fixed: an item is sizeof(sp_value) = 24 bytes
** (on 64-bit and wasm32), a copied body at most its length + 15 (16-byte
** alignment) from at least length + 1 input bytes, a container's item block
** at most 8 bytes of rounding -- so at most 32 bytes of arena per input
** byte, and under 64 with the slack at block ends, plus one 16 KiB block.
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
void *sp_doc_alloc(sp_doc *doc, size_t n) {
  sp_doc_block *b = doc->blocks;
  if (n > SIZE_MAX - 15) return NULL;     /* the rounding must not wrap */
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

/* A decode: the reader, the arena, the options, and the values the
** containers still to come may hold in total (the budget above). */
typedef struct decoder {
  sp_reader *r;
  sp_doc *doc;
  int borrow;
  uint64_t budget;
  const sp_ext_handler *ext;  /* the options' handlers (checked by ext_checked) */
  size_t ext_count;
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
  if (len == 0) { *out = ""; return d->r->err.code == SP_OK; }
  if (d->borrow && sp_read_view(d->r, len, &view)) { *out = view; return 1; }
  if (d->r->err.code != SP_OK) return 0;
  if ((copy = sp_doc_alloc(d->doc, len)) == NULL) return no_memory(d);
  if (!sp_read_raw(d->r, copy, len)) return 0;
  *out = copy;
  return 1;
}

/* A container: header, budget, items (depth entered first, so a depth
** error names the header). */
static int decode_container(decoder *d, sp_value *out, int map) {
  sp_reader *r = d->r;
  uint64_t at = sp_reader_offset(r), count;
  sp_value *items = NULL;
  uint32_t n;
  if (!sp_reader_enter(r) || !(map ? sp_read_map_header(r, &n) : sp_read_array_header(r, &n)))
    return 0;
  count = map ? 2 * (uint64_t)n : n;
  if (count > d->budget)
    return sp_reader_fail_at(r, at, SP_E_TRUNCATED, "containers claim more values than the bytes left hold",
                             __func__);
  d->budget -= count;
  if (count > SIZE_MAX / sizeof *items)   /* 32-bit targets: 179 M items are 4 GiB */
    return sp_reader_fail_at(r, at, SP_E_LENGTH_LIMIT, "more values than memory can hold", __func__);
  if (count > 0 && (items = sp_doc_alloc(d->doc, (size_t)count * sizeof *items)) == NULL)
    return no_memory(d);
  for (uint64_t i = 0; i < count; i++)
    if (!decode_value(d, &items[i])) return 0;
  sp_reader_leave(r);
  *out = map ? sp_map(items, n) : sp_array(items, n);
  return 1;
}

/* The handler for an ext type, or NULL (a few handlers: a scan is enough). */
static const sp_ext_handler *handler_for(const decoder *d, int8_t type) {
  for (size_t i = 0; i < d->ext_count; i++)
    if (d->ext[i].type == type) return &d->ext[i];
  return NULL;
}

/* An ext of a handler's type: its body (contiguous: borrowed, or copied
** into the document) goes to the handler's decode. */
static int decode_ext_obj(decoder *d, const sp_ext_handler *h, sp_value *out) {
  uint64_t at = sp_reader_offset(d->r);
  int8_t type;
  uint32_t len;
  const void *data, *obj = NULL;
  int rc;
  if (!sp_read_ext_header(d->r, &type, &len) || !body(d, len, &data)) return 0;
  if ((rc = h->decode(h->ctx, data, len, d->doc, &obj)) != 0) {
    sp_reader_fail_at(d->r, at, SP_E_CALLBACK, "an ext handler's decode reported failure", __func__);
    d->r->err.inner = rc;
    return 0;
  }
  *out = sp_ext_obj(h, obj);
  return 1;
}

static int decode_ext(decoder *d, sp_value *out) {
  int8_t type;
  uint32_t len;
  const void *data;
  const sp_ext_handler *h;
  sp_reader peek = *d->r;                 /* ext -1 is a timestamp: read it as one */
  if (!sp_read_ext_header(&peek, &type, &len)) return sp_read_ext_header(d->r, &type, &len);
  if (d->ext_count > 0 && (h = handler_for(d, type)) != NULL) return decode_ext_obj(d, h, out);
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

static int decode_str(decoder *d, sp_value *out, int bin) {
  uint32_t n;
  const void *data;
  if (!(bin ? sp_read_bin_header(d->r, &n) : sp_read_str_header(d->r, &n)) || !body(d, n, &data))
    return 0;
  *out = bin ? sp_bin(data, n) : sp_strn(data, n);
  return 1;
}

/* Any value through the reader's reads (the general path). */
static int decode_any(decoder *d, sp_value *out) {
  sp_reader *r = d->r;
  union { uint64_t u; int64_t i; double x; float f; int b; } v;
  switch (sp_peek(r)) {
    case SP_T_UINT: if (!sp_read_uint64(r, &v.u)) return 0; *out = sp_uint(v.u); return 1;
    case SP_T_INT:
      if (!sp_read_int64(r, &v.i)) return 0;
      *out = v.i < 0 ? sp_int(v.i) : sp_uint((uint64_t)v.i);
      return 1;
    case SP_T_DOUBLE: if (!sp_read_double(r, &v.x)) return 0; *out = sp_double(v.x); return 1;
    case SP_T_FLOAT: if (!sp_read_float(r, &v.f)) return 0; *out = sp_float(v.f); return 1;
    case SP_T_STR: return decode_str(d, out, 0);
    case SP_T_BIN: return decode_str(d, out, 1);
    case SP_T_NIL: *out = sp_nil(); return sp_read_nil(r);
    case SP_T_BOOL: if (!sp_read_bool(r, &v.b)) return 0; *out = sp_bool(v.b); return 1;
    case SP_T_ARRAY: return decode_container(d, out, 0);
    case SP_T_MAP: return decode_container(d, out, 1);
    case SP_T_EXT: return decode_ext(d, out);
    default:
      if (r->err.code == SP_OK)
        sp_reader_fail(r, SP_E_TRUNCATED, "input ends where a value was expected", __func__);
      return 0;
  }
}

/* The commonest scalars decoded in place from the reader's span (one
** dispatch on the first byte, as sp_reader.h's bulk loops do): ints,
** doubles, nil, bools and short strs. Returns 0, consuming nothing, for
** anything else (containers too), which decode_any then reads. */
static int decode_scalar(decoder *d, sp_value *out) {
  size_t avail, k;
  const uint8_t *p = sp_reader_span(d->r, &avail);
  uint32_t n;
  if (avail < 9) return 0;
  switch (sp_reader_types[*p]) {
    case SP_T_UINT: case SP_T_INT: {
      uint64_t v;
      int neg;
      if ((k = sp_int_at(p, &v, &neg)) == 0) return 0;
      *out = neg ? sp_int((int64_t)v) : sp_uint(v);
      break;
    }
    case SP_T_DOUBLE:
      if ((k = sp_read_double_at(p, &out->as.d)) == 0) return 0;
      out->kind = SP_DOUBLE;
      break;
    case SP_T_NIL: *out = sp_nil(); k = 1; break;
    case SP_T_BOOL: *out = sp_bool(*p & 1); k = 1; break;
    case SP_T_STR: {
      const void *data = p + (k = sp_short_at(p, p + avail, 0, &n));
      void *copy;
      if (k == 0) return 0;
      if (n == 0) data = "";
      else if (!d->borrow) {
        if ((copy = sp_doc_alloc(d->doc, n)) == NULL) return 0;   /* the general path reports it */
        data = memcpy(copy, data, n);
      }
      *out = sp_strn(data, n);
      k += n;
      break;
    }
    default: return 0;
  }
  sp_reader_advance(d->r, k);
  return 1;
}

static int decode_value(decoder *d, sp_value *out) {
  return decode_scalar(d, out) || decode_any(d, out);
}

/* One value from r, which is already its message's plain bytes. */
static sp_code read_plain(sp_reader *r, int borrow, const sp_decode_options *opt, sp_doc *doc,
                          sp_value *out) {
  decoder d;
  uint64_t left = sp_reader_remaining(r);
  d.r = r;
  d.doc = doc;
  d.borrow = borrow;
  d.budget = left;
  d.ext = opt ? opt->ext : NULL;
  d.ext_count = opt && opt->ext ? opt->ext_count : 0;
  if (doc->blocks == NULL && doc->spare == NULL && doc->block_hint == 0)   /* small message, small block */
    doc->block_hint = left < BLOCK_SIZE / 4 ? (size_t)left * 4 + 64 : BLOCK_SIZE;
  *out = sp_nil();
  if (!decode_value(&d, out)) *out = sp_nil();
  return r->err.code;
}

/* The handlers' contract: types 0..127, each once, each with a decode. */
static int ext_checked(sp_reader *r, const sp_decode_options *opt) {
  uint8_t seen[128] = {0};
  if (opt == NULL || opt->ext_count == 0) return 1;
  if (opt->ext == NULL) return sp_reader_fail(r, SP_E_INVALID_ARGUMENT, "ext_count without ext", __func__);
  for (size_t i = 0; i < opt->ext_count; i++) {
    const sp_ext_handler *h = &opt->ext[i];
    if (h->type < 0)
      return sp_reader_fail(r, SP_E_INVALID_ARGUMENT, "ext handler types are 0..127 (MessagePack keeps the rest)",
                            __func__);
    if (seen[h->type]++)
      return sp_reader_fail(r, SP_E_INVALID_ARGUMENT, "two ext handlers for one type", __func__);
    if (h->decode == NULL) return sp_reader_fail(r, SP_E_INVALID_ARGUMENT, "an ext handler without decode", __func__);
  }
  return 1;
}

/* A compressed message's plain bytes go back to the pool when the read
** ends, so its bodies are copied, never borrowed. */
sp_code sp_value_read(sp_reader *r, const sp_decode_options *opt, sp_doc *doc, sp_value *out) {
  sp_plain p;
  sp_reader *src;
  *out = sp_nil();
  if (!ext_checked(r, opt)) return r->err.code;
  if (opt && opt->max_depth) r->max_depth = opt->max_depth;
  src = sp_plain_open(&p, r, opt ? &opt->decompress : NULL);
  read_plain(src, src == r && opt && opt->borrow, opt, doc, out);
  if (sp_plain_close(&p, 1) != SP_OK) *out = sp_nil();
  return r->err.code;
}

sp_code sp_value_decode(const void *data, size_t len, const sp_decode_options *opt,
                        sp_doc *doc, sp_value *out, sp_error *err) {
  sp_reader r;
  sp_reader_init(&r, data, len);
  if (sp_value_read(&r, opt, doc, out) == SP_OK && sp_reader_remaining(&r) != 0)
    sp_reader_fail(&r, SP_E_TRAILING_BYTES, "bytes after the end of the value", __func__);
  if (r.err.code != SP_OK) *out = sp_nil();
  if (err != NULL) *err = r.err;
  return r.err.code;
}
