/*
** sp_value.c -- writes an sp_value tree.
** Owns: the walk over a value tree, its depth limit, the element path
** of an error, and the calls of an ext handler's encode. Must not touch: the writer's modes or the entries.
*/
#include "sp_value.h"

static void write_value(sp_writer *w, const sp_value *v, unsigned depth);

/* The commonest leaves, written inside the container loops with no call;
** inlining every kind here measured slower (code size), so only these.
** SP_UINT among them: the decoder gives every non-negative integer as one. */
static inline void write_child(sp_writer *w, const sp_value *v, unsigned depth) {
  switch (v->kind) {
    case SP_INT: sp_write_int(w, v->as.i); break;
    case SP_UINT: sp_write_uint(w, v->as.u); break;
    case SP_STR: sp_write_str(w, v->as.str.ptr, v->as.str.len); break;
    case SP_DOUBLE: sp_write_double(w, v->as.d); break;
    default: write_value(w, v, depth);
  }
}

/* Names the map entry an error came from, on the way out. */
static void blame_key(sp_writer *w, const sp_value *key, size_t i) {
  if (key->kind == SP_STR) sp_error_path_key(&w->err, key->as.str.ptr, key->as.str.len);
  else sp_error_path_index(&w->err, i);
}

static void write_array(sp_writer *w, const sp_value *v, unsigned depth) {
  uint32_t n = v->as.array.n;
  sp_write_array_header(w, n);
  for (uint32_t i = 0; i < n; i++) {
    if (sp_writer_stopped(w)) return;
    write_child(w, &v->as.array.items[i], depth + 1);
    if (w->err.code != SP_OK) { sp_error_path_index(&w->err, i); return; }
  }
}

static void write_map(sp_writer *w, const sp_value *v, unsigned depth) {
  uint32_t n = v->as.map.n;
  const sp_value *kv = v->as.map.pairs;
  sp_write_map_header(w, n);
  for (uint32_t i = 0; i < n; i++) {
    if (sp_writer_stopped(w)) return;
    write_child(w, &kv[2 * i], depth + 1);
    write_child(w, &kv[2 * i + 1], depth + 1);
    if (w->err.code != SP_OK) { blame_key(w, &kv[2 * i], i); return; }
  }
}

static void write_custom(sp_writer *w, const sp_value *v) {
  int rc = v->as.custom.fn(w, v->as.custom.value);
  if (rc != 0 && w->err.code == SP_OK) {
    sp_writer_fail(w, SP_E_CALLBACK, "a custom formatter reported failure", __func__);
    w->err.inner = rc;
  }
}

/* An SP_EXT_OBJ: its handler gives the data, the writer copies it at once
** (the handler's bytes need live only until then). */
static void write_ext_obj(sp_writer *w, const sp_value *v) {
  const sp_ext_handler *h = v->as.ext_obj.handler;
  sp_ext_data d;
  int rc;
  if (h == NULL || h->encode == NULL || h->type < 0) {
    sp_writer_fail(w, SP_E_INVALID_ARGUMENT, "an ext object needs a handler with encode and a type 0..127",
                   __func__);
    return;
  }
  d.ptr = NULL;
  d.len = 0;
  if ((rc = h->encode(h->ctx, v->as.ext_obj.obj, &d)) != 0) {
    if (w->err.code == SP_OK) {
      sp_writer_fail(w, SP_E_CALLBACK, "an ext handler's encode reported failure", __func__);
      w->err.inner = rc;
    }
    return;
  }
  if ((d.ptr == NULL && d.len > 0) || (d.ptr == d.buf && d.len > sizeof d.buf)) {
    sp_writer_fail(w, SP_E_INVALID_ARGUMENT, "an ext handler's encode gave no data, or more than its buf holds",
                   __func__);
    return;
  }
  sp_write_ext(w, h->type, d.len ? d.ptr : "", d.len);
}

static void write_value(sp_writer *w, const sp_value *v, unsigned depth) {
  if (depth > SP_VALUE_MAX_DEPTH) {
    sp_writer_fail(w, SP_E_DEPTH_LIMIT, "values nested deeper than 500 (a cycle?)", __func__);
    return;
  }
  switch (v->kind) {
    case SP_NIL: sp_write_nil(w); break;
    case SP_BOOL: sp_write_bool(w, v->as.b); break;
    case SP_INT: sp_write_int(w, v->as.i); break;
    case SP_UINT: sp_write_uint(w, v->as.u); break;
    case SP_FLOAT: sp_write_float(w, v->as.f); break;
    case SP_DOUBLE: sp_write_double(w, v->as.d); break;
    case SP_STR: sp_write_str(w, v->as.str.ptr, v->as.str.len); break;
    case SP_BIN: sp_write_bin(w, v->as.bin.ptr, v->as.bin.len); break;
    case SP_ARRAY: write_array(w, v, depth); break;
    case SP_MAP: write_map(w, v, depth); break;
    case SP_EXT: sp_write_ext(w, v->as.ext.type, v->as.ext.ptr, v->as.ext.len); break;
    case SP_TIMESTAMP: sp_write_timestamp(w, v->as.ts.sec, v->as.ts.nsec); break;
    case SP_CUSTOM: write_custom(w, v); break;
    case SP_EXT_OBJ: write_ext_obj(w, v); break;
    default: sp_writer_fail(w, SP_E_VALUE_RANGE, "unknown value kind", __func__);
  }
}

int sp_format_value(sp_writer *w, const void *value) {
  write_value(w, value, 0);
  return 0;
}
