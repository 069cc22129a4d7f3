/*
** test_trace.c -- the trace the page plays: what each entry did with its
** buffers, recorded without changing a byte of output or a single
** allocation, and enough to redraw the documents' flows. The trace is an
** observer in the options of every entry it records.
*/
#include <string.h>

#include "fixtures.h"
#include "sp_trace.h"
#include "sp_test.h"

static sp_trace_event events[4096];
static uint8_t bytes[1 << 20];
static sp_trace trace;

/* A fresh trace; 'opt' (zeroed first when 'clear') records into it. */
static sp_options *start(sp_options *opt, int clear) {
  if (clear) memset(opt, 0, sizeof *opt);
  sp_trace_init(&trace, events, 4096, bytes, sizeof bytes);
  opt->observer = &trace.observer;
  return opt;
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

static int discard(void *ctx, const uint8_t *bytes, size_t len) {
  (void)ctx; (void)bytes; (void)len;
  return 0;
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
  start(&opt, 0);
  CHECK(sp_to_array(seven_then_string, NULL, &opt, &b, NULL) == SP_OK);
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
  outer_init(&o, "AAAAAAAAAA", 10, start(&legacy, 0));
  CHECK(sp_to_array(sp_format_value, &o.root, &legacy, &b, NULL) == SP_OK);
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
  outer_init(&o, "AAAAAAAAAA", 10, start(&legacy, 0));
  CHECK(sp_to_array(sp_format_value, &o.root, &legacy, &b, NULL) == SP_OK);
  replay_scratch(cells, sizeof cells, nested_entry());
  CHECK_BYTES(cells, 12, before, 12);                 /* as the outer call wrote them */
  for (size_t i = nested_entry(); i < trace.nevents; i++)   /* and never again at depth 1 */
    CHECK(!(events[i].kind == SP_TR_WRITE && events[i].depth == 1 && events[i].offset < 12));
  CHECK(trace.depth == 0 && trace.frames[0].w == NULL);
  sp_bytes_free(&b);
  sp_shutdown();
}

static void safe_trace_shows_the_inner_call_in_a_segment(void) {
  static const uint8_t intact[12] = {0x93, 0xAA, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41,
                                     0x41, 0x41, 0x41, 0x41};
  uint8_t cells[64];
  outer o;
  sp_bytes b;
  sp_options opt;
  outer_init(&o, "AAAAAAAAAA", 10, start(&opt, 1));
  CHECK(sp_to_array(sp_format_value, &o.root, &opt, &b, NULL) == SP_OK);
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
    sp_options opt;
    sp_to_array(sp_format_value, values[v], NULL, &plain, NULL);      /* warm-up */
    sp_bytes_free(&plain);
    sp_alloc_stats_reset();
    sp_to_array(sp_format_value, values[v], NULL, &plain, NULL);
    sp_alloc_stats_get(&a);
    start(&opt, 1);
    sp_alloc_stats_reset();
    sp_to_array(sp_format_value, values[v], &opt, &traced, NULL);
    sp_alloc_stats_get(&t);
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
  sp_options opt = {0};
  big_object_init(&big, 1000);
  sp_trace_init(&trace, few, 3, some, sizeof some);
  opt.observer = &trace.observer;
  CHECK(sp_to_array(sp_format_value, &big.root, &opt, &b, NULL) == SP_OK);
  CHECK(trace.overflow && trace.nevents == 3 && b.len == 1000 + 5);
  sp_bytes_free(&b);
  big_object_free(&big);
}

/* to_stream: each segment goes to the sink once it is full, before the
** next is rented, and its bytes are the ones recorded as written in it. */
static void stream_trace_sinks_each_segment_before_the_next(void) {
  big_object big;
  sp_options opt;
  size_t sinks = 0, segments = 0, exit_at = trace.nevents;
  big_object_init(&big, 100000);
  start(&opt, 1);
  CHECK(sp_to_stream(discard, NULL, sp_format_value, &big.root, &opt, NULL) == SP_OK);
  for (size_t i = 0; i < trace.nevents; i++) {
    if (events[i].kind == SP_TR_SEGMENT) CHECK(segments++ == sinks);   /* rented after the last sink */
    if (events[i].kind == SP_TR_SINK) sinks++;
    if (events[i].kind == SP_TR_EXIT) exit_at = i;
  }
  CHECK(sinks >= 2 && segments == sinks);
  CHECK(exit_at == trace.nevents - 1 && events[exit_at].size == 100007);
  CHECK(find(SP_TR_RELEASE, 0) != NULL && !trace.overflow);
  big_object_free(&big);
}

/* An observer that only counts: what it is told is the slow path and the
** entry's begin and end, never the inline writes. */
typedef struct counting_observer {
  sp_observer base;
  int notes[SP_NOTE_END + 1];
  int reserves, spans;
} counting_observer;

static void count_note(sp_observer *o, sp_writer *w, const sp_note *n) {
  (void)w;
  ((counting_observer *)o)->notes[n->kind]++;
}
static uint8_t *count_reserve(sp_observer *o, sp_writer *w, size_t n) {
  (void)w; (void)n;
  ((counting_observer *)o)->reserves++;
  return NULL;
}
static void count_span(sp_observer *o, sp_writer *w, size_t n) {
  (void)w; (void)n;
  ((counting_observer *)o)->spans++;
}
static size_t count_room(sp_observer *o, const sp_writer *w) {
  (void)o;
  return (size_t)(w->end - w->cur);
}

static void an_observer_sees_the_slow_path_and_the_lifecycle_only(void) {
  static const sp_observer_hooks hooks = {count_note, count_reserve, count_span, count_room};
  counting_observer c;
  sp_options opt = {0};
  sp_value items[2] = {sp_int(1), sp_str("hello")};
  sp_value v = sp_array(items, 2);
  sp_bytes b;
  memset(&c, 0, sizeof c);
  c.base.hooks = &hooks;
  opt.observer = &c.base;
  CHECK(sp_to_array(sp_format_value, &v, &opt, &b, NULL) == SP_OK);
  CHECK(c.reserves == 0 && c.spans == 0);           /* 8 bytes in a 64 KiB scratch: all inline */
  CHECK(c.notes[SP_NOTE_BEGIN] == 1 && c.notes[SP_NOTE_SCRATCH] == 1);
  CHECK(c.notes[SP_NOTE_FLUSH] == 1 && c.notes[SP_NOTE_COPY_OUT] == 1 && c.notes[SP_NOTE_END] == 1);
  sp_bytes_free(&b);
  opt.scratch_size = 8;                             /* now the slow path runs once: migration */
  CHECK(sp_to_array(sp_format_value, &v, &opt, &b, NULL) == SP_OK);
  CHECK(c.reserves == 1 && c.spans == 1 && c.notes[SP_NOTE_RELEASE] == 1);
  sp_bytes_free(&b);
  sp_thread_cleanup();
}

int main(void) {
  SP_RUN(eight_byte_scratch_trace_shows_seven_bytes_migrated);
  SP_RUN(legacy_trace_shows_the_inner_call_overwriting_the_scratch);
  SP_RUN(legacy_trace_records_the_outer_bytes_before_the_inner_call);
  SP_RUN(safe_trace_shows_the_inner_call_in_a_segment);
  SP_RUN(tracing_changes_no_byte_and_no_allocation);
  SP_RUN(a_full_trace_store_sets_overflow_and_output_is_intact);
  SP_RUN(stream_trace_sinks_each_segment_before_the_next);
  SP_RUN(an_observer_sees_the_slow_path_and_the_lifecycle_only);
  sp_shutdown();
  return sp_test_summary();
}
