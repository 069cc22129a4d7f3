/*
** native_decode.c -- decode (and bulk int encode) against msgpack-c, CWPack
** and mpack, in one run, interleaved, printed as ratios.
**
** Inputs (bytes produced by scratchpack, identical to every peer's):
**   a.obj {"Id":1,"Name":"hello"}, b.records (1,000 maps), c.ints (0..29,999).
**
** Like for like: every struct decoder fills the same C structs, reads
** strings as pointer + length into the input, matches keys with the same
** function (length, then memcmp) and checks its library's error once per
** message; every one is checked against the source data before timing.
**   sp reader      sp_read_* (the inline fast paths of sp_reader.h)
**   sp schema      sp_schema_read with the b.records schema: borrowed strings,
**                  or copied (into existing structs, or fresh ones each time)
**   cwpack         CWPack 1.3.1 cw_unpack_next, item by item
**   mpack expect   mpack 1.1.1's expect API (mpack_expect_*, bytes in place)
**   mpc unpack     msgpack-c's object tree, then its fields into the structs
** Trees: scratchpack's sp_value tree (copied or borrowed bodies, a reused
** document) against mpack's node tree (a node pool: no allocation) and
** msgpack-c's msgpack_unpack_next.
** Encode of b.records from the same C structs (brec): the schema formatter,
** the hand-written sp_write_* formatter, CWPack's and mpack's hand-written
** encoders (their bytes checked equal to ours once) and msgpack-c's packer.
** Bulk encode of c.ints from an int32_t[30000] into a reused buffer: the
** SIMD and scalar kernels against each peer's int32 writer in a loop.
**
** The CWPack and mpack rows need their sources (bench/CMakeLists.txt:
** $SP_PEERS or ../shared/peers); without them they are skipped, with a
** message. Environment: SP_BENCH_ROUNDS (9), SP_BENCH_SAMPLE_MS (20).
*/
#include "bench_util.h"

#include <msgpack.h>

#include "bench_peers.h"
#include "peer_records.h"
#include "records_codec.h"

#include "scratchpack.h"

#define NINTS 30000
#define NRECS 1000

typedef struct input { const uint8_t *data; size_t len; } input;

static _Noreturn void fail(const char *who) {
  fprintf(stderr, "bench_decode: %s failed\n", who);
  exit(2);
}

/* ---- what the struct decoders fill ------------------------------------------ */

typedef struct obj_view { int64_t id; const char *name; uint32_t name_len; } obj_view;
/* rec_view, rec_key and sp_rec (the sp reader's b.records): records_codec.h */

static obj_view g_obj_back;
static rec_view g_views[NRECS];
static int32_t g_ints[NINTS], g_back[NINTS];

static inline int obj_key(const char *k, uint32_t n) {
  if (n == 2 && memcmp(k, "Id", 2) == 0) return K_ID;
  if (n == 4 && memcmp(k, "Name", 4) == 0) return K_NAME;
  return K_OTHER;
}

/* ---- the source data --------------------------------------------------------- */

typedef struct brec {
  int64_t id;
  sp_str_field name;
  double score;
  sp_array_field tags;        /* of sp_str_field */
} brec;

static const sp_field brec_fields[] = {
  SP_MEMBER(brec, id, SP_F_I64),
  SP_MEMBER(brec, name, SP_F_STR),
  SP_MEMBER(brec, score, SP_F_DOUBLE),
  SP_MEMBER(brec, tags, SP_F_STR, .flags = SP_FIELD_ARRAY),
};
static sp_schema brec_schema = SP_SCHEMA(brec, brec_fields, 0);

static brec g_recs[NRECS], g_recs_back[NRECS];
static char g_names[NRECS][17];
static sp_str_field g_tags[NRECS][3];

static void build_records(void) {
  static const char *const tags[5] = {"red", "green", "blue", "black", "white"};
  for (int i = 0; i < NRECS; i++) {
    snprintf(g_names[i], sizeof g_names[i], "user-%011d", i);
    g_recs[i].id = i;
    g_recs[i].name.ptr = g_names[i];
    g_recs[i].name.len = 16;
    g_recs[i].score = i * 1.25 + 0.1;
    for (int t = 0; t < 3; t++) {
      g_tags[i][t].ptr = (char *)tags[(i + t) % 5];
      g_tags[i][t].len = strlen(tags[(i + t) % 5]);
    }
    g_recs[i].tags.ptr = g_tags[i];
    g_recs[i].tags.count = 3;
  }
}

static int same_str(const char *p, size_t n, const sp_str_field *want) {
  return p != NULL && n == want->len && memcmp(p, want->ptr, n) == 0;
}

/* The views match the source records (checked once per decoder). */
static void check_views(const char *who) {
  for (int i = 0; i < NRECS; i++) {
    const rec_view *v = &g_views[i];
    const brec *s = &g_recs[i];
    const sp_str_field *t = s->tags.ptr;
    int ok = v->id == s->id && v->score == s->score && same_str(v->name, v->name_len, &s->name) &&
             v->ntags == 3;
    for (int k = 0; ok && k < 3; k++) ok = same_str(v->tag[k], v->tag_len[k], &t[k]);
    if (!ok) fail(who);
  }
  memset(g_views, 0, sizeof g_views);
}

static void check_structs(const char *who) {
  for (int i = 0; i < NRECS; i++) {
    const brec *v = &g_recs_back[i], *s = &g_recs[i];
    const sp_str_field *vt = v->tags.ptr, *st = s->tags.ptr;
    int ok = v->id == s->id && v->score == s->score && v->tags.count == 3 &&
             same_str(v->name.ptr, v->name.len, &s->name);
    for (int k = 0; ok && k < 3; k++) ok = same_str(vt[k].ptr, vt[k].len, &st[k]);
    if (!ok) fail(who);
  }
}

static void check_ints(const char *who) {
  for (int i = 0; i < NINTS; i++)
    if (g_back[i] != g_ints[i]) fail(who);
  memset(g_back, 0, sizeof g_back);
}

static void check_obj(const char *who) {
  if (g_obj_back.id != 1 || g_obj_back.name_len != 5 || memcmp(g_obj_back.name, "hello", 5))
    fail(who);
  memset(&g_obj_back, 0, sizeof g_obj_back);
}

/* ---- scratchpack: the reader ------------------------------------------------- */

static void sp_obj(sp_reader *r, obj_view *v) {
  uint32_t nf = 0;
  sp_read_map_header(r, &nf);
  for (uint32_t f = 0; f < nf; f++) {
    const char *k;
    uint32_t kl;
    if (!sp_read_str(r, &k, &kl)) return;
    switch (obj_key(k, kl)) {
      case K_ID: sp_read_int64(r, &v->id); break;
      case K_NAME: sp_read_str(r, &v->name, &v->name_len); break;
      default: sp_skip(r);
    }
  }
}

static uint64_t run_sp_obj(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_reader r;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    sp_reader_init(&r, p, in->len);
    sp_obj(&r, &g_obj_back);
    if (r.err.code != SP_OK) fail("sp reader a.obj");
    sum += (uint64_t)g_obj_back.id + g_obj_back.name_len;
  }
  return sum;
}

static uint64_t run_sp_recs(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_reader r;
    uint32_t n = 0;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    sp_reader_init(&r, p, in->len);
    if (!sp_read_array_header(&r, &n) || n > NRECS) fail("sp reader b.records");
    for (uint32_t k = 0; k < n; k++) sp_rec(&r, &g_views[k]);
    if (r.err.code != SP_OK) fail("sp reader b.records");
    sum += (uint64_t)g_views[NRECS - 1].id;
  }
  return sum;
}

static uint64_t run_sp_ints_bulk(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_reader r;
    uint32_t n;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    sp_reader_init(&r, p, in->len);
    if (!sp_read_i32_array(&r, g_back, NINTS, &n)) fail("sp bulk c.ints");
    sum += (uint64_t)g_back[n - 1];
  }
  return sum;
}

static uint64_t run_sp_ints_each(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_reader r;
    uint32_t n = 0;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    sp_reader_init(&r, p, in->len);
    if (!sp_read_array_header(&r, &n) || n > NINTS) fail("sp_read_int32 c.ints");
    for (uint32_t k = 0; k < n; k++) sp_read_int32(&r, &g_back[k]);
    if (r.err.code != SP_OK) fail("sp_read_int32 c.ints");
    sum += (uint64_t)g_back[n - 1];
  }
  return sum;
}

/* ---- scratchpack: schemas and value trees ------------------------------------- */

/* b.records into structs: 'reuse' keeps last round's structs (the
** decode-into-existing path), else each round starts empty and releases. */
static uint64_t run_schema(void *ctx, long iters, int reuse, unsigned flags) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_reader r;
    uint32_t n;
    sp_reader_init(&r, in->data, in->len);
    if (!sp_read_array_header(&r, &n) || n != NRECS) fail("sp schema");
    for (uint32_t k = 0; k < n; k++)
      if (sp_schema_read(&r, &brec_schema, &g_recs_back[k], flags) != SP_OK) fail("sp schema");
    sum += (uint64_t)g_recs_back[NRECS - 1].id;
    if (!reuse)
      for (uint32_t k = 0; k < n; k++) sp_schema_release(&brec_schema, &g_recs_back[k]);
  }
  return sum;
}

static uint64_t run_schema_borrow(void *ctx, long iters) { return run_schema(ctx, iters, 1, SP_DECODE_BORROW); }
static uint64_t run_schema_reuse(void *ctx, long iters) { return run_schema(ctx, iters, 1, 0); }
static uint64_t run_schema_fresh(void *ctx, long iters) { return run_schema(ctx, iters, 0, 0); }

static uint64_t run_tree(void *ctx, long iters, int borrow) {
  input *in = ctx;
  sp_decode_options opt = {.borrow = borrow};
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_doc doc = {0};
    sp_value v;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    if (sp_value_decode(p, in->len, &opt, &doc, &v, NULL) != SP_OK) fail("sp tree");
    sum += v.kind;
    sp_doc_free(&doc);
  }
  return sum;
}

static uint64_t run_tree_copy(void *ctx, long iters) { return run_tree(ctx, iters, 0); }
static uint64_t run_tree_borrow(void *ctx, long iters) { return run_tree(ctx, iters, 1); }

/* One document, reset between decodes: its blocks are reused. */
static uint64_t run_tree_reused(void *ctx, long iters) {
  input *in = ctx;
  sp_decode_options opt = {.borrow = 1};
  sp_doc doc = {0};
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_value v;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    sp_doc_reset(&doc);
    if (sp_value_decode(p, in->len, &opt, &doc, &v, NULL) != SP_OK) fail("sp tree");
    sum += v.kind;
  }
  sp_doc_free(&doc);
  return sum;
}

/* ---- msgpack-c: its object tree ------------------------------------------------ */

static uint64_t run_mpc_unpack(void *ctx, long iters) {
  input *in = ctx;
  msgpack_unpacked u;
  uint64_t sum = 0;
  msgpack_unpacked_init(&u);
  for (long i = 0; i < iters; i++) {
    size_t off = 0;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    if (msgpack_unpack_next(&u, (const char *)p, in->len, &off) != MSGPACK_UNPACK_SUCCESS)
      fail("msgpack-c unpack");
    sum += u.data.type;
  }
  msgpack_unpacked_destroy(&u);
  return sum;
}

static int mpc_str(const msgpack_object *o, const char **p, uint32_t *n) {
  if (o->type != MSGPACK_OBJECT_STR) return 0;
  *p = o->via.str.ptr;
  *n = o->via.str.size;
  return 1;
}

static int mpc_int64(const msgpack_object *o, int64_t *out) {
  if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX) *out = (int64_t)o->via.u64;
  else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) *out = o->via.i64;
  else return 0;
  return 1;
}

static int mpc_rec(const msgpack_object *o, rec_view *v) {
  if (o->type != MSGPACK_OBJECT_MAP) return 0;
  for (uint32_t f = 0; f < o->via.map.size; f++) {
    const msgpack_object *key = &o->via.map.ptr[f].key, *val = &o->via.map.ptr[f].val;
    const char *k;
    uint32_t kl;
    if (!mpc_str(key, &k, &kl)) return 0;
    switch (rec_key(k, kl)) {
      case K_ID: if (!mpc_int64(val, &v->id)) return 0; break;
      case K_NAME: if (!mpc_str(val, &v->name, &v->name_len)) return 0; break;
      case K_SCORE:
        if (val->type != MSGPACK_OBJECT_FLOAT64 && val->type != MSGPACK_OBJECT_FLOAT32) return 0;
        v->score = val->via.f64;
        break;
      case K_TAGS:
        if (val->type != MSGPACK_OBJECT_ARRAY || val->via.array.size > 3) return 0;
        for (uint32_t t = 0; t < val->via.array.size; t++)
          if (!mpc_str(&val->via.array.ptr[t], &v->tag[t], &v->tag_len[t])) return 0;
        v->ntags = val->via.array.size;
        break;
      default: break;
    }
  }
  return 1;
}

static uint64_t run_mpc_recs(void *ctx, long iters) {
  input *in = ctx;
  msgpack_unpacked u;
  uint64_t sum = 0;
  msgpack_unpacked_init(&u);
  for (long i = 0; i < iters; i++) {
    size_t off = 0;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    if (msgpack_unpack_next(&u, (const char *)p, in->len, &off) != MSGPACK_UNPACK_SUCCESS ||
        u.data.type != MSGPACK_OBJECT_ARRAY || u.data.via.array.size > NRECS)
      fail("msgpack-c b.records");
    for (uint32_t k = 0; k < u.data.via.array.size; k++)
      if (!mpc_rec(&u.data.via.array.ptr[k], &g_views[k])) fail("msgpack-c b.records");
    sum += (uint64_t)g_views[NRECS - 1].id;
  }
  msgpack_unpacked_destroy(&u);
  return sum;
}

static uint64_t run_mpc_obj(void *ctx, long iters) {
  input *in = ctx;
  msgpack_unpacked u;
  uint64_t sum = 0;
  msgpack_unpacked_init(&u);
  for (long i = 0; i < iters; i++) {
    size_t off = 0;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    if (msgpack_unpack_next(&u, (const char *)p, in->len, &off) != MSGPACK_UNPACK_SUCCESS ||
        u.data.type != MSGPACK_OBJECT_MAP)
      fail("msgpack-c a.obj");
    for (uint32_t f = 0; f < u.data.via.map.size; f++) {
      const msgpack_object *key = &u.data.via.map.ptr[f].key, *val = &u.data.via.map.ptr[f].val;
      const char *k;
      uint32_t kl;
      if (!mpc_str(key, &k, &kl)) fail("msgpack-c a.obj");
      switch (obj_key(k, kl)) {
        case K_ID: if (!mpc_int64(val, &g_obj_back.id)) fail("msgpack-c a.obj"); break;
        case K_NAME: if (!mpc_str(val, &g_obj_back.name, &g_obj_back.name_len)) fail("msgpack-c a.obj"); break;
        default: break;
      }
    }
    sum += (uint64_t)g_obj_back.id + g_obj_back.name_len;
  }
  msgpack_unpacked_destroy(&u);
  return sum;
}

static uint64_t run_mpc_ints(void *ctx, long iters) {
  input *in = ctx;
  msgpack_unpacked u;
  uint64_t sum = 0;
  msgpack_unpacked_init(&u);
  for (long i = 0; i < iters; i++) {
    size_t off = 0;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    if (msgpack_unpack_next(&u, (const char *)p, in->len, &off) != MSGPACK_UNPACK_SUCCESS ||
        u.data.type != MSGPACK_OBJECT_ARRAY || u.data.via.array.size > NINTS)
      fail("msgpack-c c.ints");
    for (uint32_t k = 0; k < u.data.via.array.size; k++) {
      const msgpack_object *o = &u.data.via.array.ptr[k];
      if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT32_MAX) g_back[k] = (int32_t)o->via.u64;
      else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER && o->via.i64 >= INT32_MIN) g_back[k] = (int32_t)o->via.i64;
      else fail("msgpack-c c.ints");
    }
    sum += (uint64_t)g_back[NINTS - 1];
  }
  msgpack_unpacked_destroy(&u);
  return sum;
}

#if SP_BENCH_PEERS
/* ---- CWPack: cw_unpack_next, item by item ------------------------------------- */

static uint64_t run_cw_recs(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    if (!cw_records_decode(p, in->len, g_views, NRECS)) fail("CWPack b.records");
    sum += (uint64_t)g_views[NRECS - 1].id;
  }
  return sum;
}

static uint64_t run_cw_obj(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    cw_unpack_context uc;
    const uint8_t *p = in->data;
    uint32_t nf;
    BENCH_BARRIER(p);
    cw_unpack_context_init(&uc, p, in->len, NULL);
    cw_unpack_next(&uc);
    if (uc.item.type != CWP_ITEM_MAP) fail("CWPack a.obj");
    nf = uc.item.as.map.size;
    for (uint32_t f = 0; f < nf; f++) {
      const char *k;
      uint32_t kl;
      if (!cw_str(&uc, &k, &kl)) fail("CWPack a.obj");
      switch (obj_key(k, kl)) {
        case K_ID: if (!cw_int64(&uc, &g_obj_back.id)) fail("CWPack a.obj"); break;
        case K_NAME: if (!cw_str(&uc, &g_obj_back.name, &g_obj_back.name_len)) fail("CWPack a.obj"); break;
        default: cw_skip_items(&uc, 1);
      }
    }
    if (uc.return_code != CWP_RC_OK) fail("CWPack a.obj");
    sum += (uint64_t)g_obj_back.id + g_obj_back.name_len;
  }
  return sum;
}

static uint64_t run_cw_ints(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    cw_unpack_context uc;
    const uint8_t *p = in->data;
    uint32_t n;
    BENCH_BARRIER(p);
    cw_unpack_context_init(&uc, p, in->len, NULL);
    cw_unpack_next(&uc);
    if (uc.item.type != CWP_ITEM_ARRAY || (n = uc.item.as.array.size) > NINTS) fail("CWPack c.ints");
    for (uint32_t k = 0; k < n; k++) {
      cw_unpack_next(&uc);
      if (uc.item.type == CWP_ITEM_POSITIVE_INTEGER && uc.item.as.u64 <= INT32_MAX) g_back[k] = (int32_t)uc.item.as.u64;
      else if (uc.item.type == CWP_ITEM_NEGATIVE_INTEGER && uc.item.as.i64 >= INT32_MIN) g_back[k] = (int32_t)uc.item.as.i64;
      else fail("CWPack c.ints");
    }
    if (uc.return_code != CWP_RC_OK) fail("CWPack c.ints");
    sum += (uint64_t)g_back[NINTS - 1];
  }
  return sum;
}

/* ---- mpack: the expect API and the node tree ---------------------------------- */

static uint64_t run_mp_recs(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    if (!mp_records_decode(p, in->len, g_views, NRECS)) fail("mpack b.records");
    sum += (uint64_t)g_views[NRECS - 1].id;
  }
  return sum;
}

static uint64_t run_mp_obj(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    mpack_reader_t r;
    const uint8_t *p = in->data;
    uint32_t nf;
    BENCH_BARRIER(p);
    mpack_reader_init_data(&r, (const char *)p, in->len);
    nf = mpack_expect_map(&r);
    for (uint32_t f = 0; f < nf; f++) {
      const char *k;
      uint32_t kl;
      mp_str(&r, &k, &kl);
      if (mpack_reader_error(&r) != mpack_ok) break;
      switch (obj_key(k, kl)) {
        case K_ID: g_obj_back.id = mpack_expect_i64(&r); break;
        case K_NAME: mp_str(&r, &g_obj_back.name, &g_obj_back.name_len); break;
        default: mpack_discard(&r);
      }
    }
    mpack_done_map(&r);
    if (mpack_reader_destroy(&r) != mpack_ok) fail("mpack a.obj");
    sum += (uint64_t)g_obj_back.id + g_obj_back.name_len;
  }
  return sum;
}

static uint64_t run_mp_ints(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    mpack_reader_t r;
    const uint8_t *p = in->data;
    uint32_t n;
    BENCH_BARRIER(p);
    mpack_reader_init_data(&r, (const char *)p, in->len);
    n = mpack_expect_array_max(&r, NINTS);
    for (uint32_t k = 0; k < n; k++) g_back[k] = mpack_expect_i32(&r);
    mpack_done_array(&r);
    if (mpack_reader_destroy(&r) != mpack_ok) fail("mpack c.ints");
    sum += (uint64_t)g_back[NINTS - 1];
  }
  return sum;
}

/* mpack's node tree over a node pool of its own (no allocation per parse). */
static mpack_node_data_t g_nodes[NINTS + 16];

static uint64_t run_mp_tree(void *ctx, long iters) {
  input *in = ctx;
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    mpack_tree_t tree;
    const uint8_t *p = in->data;
    BENCH_BARRIER(p);
    mpack_tree_init_pool(&tree, (const char *)p, in->len, g_nodes, sizeof g_nodes / sizeof g_nodes[0]);
    mpack_tree_parse(&tree);
    sum += mpack_node_type(mpack_tree_root(&tree));
    if (mpack_tree_destroy(&tree) != mpack_ok) fail("mpack node tree");
  }
  return sum;
}
#define PEER(name, run, ctx, who) {{name, run, ctx, 0, {0}}, who}
#else
#define PEER(name, run, ctx, who) {{name, NULL, ctx, 0, {0}}, who}
#endif

/* ---- bulk encode of c.ints ---------------------------------------------------- */

static int fmt_ints(sp_writer *w, const void *v) {
  sp_write_i32_array(w, v, NINTS);
  return 0;
}

static uint64_t run_sp_bulk(void *ctx, long iters, int scalar) {
  sp_buffer *buf = ctx;
  sp_output out = sp_buffer_output(buf);
  uint64_t sum = 0;
  sp_bulk_force_scalar(scalar);
  for (long i = 0; i < iters; i++) {
    const int32_t *p = g_ints;
    BENCH_BARRIER(p);
    sp_buffer_clear(buf);
    sp_to_output(&out, fmt_ints, p, NULL, NULL);
    sum += buf->len;
  }
  sp_bulk_force_scalar(0);
  return sum;
}

static uint64_t run_sp_simd(void *ctx, long iters) { return run_sp_bulk(ctx, iters, 0); }
static uint64_t run_sp_scalar(void *ctx, long iters) { return run_sp_bulk(ctx, iters, 1); }

static uint64_t run_mpc_pack(void *ctx, long iters) {
  msgpack_sbuffer *sb = ctx;
  msgpack_packer pk;
  uint64_t sum = 0;
  msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
  for (long i = 0; i < iters; i++) {
    const int32_t *p = g_ints;
    BENCH_BARRIER(p);
    sb->size = 0;
    msgpack_pack_array(&pk, NINTS);
    for (int k = 0; k < NINTS; k++) msgpack_pack_int32(&pk, p[k]);
    sum += sb->size;
  }
  return sum;
}

#if SP_BENCH_PEERS
#define PEER_BUF_SIZE (256 * 1024)
static uint8_t g_peer_buf[PEER_BUF_SIZE];   /* where CWPack and mpack write */

static uint64_t run_cw_pack(void *ctx, long iters) {
  uint64_t sum = 0;
  (void)ctx;
  for (long i = 0; i < iters; i++) {
    const int32_t *p = g_ints;
    cw_pack_context pc;
    BENCH_BARRIER(p);
    cw_pack_context_init(&pc, g_peer_buf, PEER_BUF_SIZE, NULL);
    cw_pack_array_size(&pc, NINTS);
    for (int k = 0; k < NINTS; k++) cw_pack_signed(&pc, p[k]);
    if (pc.return_code != CWP_RC_OK) fail("CWPack pack c.ints");
    sum += (uint64_t)(pc.current - pc.start);
  }
  return sum;
}

static uint64_t run_mp_pack(void *ctx, long iters) {
  uint64_t sum = 0;
  (void)ctx;
  for (long i = 0; i < iters; i++) {
    const int32_t *p = g_ints;
    mpack_writer_t w;
    BENCH_BARRIER(p);
    mpack_writer_init(&w, (char *)g_peer_buf, PEER_BUF_SIZE);
    mpack_start_array(&w, NINTS);
    for (int k = 0; k < NINTS; k++) mpack_write_i32(&w, p[k]);
    mpack_finish_array(&w);
    sum += mpack_writer_buffer_used(&w);
    if (mpack_writer_destroy(&w) != mpack_ok) fail("mpack pack c.ints");
  }
  return sum;
}
#endif

/* ---- b.records encode from C structs (schema) ----------------------------------- */

#if SP_BENCH_PEERS
/* The peers' hand-written b.records encoders over the same structs (brec),
** into the fixed buffer; their bytes are checked against the input's. */
static size_t cw_brecs(void) {
  cw_pack_context pc;
  cw_pack_context_init(&pc, g_peer_buf, PEER_BUF_SIZE, NULL);
  cw_pack_array_size(&pc, NRECS);
  for (int k = 0; k < NRECS; k++) {
    const brec *r = &g_recs[k];
    const sp_str_field *t = r->tags.ptr;
    cw_pack_map_size(&pc, 4);
    cw_pack_str(&pc, "id", 2);
    cw_pack_signed(&pc, r->id);
    cw_pack_str(&pc, "name", 4);
    cw_pack_str(&pc, r->name.ptr, (uint32_t)r->name.len);
    cw_pack_str(&pc, "score", 5);
    cw_pack_double(&pc, r->score);
    cw_pack_str(&pc, "tags", 4);
    cw_pack_array_size(&pc, (uint32_t)r->tags.count);
    for (size_t j = 0; j < r->tags.count; j++) cw_pack_str(&pc, t[j].ptr, (uint32_t)t[j].len);
  }
  if (pc.return_code != CWP_RC_OK) fail("CWPack pack b.records");
  return (size_t)(pc.current - pc.start);
}

static size_t mp_brecs(void) {
  mpack_writer_t w;
  size_t used;
  mpack_writer_init(&w, (char *)g_peer_buf, PEER_BUF_SIZE);
  mpack_start_array(&w, NRECS);
  for (int k = 0; k < NRECS; k++) {
    const brec *r = &g_recs[k];
    const sp_str_field *t = r->tags.ptr;
    mpack_start_map(&w, 4);
    mpack_write_str(&w, "id", 2);
    mpack_write_i64(&w, r->id);
    mpack_write_str(&w, "name", 4);
    mpack_write_str(&w, r->name.ptr, (uint32_t)r->name.len);
    mpack_write_str(&w, "score", 5);
    mpack_write_double(&w, r->score);
    mpack_write_str(&w, "tags", 4);
    mpack_start_array(&w, (uint32_t)r->tags.count);
    for (size_t j = 0; j < r->tags.count; j++) mpack_write_str(&w, t[j].ptr, (uint32_t)t[j].len);
    mpack_finish_array(&w);
    mpack_finish_map(&w);
  }
  mpack_finish_array(&w);
  used = mpack_writer_buffer_used(&w);
  if (mpack_writer_destroy(&w) != mpack_ok) fail("mpack pack b.records");
  return used;
}

static uint64_t run_cw_records_encode(void *ctx, long iters) {
  uint64_t sum = 0;
  (void)ctx;
  for (long i = 0; i < iters; i++) sum += cw_brecs();
  return sum;
}

static uint64_t run_mp_records_encode(void *ctx, long iters) {
  uint64_t sum = 0;
  (void)ctx;
  for (long i = 0; i < iters; i++) sum += mp_brecs();
  return sum;
}

/* Each peer's encoding is the input's, byte for byte. */
static void check_peer_encoders(const uint8_t *want, size_t len) {
  if (cw_brecs() != len || memcmp(g_peer_buf, want, len) != 0) fail("CWPack b.records bytes");
  if (mp_brecs() != len || memcmp(g_peer_buf, want, len) != 0) fail("mpack b.records bytes");
}
#endif

static int fmt_recs_schema(sp_writer *w, const void *v) {
  (void)v;
  sp_write_array_header(w, NRECS);
  for (int i = 0; i < NRECS; i++) {
    sp_schema_obj o = {&brec_schema, &g_recs[i]};
    sp_schema_format(w, &o);
  }
  return 0;
}

static uint64_t run_schema_encode(void *ctx, long iters) {
  sp_buffer *buf = ctx;
  sp_output out = sp_buffer_output(buf);
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_buffer_clear(buf);
    sp_to_output(&out, fmt_recs_schema, NULL, NULL, NULL);
    sum += buf->len;
  }
  return sum;
}

static int fmt_brecs(sp_writer *w, const void *v);

/* The same bytes from the hand-written formatter (fmt_brecs: sp_write_*). */
static uint64_t run_hand_encode(void *ctx, long iters) {
  sp_buffer *buf = ctx;
  sp_output out = sp_buffer_output(buf);
  uint64_t sum = 0;
  for (long i = 0; i < iters; i++) {
    sp_buffer_clear(buf);
    sp_to_output(&out, fmt_brecs, NULL, NULL, NULL);
    sum += buf->len;
  }
  return sum;
}

static uint64_t run_mpc_records_encode(void *ctx, long iters) {
  msgpack_sbuffer *sb = ctx;
  msgpack_packer pk;
  uint64_t sum = 0;
  msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
  for (long i = 0; i < iters; i++) {
    sb->size = 0;
    msgpack_pack_array(&pk, NRECS);
    for (int k = 0; k < NRECS; k++) {
      const brec *r = &g_recs[k];
      const sp_str_field *t = r->tags.ptr;
      msgpack_pack_map(&pk, 4);
      msgpack_pack_str(&pk, 2); msgpack_pack_str_body(&pk, "id", 2);
      msgpack_pack_int64(&pk, r->id);
      msgpack_pack_str(&pk, 4); msgpack_pack_str_body(&pk, "name", 4);
      msgpack_pack_str(&pk, r->name.len); msgpack_pack_str_body(&pk, r->name.ptr, r->name.len);
      msgpack_pack_str(&pk, 5); msgpack_pack_str_body(&pk, "score", 5);
      msgpack_pack_double(&pk, r->score);
      msgpack_pack_str(&pk, 4); msgpack_pack_str_body(&pk, "tags", 4);
      msgpack_pack_array(&pk, 3);
      for (int j = 0; j < 3; j++) {
        msgpack_pack_str(&pk, t[j].len);
        msgpack_pack_str_body(&pk, t[j].ptr, t[j].len);
      }
    }
    sum += sb->size;
  }
  return sum;
}

/* ---- the inputs --------------------------------------------------------------- */

static int fmt_obj(sp_writer *w, const void *v) {
  (void)v;
  sp_write_map_header(w, 2);
  sp_write_str(w, "Id", 2); sp_write_int(w, 1);
  sp_write_str(w, "Name", 4); sp_write_str(w, "hello", 5);
  return 0;
}

static int fmt_brecs(sp_writer *w, const void *v) {
  (void)v;
  sp_write_array_header(w, NRECS);
  for (int i = 0; i < NRECS; i++) {
    const sp_str_field *t = g_recs[i].tags.ptr;
    sp_write_map_header(w, 4);
    sp_write_str(w, "id", 2); sp_write_int(w, g_recs[i].id);
    sp_write_str(w, "name", 4); sp_write_str(w, g_recs[i].name.ptr, g_recs[i].name.len);
    sp_write_str(w, "score", 5); sp_write_double(w, g_recs[i].score);
    sp_write_str(w, "tags", 4); sp_write_array_header(w, 3);
    for (int k = 0; k < 3; k++) sp_write_str(w, t[k].ptr, t[k].len);
  }
  return 0;
}

static input make_input(sp_format_fn fmt, const void *v) {
  sp_bytes b;
  input in;
  if (sp_to_array(fmt, v, NULL, &b, NULL) != SP_OK) exit(2);
  in.data = b.data;
  in.len = b.len;
  return in;
}

/* ---- sections: rows, run interleaved, ratios against each peer ------------------ */

enum { US, MPC, CW, MPK, NWHO };   /* who a row is: scratchpack or one of the peers */

typedef struct row { bench_case c; int who; } row;

/* Runs the rows present (CWPack and mpack only with their sources) and
** prints each row's median with its ratio to the first row of each peer. */
static void section(const char *title, row *rows, int n, int rounds, double ms) {
  bench_case c[16];
  int who[16], k = 0, base[NWHO];
  double ns[16];
  for (int i = 0; i < n; i++)
    if (rows[i].c.run != NULL) { c[k] = rows[i].c; who[k++] = rows[i].who; }
  bench_run(c, k, rounds, ms, ns);
  for (int w = 0; w < NWHO; w++) base[w] = -1;
  for (int i = k - 1; i >= 0; i--) base[who[i]] = i;
  printf("\n%s\n%-40s %11s %11s %8s %8s %8s\n", title, "", "ns/op", "(best)", "x mpc", "x cw",
         "x mpack");
  for (int i = 0; i < k; i++) {
    char x[3][16];
    double best = c[i].samples[0];
    for (int j = 1; j < rounds && j < 64; j++) if (c[i].samples[j] < best) best = c[i].samples[j];
    for (int w = MPC; w <= MPK; w++) {
      if (base[w] < 0) snprintf(x[w - MPC], sizeof x[0], "-");
      else snprintf(x[w - MPC], sizeof x[0], "%.2f", ns[base[w]] / ns[i]);
    }
    printf("  %-38s %11.1f %11.1f %8s %8s %8s\n", c[i].name, ns[i], best, x[0], x[1], x[2]);
  }
  fflush(stdout);
}

#define ROW(name, run, ctx, who) {{name, run, ctx, 0, {0}}, who}

/* Runs each struct decoder once and checks what it decoded. */
static void check_decoders(input *obj, input *recs, input *ints) {
  struct { const char *name; uint64_t (*run)(void *, long); input *in; void (*check)(const char *); } d[] = {
    {"sp reader a.obj", run_sp_obj, obj, check_obj},
    {"msgpack-c a.obj", run_mpc_obj, obj, check_obj},
    {"sp reader b.records", run_sp_recs, recs, check_views},
    {"msgpack-c b.records", run_mpc_recs, recs, check_views},
    {"sp bulk c.ints", run_sp_ints_bulk, ints, check_ints},
    {"sp_read_int32 c.ints", run_sp_ints_each, ints, check_ints},
    {"msgpack-c c.ints", run_mpc_ints, ints, check_ints},
#if SP_BENCH_PEERS
    {"CWPack a.obj", run_cw_obj, obj, check_obj},
    {"mpack a.obj", run_mp_obj, obj, check_obj},
    {"CWPack b.records", run_cw_recs, recs, check_views},
    {"mpack b.records", run_mp_recs, recs, check_views},
    {"CWPack c.ints", run_cw_ints, ints, check_ints},
    {"mpack c.ints", run_mp_ints, ints, check_ints},
#endif
  };
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
    d[i].run(d[i].in, 1);
    d[i].check(d[i].name);
  }
  run_schema_borrow(recs, 1);
  check_structs("sp schema (borrowed)");
  run_schema_reuse(recs, 1);
  check_structs("sp schema (copied)");
}

int main(void) {
  int rounds = (int)bench_env("SP_BENCH_ROUNDS", 9);
  double ms = (double)bench_env("SP_BENCH_SAMPLE_MS", 20);
  input obj, recs, ints;
  sp_buffer buf;
  msgpack_sbuffer sb;
  for (int i = 0; i < NINTS; i++) g_ints[i] = i;
  build_records();
  obj = make_input(fmt_obj, NULL);
  recs = make_input(fmt_brecs, NULL);
  ints = make_input(fmt_ints, g_ints);
  {
    input check = make_input(fmt_recs_schema, NULL);
    if (check.len != recs.len || memcmp(check.data, recs.data, recs.len)) {
      fprintf(stderr, "schema encoding differs from the formatter's\n");
      return 1;
    }
    free((void *)check.data);
  }
  check_decoders(&obj, &recs, &ints);
#if SP_BENCH_PEERS
  check_peer_encoders(recs.data, recs.len);
#endif
  sp_buffer_init(&buf);
  msgpack_sbuffer_init(&sb);
  printf("scratchpack %s vs msgpack-c %s%s -- decode, medians of %d interleaved rounds; "
         "int32 kernel: %s\n", SP_VERSION, msgpack_version(),
         SP_BENCH_PEERS ? ", CWPack 1.3.1, mpack 1.1.1" : "", rounds, sp_bulk_i32_kernel());
  if (!SP_BENCH_PEERS)
    printf("CWPack and mpack rows skipped: no sources at %s (set SP_PEERS)\n", SP_PEERS_DIR);
  printf("ns/op: median over rounds (best sample in brackets). x mpc / x cw / x mpack = that"
         " peer's median /\nthis row's median: above 1 means faster than it.\n");
  printf("Struct decoders read strings as pointer + length and match keys the same way.\n");
  {
    row r[] = {ROW("sp reader", run_sp_obj, &obj, US),
               PEER("cwpack unpack_next", run_cw_obj, &obj, CW),
               PEER("mpack expect", run_mp_obj, &obj, MPK),
               ROW("msgpack-c unpack + fill", run_mpc_obj, &obj, MPC)};
    section("decode a.obj (16 B) into a struct", r, 4, rounds, ms);
  }
  {
    row r[] = {ROW("sp tree (copy bodies)", run_tree_copy, &obj, US),
               ROW("sp tree (borrow bodies)", run_tree_borrow, &obj, US),
               PEER("mpack node tree (node pool)", run_mp_tree, &obj, MPK),
               ROW("msgpack-c unpack", run_mpc_unpack, &obj, MPC)};
    section("decode a.obj (16 B) to a tree", r, 4, rounds, ms);
  }
  {
    row r[] = {ROW("sp reader", run_sp_recs, &recs, US),
               ROW("sp schema, borrowed strings", run_schema_borrow, &recs, US),
               ROW("sp schema, copies, existing structs", run_schema_reuse, &recs, US),
               ROW("sp schema, copies, fresh structs", run_schema_fresh, &recs, US),
               PEER("cwpack unpack_next", run_cw_recs, &recs, CW),
               PEER("mpack expect", run_mp_recs, &recs, MPK),
               ROW("msgpack-c unpack + fill", run_mpc_recs, &recs, MPC)};
    section("decode b.records (65,819 B) into C structs", r, 7, rounds, ms);
  }
  {
    row r[] = {ROW("sp tree (copy bodies)", run_tree_copy, &recs, US),
               ROW("sp tree (borrow bodies)", run_tree_borrow, &recs, US),
               ROW("sp tree (borrow, reused doc)", run_tree_reused, &recs, US),
               PEER("mpack node tree (node pool)", run_mp_tree, &recs, MPK),
               ROW("msgpack-c unpack", run_mpc_unpack, &recs, MPC)};
    section("decode b.records (65,819 B) to a tree", r, 5, rounds, ms);
  }
  {
    row r[] = {ROW("sp bulk sp_read_i32_array", run_sp_ints_bulk, &ints, US),
               ROW("sp sp_read_int32 each", run_sp_ints_each, &ints, US),
               ROW("sp tree (copy bodies)", run_tree_copy, &ints, US),
               PEER("cwpack unpack_next", run_cw_ints, &ints, CW),
               PEER("mpack expect_i32", run_mp_ints, &ints, MPK),
               ROW("msgpack-c unpack + copy", run_mpc_ints, &ints, MPC),
               ROW("msgpack-c unpack (tree only)", run_mpc_unpack, &ints, MPC)};
    section("decode c.ints (89,619 B) into int32_t[30000]", r, 7, rounds, ms);
  }
  {
    row r[] = {ROW("sp schema formatter, to_output", run_schema_encode, &buf, US),
               ROW("sp hand-written sp_write_*, to_output", run_hand_encode, &buf, US),
               PEER("cwpack hand-written, fixed buffer", run_cw_records_encode, NULL, CW),
               PEER("mpack hand-written, fixed buffer", run_mp_records_encode, NULL, MPK),
               ROW("msgpack-c packer, reused sbuffer", run_mpc_records_encode, &sb, MPC)};
    section("encode b.records from C structs into a reused buffer", r, 5, rounds, ms);
  }
  {
    row r[] = {ROW("sp bulk int32, SIMD kernel", run_sp_simd, &buf, US),
               ROW("sp bulk int32, scalar kernel", run_sp_scalar, &buf, US),
               PEER("cwpack pack_signed loop", run_cw_pack, NULL, CW),
               PEER("mpack write_i32 loop", run_mp_pack, NULL, MPK),
               ROW("msgpack-c pack_int32 loop", run_mpc_pack, &sb, MPC)};
    section("encode c.ints from int32_t[30000] into a reused buffer", r, 5, rounds, ms);
  }
  printf("\nchecksum %llu\n", (unsigned long long)bench_checksum);
  for (int k = 0; k < NRECS; k++) sp_schema_release(&brec_schema, &g_recs_back[k]);
  free((void *)obj.data); free((void *)recs.data); free((void *)ints.data);
  sp_buffer_free(&buf);
  msgpack_sbuffer_destroy(&sb);
  sp_shutdown();
  return 0;
}
