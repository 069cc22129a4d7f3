/*
** test_trace.c -- the trace the page plays: what each entry did with its
** buffers, recorded without changing a byte of output or a single
** allocation, and enough to redraw the documents' flows.
*/
#include <string.h>

#include "fixtures.h"
#include "sp_test.h"

static sp_trace_event events[4096];
static uint8_t bytes[1 << 20];
static sp_trace trace;

static void start(void) {
  sp_trace_init(&trace, events, 4096, bytes, sizeof bytes);
  sp_trace_begin(&trace);
}

static const sp_trace_event *find(sp_trace_kind kind, unsigned nth) {
  for (size_t i = 0; i < trace.nevents; i++)
    if (events[i].kind == kind && nth-- == 0) return &events[i];
  return NULL;
}

/* Replays WRITE events into scratch cells up to event 'upto'. */
static void replay_scratch(uint8_t *cells, size_t n, size_t upto) {
  memset(cells, 0, n);
  for (size_t i = 0; i < upto && i < trace.nevents; i++) {
    const sp_trace_event *e = &events[i];
    if (e->kind != SP_TR_WRITE || e->buffer != SP_TR_BUF_SCRATCH) continue;
    for (uint64_t k = 0; k < e->size && e->offset + k < n; k++)
      cells[e->offset + k] = bytes[e->data + k];
  }
}

static int seven_then_string(sp_writer *w, const void *value) {
  static const uint8_t seven[] = {0x93, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06};
  (void)value;
  sp_write_raw(w, seven, sizeof seven);
  sp_write_str(w, "ABCD", 4);
  return 0;
}

static void eight_byte_scratch_trace_shows_seven_bytes_migrated(void) {
  sp_options opt = {0};
  sp_bytes b;
  const sp_trace_event *m, *seg, *miss, *out;
  opt.scratch_size = 8;
  start();
  CHECK(sp_to_array(seven_then_string, NULL, &opt, &b, NULL) == SP_OK);
  sp_trace_end();
  m = find(SP_TR_MIGRATE, 0);
  seg = find(SP_TR_SEGMENT, 0);
  out = find(SP_TR_COPY_OUT, 0);
  miss = NULL;
  for (size_t i = 0; i < trace.nevents && miss == NULL; i++)
    if (events[i].kind == SP_TR_RESERVE && !events[i].flag) miss = &events[i];
  CHECK(find(SP_TR_SCRATCH, 0) != NULL && find(SP_TR_SCRATCH, 0)->size == 8);
  CHECK(miss != NULL && miss->offset == 7);            /* the reservation that did not fit */
  CHECK(m != NULL && m->size == 7);                    /* 7 bytes copied ... */
  CHECK(seg != NULL && seg->index == 0 && seg < m);    /* ... into the first segment */
  CHECK(out != NULL && out->size == 12 && out->flag == SP_TR_BUF_SEGMENT);
  CHECK(events[0].kind == SP_TR_ENTRY && events[trace.nevents - 1].kind == SP_TR_EXIT);
  CHECK(!trace.overflow);
  sp_bytes_free(&b);
}

/* The depth-1 EXIT event index, i.e. the end of the outer call. */
static size_t nested_exit(void) {
  for (size_t i = 0; i < trace.nevents; i++)
    if (events[i].kind == SP_TR_EXIT && events[i].depth == 2) return i;
  return trace.nevents;
}

static void legacy_trace_shows_the_inner_call_overwriting_the_scratch(void) {
  static const uint8_t overwritten[12] = {0x93, 0x07, 0xA5, 0x69, 0x6E, 0x6E, 0x65, 0x72,
                                          0xCB, 0x3F, 0xF8, 0x00};
  sp_options legacy = {0};
  uint8_t cells[64];
  outer o;
  sp_bytes b;
  const sp_trace_event *inner_scratch;
  legacy.legacy_nested_scratch = 1;
  outer_init(&o, "AAAAAAAAAA", 10, &legacy);
  start();
  CHECK(sp_to_array(sp_format_value, &o.root, &legacy, &b, NULL) == SP_OK);
  sp_trace_end();
  inner_scratch = find(SP_TR_SCRATCH, 1);
  CHECK(inner_scratch != NULL && inner_scratch->depth == 2 && inner_scratch->index == 1);
  CHECK(inner_scratch->addr == find(SP_TR_SCRATCH, 0)->addr);   /* the same array */
  replay_scratch(cells, sizeof cells, nested_exit());
  CHECK_BYTES(cells, 12, overwritten, 12);
  CHECK_BYTES(b.data, 12, overwritten, 12);
  sp_bytes_free(&b);
  sp_shutdown();
}

/* The depth-2 ENTRY event index, i.e. the start of the nested call. */
static size_t nested_entry(void) {
  for (size_t i = 0; i < trace.nevents; i++)
    if (events[i].kind == SP_TR_ENTRY && events[i].depth == 2) return i;
  return trace.nevents;
}

static void legacy_trace_records_the_outer_bytes_before_the_inner_call(void) {
  static const uint8_t before[12] = {0x93, 0xAA, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41,
                                     0x41, 0x41, 0x41, 0x41};
  sp_options legacy = {0};
  uint8_t cells[64];
  outer o;
  sp_bytes b;
  legacy.legacy_nested_scratch = 1;
  outer_init(&o, "AAAAAAAAAA", 10, &legacy);
  start();
  CHECK(sp_to_array(sp_format_value, &o.root, &legacy, &b, NULL) == SP_OK);
  sp_trace_end();
  replay_scratch(cells, sizeof cells, nested_entry());
  CHECK_BYTES(cells, 12, before, 12);                 /* as the outer call wrote them */
  for (size_t i = nested_entry(); i < trace.nevents; i++)   /* and never again at depth 1 */
    CHECK(!(events[i].kind == SP_TR_WRITE && events[i].depth == 1 && events[i].offset < 12));
  CHECK(trace.depth == 0 && trace.writers[0] == NULL);
  sp_bytes_free(&b);
  sp_shutdown();
}

static void safe_trace_shows_the_inner_call_in_a_segment(void) {
  static const uint8_t intact[12] = {0x93, 0xAA, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41,
                                     0x41, 0x41, 0x41, 0x41};
  uint8_t cells[64];
  outer o;
  sp_bytes b;
  outer_init(&o, "AAAAAAAAAA", 10, NULL);
  start();
  CHECK(sp_to_array(sp_format_value, &o.root, NULL, &b, NULL) == SP_OK);
  sp_trace_end();
  CHECK(find(SP_TR_SCRATCH_BUSY, 0) != NULL && find(SP_TR_SCRATCH_BUSY, 0)->depth == 2);
  replay_scratch(cells, sizeof cells, trace.nevents);
  CHECK_BYTES(cells, 12, intact, 12);
  CHECK_BYTES(b.data, 12, intact, 12);
  sp_bytes_free(&b);
  sp_shutdown();
}

static void tracing_changes_no_byte_and_no_allocation(void) {
  big_object big;
  sp_value items[2] = {sp_int(1), sp_str("hello")};
  sp_value small = sp_array(items, 2);
  const sp_value *values[2] = {&small, NULL};
  big_object_init(&big, 100000);
  values[1] = &big.root;
  for (int v = 0; v < 2; v++) {
    sp_bytes plain, traced;
    sp_alloc_stats a, t;
    sp_to_array(sp_format_value, values[v], NULL, &plain, NULL);      /* warm-up */
    sp_bytes_free(&plain);
    sp_alloc_stats_reset();
    sp_to_array(sp_format_value, values[v], NULL, &plain, NULL);
    sp_alloc_stats_get(&a);
    start();
    sp_alloc_stats_reset();
    sp_to_array(sp_format_value, values[v], NULL, &traced, NULL);
    sp_alloc_stats_get(&t);
    sp_trace_end();
    CHECK_BYTES(traced.data, traced.len, plain.data, plain.len);
    CHECK(a.alloc_calls == t.alloc_calls && a.alloc_bytes == t.alloc_bytes);
    sp_bytes_free(&plain);
    sp_bytes_free(&traced);
  }
  big_object_free(&big);
}

static void a_full_trace_store_sets_overflow_and_output_is_intact(void) {
  sp_trace_event few[3];
  uint8_t some[4];
  big_object big;
  sp_bytes b;
  big_object_init(&big, 1000);
  sp_trace_init(&trace, few, 3, some, sizeof some);
  sp_trace_begin(&trace);
  CHECK(sp_to_array(sp_format_value, &big.root, NULL, &b, NULL) == SP_OK);
  sp_trace_end();
  CHECK(trace.overflow && trace.nevents == 3 && b.len == 1000 + 5);
  sp_bytes_free(&b);
  big_object_free(&big);
}

int main(void) {
  SP_RUN(eight_byte_scratch_trace_shows_seven_bytes_migrated);
  SP_RUN(legacy_trace_shows_the_inner_call_overwriting_the_scratch);
  SP_RUN(legacy_trace_records_the_outer_bytes_before_the_inner_call);
  SP_RUN(safe_trace_shows_the_inner_call_in_a_segment);
  SP_RUN(tracing_changes_no_byte_and_no_allocation);
  SP_RUN(a_full_trace_store_sets_overflow_and_output_is_intact);
  sp_shutdown();
  return sp_test_summary();
}
