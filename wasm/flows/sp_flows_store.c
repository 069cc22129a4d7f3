/*
** sp_flows_store.c -- the trace store the page reads (events and the bytes
** they point into) and the last flow's result. Owns: both, their accessors
** and the clock. Must not touch: what any flow runs, or the events' meaning
** (sp_trace.h).
*/
#include <emscripten.h>
#include <string.h>

#include "sp_flows.h"

#define EVENTS_CAP 16384
#define BYTES_CAP (2u << 20)        /* the 64 KiB cases write ~66 KB; the big object 100 KB */

static sp_trace_event events[EVENTS_CAP];
static uint8_t bytes[BYTES_CAP];
static sp_trace trace;
uint8_t sp_flows_result[RESULT_CAP];
size_t sp_flows_result_len;
char sp_flows_message[256];
sp_buffer sp_flows_abw;

const sp_trace_event *sp_flow_events(void) { return events; }
size_t sp_flow_event_count(void) { return trace.nevents; }
const uint8_t *sp_flow_bytes(void) { return bytes; }
int sp_flow_overflow(void) { return trace.overflow; }
const uint8_t *sp_flow_result(void) { return sp_flows_result; }
size_t sp_flow_result_len(void) { return sp_flows_result_len; }
const char *sp_flow_message(void) { return sp_flows_message; }

void sp_flows_trace_start(sp_options *opt) {
  sp_trace_init(&trace, events, EVENTS_CAP, bytes, BYTES_CAP);
  opt->observer = &trace.observer;
}

void sp_flows_keep(const uint8_t *p, size_t n) {
  sp_flows_result_len = n < RESULT_CAP ? n : RESULT_CAP;
  if (sp_flows_result_len) memcpy(sp_flows_result, p, sp_flows_result_len);
}

void sp_flows_keep_bytes(sp_bytes *b) {
  sp_flows_keep(b->data, b->len);
  sp_bytes_free(b);
}

double sp_flows_now_ms(void) { return emscripten_get_now(); }
