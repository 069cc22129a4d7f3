/*
** peer_records.h -- b.records through CWPack 1.3.1 and mpack 1.1.1: the
** encoders and struct decoders the benchmarks time, written with each
** library's usual API the way records_codec.h writes scratchpack's.
** Owns: those functions, shared by native_encode.c, native_decode.c and
** wasm_workloads.c so that every build times the same peer code. Must not
** touch: timing, the peers' sources (compiled unmodified beside ours).
** Empty unless bench_peers.h found the peers (SP_BENCH_PEERS).
*/
#ifndef SP_PEER_RECORDS_H
#define SP_PEER_RECORDS_H

#include "bench_peers.h"
#include "records_codec.h"

#if SP_BENCH_PEERS
/* ---- encoders: the bytes of fmt_records (non-negative ints in the smallest
** unsigned form, str8 for 32..255 bytes, doubles as float64) ---------------- */

static inline void cw_records(cw_pack_context *pc, const void *value) {
  const records *rs = value;
  cw_pack_array_size(pc, rs->n);
  for (uint32_t i = 0; i < rs->n; i++) {
    const rec *r = &rs->items[i];
    cw_pack_map_size(pc, 4);
    cw_pack_str(pc, "id", 2);
    cw_pack_signed(pc, r->id);
    cw_pack_str(pc, "name", 4);
    cw_pack_str(pc, r->name, 16);
    cw_pack_str(pc, "score", 5);
    cw_pack_double(pc, r->score);
    cw_pack_str(pc, "tags", 4);
    cw_pack_array_size(pc, 3);
    for (int t = 0; t < 3; t++) cw_pack_str(pc, r->tags[t], (uint32_t)r->tag_len[t]);
  }
}

static inline void mp_records(mpack_writer_t *w, const void *value) {
  const records *rs = value;
  mpack_start_array(w, rs->n);
  for (uint32_t i = 0; i < rs->n; i++) {
    const rec *r = &rs->items[i];
    mpack_start_map(w, 4);
    mpack_write_str(w, "id", 2);
    mpack_write_i64(w, r->id);
    mpack_write_str(w, "name", 4);
    mpack_write_str(w, r->name, 16);
    mpack_write_str(w, "score", 5);
    mpack_write_double(w, r->score);
    mpack_write_str(w, "tags", 4);
    mpack_start_array(w, 3);
    for (int t = 0; t < 3; t++) mpack_write_str(w, r->tags[t], (uint32_t)r->tag_len[t]);
    mpack_finish_array(w);
    mpack_finish_map(w);
  }
  mpack_finish_array(w);
}

/* ---- decoders: fill rec_view as sp_rec does; 0 on a library error ------------ */

/* CWPack: cw_unpack_next, item by item. */
static inline int cw_str(cw_unpack_context *uc, const char **p, uint32_t *n) {
  cw_unpack_next(uc);
  if (uc->item.type != CWP_ITEM_STR) return 0;
  *p = uc->item.as.str.start;
  *n = uc->item.as.str.length;
  return 1;
}

static inline int cw_int64(cw_unpack_context *uc, int64_t *out) {
  cw_unpack_next(uc);
  if (uc->item.type == CWP_ITEM_POSITIVE_INTEGER && uc->item.as.u64 <= INT64_MAX) *out = (int64_t)uc->item.as.u64;
  else if (uc->item.type == CWP_ITEM_NEGATIVE_INTEGER) *out = uc->item.as.i64;
  else return 0;
  return 1;
}

static inline int cw_rec(cw_unpack_context *uc, rec_view *v) {
  uint32_t nf;
  cw_unpack_next(uc);
  if (uc->item.type != CWP_ITEM_MAP) return 0;
  nf = uc->item.as.map.size;
  for (uint32_t f = 0; f < nf; f++) {
    const char *k;
    uint32_t kl, nt;
    if (!cw_str(uc, &k, &kl)) return 0;
    switch (rec_key(k, kl)) {
      case K_ID: if (!cw_int64(uc, &v->id)) return 0; break;
      case K_NAME: if (!cw_str(uc, &v->name, &v->name_len)) return 0; break;
      case K_SCORE:
        cw_unpack_next(uc);
        if (uc->item.type == CWP_ITEM_DOUBLE) v->score = uc->item.as.long_real;
        else if (uc->item.type == CWP_ITEM_FLOAT) v->score = uc->item.as.real;
        else return 0;
        break;
      case K_TAGS:
        cw_unpack_next(uc);
        if (uc->item.type != CWP_ITEM_ARRAY || (nt = uc->item.as.array.size) > 3) return 0;
        for (uint32_t t = 0; t < nt; t++)
          if (!cw_str(uc, &v->tag[t], &v->tag_len[t])) return 0;
        v->ntags = nt;
        break;
      default: cw_skip_items(uc, 1);
    }
  }
  return 1;
}

/* mpack: the expect API, strings in place. */
static inline void mp_str(mpack_reader_t *r, const char **p, uint32_t *n) {
  *n = mpack_expect_str(r);
  *p = mpack_read_bytes_inplace(r, *n);
  mpack_done_str(r);
}

static inline int mp_rec(mpack_reader_t *r, rec_view *v) {
  uint32_t nf = mpack_expect_map(r);
  for (uint32_t f = 0; f < nf; f++) {
    const char *k;
    uint32_t kl, nt;
    mp_str(r, &k, &kl);
    if (mpack_reader_error(r) != mpack_ok) return 0;
    switch (rec_key(k, kl)) {
      case K_ID: v->id = mpack_expect_i64(r); break;
      case K_NAME: mp_str(r, &v->name, &v->name_len); break;
      case K_SCORE: v->score = mpack_expect_double(r); break;
      case K_TAGS:
        nt = mpack_expect_array_max(r, 3);
        for (uint32_t t = 0; t < nt; t++) mp_str(r, &v->tag[t], &v->tag_len[t]);
        mpack_done_array(r);
        v->ntags = nt;
        break;
      default: mpack_discard(r);
    }
  }
  mpack_done_map(r);
  return 1;
}

/* A whole b.records message into views[0 .. max): 1, or 0 when the library
** reports an error or there are more than max records. */
static inline int cw_records_decode(const uint8_t *p, size_t len, rec_view *views, uint32_t max) {
  cw_unpack_context uc;
  uint32_t n;
  cw_unpack_context_init(&uc, p, (unsigned long)len, NULL);
  cw_unpack_next(&uc);
  if (uc.item.type != CWP_ITEM_ARRAY || (n = uc.item.as.array.size) > max) return 0;
  for (uint32_t k = 0; k < n; k++)
    if (!cw_rec(&uc, &views[k])) return 0;
  return uc.return_code == CWP_RC_OK;
}

static inline int mp_records_decode(const uint8_t *p, size_t len, rec_view *views, uint32_t max) {
  mpack_reader_t r;
  uint32_t n;
  mpack_reader_init_data(&r, (const char *)p, len);
  n = mpack_expect_array_max(&r, max);
  for (uint32_t k = 0; k < n; k++)
    if (!mp_rec(&r, &views[k])) break;
  mpack_done_array(&r);
  return mpack_reader_destroy(&r) == mpack_ok;
}
#endif

#endif
