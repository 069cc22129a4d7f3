/*
** sp_schema_decode.c -- reading structs described by schemas, into new or
** existing values.
** Owns: field decoding, reuse of existing strings, bins and arrays, the
** array-form and map-form walks. Must not touch: key matching internals
** (sp_schema_keys.c finds the field) or the reader's internals (only its
** public reads, sp_skip, the depth calls, and the unread span cur .. end
** that sp_reader_span hands out, read with the sp_*_at decoders).
**
** Inline paths: the expected key as two masked words, the common scalar
** types and str through the reader's inline reads, a short str borrowed or
** copied into a block big enough, and an array whose block holds the new
** length decoded without a resize. Whatever they do not take, they leave
** untouched for the general step, which does what it always did.
**
** Every step keeps the struct consistent: a block is recorded in its member
** (pointer and cap) the moment it is allocated, and the block it replaces
** is freed in the same step. So an error at any point leaves a struct that
** sp_schema_release frees completely.
**
** Reuse (MemoryPack's overwrite-read, without its List traps):
**   same length  elements decoded in place, their strings and arrays reused;
**   shorter      the tail's elements released and their slots zeroed, the
**                block kept for the next longer message;
**   longer       one new block; the old elements move into it with what they
**                own, so even a grown array reuses its nested memory.
**
** Budget: the reader lets an array header claim n elements when n bytes are
** left, but an element may take sizeof(struct) bytes of memory from one
** input byte ({} or []), so n x esize could be any multiple of the input.
** One budget per decode caps the array blocks it allocates, together, at
** SP_DECODE_BUDGET_PER_BYTE (64) bytes per input byte plus
** SP_DECODE_BUDGET_BASE (1 MiB); a block past it is SP_E_LENGTH_LIMIT at its
** array's header, before anything is allocated. 64 covers arrays of any
** field type from their smallest encodings (a 24-byte sp_str_field per 1-byte
** "", 8 bytes per fixint) with room to spare; the base lets small messages
** fill arrays of big structs. Strings need no budget: a copy is at most its
** encoded length + 1. Reused blocks cost nothing.
*/
#include <string.h>

#include "sp_alloc.h"
#include "sp_schema_internal.h"

static const char empty[1];   /* where an empty str/bin points when nothing is owned */

/* One decode: its flags and the bytes its array blocks may still take. */
typedef struct dctx {
  unsigned flags;
  uint64_t budget;
} dctx;

static int decode_struct(sp_reader *r, const sp_resolved *rs, uint8_t *obj, dctx *c);

/* ---- str and bin ------------------------------------------------------------- */

/* A block of at least 'need' bytes for a member that owns *cap bytes at
** 'old': the old block when big enough, else a new one (the old one freed).
** NULL (with SP_E_NOMEM, member unchanged) when allocation fails. */
static uint8_t *room(sp_reader *r, void *old, size_t *cap, size_t need) {
  uint8_t *p;
  if (*cap >= need) return old;
  if ((p = sp_malloc(need)) == NULL) {
    sp_reader_fail(r, SP_E_NOMEM, "no memory for a str/bin member", __func__);
    return NULL;
  }
  if (*cap) sp_free(old, *cap);
  *cap = need;
  return p;
}

/* The body of a str/bin of 'len' bytes: borrowed from the input, or copied
** into the member's block (NUL-terminated when 'term'). The member is the
** triple (ptr, len, cap), updated consistently at each step. */
static int read_body(sp_reader *r, uint8_t **ptr, size_t *len, size_t *cap, uint32_t n,
                     int term, const dctx *c) {
  const uint8_t *view;
  uint8_t *dst;
  if (c->flags & SP_DECODE_BORROW) {
    if (!sp_read_view(r, n, &view))
      return r->err.code ? 0
           : sp_reader_fail(r, SP_E_LENGTH_LIMIT, "borrowed body spans segments", __func__);
    if (*cap) sp_free(*ptr, *cap);
    *ptr = (uint8_t *)(uintptr_t)(n ? view : (const uint8_t *)empty);
    *len = n;
    *cap = 0;
    return 1;
  }
  if (n == 0 && *cap == 0) { *ptr = (uint8_t *)(uintptr_t)empty; *len = 0; return 1; }
  if ((dst = room(r, *ptr, cap, (size_t)n + (term != 0))) == NULL) return 0;
  *ptr = dst;
  *len = 0;
  if (term) dst[0] = 0;
  if (!sp_read_raw(r, dst, n)) return 0;
  if (term) dst[n] = 0;
  *len = n;
  return 1;
}

/* Forgets (and frees, when owned) a member's block: what nil decodes to. */
static void clear_bytes(uint8_t **ptr, size_t *len, size_t *cap) {
  if (*cap) sp_free(*ptr, *cap);
  *ptr = NULL;
  *len = *cap = 0;
}

static int decode_str(sp_reader *r, sp_str_field *v, const dctx *c) {
  uint8_t *p = (uint8_t *)v->ptr;
  uint32_t n;
  int ok;
  if (sp_read_nil_if(r)) {
    clear_bytes(&p, &v->len, &v->cap);
    ok = 1;
  } else {
    ok = sp_read_str_header(r, &n) && read_body(r, &p, &v->len, &v->cap, n, 1, c);
  }
  v->ptr = (char *)p;
  return ok;
}

/* A fixstr or str8 whose body lies in this segment, into a member that
** can take it without allocating (borrowed, or copied into its block when
** that is big enough): 1, read; 0, nothing consumed or changed (the caller
** takes decode_str). Leaves the member as decode_str would. */
static inline int str_inline(sp_reader *r, sp_str_field *v, unsigned flags) {
  const uint8_t *q = r->cur;
  uint32_t n;
  size_t h = sp_short_at(q, r->end, 0, &n);
  if (h == 0) return 0;
  if (flags & SP_DECODE_BORROW) {
    if (v->cap) sp_free(v->ptr, v->cap);
    v->ptr = (char *)(uintptr_t)(n ? q + h : (const uint8_t *)empty);
    v->len = n;
    v->cap = 0;
  } else if (n < v->cap) {
    sp_copy((uint8_t *)v->ptr, q + h, n);
    v->ptr[n] = 0;
    v->len = n;
  } else {
    return 0;
  }
  r->cur = q + h + n;
  return 1;
}

/* A bin member also accepts a str (as MessagePack-CSharp's bytes reader). */
static int decode_bin(sp_reader *r, sp_bin_field *v, const dctx *c) {
  uint32_t n;
  if (sp_read_nil_if(r)) { clear_bytes(&v->ptr, &v->len, &v->cap); return 1; }
  if (!(sp_peek(r) == SP_T_STR ? sp_read_str_header(r, &n) : sp_read_bin_header(r, &n))) return 0;
  return read_body(r, &v->ptr, &v->len, &v->cap, n, 0, c);
}

/* An ext of any type (a timestamp too, as its bytes); the member keeps
** its type only once the body is read, so a failure leaves it consistent. */
static int decode_ext(sp_reader *r, sp_ext_field *v, const dctx *c) {
  uint32_t n;
  int8_t type;
  if (sp_read_nil_if(r)) { clear_bytes(&v->ptr, &v->len, &v->cap); v->type = 0; return 1; }
  if (!sp_read_ext_header(r, &type, &n) || !read_body(r, &v->ptr, &v->len, &v->cap, n, 0, c)) return 0;
  v->type = type;
  return 1;
}

/* ---- elements ------------------------------------------------------------------ */

static int decode_bool(sp_reader *r, bool *out) {
  int b;
  if (!sp_read_bool(r, &b)) return 0;
  *out = b != 0;
  return 1;
}

#define AS(type, p) ((type *)(void *)(p))

/* One element of the field's type into the memory at p. */
static int decode_elem(sp_reader *r, const sp_rfield *rf, uint8_t *p, dctx *c) {
  switch (rf->type) {
    case SP_F_I8: return sp_read_int8(r, AS(int8_t, p));
    case SP_F_I16: return sp_read_int16(r, AS(int16_t, p));
    case SP_F_I32: return sp_read_int32(r, AS(int32_t, p));
    case SP_F_I64: return sp_read_int64(r, AS(int64_t, p));
    case SP_F_U8: return sp_read_uint8(r, p);
    case SP_F_U16: return sp_read_uint16(r, AS(uint16_t, p));
    case SP_F_U32: return sp_read_uint32(r, AS(uint32_t, p));
    case SP_F_U64: return sp_read_uint64(r, AS(uint64_t, p));
    case SP_F_FLOAT: return sp_read_float(r, AS(float, p));
    case SP_F_DOUBLE: return sp_read_double(r, AS(double, p));
    case SP_F_BOOL: return decode_bool(r, AS(bool, p));
    case SP_F_STR: return str_inline(r, AS(sp_str_field, p), c->flags) || decode_str(r, AS(sp_str_field, p), c);
    case SP_F_BIN: return decode_bin(r, AS(sp_bin_field, p), c);
    case SP_F_EXT: return decode_ext(r, AS(sp_ext_field, p), c);
    case SP_F_TIMESTAMP: return sp_read_timestamp(r, &AS(sp_ts_field, p)->sec, &AS(sp_ts_field, p)->nsec);
    default: {
      const sp_resolved *in = sp_schema_get_reading(r, rf->f->schema);
      return in && decode_struct(r, in, p, c);
    }
  }
}

/* n elements into consecutive slots at base. */
static int decode_elems(sp_reader *r, const sp_rfield *rf, uint8_t *base, uint32_t n,
                        dctx *c) {
  if (rf->type == SP_F_STR) {              /* strs without the switch per element */
    sp_str_field *v = AS(sp_str_field, base);
    for (uint32_t i = 0; i < n; i++, v++) {
      if (!str_inline(r, v, c->flags) && !decode_str(r, v, c)) {
        sp_error_path_index(&r->err, i);
        return 0;
      }
    }
    return 1;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (!decode_elem(r, rf, base + (size_t)i * rf->esize, c)) {
      sp_error_path_index(&r->err, i);
      return 0;
    }
  }
  return 1;
}

/* ---- arrays ---------------------------------------------------------------------- */

/* type m[count]: up to count elements; fewer leave the rest as they are,
** more is SP_E_LENGTH_LIMIT (the member cannot hold them). */
static int decode_inline(sp_reader *r, const sp_rfield *rf, uint8_t *p, dctx *c) {
  uint64_t at = sp_reader_offset(r);
  uint32_t n;
  if (!sp_read_array_header(r, &n)) return 0;
  if (n > rf->count)
    return sp_reader_fail_at(r, at, SP_E_LENGTH_LIMIT, "array longer than its inline member", __func__);
  return decode_elems(r, rf, p, n, c);
}

/* Frees what elements [from, to) own and zeroes their slots. */
static void drop_tail(const sp_rfield *rf, uint8_t *base, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) sp_schema_release_elem(rf->f, base + i * rf->esize);
  if (to > from) memset(base + from * rf->esize, 0, (to - from) * rf->esize);
}

/* Makes the array hold n elements, reusing what it can (see the top of the
** file); a new block is taken from the budget first (its header at 'at').
** Slots past the old count are zero. 0 on error, array unchanged. */
static int resize(sp_reader *r, const sp_rfield *rf, sp_array_field *a, uint32_t n, dctx *c,
                  uint64_t at) {
  size_t es = rf->esize, keep = a->cap ? a->count : 0;  /* cap 0: the caller's, never written */
  uint8_t *block;
  if (a->cap > 0 && n <= a->cap) {
    if (n < a->count) drop_tail(rf, a->ptr, n, a->count);
    a->count = n;
    return 1;
  }
  if (n == 0) { a->ptr = NULL; a->count = 0; return 1; }
  if (n > SIZE_MAX / es)
    return sp_reader_fail(r, SP_E_LENGTH_LIMIT, "array larger than memory", __func__);
  if ((uint64_t)n * es > c->budget)
    return sp_reader_fail_at(r, at, SP_E_LENGTH_LIMIT, "arrays need more memory than the decode budget",
                             __func__);
  c->budget -= (uint64_t)n * es;
  if ((block = sp_malloc((size_t)n * es)) == NULL)
    return sp_reader_fail(r, SP_E_NOMEM, "no memory for an array member", __func__);
  if (keep) memcpy(block, a->ptr, keep * es);   /* elements move with what they own */
  memset(block + keep * es, 0, ((size_t)n - keep) * es);
  if (a->cap) sp_free(a->ptr, a->cap * es);
  a->ptr = block;
  a->cap = a->count = n;
  return 1;
}

static int decode_array(sp_reader *r, const sp_rfield *rf, sp_array_field *a, dctx *c) {
  uint64_t at = sp_reader_offset(r);          /* once per array member */
  uint32_t n = 0;
  if (!sp_read_nil_if(r) && !sp_read_array_header(r, &n)) return 0;
  return resize(r, rf, a, n, c, at) && decode_elems(r, rf, a->ptr, n, c);
}

/* ---- structs ----------------------------------------------------------------------- */

/* An array member that needs no allocation: a fixarray header whose
** elements fit the block the member owns (decode_array's steps, in its
** order, without the nil test, the offset and the budget, which only an
** allocation needs). 0, nothing consumed: decode_array takes it. */
static inline int array_in_place(sp_reader *r, const sp_rfield *rf, sp_array_field *a, dctx *c,
                                 int *ok) {
  const uint8_t *q = r->cur;
  uint32_t n;
  if (!(q < r->end && (*q & 0xf0) == 0x90)) return 0;
  n = *q & 0x0fu;
  if ((ptrdiff_t)n >= r->end - q || a->cap == 0 || n > a->cap) return 0;
  r->cur = q + 1;
  if (n < a->count) drop_tail(rf, a->ptr, n, a->count);
  a->count = n;
  *ok = decode_elems(r, rf, a->ptr, n, c);
  return 1;
}

/* One value of the common types with the reader's inline reads, in the
** loop that calls it; the rest through decode_elem. It repeats six of
** decode_elem's cases on purpose: making decode_elem itself inline (this
** switch in front of it, for array elements too) measured slower on
** b.records schema decode (npm run bench:decode, side by side). */
static inline int decode_one(sp_reader *r, const sp_rfield *rf, uint8_t *p, dctx *c) {
  switch (rf->type) {
    case SP_F_I32: return sp_read_int32(r, AS(int32_t, p));
    case SP_F_I64: return sp_read_int64(r, AS(int64_t, p));
    case SP_F_U32: return sp_read_uint32(r, AS(uint32_t, p));
    case SP_F_U64: return sp_read_uint64(r, AS(uint64_t, p));
    case SP_F_DOUBLE: return sp_read_double(r, AS(double, p));
    case SP_F_STR: return str_inline(r, AS(sp_str_field, p), c->flags) || decode_str(r, AS(sp_str_field, p), c);
    default: return decode_elem(r, rf, p, c);
  }
}

/* An array member, or an inline array: one level deeper. */
static int decode_array_field(sp_reader *r, const sp_rfield *rf, uint8_t *p, dctx *c) {
  int ok;
  if (!sp_reader_enter(r)) return sp_schema_path(&r->err, rf);
  if (rf->shape == SHAPE_INLINE) ok = decode_inline(r, rf, p, c);
  else if (!array_in_place(r, rf, AS(sp_array_field, p), c, &ok))
    ok = decode_array(r, rf, AS(sp_array_field, p), c);
  sp_reader_leave(r);
  return ok || sp_schema_path(&r->err, rf);
}

static inline int decode_field(sp_reader *r, const sp_rfield *rf, uint8_t *obj, dctx *c) {
  uint8_t *p = obj + rf->offset;
  if (SP_LIKELY(rf->shape == SHAPE_ONE)) return decode_one(r, rf, p, c) || sp_schema_path(&r->err, rf);
  return decode_array_field(r, rf, p, c);
}

/* Integer keys: element i is the field with key i; gaps and indices past
** maxKey are skipped; a shorter array leaves later fields as they are. */
static int decode_array_form(sp_reader *r, const sp_resolved *rs, uint8_t *obj, dctx *c) {
  uint32_t n;
  if (!sp_read_array_header(r, &n)) return 0;
  for (uint32_t i = 0; i < n; i++) {
    int32_t f = i < rs->nslots ? rs->slot[i] : -1;
    if (f < 0 ? !sp_skip(r) : !decode_field(r, &rs->fields[f], obj, c)) return 0;
  }
  return 1;
}

/* Drops n body bytes through a small buffer (a key too long to match that
** spans segments, so it could not be viewed). */
static int drain(sp_reader *r, uint32_t n, uint8_t *buf, size_t size) {
  while (n > 0) {
    uint32_t k = n < size ? n : (uint32_t)size;
    if (!sp_read_raw(r, buf, k)) return 0;
    n -= k;
  }
  return 1;
}

/* The field a map key names: its index, -1 for an unknown key (consumed,
** whatever its type), -2 on error. Never allocates: the key is viewed in
** place, or copied to the stack when it spans segments. */
static int32_t read_key(sp_reader *r, const sp_resolved *rs) {
  uint8_t buf[SP_MAX_KEY_LEN];
  const uint8_t *p;
  uint32_t n;
  if (sp_peek(r) != SP_T_STR) return r->err.code == SP_OK && sp_skip(r) ? -1 : -2;
  if (!sp_read_str_header(r, &n)) return -2;
  if (sp_read_view(r, n, &p)) return sp_keyset_find(&rs->ks, p, n);
  if (r->err.code != SP_OK) return -2;
  if (n > rs->ks.max_len) return drain(r, n, buf, sizeof buf) ? -1 : -2;
  return sp_read_raw(r, buf, n) ? sp_keyset_find(&rs->ks, buf, n) : -2;
}

/* Whether the next token is exactly field rf's pre-encoded key (header and
** name, as the encoder writes it); consumed when it is. A key of up to
** SP_KEY_INLINE bytes with that many bytes left is two masked word
** compares; others a memcmp. */
static inline int key_is(sp_reader *r, const sp_resolved *rs, const sp_rfield *rf) {
  const uint8_t *p = r->cur;
  if (SP_LIKELY(rf->key_len <= SP_KEY_INLINE && r->end - p >= SP_KEY_INLINE)) {
    uint64_t a, b;
    memcpy(&a, p, 8);
    memcpy(&b, p + 8, 8);
    if (((a ^ rf->kw[0]) & rf->km[0]) | ((b ^ rf->kw[1]) & rf->km[1])) return 0;
  } else if ((size_t)(r->end - p) < rf->key_len ||
             memcmp(p, rs->keys + rf->key_off, rf->key_len) != 0) {
    return 0;
  }
  r->cur = p + rf->key_len;
  return 1;
}

/* String keys: each known key decodes its field (again, if it repeats: the
** last wins); unknown keys are skipped with their values. Keys usually come
** in declaration order (every encoder of the schema writes them so), so the
** field after the last one matched is tried first, as one compare of the
** whole key token; any other key goes through the matcher. */
static int decode_map_form(sp_reader *r, const sp_resolved *rs, uint8_t *obj, dctx *c) {
  uint32_t n, next = 0;
  if (!sp_read_map_header(r, &n)) return 0;
  for (uint32_t i = 0; i < n; i++) {
    int32_t f;
    if (next < rs->nfields && key_is(r, rs, &rs->fields[next])) f = (int32_t)next;
    else if ((f = read_key(r, rs)) == -2) return 0;
    if (f < 0 ? !sp_skip(r) : !decode_field(r, &rs->fields[f], obj, c)) return 0;
    if (f >= 0) next = (uint32_t)f + 1;
  }
  return 1;
}

static int decode_struct(sp_reader *r, const sp_resolved *rs, uint8_t *obj, dctx *c) {
  int ok;
  if (!sp_reader_enter(r)) return 0;
  ok = rs->int_keys ? decode_array_form(r, rs, obj, c) : decode_map_form(r, rs, obj, c);
  sp_reader_leave(r);
  return ok;
}

/* ---- entries ---------------------------------------------------------------------- */

/* One top-level struct from src, with the budget of the bytes left in it. */
static void decode_top(sp_reader *src, const sp_resolved *rs, void *obj, unsigned flags) {
  uint64_t left = sp_reader_remaining(src);
  dctx c;
  c.flags = flags;
  c.budget = left < (UINT64_MAX - SP_DECODE_BUDGET_BASE) / SP_DECODE_BUDGET_PER_BYTE
               ? SP_DECODE_BUDGET_PER_BYTE * left + SP_DECODE_BUDGET_BASE : UINT64_MAX;
  decode_struct(src, rs, obj, &c);
}

/* A compressed message's plain bytes go back to the pool when the read
** ends, so its strings are copied, never borrowed. */
sp_code sp_schema_read(sp_reader *r, sp_schema *s, void *obj, unsigned flags) {
  const sp_resolved *rs = sp_schema_get_reading(r, s);
  sp_decompress_options o = {0};
  sp_plain p;
  sp_reader *src;
  if (rs == NULL) return r->err.code;
  if ((flags & SP_DECODE_NO_DECOMPRESS) || !sp_maybe_compressed(r)) {   /* sp_plain_open's answer */
    decode_top(r, rs, obj, flags);
    return r->err.code;
  }
  o.off = (flags & SP_DECODE_NO_DECOMPRESS) != 0;
  src = sp_plain_open(&p, r, &o);
  decode_top(src, rs, obj, src == r ? flags : flags & ~SP_DECODE_BORROW);
  return sp_plain_close(&p, 1);
}

sp_code sp_schema_decode(sp_schema *s, const void *data, size_t len, void *obj,
                         unsigned flags, sp_error *err) {
  sp_reader r;
  sp_reader_init(&r, data, len);
  if (sp_schema_read(&r, s, obj, flags) == SP_OK && sp_reader_remaining(&r) > 0)
    sp_reader_fail(&r, SP_E_TRAILING_BYTES, "bytes left after the value", __func__);
  if (err) *err = r.err;
  return r.err.code;
}
