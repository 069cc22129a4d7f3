/*
** test_pool_integration.c -- the serializer over each pool kind.
** A sequence pool takes any sp_pool and the entries take a sequence pool
** through sp_options.seq_pool, so to_array and to_stream can run over the
** bounded bucket pool, the shared pool or the lock-free pool. Each must give
** the same bytes as the default pools, move only the chosen pool's counters,
** reuse its arrays after the first call, and leave nothing allocated once
** the pools are destroyed; two threads at once must agree as well.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>

#include "fixtures.h"
#include "sp_test.h"
#include "test_util.h"

#if !defined(SP_NO_THREADS) && !(defined(__wasi__) && !defined(_REENTRANT))
#define HAVE_THREADS 1
#include <pthread.h>
#endif

#define RECORDS 1000

/* b.records: 1,000 x {id, name: 16 ASCII chars, score, tags: [3 short]}. */
typedef struct records {
  char names[RECORDS][17];
  sp_value pairs[RECORDS][8], tags[RECORDS][3], items[RECORDS];
  sp_value root;
} records;

static void records_init(records *r) {
  static const char *tag_text[] = {"red", "green", "blue", "amber"};
  for (int i = 0; i < RECORDS; i++) {
    for (int k = 0; k < 16; k++) r->names[i][k] = (char)('a' + (i + k) % 26);
    r->names[i][16] = 0;
    for (int k = 0; k < 3; k++) r->tags[i][k] = sp_str(tag_text[(i + k) % 4]);
    r->pairs[i][0] = sp_str("id");
    r->pairs[i][1] = sp_int(i);
    r->pairs[i][2] = sp_str("name");
    r->pairs[i][3] = sp_strn(r->names[i], 16);
    r->pairs[i][4] = sp_str("score");
    r->pairs[i][5] = sp_double(i * 0.25);
    r->pairs[i][6] = sp_str("tags");
    r->pairs[i][7] = sp_array(r->tags[i], 3);
    r->items[i] = sp_map(r->pairs[i], 4);
  }
  r->root = sp_array(r->items, RECORDS);
}

/* to_stream sink: appends to a malloc'd buffer (not counted by sp_alloc). */
typedef struct collected { uint8_t *data; size_t len, cap; } collected;

static int collect(void *ctx, const uint8_t *bytes, size_t len) {
  collected *c = ctx;
  if (c->len + len > c->cap) {
    size_t ncap = (c->len + len) * 2;
    uint8_t *d = realloc(c->data, ncap);
    if (d == NULL) return 1;
    c->data = d;
    c->cap = ncap;
  }
  memcpy(c->data + c->len, bytes, len);
  c->len += len;
  return 0;
}

static sp_pool *make_bucket(void) { return sp_bucket_pool_create(80 * 1024, 100); }
static sp_pool *make_shared(void) { return sp_shared_pool_create(0, 0); }
static sp_pool *make_lockfree(void) { return sp_lockfree_pool_create(128 * 1024, 64); }

typedef struct kind { const char *name; sp_pool *(*make)(void); } kind;
static const kind kinds[] = {
  {"bucket", make_bucket}, {"shared", make_shared}, {"lockfree", make_lockfree}
};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

/* The values and their bytes through the default pools. */
static records recs;
static big_object big;
static sp_bytes want_records, want_big;

static void references_open(void) {
  records_init(&recs);
  big_object_init(&big, 100000);
  CHECK(sp_to_array(sp_format_value, &recs.root, NULL, &want_records, NULL) == SP_OK);
  CHECK(sp_to_array(sp_format_value, &big.root, NULL, &want_big, NULL) == SP_OK);
}

/* With the 1 KiB scratch below, to_array migrates to a sequence for both. */
#define SCRATCH 1024

static void reference_values_leave_the_scratch(void) {
  CHECK(want_records.len > 32 * 1024 && want_records.len < SP_SCRATCH_DEFAULT);
  CHECK(want_big.len == 100007);
}

static sp_options options_for(sp_seq_pool *seqs) {
  sp_options o;
  memset(&o, 0, sizeof o);
  o.scratch_size = SCRATCH;
  o.seq_pool = seqs;
  return o;
}

static void references_close(void) {
  sp_bytes_free(&want_records);
  sp_bytes_free(&want_big);
  big_object_free(&big);
}

/* One to_array and one to_stream of v; both must equal 'want'. */
static int same_bytes_both_ways(const sp_value *v, const sp_bytes *want, const sp_options *o) {
  sp_bytes got;
  collected c = {NULL, 0, 0};
  int ok = sp_to_array(sp_format_value, v, o, &got, NULL) == SP_OK &&
           got.len == want->len && memcmp(got.data, want->data, want->len) == 0;
  sp_bytes_free(&got);
  ok = ok && sp_to_stream(collect, &c, sp_format_value, v, o, NULL) == SP_OK &&
       c.len == want->len && memcmp(c.data, want->data, want->len) == 0;
  free(c.data);
  return ok;
}

static void entries_give_identical_bytes_over_every_pool_kind(void) {
  for (int k = 0; k < NKINDS; k++) {
    sp_pool *p = kinds[k].make();
    sp_seq_pool *seqs = sp_seq_pool_create(4, p);
    sp_options o = options_for(seqs);
    CHECK(p != NULL && seqs != NULL && sp_seq_pool_arrays(seqs) == p);
    for (int round = 0; round < 3; round++) {
      if (!CHECK(same_bytes_both_ways(&recs.root, &want_records, &o)))
        printf("    (records over the %s pool)\n", kinds[k].name);
      if (!CHECK(same_bytes_both_ways(&big.root, &want_big, &o)))
        printf("    (big object over the %s pool)\n", kinds[k].name);
    }
    sp_seq_pool_destroy(seqs);
    sp_shared_pool_release_thread();
    sp_pool_destroy(p);
  }
}

/* The first call allocates segments; later calls reuse them through the
** pool's own tier (slot for the shared pool, queue or bucket otherwise). */
static void entries_move_only_the_chosen_pools_counters(void) {
  sp_pool *pools[NKINDS];
  sp_seq_pool *seqs[NKINDS];
  for (int k = 0; k < NKINDS; k++) {
    pools[k] = kinds[k].make();
    seqs[k] = sp_seq_pool_create(4, pools[k]);
  }
  for (int k = 0; k < NKINDS; k++) {
    sp_options o = options_for(seqs[k]);
    sp_pool_stats first, later;
    CHECK(same_bytes_both_ways(&big.root, &want_big, &o));
    CHECK(same_bytes_both_ways(&recs.root, &want_records, &o));
    first = stats_of(pools[k]);
    CHECK(first.rents >= 4 && first.fresh >= 2);
    CHECK(first.returns == first.rents);       /* every segment came back */
    CHECK(same_bytes_both_ways(&big.root, &want_big, &o));
    CHECK(same_bytes_both_ways(&recs.root, &want_records, &o));
    later = stats_of(pools[k]);
    CHECK(later.rents > first.rents && later.returns == later.rents);
    CHECK(later.fresh == first.fresh);         /* reused, never allocated again */
    CHECK(later.slot_hits + later.partition_hits > first.slot_hits + first.partition_hits);
    if (k == 1) CHECK(later.slot_hits > first.slot_hits);   /* the shared pool's slot */
    for (int other = k + 1; other < NKINDS; other++)
      CHECK(stats_of(pools[other]).rents == 0);   /* not touched yet */
  }
  for (int k = 0; k < NKINDS; k++) {
    sp_seq_pool_destroy(seqs[k]);
    sp_pool_destroy(pools[k]);
  }
}

/* A value that fits the scratch never reaches any pool. */
static void small_values_touch_no_pool(void) {
  sp_pool *p = make_shared();
  sp_seq_pool *seqs = sp_seq_pool_create(4, p);
  sp_value items[2] = {sp_int(1), sp_str("hello")};
  sp_value v = sp_array(items, 2);
  sp_options o = options_for(seqs);
  sp_bytes b;
  CHECK(sp_to_array(sp_format_value, &v, &o, &b, NULL) == SP_OK && b.len == 8);
  sp_bytes_free(&b);
  CHECK(stats_of(p).rents == 0);
  sp_seq_pool_destroy(seqs);
  sp_pool_destroy(p);
}

static void destroying_the_pools_leaves_nothing_allocated(void) {
  int64_t live0 = sp_alloc_live_bytes();
  for (int k = 0; k < NKINDS; k++) {
    sp_pool *p = kinds[k].make();
    sp_seq_pool *seqs = sp_seq_pool_create(4, p);
    sp_options o = options_for(seqs);
    CHECK(same_bytes_both_ways(&recs.root, &want_records, &o));
    CHECK(sp_alloc_live_bytes() > live0);
    sp_seq_pool_destroy(seqs);
    sp_pool_destroy(p);
    CHECK(sp_alloc_live_bytes() == live0);
  }
}

#ifdef HAVE_THREADS

typedef struct job { const sp_options *o; int bad; } job;

static void *serialize_many(void *arg) {
  job *j = arg;
  for (int i = 0; i < 40; i++) {
    j->bad += !same_bytes_both_ways(&big.root, &want_big, j->o);
    j->bad += !same_bytes_both_ways(&recs.root, &want_records, j->o);
  }
  return NULL;
}

/* Two threads share one sequence pool over each pool kind. */
static void two_threads_share_each_pool_kind(void) {
  int64_t live0 = sp_alloc_live_bytes();
  for (int k = 0; k < NKINDS; k++) {
    sp_pool *p = kinds[k].make();
    sp_seq_pool *seqs = sp_seq_pool_create(4, p);
    sp_options o = options_for(seqs);
    pthread_t t[2];
    job j[2];
    sp_pool_stats s;
    for (int i = 0; i < 2; i++) {
      j[i].o = &o;
      j[i].bad = 0;
      pthread_create(&t[i], NULL, serialize_many, &j[i]);
    }
    for (int i = 0; i < 2; i++) { pthread_join(t[i], NULL); CHECK(j[i].bad == 0); }
    s = stats_of(p);
    CHECK(s.rents == s.returns && s.rents > 0);
    CHECK(s.fresh == s.cached + s.drops + s.trims);
    sp_seq_pool_destroy(seqs);
    sp_pool_destroy(p);
  }
  CHECK(sp_alloc_live_bytes() == live0);       /* thread scratches freed at exit */
}

#endif

int main(void) {
  references_open();
  SP_RUN(reference_values_leave_the_scratch);
  SP_RUN(entries_give_identical_bytes_over_every_pool_kind);
  SP_RUN(entries_move_only_the_chosen_pools_counters);
  SP_RUN(small_values_touch_no_pool);
  SP_RUN(destroying_the_pools_leaves_nothing_allocated);
#ifdef HAVE_THREADS
  SP_RUN(two_threads_share_each_pool_kind);
#endif
  references_close();
  sp_shutdown();
  return sp_test_summary();
}
