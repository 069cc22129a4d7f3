/*
** test_entries.c -- the three entries, their lifecycle and the documents'
** figures. What each call allocates (per-thread counters), when the pools
** are touched, migration at the scratch boundary, the nested to_array case
** of 000_*.txt in legacy and safe modes, to_stream handing each segment
** over as it fills, and the lifecycle's view, copy and pieces.
*/
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "sp_test.h"
#include "test_util.h"

/* Private pools, so the counters below are this test's alone. */
static sp_pool *arrays;
static sp_seq_pool *seqs;
static sp_options opts;

static void pools_open(void) {
  arrays = sp_bucket_pool_create(80 * 1024, 100);
  seqs = sp_seq_pool_create(4, arrays);
  memset(&opts, 0, sizeof opts);
  opts.seq_pool = seqs;
}

static void pools_close(void) {
  sp_seq_pool_destroy(seqs);
  sp_pool_destroy(arrays);
  sp_thread_cleanup();
}

static uint64_t array_rents(void) {
  sp_pool_stats s;
  sp_pool_stats_get(arrays, &s);
  return s.rents;
}

static uint64_t seq_rents(void) {
  sp_seq_pool_stats s;
  sp_seq_pool_stats_get(seqs, &s);
  return s.rents;
}

static const uint8_t small_arr_bytes[] = {0x92, 0x01, 0xA5, 'h', 'e', 'l', 'l', 'o'};

static sp_value small_arr(sp_value items[2]) {
  items[0] = sp_int(1);
  items[1] = sp_str("hello");
  return sp_array(items, 2);
}

static void to_array_small_allocates_only_the_result_after_warmup(void) {
  sp_value items[2], v = small_arr(items);
  sp_bytes b;
  sp_alloc_stats a;
  pools_open();
  CHECK(sp_to_array(sp_format_value, &v, &opts, &b, NULL) == SP_OK);   /* warm-up */
  sp_bytes_free(&b);
  sp_alloc_stats_reset();
  CHECK(sp_to_array(sp_format_value, &v, &opts, &b, NULL) == SP_OK);
  a = alloc_since();
  CHECK_BYTES(b.data, b.len, small_arr_bytes, sizeof small_arr_bytes);
  CHECK(a.alloc_calls == 1 && a.alloc_bytes == sizeof small_arr_bytes);
  CHECK(seq_rents() == 0 && array_rents() == 0);     /* the pools were never touched */
  sp_bytes_free(&b);
  pools_close();
}

/* Output sink for to_stream that appends to an sp_buffer. */
static int append_sink(void *ctx, const uint8_t *bytes, size_t len) {
  sp_buffer *dst = ctx;
  size_t avail;
  sp_output o = sp_buffer_output(dst);
  uint8_t *p = o.get_span(dst, len, &avail);
  if (p == NULL) return 1;
  memcpy(p, bytes, len);
  o.advance(dst, len);
  return 0;
}

static void check_output_and_stream_allocate_nothing(const sp_value *v, size_t want_len) {
  sp_buffer buf;
  sp_output out = sp_buffer_output(&buf);
  sp_alloc_stats a;
  sp_buffer_init(&buf);
  CHECK(sp_to_output(&out, sp_format_value, v, &opts, NULL) == SP_OK);  /* warm-up */
  sp_buffer_clear(&buf);
  CHECK(sp_to_stream(append_sink, &buf, sp_format_value, v, &opts, NULL) == SP_OK);
  sp_buffer_clear(&buf);
  sp_alloc_stats_reset();
  CHECK(sp_to_output(&out, sp_format_value, v, &opts, NULL) == SP_OK);
  a = alloc_since();
  CHECK(buf.len == want_len && a.alloc_calls == 0 && a.alloc_bytes == 0);
  sp_buffer_clear(&buf);
  sp_alloc_stats_reset();
  CHECK(sp_to_stream(append_sink, &buf, sp_format_value, v, &opts, NULL) == SP_OK);
  a = alloc_since();
  CHECK(buf.len == want_len && a.alloc_calls == 0 && a.alloc_bytes == 0);
  sp_buffer_free(&buf);
}

static void to_output_and_to_stream_allocate_nothing_after_warmup(void) {
  sp_value items[2], v = small_arr(items);
  big_object big;
  pools_open();
  big_object_init(&big, 100000);
  check_output_and_stream_allocate_nothing(&v, sizeof small_arr_bytes);
  check_output_and_stream_allocate_nothing(&big.root, 100007);
  big_object_free(&big);
  pools_close();
}

static void to_array_big_allocates_exactly_the_result_and_rents_once(void) {
  big_object big;
  sp_bytes b;
  sp_alloc_stats a;
  uint64_t rents;
  pools_open();
  big_object_init(&big, 100000);
  CHECK(sp_to_array(sp_format_value, &big.root, &opts, &b, NULL) == SP_OK);   /* warm-up */
  sp_bytes_free(&b);
  rents = array_rents();
  sp_alloc_stats_reset();
  CHECK(sp_to_array(sp_format_value, &big.root, &opts, &b, NULL) == SP_OK);
  a = alloc_since();
  CHECK(b.len == 100007 && b.data[0] == 0x92 && b.data[1] == 0x01 && b.data[2] == 0xDB);
  CHECK(b.data[7] == 'A' && b.data[100006] == 'A');
  CHECK(a.alloc_calls == 1 && a.alloc_bytes == 100007);
  CHECK(a.unpooled_calls == 0);
  CHECK(array_rents() - rents == 1);                 /* one 128 KiB segment */
  sp_bytes_free(&b);
  big_object_free(&big);
  pools_close();
}

/* Writes 'n' raw bytes 0, 1, 2, ... (a message of exactly n bytes). */
static int raw_counting(sp_writer *w, const void *value) {
  size_t n = *(const size_t *)value;
  uint8_t chunk[256];
  for (size_t i = 0; i < n;) {
    size_t k = n - i < sizeof chunk ? n - i : sizeof chunk;
    for (size_t j = 0; j < k; j++) chunk[j] = (uint8_t)(i + j);
    sp_write_raw(w, chunk, k);
    i += k;
  }
  return 0;
}

static int is_counting(const sp_bytes *b, size_t n) {
  if (b->len != n) return 0;
  for (size_t i = 0; i < n; i++) if (b->data[i] != (uint8_t)i) return 0;
  return 1;
}

/* Migrates exactly when the output exceeds the scratch: size-1, size, size+1. */
static void migration_happens_only_past_the_scratch_size(size_t scratch) {
  pools_open();
  opts.scratch_size = scratch;
  for (size_t n = scratch - 1; n <= scratch + 1; n++) {
    sp_bytes b;
    uint64_t before = seq_rents();
    CHECK(sp_to_array(raw_counting, &n, &opts, &b, NULL) == SP_OK);
    CHECK(is_counting(&b, n));
    CHECK(seq_rents() - before == (n > scratch ? 1u : 0u));
    sp_bytes_free(&b);
  }
  pools_close();
}

static void migration_boundary_with_64k_scratch(void) {
  migration_happens_only_past_the_scratch_size(SP_SCRATCH_DEFAULT);
}

static void migration_boundary_with_8_byte_scratch(void) {
  migration_happens_only_past_the_scratch_size(8);
}

/* The first x-flow with an 8-byte scratch: 7 bytes written, then a 5-byte
** string that does not fit; the 7 bytes move to the sequence once. */
static int seven_then_string(sp_writer *w, const void *value) {
  static const uint8_t seven[] = {0x93, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06};
  (void)value;
  sp_write_raw(w, seven, sizeof seven);
  sp_write_str(w, "ABCD", 4);
  return 0;
}

static void eight_byte_scratch_migrates_the_seven_written_bytes(void) {
  static const uint8_t want[] = {0x93, 1, 2, 3, 4, 5, 6, 0xA4, 'A', 'B', 'C', 'D'};
  sp_bytes b;
  sp_seq_pool_stats s;
  pools_open();
  opts.scratch_size = 8;
  CHECK(sp_to_array(seven_then_string, NULL, &opts, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, want, sizeof want);
  sp_seq_pool_stats_get(seqs, &s);
  CHECK(s.rents == 1 && s.returns == 1);
  sp_bytes_free(&b);
  pools_close();
}

static int reserve_200k(sp_writer *w, const void *value) {
  uint8_t *p = sp_writer_reserve(w, 200000);
  (void)value;
  if (p == NULL) return 1;
  memset(p, 0x5A, 200000);
  sp_writer_advance(w, 200000);
  return 0;
}

static void reservation_over_the_largest_bucket_is_served_unpooled(void) {
  sp_bytes b;
  sp_pool_stats s;
  sp_alloc_stats a;
  pools_open();
  sp_alloc_stats_reset();
  CHECK(sp_to_array(reserve_200k, NULL, &opts, &b, NULL) == SP_OK);
  a = alloc_since();
  sp_pool_stats_get(arrays, &s);
  CHECK(b.len == 200000 && b.data[0] == 0x5A && b.data[199999] == 0x5A);
  CHECK(s.unpooled == 1 && a.unpooled_calls == 1 && a.unpooled_bytes == 200000);
  sp_bytes_free(&b);
  pools_close();
}

static void long_raw_copies_never_leave_the_pool(void) {
  size_t n = 300000;
  sp_bytes b;
  sp_pool_stats s;
  pools_open();
  CHECK(sp_to_array(raw_counting, &n, &opts, &b, NULL) == SP_OK);
  CHECK(is_counting(&b, n));
  sp_pool_stats_get(arrays, &s);
  CHECK(s.unpooled == 0);
  sp_bytes_free(&b);
  pools_close();
}

/* ---- the nested call of 000_*.txt ---------------------------------------- */

static const uint8_t nested_tail[] = {
  0xC4, 0x11, 0x93, 0x07, 0xA5, 0x69, 0x6E, 0x6E, 0x65, 0x72,
  0xCB, 0x3F, 0xF8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x63
};
static const uint8_t overwritten_head[] = {
  0x93, 0x07, 0xA5, 0x69, 0x6E, 0x6E, 0x65, 0x72, 0xCB, 0x3F, 0xF8, 0x00
};
static const uint8_t intact_head[] = {
  0x93, 0xAA, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41
};

static void check_nested(const sp_bytes *b, const uint8_t head[12]) {
  CHECK(b->len == 32);
  CHECK_BYTES(b->data, 12, head, 12);
  CHECK_BYTES(b->data + 12, b->len - 12, nested_tail, sizeof nested_tail);
}

static void nested_to_array_in_legacy_mode_overwrites_the_outer_bytes(void) {
  sp_options legacy = {0};
  outer o;
  sp_bytes b;
  legacy.legacy_nested_scratch = 1;
  outer_init(&o, "AAAAAAAAAA", 10, &legacy);
  CHECK(sp_to_array(sp_format_value, &o.root, &legacy, &b, NULL) == SP_OK);
  check_nested(&b, overwritten_head);
  sp_bytes_free(&b);
  sp_shutdown();
}

static void nested_to_array_is_safe_by_default(void) {
  outer o;
  sp_bytes b;
  sp_bytes again;
  outer_init(&o, "AAAAAAAAAA", 10, NULL);
  CHECK(sp_to_array(sp_format_value, &o.root, NULL, &b, NULL) == SP_OK);
  check_nested(&b, intact_head);
  /* the scratch is free again afterwards: a plain call still uses it */
  CHECK(sp_to_array(sp_format_value, &o.env.small, NULL, &again, NULL) == SP_OK);
  CHECK(again.len == 17);
  sp_bytes_free(&again);
  sp_bytes_free(&b);
  sp_shutdown();
}

static void nested_to_array_under_to_output_is_safe_in_both_modes(void) {
  sp_options legacy = {0};
  const sp_options *modes[2] = {NULL, &legacy};
  legacy.legacy_nested_scratch = 1;
  for (int m = 0; m < 2; m++) {
    outer o;
    sp_buffer buf;
    sp_output out = sp_buffer_output(&buf);
    sp_bytes view;
    sp_buffer_init(&buf);
    outer_init(&o, "AAAAAAAAAA", 10, modes[m]);
    CHECK(sp_to_output(&out, sp_format_value, &o.root, modes[m], NULL) == SP_OK);
    view.data = buf.data;
    view.len = buf.len;
    check_nested(&view, intact_head);
    sp_buffer_free(&buf);
  }
  sp_shutdown();
}

/* When the outer call has already migrated (a 70,000-char Before), the
** scratch is no longer its, so even legacy mode is correct. */
static void nested_after_migration_is_correct_in_both_modes(void) {
  sp_options legacy = {0};
  const sp_options *modes[2] = {NULL, &legacy};
  size_t n = 70000;
  char *before = malloc(n);
  memset(before, 'A', n);
  legacy.legacy_nested_scratch = 1;
  for (int m = 0; m < 2; m++) {
    outer o;
    sp_bytes b;
    static const uint8_t head[] = {0x93, 0xDB, 0x00, 0x01, 0x11, 0x70};
    outer_init(&o, before, n, modes[m]);
    CHECK(sp_to_array(sp_format_value, &o.root, modes[m], &b, NULL) == SP_OK);
    CHECK(b.len == sizeof head + n + sizeof nested_tail);
    CHECK_BYTES(b.data, sizeof head, head, sizeof head);
    CHECK(b.data[sizeof head] == 'A' && b.data[sizeof head + n - 1] == 'A');
    CHECK_BYTES(b.data + sizeof head + n, sizeof nested_tail, nested_tail, sizeof nested_tail);
    sp_bytes_free(&b);
  }
  free(before);
  sp_shutdown();
}

/* ---- the lifecycle and to_stream -------------------------------------------- */

/* Fails every allocation while set. */
static void *no_memory(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) free(ptr);
  return NULL;
}

static void scratch_out_of_memory_is_an_error_not_a_silent_sequence(void) {
  sp_value v = sp_int(1);
  sp_bytes b;
  sp_error e;
  int64_t live;
  pools_open();
  sp_thread_cleanup();                     /* the next to_array must allocate the scratch */
  live = sp_alloc_live_bytes();
  sp_alloc_set_hook(no_memory, NULL);
  CHECK(sp_to_array(sp_format_value, &v, &opts, &b, &e) == SP_E_NOMEM);
  sp_alloc_set_hook(NULL, NULL);
  CHECK(b.data == NULL && b.len == 0 && e.cause != NULL);
  CHECK(seq_rents() == 0);                 /* no fall-back to a pooled sequence */
  CHECK(sp_alloc_live_bytes() == live);
  CHECK(sp_to_array(sp_format_value, &v, &opts, &b, NULL) == SP_OK && b.len == 1);
  sp_bytes_free(&b);
  pools_close();
}

/* Records what a sink got, and how many pool arrays were out at each call. */
typedef struct recording_sink {
  sp_buffer got;
  int calls;
  uint64_t most_out;
} recording_sink;

static int record_segment(void *ctx, const uint8_t *bytes, size_t len) {
  recording_sink *r = ctx;
  sp_pool_stats s;
  sp_pool_stats_get(arrays, &s);
  if (s.rents - s.returns > r->most_out) r->most_out = s.rents - s.returns;
  r->calls++;
  return append_sink(&r->got, bytes, len);
}

static void to_stream_hands_each_segment_over_as_it_fills(void) {
  size_t n = 300000;                       /* over 3 of the pool's 80 KiB arrays */
  recording_sink r = {{0}, 0, 0};
  sp_bytes want = {0};
  pools_open();
  sp_buffer_init(&r.got);
  CHECK(sp_to_array(raw_counting, &n, &opts, &want, NULL) == SP_OK);
  CHECK(sp_to_stream(record_segment, &r, raw_counting, &n, &opts, NULL) == SP_OK);
  CHECK_BYTES(r.got.data, r.got.len, want.data, want.len);
  CHECK(r.calls >= 4);
  CHECK(r.most_out == 1);                  /* one segment held at a time */
  CHECK(adds_up(arrays, 0));
  sp_buffer_free(&r.got);
  sp_bytes_free(&want);
  pools_close();
}

/* A stream's writer has no span before its first write: an empty body
** then (written raw, or an empty str after a sticky error) did NULL + 0,
** undefined behaviour that clang's UBSan reports (gcc's does not). */
static int empty_raw_first(sp_writer *w, const void *v) {
  (void)v;
  sp_write_raw(w, "", 0);
  sp_write_int(w, 1);
  return 0;
}
static int empty_str_after_an_error(sp_writer *w, const void *v) {
  (void)v;
  sp_write_timestamp(w, 0, 1000000000u);      /* nanoseconds out of range: the error sticks */
  sp_write_str(w, "", 0);
  sp_write_bin(w, "", 0);
  return 0;
}
static void an_empty_body_before_a_streams_first_span_is_no_pointer_arithmetic(void) {
  sp_buffer got;
  sp_error e;
  sp_buffer_init(&got);
  CHECK(sp_to_stream(append_sink, &got, empty_raw_first, NULL, NULL, &e) == SP_OK);
  CHECK(got.len == 1 && got.data[0] == 0x01);
  CHECK(sp_to_stream(append_sink, &got, empty_str_after_an_error, NULL, NULL, &e) == SP_E_VALUE_RANGE);
  sp_buffer_free(&got);
}

/* A message of 'n' counting bytes through the lifecycle of a to_array. */
static void begin_counting(sp_entry *e, size_t *n) {
  CHECK(sp_entry_begin_array(e, &opts) == SP_OK);
  CHECK(sp_serialize(&e->w, raw_counting, n) == SP_OK);
  CHECK(sp_entry_finish(e) == SP_OK);
}

static void entry_view_is_one_piece_without_a_copy_when_it_can_be(void) {
  size_t sizes[3] = {100, 70000, 300000};  /* the scratch, one segment, several */
  pools_open();
  for (int i = 0; i < 3; i++) {
    sp_entry e;
    const uint8_t *data;
    size_t len;
    sp_alloc_stats a;
    sp_bytes view;
    int64_t live;
    begin_counting(&e, &sizes[i]);                  /* warm: the scratch and the pools */
    sp_entry_view(&e, &data, &len);
    sp_entry_end(&e, NULL);
    live = sp_alloc_live_bytes();
    begin_counting(&e, &sizes[i]);
    sp_alloc_stats_reset();
    CHECK(sp_entry_view(&e, &data, &len) == SP_OK);
    a = alloc_since();
    CHECK(a.alloc_calls == (i == 2 ? 1u : 0u));    /* a copy only of several pieces */
    view.data = (uint8_t *)data;
    view.len = len;
    CHECK(is_counting(&view, sizes[i]));
    CHECK(sp_entry_end(&e, NULL) == SP_OK);
    CHECK(sp_entry_end(&e, NULL) == SP_OK);         /* twice is harmless */
    CHECK(sp_alloc_live_bytes() == live);
  }
  pools_close();
}

static void entry_pieces_are_the_message_in_order(void) {
  size_t n = 300000, at = 0, k;
  sp_entry e;
  uint8_t *all = malloc(n);
  sp_bytes joined = {all, 0};
  pools_open();
  begin_counting(&e, &n);
  CHECK(sp_entry_pieces(&e) >= 3);
  for (size_t i = 0; i < sp_entry_pieces(&e); i++) {
    const uint8_t *p = sp_entry_piece(&e, i, &k);
    if (k > 0 && at + k <= n) memcpy(all + at, p, k);
    at += k;
  }
  joined.len = at;
  CHECK(is_counting(&joined, n));
  sp_entry_end(&e, NULL);
  free(all);
  pools_close();
}

/* ---- the plain to_array and the whole lifecycle ---------------------------- */

/* An observer that only counts its notes: with one, to_array runs the whole
** entry lifecycle; without, its plain path. Both must give the same. */
static int notes_seen;

static void count_note(sp_observer *o, sp_writer *w, const sp_note *n) {
  (void)o; (void)w; (void)n;
  notes_seen++;
}

static uint8_t *hold_nothing(sp_observer *o, sp_writer *w, size_t n) {
  (void)o; (void)w; (void)n;
  return NULL;
}

static void no_span_note(sp_observer *o, sp_writer *w, size_t n) { (void)o; (void)w; (void)n; }

static size_t span_room(sp_observer *o, const sp_writer *w) {
  (void)o;
  return (size_t)(w->end - w->cur);
}

static const sp_observer_hooks counting = {count_note, hold_nothing, no_span_note, span_room};

static int nil_then_fail(sp_writer *w, const void *v) {
  (void)v;
  sp_write_nil(w);
  return 7;
}

/* One call both ways: the same code, inner code and bytes. */
static void check_plain_as_observed(sp_format_fn fn, const void *v, const sp_options *base,
                                    int line) {
  sp_observer counter = {&counting};
  sp_options plain = *base, observed = *base;
  sp_bytes a, b;
  sp_error ea, eb;
  sp_code ca, cb;
  observed.observer = &counter;
  notes_seen = 0;
  ca = sp_to_array(fn, v, &plain, &a, &ea);
  CHECK(notes_seen == 0);
  cb = sp_to_array(fn, v, &observed, &b, &eb);
  CHECK(notes_seen > 0);
  if (!CHECK(ca == cb && ea.inner == eb.inner && a.len == b.len))
    fprintf(stderr, "      case at line %d: codes %d / %d, lengths %zu / %zu\n", line, ca, cb, a.len, b.len);
  else if (a.len > 0)
    CHECK_BYTES(a.data, a.len, b.data, b.len);
  sp_bytes_free(&a);
  sp_bytes_free(&b);
}

static void to_array_gives_the_same_with_or_without_the_whole_lifecycle(void) {
  static uint8_t big[100000];
  sp_value items[2], small = small_arr(items), bin = sp_bin(big, sizeof big);
  sp_options none = {0}, legacy = {0}, tiny = {0}, cancelled = {0};
  atomic_int stop = 1;
  outer o;
  for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 7);
  legacy.legacy_nested_scratch = 1;
  tiny.scratch_size = 8;
  cancelled.cancel = &stop;
  check_plain_as_observed(sp_format_value, &small, &none, __LINE__);
  check_plain_as_observed(sp_format_value, &bin, &none, __LINE__);         /* migrates */
  check_plain_as_observed(sp_format_value, &small, &tiny, __LINE__);       /* migrates at 8 */
  check_plain_as_observed(nil_then_fail, NULL, &none, __LINE__);           /* CALLBACK, inner 7 */
  check_plain_as_observed(sp_format_value, &small, &cancelled, __LINE__);  /* CANCELLED */
  outer_init(&o, "AAAAAAAAAA", 10, NULL);
  check_plain_as_observed(sp_format_value, &o.root, &none, __LINE__);      /* nested, safe */
  outer_init(&o, "AAAAAAAAAA", 10, &legacy);
  check_plain_as_observed(sp_format_value, &o.root, &legacy, __LINE__);    /* nested, overwritten */
  sp_shutdown();
}

int main(void) {
  SP_RUN(to_array_small_allocates_only_the_result_after_warmup);
  SP_RUN(to_output_and_to_stream_allocate_nothing_after_warmup);
  SP_RUN(to_array_big_allocates_exactly_the_result_and_rents_once);
  SP_RUN(migration_boundary_with_64k_scratch);
  SP_RUN(migration_boundary_with_8_byte_scratch);
  SP_RUN(eight_byte_scratch_migrates_the_seven_written_bytes);
  SP_RUN(reservation_over_the_largest_bucket_is_served_unpooled);
  SP_RUN(long_raw_copies_never_leave_the_pool);
  SP_RUN(nested_to_array_in_legacy_mode_overwrites_the_outer_bytes);
  SP_RUN(nested_to_array_is_safe_by_default);
  SP_RUN(nested_to_array_under_to_output_is_safe_in_both_modes);
  SP_RUN(nested_after_migration_is_correct_in_both_modes);
  SP_RUN(scratch_out_of_memory_is_an_error_not_a_silent_sequence);
  SP_RUN(to_stream_hands_each_segment_over_as_it_fills);
  SP_RUN(an_empty_body_before_a_streams_first_span_is_no_pointer_arithmetic);
  SP_RUN(entry_view_is_one_piece_without_a_copy_when_it_can_be);
  SP_RUN(entry_pieces_are_the_message_in_order);
  SP_RUN(to_array_gives_the_same_with_or_without_the_whole_lifecycle);
  sp_shutdown();
  return sp_test_summary();
}
