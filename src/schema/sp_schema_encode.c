/*
** sp_schema_encode.c -- writing structs described by schemas, and the
** fixed-size fast path.
** Owns: the schema formatter, the fixed-width encodings, the to_array fast
** path, the inline loop. Must not touch: resolution (sp_schema.c) or writer
** internals (only the public reserve/advance and sp_write_* calls, and the
** span contract of sp_span: write at cur .. end, then move cur).
**
** Three ways to write the same bytes:
**   put_*    write a fixed-size field or struct straight into memory that
**            already holds its exact size (no checks per value);
**   inline   encode_struct's loop: the common field kinds at a local cursor
**            while the span holds the field's worst case (see below);
**   write_*  write through the writer, value by value, reserving as they go.
** A fixed-size struct (or field) of at most SP_SCHEMA_ONE_SPAN bytes is
** reserved once and put; sp_schema_to_array puts a fixed-size struct of
** any size into one exact allocation (MemoryPack's IFixedSizeMemoryPackable
** path: no thread-static workspace, no copy). Both ways use the same put
** functions for fixed-width values, so their bytes are equal by design.
*/
#include <string.h>

#include "sp_alloc.h"
#include "sp_schema_internal.h"

/* ---- fixed-width values --------------------------------------------------- */

#define LOAD(type, src) (*(const type *)(const void *)(src))

/* An integer in the full-width form of its type. */
static size_t put_wide_int(uint8_t *p, uint8_t type, const uint8_t *src) {
  switch (type) {
    case SP_F_I8: p[0] = 0xd0; p[1] = (uint8_t)LOAD(int8_t, src); return 2;
    case SP_F_I16: p[0] = 0xd1; sp_store16(p + 1, (uint16_t)LOAD(int16_t, src)); return 3;
    case SP_F_I32: p[0] = 0xd2; sp_store32(p + 1, (uint32_t)LOAD(int32_t, src)); return 5;
    case SP_F_I64: p[0] = 0xd3; sp_store64(p + 1, (uint64_t)LOAD(int64_t, src)); return 9;
    case SP_F_U8: p[0] = 0xcc; p[1] = LOAD(uint8_t, src); return 2;
    case SP_F_U16: p[0] = 0xcd; sp_store16(p + 1, LOAD(uint16_t, src)); return 3;
    case SP_F_U32: p[0] = 0xce; sp_store32(p + 1, LOAD(uint32_t, src)); return 5;
    default: p[0] = 0xcf; sp_store64(p + 1, LOAD(uint64_t, src)); return 9;
  }
}

/* The 96-bit timestamp form, whatever the value (c7 0c ff nsec sec). */
static size_t put_wide_ts(sp_writer *w, uint8_t *p, const sp_ts_field *t) {
  if (t->nsec >= 1000000000u) {
    sp_writer_fail(w, SP_E_VALUE_RANGE, "timestamp nanoseconds >= 10^9", __func__);
    return 0;
  }
  p[0] = 0xc7; p[1] = 12; p[2] = 0xff;
  sp_store32(p + 3, t->nsec);
  sp_store64(p + 7, (uint64_t)t->sec);
  return 15;
}


/* ---- put: fixed-size structs straight into memory -------------------------- */

static uint8_t *put_struct(sp_writer *w, const sp_resolved *rs, const uint8_t *obj, uint8_t *p);

/* One element of a fixed-size field. NULL after an error. */
static uint8_t *put_elem(sp_writer *w, const sp_rfield *rf, const uint8_t *src, uint8_t *p) {
  size_t n;
  switch (rf->type) {
    case SP_F_FLOAT: return p + sp_put_float(p, LOAD(float, src));
    case SP_F_DOUBLE: return p + sp_put_double(p, LOAD(double, src));
    case SP_F_BOOL: *p = LOAD(bool, src) ? 0xc3 : 0xc2; return p + 1;
    case SP_F_TIMESTAMP:
      n = put_wide_ts(w, p, (const sp_ts_field *)(const void *)src);
      return n ? p + n : NULL;
    case SP_F_STRUCT: {
      const sp_resolved *in = sp_schema_get_writing(w, rf->f->schema);
      return in ? put_struct(w, in, src, p) : NULL;
    }
    default: return p + put_wide_int(p, rf->type, src);
  }
}

/* A fixed-size field: one value, or an inline array's header and values. */
static uint8_t *put_field(sp_writer *w, const sp_rfield *rf, const uint8_t *src, uint8_t *p) {
  if (rf->shape == SHAPE_ONE) return put_elem(w, rf, src, p);
  p += sp_put_header(p, rf->count, 0x90, 15, 0xdc);
  for (uint32_t i = 0; i < rf->count && p != NULL; i++) {
    p = put_elem(w, rf, src + (size_t)i * rf->esize, p);
    if (p == NULL) sp_error_path_index(&w->err, i);
  }
  return p;
}

/* A fixed-size struct: header, then (keys and) fields, nil in the gaps. */
static uint8_t *put_struct(sp_writer *w, const sp_resolved *rs, const uint8_t *obj, uint8_t *p) {
  memcpy(p, rs->header, rs->header_len);
  p += rs->header_len;
  for (uint32_t i = 0; i < (rs->int_keys ? rs->nslots : rs->nfields); i++) {
    const sp_rfield *rf;
    if (rs->int_keys && rs->slot[i] < 0) { *p++ = 0xc0; continue; }
    rf = &rs->fields[rs->int_keys ? (uint32_t)rs->slot[i] : i];
    memcpy(p, rs->keys + rf->key_off, rf->key_len);   /* key_len is 0 for integer keys */
    if ((p = put_field(w, rf, obj + rf->offset, p + rf->key_len)) == NULL) {
      sp_schema_path(&w->err, rf);
      return NULL;
    }
  }
  return p;
}

/* Reserves 'size' bytes once and puts the fixed-size struct into them. */
static int encode_fixed(sp_writer *w, const sp_resolved *rs, const uint8_t *obj, size_t size) {
  uint8_t *p = sp_writer_reserve(w, size), *q;
  if (p == NULL || (q = put_struct(w, rs, obj, p)) == NULL) return 0;
  sp_writer_advance(w, (size_t)(q - p));
  return 1;
}

/* ---- write: any struct through the writer ---------------------------------- */

static int encode_struct(sp_writer *w, const sp_resolved *rs, const uint8_t *obj, unsigned depth);

/* A value of fixed width (SP_FIXED_WIDTH integer or timestamp). */
static void write_wide(sp_writer *w, const sp_rfield *rf, const uint8_t *src) {
  uint8_t *p = sp_writer_reserve(w, 15);
  size_t n;
  if (p == NULL) return;
  n = rf->type == SP_F_TIMESTAMP ? put_wide_ts(w, p, (const sp_ts_field *)(const void *)src)
                                 : put_wide_int(p, rf->type, src);
  sp_writer_advance(w, n);
}

static void write_str(sp_writer *w, const sp_str_field *s) {
  if (s->ptr == NULL) sp_write_nil(w);
  else sp_write_str(w, s->ptr, s->len);
}

static void write_bin(sp_writer *w, const sp_bin_field *b) {
  if (b->ptr == NULL) sp_write_nil(w);
  else sp_write_bin(w, b->ptr, b->len);
}

static void write_ext(sp_writer *w, const sp_ext_field *x) {
  if (x->ptr == NULL) sp_write_nil(w);
  else sp_write_ext(w, x->type, x->ptr, x->len);
}

/* One element in its smallest form (or fixed width when asked). */
static int write_elem(sp_writer *w, const sp_rfield *rf, const uint8_t *src, unsigned depth) {
  const sp_ts_field *t = (const sp_ts_field *)(const void *)src;
  if (rf->fixed_width && (sp_ftype_is_int(rf->type) || rf->type == SP_F_TIMESTAMP)) {
    write_wide(w, rf, src);
    return w->err.code == SP_OK;
  }
  switch (rf->type) {
    case SP_F_I8: sp_write_int(w, LOAD(int8_t, src)); break;
    case SP_F_I16: sp_write_int(w, LOAD(int16_t, src)); break;
    case SP_F_I32: sp_write_int(w, LOAD(int32_t, src)); break;
    case SP_F_I64: sp_write_int(w, LOAD(int64_t, src)); break;
    case SP_F_U8: sp_write_uint(w, LOAD(uint8_t, src)); break;
    case SP_F_U16: sp_write_uint(w, LOAD(uint16_t, src)); break;
    case SP_F_U32: sp_write_uint(w, LOAD(uint32_t, src)); break;
    case SP_F_U64: sp_write_uint(w, LOAD(uint64_t, src)); break;
    case SP_F_FLOAT: sp_write_float(w, LOAD(float, src)); break;
    case SP_F_DOUBLE: sp_write_double(w, LOAD(double, src)); break;
    case SP_F_BOOL: sp_write_bool(w, LOAD(bool, src)); break;
    case SP_F_STR: write_str(w, (const sp_str_field *)(const void *)src); break;
    case SP_F_BIN: write_bin(w, (const sp_bin_field *)(const void *)src); break;
    case SP_F_EXT: write_ext(w, (const sp_ext_field *)(const void *)src); break;
    case SP_F_TIMESTAMP: sp_write_timestamp(w, t->sec, t->nsec); break;
    default: {
      const sp_resolved *in = sp_schema_get_writing(w, rf->f->schema);
      return in && encode_struct(w, in, src, depth + 1);
    }
  }
  return w->err.code == SP_OK;
}

/* An array of n elements at 'base'. */
static int write_elems(sp_writer *w, const sp_rfield *rf, const uint8_t *base, size_t n,
                       unsigned depth) {
  if ((uint64_t)n > 0xffffffffu) {
    sp_writer_fail(w, SP_E_LENGTH_LIMIT, "array longer than 2^32-1 elements", __func__);
    return 0;
  }
  if (!rf->fixed_width && sp_ftype_kind(rf->type) >= 0) {      /* the bulk writer, header included */
    sp_write_numeric_array(w, (sp_num_kind)sp_ftype_kind(rf->type), base, n);
    return w->err.code == SP_OK;
  }
  sp_write_array_header(w, (uint32_t)n);
  for (size_t i = 0; i < n; i++) {
    if (sp_writer_stopped(w)) return 0;
    if (!write_elem(w, rf, base + i * rf->esize, depth)) {
      sp_error_path_index(&w->err, i);
      return 0;
    }
  }
  return w->err.code == SP_OK;
}

static int write_field(sp_writer *w, const sp_rfield *rf, const uint8_t *src, unsigned depth) {
  const sp_array_field *a = (const sp_array_field *)(const void *)src;
  if (rf->fixed && rf->fixed <= SP_SCHEMA_ONE_SPAN) {      /* one reservation, then put */
    uint8_t *p = sp_writer_reserve(w, (size_t)rf->fixed), *q;
    if (p == NULL || (q = put_field(w, rf, src, p)) == NULL) return 0;
    sp_writer_advance(w, (size_t)(q - p));
    return 1;
  }
  if (rf->shape == SHAPE_ONE) return write_elem(w, rf, src, depth);
  if (rf->shape == SHAPE_INLINE) return write_elems(w, rf, src, rf->count, depth);
  if (a->ptr == NULL && a->count > 0) {
    sp_writer_fail(w, SP_E_INVALID_ARGUMENT, "array member with count > 0 and no elements", __func__);
    return 0;
  }
  return write_elems(w, rf, a->ptr, a->count, depth);
}

/* ---- the inline loop: the common field kinds at a local cursor ------------------ */

/* The inline loop writes a field in place when the span has room for its
** worst case (rf->need, plus a str/bin body); the key token goes as one
** SP_KEY_INLINE-byte copy whose tail the next write overwrites. Anything
** else -- a field kind it does not take, a span too short, a value that
** may fail (a NULL array with elements, a length past 2^32-1) -- goes to
** the general path for that one field, which writes the same bytes (the
** same sp_put_* forms) and reports any error exactly as before. The loop
** never fails by itself, so only the general path sets errors. */

static uint8_t *put_key(uint8_t *p, const sp_resolved *rs, const sp_rfield *rf) {
  if (SP_LIKELY(rf->key_len <= SP_KEY_INLINE)) memcpy(p, rf->kw, SP_KEY_INLINE);
  else memcpy(p, rs->keys + rf->key_off, rf->key_len);
  return p + rf->key_len;
}

/* A str or bin (op) header and body; the room is checked by the caller. */
static inline uint8_t *put_bytes(uint8_t *p, uint8_t op, const void *data, size_t len) {
  if (SP_LIKELY(op == SP_F_STR)) return sp_put_str(p, data, len);
  p += sp_put_bin_header(p, (uint32_t)len);
  sp_copy(p, data, len);
  return p + len;
}

/* Whether 'need' bytes and then a str/bin body of len bytes fit in 'room'. */
static inline int body_fits(size_t room, size_t need, size_t len) {
  return room >= need && room - need >= len && (uint64_t)len <= 0xffffffffu;
}

/* The elements of a str array (its header written), each in place while it
** fits, else through the writer. The cancel flag is checked before each
** element, as the general path does. Returns the cursor, NULL on error
** (w->cur synced, the element's index in the path). */
static inline uint8_t *put_strs(sp_writer *w, const sp_str_field *e, size_t n, uint8_t *p) {
  const atomic_int *cancel = w->cancel;
  uint8_t *end = w->end;
  for (size_t i = 0; i < n; i++, e++) {
    /* sp_writer_stopped's test without its error test (no error is set
    ** here); it records the cancel at p. */
    if (cancel && atomic_load_explicit(cancel, memory_order_relaxed)) {
      w->cur = p;
      sp_writer_stopped(w);
      return NULL;
    }
    if (SP_LIKELY(e->ptr != NULL && body_fits((size_t)(end - p), 5, e->len))) {
      p = put_bytes(p, SP_F_STR, e->ptr, e->len);
      continue;
    }
    w->cur = p;
    write_str(w, e);
    if (w->err.code != SP_OK) {
      sp_error_path_index(&w->err, i);
      return NULL;
    }
    p = w->cur;
    end = w->end;
  }
  return p;
}

/* One field in place at p, which has room for rf->need bytes: the new
** cursor, or NULL when the field must take the general path (a kind the
** loop does not take, a body that does not fit, a value that may fail).
** A str array's elements that do not fit go through the writer: NULL with
** w's error set when one fails (the element's index in the path). */
static uint8_t *put_inline(sp_writer *w, const sp_resolved *rs, const sp_rfield *rf,
                           const uint8_t *src, uint8_t *p, size_t room) {
  switch (rf->op) {
    case SP_F_I8: p = put_key(p, rs, rf); return p + sp_put_int(p, LOAD(int8_t, src));
    case SP_F_I16: p = put_key(p, rs, rf); return p + sp_put_int(p, LOAD(int16_t, src));
    case SP_F_I32: p = put_key(p, rs, rf); return p + sp_put_int(p, LOAD(int32_t, src));
    case SP_F_I64: p = put_key(p, rs, rf); return p + sp_put_int(p, LOAD(int64_t, src));
    case SP_F_U8: p = put_key(p, rs, rf); return p + sp_put_uint(p, LOAD(uint8_t, src));
    case SP_F_U16: p = put_key(p, rs, rf); return p + sp_put_uint(p, LOAD(uint16_t, src));
    case SP_F_U32: p = put_key(p, rs, rf); return p + sp_put_uint(p, LOAD(uint32_t, src));
    case SP_F_U64: p = put_key(p, rs, rf); return p + sp_put_uint(p, LOAD(uint64_t, src));
    case SP_F_FLOAT: p = put_key(p, rs, rf); return p + sp_put_float(p, LOAD(float, src));
    case SP_F_DOUBLE: p = put_key(p, rs, rf); return p + sp_put_double(p, LOAD(double, src));
    case SP_F_BOOL: p = put_key(p, rs, rf); *p = LOAD(bool, src) ? 0xc3 : 0xc2; return p + 1;
    case OP_WIDE: p = put_key(p, rs, rf); return p + put_wide_int(p, rf->type, src);
    case SP_F_STR:
    case SP_F_BIN: {
      const sp_str_field *v = (const sp_str_field *)(const void *)src;   /* bin: the same shape */
      if (v->ptr == NULL) { p = put_key(p, rs, rf); *p = 0xc0; return p + 1; }
      if (!body_fits(room, rf->need, v->len)) return NULL;
      return put_bytes(put_key(p, rs, rf), rf->op, v->ptr, v->len);
    }
    case OP_STR_ARRAY: {
      const sp_array_field *a = (const sp_array_field *)(const void *)src;
      if ((uint64_t)a->count > 0xffffffffu || (a->ptr == NULL && a->count > 0)) return NULL;
      p = put_key(p, rs, rf);
      p += sp_put_header(p, (uint32_t)a->count, 0x90, 15, 0xdc);
      return put_strs(w, a->ptr, a->count, p);
    }
    default: return NULL;
  }
}

/* Header, then each field (after its pre-encoded key), nil in the gaps:
** in place while the span holds a field's worst case, else through the
** general path for that field. */
static int encode_struct(sp_writer *w, const sp_resolved *rs, const uint8_t *obj, unsigned depth) {
  uint32_t n = rs->int_keys ? rs->nslots : rs->nfields;
  uint8_t *p;
  if (depth > SP_DEPTH_DEFAULT) {
    sp_writer_fail(w, SP_E_DEPTH_LIMIT, "structs nest deeper than 500 (a cycle?)", __func__);
    return 0;
  }
  if (sp_writer_stopped(w)) return 0;
  if (rs->fixed_size && rs->fixed_size <= SP_SCHEMA_ONE_SPAN)
    return encode_fixed(w, rs, obj, (size_t)rs->fixed_size);
  p = w->cur;
  if (SP_LIKELY((size_t)(w->end - p) >= sizeof rs->header)) {   /* the padded header as one word */
    memcpy(p, rs->header, sizeof rs->header);
    p += rs->header_len;
  } else {
    sp_write_raw(w, rs->header, rs->header_len);
    p = w->cur;
  }
  for (uint32_t i = 0; i < n; i++) {
    const sp_rfield *rf;
    const uint8_t *src;
    size_t room = (size_t)(w->end - p);
    uint8_t *q;
    if (rs->int_keys && rs->slot[i] < 0) {       /* int keys: nil where no field has the key */
      if (SP_LIKELY(room > 0)) { *p++ = 0xc0; continue; }
      w->cur = p;
      sp_write_nil(w);
      p = w->cur;
      continue;
    }
    rf = &rs->fields[rs->int_keys ? (uint32_t)rs->slot[i] : i];
    src = obj + rf->offset;
    if (SP_LIKELY(room >= rf->need) && (q = put_inline(w, rs, rf, src, p, room)) != NULL) {
      p = q;
      continue;
    }
    if (w->err.code != SP_OK) return sp_schema_path(&w->err, rf);   /* a str array element */
    w->cur = p;                                   /* the general path, for this field */
    if (rf->key_len) sp_write_raw(w, rs->keys + rf->key_off, rf->key_len);
    if (!write_field(w, rf, src, depth)) return sp_schema_path(&w->err, rf);
    p = w->cur;
  }
  w->cur = p;
  return w->err.code == SP_OK;
}

/* ---- entries ------------------------------------------------------------------ */

int sp_schema_format(sp_writer *w, const void *value) {
  const sp_schema_obj *o = value;
  const sp_resolved *rs = sp_schema_get_writing(w, o->schema);
  if (rs != NULL) encode_struct(w, rs, o->obj, 0);
  return (int)w->err.code;
}

/* The fast path: the cancel check, then a writer over one exact-size
** allocation, filled by put. The writer only carries the error: its one
** reservation fits exactly, so it never migrates, rents or copies. */
static sp_code to_array_fixed(const sp_resolved *rs, const void *obj, const sp_options *opt,
                              sp_bytes *out, sp_error *err) {
  static uint8_t none[1];     /* the writer of the cancel check holds no bytes (and no NULL) */
  size_t size = (size_t)rs->fixed_size;
  uint8_t *buf = NULL;
  sp_writer w;
  sp_writer_init_array(&w, none, 0, NULL);
  w.cancel = opt ? opt->cancel : NULL;
  if (!sp_writer_stopped(&w)) {
    if ((buf = sp_malloc(size)) == NULL) {
      sp_writer_fail(&w, SP_E_NOMEM, "no memory for the result", __func__);
    } else {
      sp_writer_init_array(&w, buf, size, NULL);
      encode_fixed(&w, rs, obj, size);
    }
  }
  if (w.err.code == SP_OK) {
    out->data = buf;
    out->len = size;
  } else {
    sp_free(buf, size);
  }
  if (err) *err = w.err;
  return w.err.code;
}

sp_code sp_schema_to_array(sp_schema *s, const void *obj, const sp_options *opt,
                           sp_bytes *out, sp_error *err) {
  sp_error e;
  const sp_resolved *rs = sp_schema_get(s, &e);
  sp_schema_obj o;
  out->data = NULL;
  out->len = 0;
  if (rs == NULL) {
    if (err) *err = e;
    return e.code;
  }
  if (rs->fixed_size && (opt == NULL || opt->compression == SP_COMPRESSION_NONE))
    return to_array_fixed(rs, obj, opt, out, err);
  o.schema = s;
  o.obj = obj;
  return sp_to_array(sp_schema_format, &o, opt, out, err);
}

sp_code sp_schema_to_output(const sp_output *out, sp_schema *s, const void *obj,
                            const sp_options *opt, sp_error *err) {
  sp_schema_obj o;
  o.schema = s;
  o.obj = obj;
  return sp_to_output(out, sp_schema_format, &o, opt, err);
}
