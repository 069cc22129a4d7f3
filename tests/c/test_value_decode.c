/*
** test_value_decode.c -- MessagePack into an sp_value tree and back.
** Re-encoding a decoded tree gives the same bytes; borrowing allocates no
** bodies; hostile input (deep nesting, huge claims, truncation, failing
** allocations) ends in a clear error with nothing leaked.
*/
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "sp_test.h"

/* A message with every kind inside: map, arrays, ints, floats, str, bin,
** ext, timestamps of each form, nil, bools. */
static sp_bytes sample(void) {
  static const uint8_t blob[3] = {1, 2, 3};
  sp_value tags[3] = {sp_str("a"), sp_str("bb"), sp_str("한국어")};
  sp_value times[3] = {sp_timestamp(1, 0), sp_timestamp(1, 5), sp_timestamp(-1, 7)};
  sp_value nums[8] = {sp_uint(0), sp_uint(200), sp_int(-33), sp_int(INT64_MIN),
                      sp_uint(UINT64_MAX), sp_float(1.5f), sp_double(-2.25), sp_nil()};
  sp_value kv[12] = {sp_str("tags"), sp_array(tags, 3), sp_str("times"), sp_array(times, 3),
                     sp_str("nums"), sp_array(nums, 8), sp_str("bin"), sp_bin(blob, 3),
                     sp_str("ext"), sp_ext(42, blob, 3), sp_str("ok"), sp_bool(1)};
  sp_value v = sp_map(kv, 6);
  sp_bytes b;
  sp_to_array(sp_format_value, &v, NULL, &b, NULL);
  return b;
}

static int reencodes_to(const sp_value *v, const sp_bytes *want) {
  sp_bytes again;
  int ok = sp_to_array(sp_format_value, v, NULL, &again, NULL) == SP_OK &&
           CHECK_BYTES(again.data, again.len, want->data, want->len);
  sp_bytes_free(&again);
  return ok;
}

static void decoded_tree_reencodes_to_the_same_bytes(void) {
  sp_bytes b = sample();
  sp_doc doc = {0};
  sp_value v;
  CHECK(sp_value_decode(b.data, b.len, NULL, &doc, &v, NULL) == SP_OK);
  CHECK(v.kind == SP_MAP && v.as.map.n == 6);
  CHECK(v.as.map.pairs[3].as.array.items[2].kind == SP_TIMESTAMP);
  CHECK(v.as.map.pairs[3].as.array.items[2].as.ts.sec == -1);
  CHECK(v.as.map.pairs[5].as.array.items[2].kind == SP_INT);     /* negative */
  CHECK(v.as.map.pairs[5].as.array.items[1].kind == SP_UINT);    /* positive */
  reencodes_to(&v, &b);
  sp_doc_free(&doc);
  sp_bytes_free(&b);
}

static void borrowed_bodies_point_into_the_input(void) {
  sp_bytes b = sample();
  sp_doc copied = {0}, borrowed = {0};
  sp_decode_options opt = {.borrow = 1};
  sp_value v, w;
  const sp_value *tag;
  CHECK(sp_value_decode(b.data, b.len, NULL, &copied, &v, NULL) == SP_OK);
  CHECK(sp_value_decode(b.data, b.len, &opt, &borrowed, &w, NULL) == SP_OK);
  tag = &w.as.map.pairs[1].as.array.items[2];
  CHECK((const uint8_t *)tag->as.str.ptr > b.data && (const uint8_t *)tag->as.str.ptr < b.data + b.len);
  tag = &v.as.map.pairs[1].as.array.items[2];
  CHECK(!((const uint8_t *)tag->as.str.ptr >= b.data && (const uint8_t *)tag->as.str.ptr < b.data + b.len));
  reencodes_to(&w, &b);
  sp_doc_free(&copied);
  sp_doc_free(&borrowed);
  sp_bytes_free(&b);
}

static void ten_million_deep_nesting_stops_at_the_depth_limit(void) {
  size_t n = 10000000;
  uint8_t *deep = malloc(n + 1);
  sp_doc doc = {0};
  sp_value v;
  sp_error e;
  memset(deep, 0x91, n);
  deep[n] = 0xc0;
  CHECK(sp_value_decode(deep, n + 1, NULL, &doc, &v, &e) == SP_E_DEPTH_LIMIT);
  CHECK(e.offset == 500 && v.kind == SP_NIL);
  sp_doc_free(&doc);
  free(deep);
}

static void huge_array_claim_allocates_nothing(void) {
  static const uint8_t huge[10] = {0xdd, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5};
  static const uint8_t huge_map[6] = {0xdf, 0x80, 0x00, 0x00, 0x00, 0xc0};
  sp_doc doc = {0};
  sp_value v;
  sp_error e;
  sp_alloc_stats a;
  sp_alloc_stats_reset();
  CHECK(sp_value_decode(huge, sizeof huge, NULL, &doc, &v, &e) == SP_E_TRUNCATED);
  CHECK(e.offset == 0);
  CHECK(sp_value_decode(huge_map, sizeof huge_map, NULL, &doc, &v, &e) == SP_E_TRUNCATED);
  sp_alloc_stats_get(&a);
  CHECK(a.alloc_calls == 0);
  sp_doc_free(&doc);
}

/* With a 32-bit size_t (wasm32: this program also runs under wasm32-wasi),
** an array of 178,956,971 nils is valid input of 179 MB whose item block,
** 24 bytes an item, is 4 GiB + 8 bytes: the multiplication wrapped to 8, and
** the items were written far past that block. Now it is LENGTH_LIMIT at the
** header, before anything is allocated. A 64-bit size_t holds any count a
** header can claim (x 24), so there the input would really need 4 GiB. */
static void item_block_past_size_max_is_refused(void) {
#if SIZE_MAX <= 0xffffffffu
  uint32_t n = (uint32_t)(SIZE_MAX / sizeof(sp_value)) + 1;
  size_t len = (size_t)n + 5;
  uint8_t *in = malloc(len);
  sp_doc doc = {0};
  sp_value v;
  sp_error e;
  if (!CHECK(in != NULL)) return;
  in[0] = 0xdd;
  in[1] = (uint8_t)(n >> 24); in[2] = (uint8_t)(n >> 16); in[3] = (uint8_t)(n >> 8); in[4] = (uint8_t)n;
  memset(in + 5, 0xc0, n);
  CHECK(sp_value_decode(in, len, NULL, &doc, &v, &e) == SP_E_LENGTH_LIMIT);
  CHECK(e.offset == 0);
  CHECK(doc.bytes == 0);
  sp_doc_free(&doc);
  free(in);
#else
  CHECK((uint64_t)UINT32_MAX * 2 * sizeof(sp_value) <= SIZE_MAX);   /* no header count can wrap */
#endif
}

/* Bytes the calling thread allocated during a decode of len bytes at p. */
static uint64_t decode_allocates(const uint8_t *p, size_t len, int borrow, sp_code *code,
                                 sp_error *e) {
  sp_doc doc = {0};
  sp_decode_options opt = {.borrow = borrow};
  sp_value v;
  sp_alloc_stats a;
  sp_alloc_stats_reset();
  *code = sp_value_decode(p, len, &opt, &doc, &v, e);
  sp_alloc_stats_get(&a);
  sp_doc_free(&doc);
  return a.alloc_bytes;
}

/* array32 headers one after another, each claiming every byte left after
** it (the reader's own check passes at every level), nils after them.
** Without the budget, each of the 500 levels the depth limit allows would
** allocate 24 bytes per input byte; with it the second header is refused. */
static void nested_headers_claiming_every_byte_left_are_refused_at_the_second(void) {
  const size_t len = 64 * 1024;
  uint8_t *in = malloc(len);
  sp_error e;
  sp_code code;
  uint64_t bytes;
  memset(in, 0xc0, len);
  for (size_t at = 0; at + 5 <= 5 * 400; at += 5) {
    uint32_t claim = (uint32_t)(len - at - 5);
    in[at] = 0xdd;
    in[at + 1] = (uint8_t)(claim >> 24); in[at + 2] = (uint8_t)(claim >> 16);
    in[at + 3] = (uint8_t)(claim >> 8); in[at + 4] = (uint8_t)claim;
  }
  bytes = decode_allocates(in, len, 0, &code, &e);
  CHECK(code == SP_E_TRUNCATED && e.offset == 5);   /* the bytes cannot hold what both claim */
  CHECK(bytes <= 64 * len + 16384);          /* the multiple sp_value_decode.c states */
  CHECK(bytes >= 24 * (len - 5));            /* the first level was within the budget */
  free(in);
}

/* The densest valid messages -- every byte a value -- stay inside the
** budget (valid input never runs out of it) and inside the stated
** multiple of their size, copied or borrowed. */
static void densest_valid_trees_fit_the_budget_and_the_stated_multiple(void) {
  const size_t n = 20000;
  uint8_t *in = malloc(5 + 2 * n);
  for (int shape = 0; shape < 4; shape++) {
    size_t len = 5;
    uint32_t items = (uint32_t)n;   /* [n of them] */
    for (size_t i = 0; i < n; i++) {
      if (shape == 0) in[len++] = 0xa0;                                  /* "" */
      else if (shape == 1) { in[len++] = 0xa1; in[len++] = 'x'; }         /* "x" */
      else if (shape == 2) in[len++] = 0x90;                             /* [] */
      else in[len++] = 0x01;                                             /* 1 */
    }
    in[0] = 0xdd;
    in[1] = (uint8_t)(items >> 24); in[2] = (uint8_t)(items >> 16);
    in[3] = (uint8_t)(items >> 8); in[4] = (uint8_t)items;
    for (int borrow = 0; borrow < 2; borrow++) {
      sp_error e;
      sp_code code;
      uint64_t bytes = decode_allocates(in, len, borrow, &code, &e);
      if (!CHECK(code == SP_OK && bytes <= 64 * len + 16384))
        fprintf(stderr, "      shape %d, borrow %d: %s, %llu bytes for %zu\n", shape, borrow,
                sp_code_name(code), (unsigned long long)bytes, len);
    }
  }
  free(in);
}

static void every_truncation_fails_cleanly(void) {
  sp_bytes b = sample();
  int64_t live = sp_alloc_live_bytes();
  for (size_t len = 0; len < b.len; len++) {
    sp_doc doc = {0};
    sp_value v;
    sp_error e;
    uint8_t *cut = malloc(len ? len : 1);     /* exact size: ASan sees any over-read */
    memcpy(cut, b.data, len);
    sp_code code = sp_value_decode(cut, len, NULL, &doc, &v, &e);
    /* Also where the containers begun so far claim more values than the
    ** prefix has bytes (the decode's budget, checked before allocating):
    ** a streaming caller waits for more on TRUNCATED. */
    CHECK(code == SP_E_TRUNCATED);
    CHECK(e.offset <= len);
    sp_doc_free(&doc);
    free(cut);
  }
  CHECK(sp_alloc_live_bytes() == live);
  sp_bytes_free(&b);
}

/* [[1,2,3],4,5] cut after 5 bytes: each header claims no more than the
** bytes left, but together they claim more -- the message goes on past
** them, so it is TRUNCATED (as sp_skip says), not a limit. */
static void a_prefix_whose_containers_claim_more_than_its_bytes_is_truncated(void) {
  static const uint8_t msg[7] = {0x93, 0x93, 0x01, 0x02, 0x03, 0x04, 0x05};
  sp_doc doc = {0};
  sp_value v;
  sp_error e;
  for (size_t len = 0; len < sizeof msg; len++) {
    sp_reader r;
    sp_reader_init(&r, msg, len);
    sp_skip(&r);
    CHECK(r.err.code == SP_E_TRUNCATED);
    CHECK(sp_value_decode(msg, len, NULL, &doc, &v, &e) == SP_E_TRUNCATED);
  }
  CHECK(sp_value_decode(msg, sizeof msg, NULL, &doc, &v, &e) == SP_OK);
  sp_doc_free(&doc);
}

static void c1_and_trailing_bytes_are_invalid(void) {
  static const uint8_t c1[3] = {0x92, 0x01, 0xc1};
  static const uint8_t trailing[2] = {0x01, 0x02};
  static const uint8_t bad_ts[8] = {0xc7, 0x05, 0xff, 0, 0, 0, 0, 0};
  sp_doc doc = {0};
  sp_value v;
  sp_error e;
  CHECK(sp_value_decode(c1, 3, NULL, &doc, &v, &e) == SP_E_MALFORMED && e.offset == 2);
  CHECK(sp_value_decode(trailing, 2, NULL, &doc, &v, &e) == SP_E_TRAILING_BYTES && e.offset == 1);
  CHECK(sp_value_decode(bad_ts, 8, NULL, &doc, &v, &e) == SP_E_MALFORMED && e.offset == 0);
  sp_doc_free(&doc);
}

static long countdown = -1;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) { free(ptr); return NULL; }
  if (countdown >= 0 && countdown-- == 0) return NULL;
  return realloc(ptr, nsize);
}

static void failing_allocations_report_nomem_and_leak_nothing(void) {
  sp_bytes b = sample();
  int64_t live = sp_alloc_live_bytes();
  int nomem = 0;
  sp_alloc_set_hook(failing_alloc, NULL);
  for (long n = 0; n < 10; n++) {
    sp_doc doc = {0};
    sp_value v;
    countdown = n;
    if (sp_value_decode(b.data, b.len, NULL, &doc, &v, NULL) == SP_E_NOMEM) nomem++;
    countdown = -1;
    sp_doc_free(&doc);
  }
  sp_alloc_set_hook(NULL, NULL);
  CHECK(nomem >= 1);
  CHECK(sp_alloc_live_bytes() == live);
  sp_bytes_free(&b);
}

/* The same message split into 3-byte segments decodes to the same tree. */
static void segmented_input_decodes_like_contiguous(void) {
  sp_bytes b = sample();
  size_t nsegs = (b.len + 2) / 3;
  sp_segment *segs = calloc(nsegs, sizeof *segs);
  sp_sequence seq;
  sp_reader r;
  sp_doc doc = {0};
  sp_value v;
  for (size_t i = 0; i < nsegs; i++) {
    segs[i].data = b.data + 3 * i;
    segs[i].used = segs[i].capacity = b.len - 3 * i < 3 ? b.len - 3 * i : 3;
  }
  memset(&seq, 0, sizeof seq);
  seq.segs = segs;
  seq.nsegs = nsegs;
  seq.length = b.len;
  sp_reader_init_sequence(&r, &seq);
  CHECK(sp_value_read(&r, NULL, &doc, &v) == SP_OK && sp_reader_remaining(&r) == 0);
  reencodes_to(&v, &b);
  sp_doc_free(&doc);
  free(segs);
  sp_bytes_free(&b);
}

static void a_reset_document_decodes_again_without_allocating(void) {
  sp_bytes b = sample();
  sp_doc doc = {0};
  sp_value v;
  sp_alloc_stats a;
  CHECK(sp_value_decode(b.data, b.len, NULL, &doc, &v, NULL) == SP_OK);
  for (int round = 0; round < 3; round++) {
    sp_doc_reset(&doc);
    sp_alloc_stats_reset();
    CHECK(sp_value_decode(b.data, b.len, NULL, &doc, &v, NULL) == SP_OK);
    sp_alloc_stats_get(&a);
    CHECK(a.alloc_calls == 0);
    reencodes_to(&v, &b);
  }
  sp_doc_free(&doc);
  sp_bytes_free(&b);
}

int main(void) {
  SP_RUN(decoded_tree_reencodes_to_the_same_bytes);
  SP_RUN(borrowed_bodies_point_into_the_input);
  SP_RUN(ten_million_deep_nesting_stops_at_the_depth_limit);
  SP_RUN(huge_array_claim_allocates_nothing);
  SP_RUN(item_block_past_size_max_is_refused);
  SP_RUN(nested_headers_claiming_every_byte_left_are_refused_at_the_second);
  SP_RUN(densest_valid_trees_fit_the_budget_and_the_stated_multiple);
  SP_RUN(every_truncation_fails_cleanly);
  SP_RUN(a_prefix_whose_containers_claim_more_than_its_bytes_is_truncated);
  SP_RUN(c1_and_trailing_bytes_are_invalid);
  SP_RUN(failing_allocations_report_nomem_and_leak_nothing);
  SP_RUN(segmented_input_decodes_like_contiguous);
  SP_RUN(a_reset_document_decodes_again_without_allocating);
  sp_shutdown();
  return sp_test_summary();
}
