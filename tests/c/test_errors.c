/*
** test_errors.c -- what a failed call reports and what it leaves behind.
** Cancellation stays recognisable, user failures keep their code as the
** inner cause, element paths name the culprit, and every failing
** allocation leaves nothing allocated.
*/
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "sp_test.h"

static void cancelled_call_reports_cancelled_and_leaks_nothing(void) {
  atomic_int cancel = 1;
  sp_options opt = {0};
  sp_value items[3] = {sp_int(1), sp_int(2), sp_int(3)};
  sp_value v = sp_array(items, 3);
  sp_bytes b;
  sp_error e;
  int64_t live = sp_alloc_live_bytes();
  opt.cancel = &cancel;
  CHECK(sp_to_array(sp_format_value, &v, &opt, &b, &e) == SP_E_CANCELLED);
  CHECK(sp_error_is_cancelled(&e) && b.data == NULL && b.len == 0);
  sp_thread_cleanup();
  CHECK(sp_alloc_live_bytes() == live);
}

/* A sink that sets the cancel flag after the first segment. */
typedef struct cancelling_sink { atomic_int *flag; int calls; } cancelling_sink;

static int cancel_after_first(void *ctx, const uint8_t *bytes, size_t len) {
  cancelling_sink *s = ctx;
  (void)bytes; (void)len;
  s->calls++;
  atomic_store(s->flag, 1);
  return 0;
}

static void to_stream_checks_cancel_between_segments(void) {
  atomic_int cancel = 0;
  cancelling_sink sink = {&cancel, 0};
  sp_options opt = {0};
  big_object big;
  sp_error e;
  big_object_init(&big, 100000);           /* 32 KiB + more: two segments */
  opt.cancel = &cancel;
  CHECK(sp_to_stream(cancel_after_first, &sink, sp_format_value, &big.root, &opt, &e) ==
        SP_E_CANCELLED);
  CHECK(sink.calls == 1 && sp_error_is_cancelled(&e));
  big_object_free(&big);
}

static int fail_with_42(sp_writer *w, const void *value) {
  (void)w; (void)value;
  return 42;
}

static void callback_failure_keeps_its_code_and_names_the_element(void) {
  sp_value tags[3] = {sp_str("a"), sp_str("b"), sp_custom(fail_with_42, NULL)};
  sp_value rec[4] = {sp_str("id"), sp_int(5), sp_str("tags"), sp_array(tags, 3)};
  sp_value list[2] = {sp_nil(), sp_map(rec, 2)};
  sp_value v = sp_array(list, 2);
  sp_bytes b;
  sp_error e;
  char text[200];
  CHECK(sp_to_array(sp_format_value, &v, NULL, &b, &e) == SP_E_CALLBACK);
  CHECK(e.inner == 42 && !sp_error_is_cancelled(&e));
  CHECK(strcmp(e.path, "[1].tags[2]") == 0);
  sp_error_format(&e, text, sizeof text);
  CHECK(strstr(text, "SP_E_CALLBACK") != NULL && strstr(text, "[1].tags[2]") != NULL);
  CHECK(b.data == NULL);
}

static int failing_sink(void *ctx, const uint8_t *bytes, size_t len) {
  (void)ctx; (void)bytes; (void)len;
  return 7;
}

static void sink_failure_is_reported_and_the_sequence_returned(void) {
  sp_pool *arrays = sp_bucket_pool_create(80 * 1024, 100);
  sp_seq_pool *seqs = sp_seq_pool_create(2, arrays);
  sp_options opt = {0};
  sp_value v = sp_str("hello");
  sp_seq_pool_stats s;
  sp_pool_stats ps;
  sp_error e;
  opt.seq_pool = seqs;
  CHECK(sp_to_stream(failing_sink, NULL, sp_format_value, &v, &opt, &e) == SP_E_SINK);
  CHECK(e.inner == 7);
  sp_seq_pool_stats_get(seqs, &s);
  sp_pool_stats_get(arrays, &ps);
  CHECK(s.rents == 1 && s.returns == 1 && ps.rents == ps.returns);
  sp_seq_pool_destroy(seqs);
  sp_pool_destroy(arrays);
}

static void cyclic_value_fails_cleanly(void) {
  sp_value self[1] = {sp_nil()};
  sp_value v;
  sp_bytes b;
  sp_error e;
  self[0] = sp_array(self, 1);             /* an array that contains itself */
  v = sp_array(self, 1);
  CHECK(sp_to_array(sp_format_value, &v, NULL, &b, &e) == SP_E_DEPTH_LIMIT);
  CHECK(b.data == NULL && strncmp(e.path, "[0][0][0]", 9) == 0);
}

static void failed_call_in_scratch_mode_frees_the_scratch_for_the_next(void) {
  sp_value bad = sp_custom(fail_with_42, NULL);
  sp_value ok = sp_int(1);
  sp_bytes b;
  sp_alloc_stats a;
  CHECK(sp_to_array(sp_format_value, &ok, NULL, &b, NULL) == SP_OK);   /* warm-up */
  sp_bytes_free(&b);
  CHECK(sp_to_array(sp_format_value, &bad, NULL, &b, NULL) == SP_E_CALLBACK);
  sp_alloc_stats_reset();
  CHECK(sp_to_array(sp_format_value, &ok, NULL, &b, NULL) == SP_OK);
  sp_alloc_stats_get(&a);
  CHECK(a.alloc_calls == 1 && b.len == 1);  /* still the scratch: only the result */
  sp_bytes_free(&b);
}

static void timestamp_with_bad_nanoseconds_is_a_value_error(void) {
  sp_value v = sp_timestamp(1, 1000000000u);
  sp_bytes b;
  sp_error e;
  CHECK(sp_to_array(sp_format_value, &v, NULL, &b, &e) == SP_E_VALUE_RANGE);
  CHECK(e.site != NULL && e.cause != NULL);
}

/* ---- fail the Nth allocation --------------------------------------------- */

static long alloc_countdown = -1;           /* fail when it reaches 0; -1 = never */

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) { free(ptr); return NULL; }
  if (alloc_countdown >= 0 && alloc_countdown-- == 0) return NULL;
  return realloc(ptr, nsize);
}

/* Runs one cold call (no pools, no scratch) with the Nth allocation
** failing. Returns the call's code; *triggered says whether the call made
** that many allocations at all. */
static sp_code cold_call_failing_at(long n, const void *value, const sp_options *opt,
                                    int entry, int *triggered) {
  sp_bytes b = {0};
  sp_buffer buf;
  sp_output out = sp_buffer_output(&buf);
  sp_code code;
  sp_buffer_init(&buf);
  sp_shutdown();
  alloc_countdown = n;
  if (entry == 0) code = sp_to_array(sp_format_value, value, opt, &b, NULL);
  else code = sp_to_output(&out, sp_format_value, value, opt, NULL);
  *triggered = alloc_countdown < 0;
  alloc_countdown = -1;
  sp_bytes_free(&b);
  sp_buffer_free(&buf);
  sp_shutdown();
  return code;
}

/* Fails allocation 0, 1, 2, ... of one call until the call makes fewer
** allocations than that. Each run must end OK or with a clean error code,
** and leave nothing allocated. Returns how many runs failed. */
static int fail_each_allocation(const void *value, const sp_options *opt, int entry) {
  int failures = 0, triggered = 1;
  int64_t live;
  sp_shutdown();
  live = sp_alloc_live_bytes();
  for (long n = 0; triggered && n < 1000; n++) {
    sp_code code = cold_call_failing_at(n, value, opt, entry, &triggered);
    CHECK(sp_alloc_live_bytes() == live);
    if (triggered && code != SP_OK) {
      failures++;
      CHECK(code == SP_E_NOMEM || code == SP_E_BUFFER_TOO_SMALL || code == SP_E_CALLBACK);
    }
    if (!triggered) CHECK(code == SP_OK);
  }
  return failures;
}

static void every_failing_allocation_is_reported_and_leaks_nothing(void) {
  big_object big;
  outer o;
  sp_options small_scratch = {0};
  small_scratch.scratch_size = 8;
  big_object_init(&big, 100000);
  outer_init(&o, "AAAAAAAAAA", 10, &small_scratch);
  sp_alloc_set_hook(failing_alloc, NULL);
  for (int entry = 0; entry < 2; entry++) {
    CHECK(fail_each_allocation(&big.root, &small_scratch, entry) > 0);
    CHECK(fail_each_allocation(&o.root, &small_scratch, entry) > 0);
    CHECK(fail_each_allocation(&o.root, NULL, entry) > 0);
  }
  sp_alloc_set_hook(NULL, NULL);
  big_object_free(&big);
}

/* sp_code_name is the enum's own spelling, one name per code: the JS
** package's codes are these names without "SP_E_" (tests/js/vocabulary.test.js). */
static void every_code_has_its_own_name(void) {
  static const struct { sp_code code; const char *name; } spelled[] = {
    {SP_E_NOMEM, "SP_E_NOMEM"}, {SP_E_INVALID_ARGUMENT, "SP_E_INVALID_ARGUMENT"},
    {SP_E_LENGTH_LIMIT, "SP_E_LENGTH_LIMIT"}, {SP_E_TRAILING_BYTES, "SP_E_TRAILING_BYTES"},
    {SP_E_MALFORMED, "SP_E_MALFORMED"}, {SP_E_DEPTH_LIMIT, "SP_E_DEPTH_LIMIT"},
  };
  for (size_t i = 0; i < sizeof spelled / sizeof spelled[0]; i++)
    CHECK(strcmp(sp_code_name(spelled[i].code), spelled[i].name) == 0);
  for (int a = SP_OK; a <= SP_E_TRAILING_BYTES; a++) {
    CHECK(strcmp(sp_code_name((sp_code)a), "SP_E_UNKNOWN") != 0);
    for (int b = SP_OK; b < a; b++)
      CHECK(strcmp(sp_code_name((sp_code)a), sp_code_name((sp_code)b)) != 0);
  }
  CHECK(strcmp(sp_code_name((sp_code)(SP_E_TRAILING_BYTES + 1)), "SP_E_UNKNOWN") == 0);
}

int main(void) {
  SP_RUN(cancelled_call_reports_cancelled_and_leaks_nothing);
  SP_RUN(to_stream_checks_cancel_between_segments);
  SP_RUN(callback_failure_keeps_its_code_and_names_the_element);
  SP_RUN(sink_failure_is_reported_and_the_sequence_returned);
  SP_RUN(cyclic_value_fails_cleanly);
  SP_RUN(failed_call_in_scratch_mode_frees_the_scratch_for_the_next);
  SP_RUN(timestamp_with_bad_nanoseconds_is_a_value_error);
  SP_RUN(every_failing_allocation_is_reported_and_leaks_nothing);
  SP_RUN(every_code_has_its_own_name);
  sp_shutdown();
  return sp_test_summary();
}
