/*
** records_codec.h -- b.records in C for the benchmarks: the records an
** encoder reads, the views a decoder fills, the scratchpack formatter and
** reader-decoder written the way a C user writes them.
** Owns: those types and the two functions, shared by native_encode.c,
** native_decode.c and wasm_workloads.c so every benchmark times the same
** code. Must not touch: timing, the peers (their decoders key with rec_key
** too).
**
** b.records: 1,000 x {id, name: 16 ASCII, score: double, tags: 3 short
** strings} = 65,819 bytes.
*/
#ifndef SP_RECORDS_CODEC_H
#define SP_RECORDS_CODEC_H

#include <stdint.h>
#include <string.h>

#include "scratchpack.h"

typedef struct rec {
  int64_t id;
  char name[17];          /* 16 ASCII chars + NUL */
  double score;
  const char *tags[3];
  size_t tag_len[3];
} rec;

typedef struct records {
  const rec *items;
  uint32_t n;
} records;

/* What the struct decoders fill: strings as pointer + length into the input. */
typedef struct rec_view {
  int64_t id;
  const char *name;
  uint32_t name_len;
  double score;
  const char *tag[3];
  uint32_t tag_len[3];
  uint32_t ntags;
} rec_view;

/* Errors are sticky, so the formatter writes straight through and the entry
** checks once at the end (sp_writer.h). */
static inline int fmt_records(sp_writer *w, const void *value) {
  const records *rs = value;
  sp_write_array_header(w, rs->n);
  for (uint32_t i = 0; i < rs->n; i++) {
    const rec *r = &rs->items[i];
    sp_write_map_header(w, 4);
    sp_write_str(w, "id", 2);
    sp_write_int(w, r->id);
    sp_write_str(w, "name", 4);
    sp_write_str(w, r->name, 16);
    sp_write_str(w, "score", 5);
    sp_write_double(w, r->score);
    sp_write_str(w, "tags", 4);
    sp_write_array_header(w, 3);
    for (int t = 0; t < 3; t++) sp_write_str(w, r->tags[t], r->tag_len[t]);
  }
  return 0;
}

/* The same bytes through the reservation contract (sp_writer.h): one
** reservation of the record's worst case, then sp_put_* at a local cursor,
** with no call and no capacity check per value. */
static inline int fmt_records_reserved(sp_writer *w, const void *value) {
  const records *rs = value;
  sp_write_array_header(w, rs->n);
  for (uint32_t i = 0; i < rs->n; i++) {
    const rec *r = &rs->items[i];
    /* map 1, keys 3 + 5 + 6 + 5, id 9, name 17, score 9, tags array 1 */
    size_t worst = 56 + 3 * 5 + r->tag_len[0] + r->tag_len[1] + r->tag_len[2];
    uint8_t *p = sp_writer_reserve(w, worst), *q = p;
    if (p == NULL) return 0;                 /* the error sticks in w */
    *q++ = 0x84;
    q = sp_put_str(q, "id", 2);
    q += sp_put_int(q, r->id);
    q = sp_put_str(q, "name", 4);
    q = sp_put_str(q, r->name, 16);
    q = sp_put_str(q, "score", 5);
    q += sp_put_double(q, r->score);
    q = sp_put_str(q, "tags", 4);
    *q++ = 0x93;
    for (int t = 0; t < 3; t++) q = sp_put_str(q, r->tags[t], r->tag_len[t]);
    sp_writer_advance(w, (size_t)(q - p));
  }
  return 0;
}

/* Every decoder matches keys with this: length first, then the bytes. */
enum { K_OTHER, K_ID, K_NAME, K_SCORE, K_TAGS };

static inline int rec_key(const char *k, uint32_t n) {
  switch (n) {
    case 2: return memcmp(k, "id", 2) == 0 ? K_ID : K_OTHER;
    case 4: return memcmp(k, "name", 4) == 0 ? K_NAME : memcmp(k, "tags", 4) == 0 ? K_TAGS : K_OTHER;
    case 5: return memcmp(k, "score", 5) == 0 ? K_SCORE : K_OTHER;
    default: return K_OTHER;
  }
}

/* One record with the reader's sp_read_* calls; errors stick in r. */
static inline void sp_rec(sp_reader *r, rec_view *v) {
  uint32_t nf = 0, nt = 0;
  sp_read_map_header(r, &nf);
  for (uint32_t f = 0; f < nf; f++) {
    const char *k;
    uint32_t kl;
    if (!sp_read_str(r, &k, &kl)) return;
    switch (rec_key(k, kl)) {
      case K_ID: sp_read_int64(r, &v->id); break;
      case K_NAME: sp_read_str(r, &v->name, &v->name_len); break;
      case K_SCORE: sp_read_double(r, &v->score); break;
      case K_TAGS:
        if (!sp_read_array_header(r, &nt) || nt > 3) return;
        for (uint32_t t = 0; t < nt; t++) sp_read_str(r, &v->tag[t], &v->tag_len[t]);
        v->ntags = nt;
        break;
      default: sp_skip(r);
    }
  }
}

#endif
