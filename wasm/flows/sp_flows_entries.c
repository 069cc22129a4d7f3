/*
** sp_flows_entries.c -- flow 3: the three entries (to_array, to_output,
** to_stream) on the documents' small and big objects, traced once or
** measured over many calls. Owns: those objects, the stream's sink and the
** measurement. Must not touch: the trace store (sp_flows_store.c) or the
** allocator's counters beyond reading them.
*/
#include <string.h>

#include "sp_flows.h"

enum { ENTRY_ARRAY, ENTRY_OUTPUT, ENTRY_STREAM };

static sp_value small_items[3], small_value, big_items[2], big_value;
static char big_text[100000];       /* static: building the value allocates nothing */

/* The documents' objects: Small {7, "inner", 1.5} (17 B) and [1, "A" x
** 100,000] (100,007 B). */
static const sp_value *document_value(int big) {
  if (big_text[0] == 0) {
    memset(big_text, 'A', sizeof big_text);
    small_items[0] = sp_int(7);
    small_items[1] = sp_str("inner");
    small_items[2] = sp_double(1.5);
    small_value = sp_array(small_items, 3);
    big_items[0] = sp_int(1);
    big_items[1] = sp_strn(big_text, sizeof big_text);
    big_value = sp_array(big_items, 2);
  }
  return big ? &big_value : &small_value;
}

static size_t streamed;

/* The stream's sink: the document's MemoryStream, reused (SetLength(0)). */
static int stream_sink(void *ctx, const uint8_t *p, size_t n) {
  (void)ctx;
  if (streamed < RESULT_CAP) memcpy(sp_flows_result + streamed, p, n < RESULT_CAP - streamed ? n : RESULT_CAP - streamed);
  streamed += n;
  return 0;
}

/* One call of 'entry'; leaves its output in 'result'. */
static sp_code run_entry(int entry, const sp_value *v, const sp_options *opt) {
  sp_code code;
  sp_bytes out;
  if (entry == ENTRY_ARRAY) {
    code = sp_to_array(sp_format_value, v, opt, &out, NULL);
    sp_flows_keep_bytes(&out);
  } else if (entry == ENTRY_OUTPUT) {
    sp_output sink = sp_buffer_output(&sp_flows_abw);
    sp_buffer_clear(&sp_flows_abw);
    code = sp_to_output(&sink, sp_format_value, v, opt, NULL);
    sp_flows_keep(sp_flows_abw.data, sp_flows_abw.len);
  } else {
    streamed = 0;
    code = sp_to_stream(stream_sink, NULL, sp_format_value, v, opt, NULL);
    sp_flows_result_len = streamed < RESULT_CAP ? streamed : RESULT_CAP;
  }
  return code;
}

/* One traced call of 'entry' on the small (big = 0) or big object, after
** one warm-up call. Returns the sp_code. */
int sp_flow_entry(int entry, int big) {
  const sp_value *v = document_value(big);
  sp_options opt;
  memset(&opt, 0, sizeof opt);
  run_entry(entry, v, &opt);
  sp_flows_trace_start(&opt);
  return (int)run_entry(entry, v, &opt);
}

/* The document's method: 'warm' calls, then the mean over 'n' calls, read
** from this thread's allocation counters, into *out. Returns the sp_code
** of the last call. */
int sp_flow_measure(int entry, int big, int warm, int n, sp_flow_measurement *out) {
  const sp_value *v = document_value(big);
  sp_alloc_stats s;
  sp_code code = SP_OK;
  double t0;
  for (int i = 0; i < warm; i++) run_entry(entry, v, NULL);
  sp_alloc_stats_reset();
  t0 = sp_flows_now_ms();
  for (int i = 0; i < n && code == SP_OK; i++) code = run_entry(entry, v, NULL);
  out->us_per_call = (sp_flows_now_ms() - t0) * 1e3 / (n > 0 ? n : 1);
  sp_alloc_stats_get(&s);
  out->bytes_per_call = n > 0 ? (double)s.alloc_bytes / n : 0;
  out->allocs_per_call = n > 0 ? (double)s.alloc_calls / n : 0;
  out->length = (double)sp_flows_result_len;
  return (int)code;
}
