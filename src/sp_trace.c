/*
** sp_trace.c -- the trace store and the thread's active trace.
** Owns: appending events and bytes into caller storage. Must not touch: the
** writer or entries (they decide what to record).
*/
#include <stdatomic.h>
#include <string.h>

#include "sp_trace.h"

static _Thread_local sp_trace *active;
static _Thread_local uint32_t thread_id;
static atomic_uint next_thread_id;

void sp_trace_init(sp_trace *t, sp_trace_event *events, size_t cap_events,
                   uint8_t *bytes, size_t cap_bytes) {
  memset(t, 0, sizeof *t);
  t->events = events;
  t->cap_events = cap_events;
  t->bytes = bytes;
  t->cap_bytes = cap_bytes;
}

void sp_trace_begin(sp_trace *t) { active = t; }
void sp_trace_end(void) { active = NULL; }
sp_trace *sp_trace_active(void) { return active; }

sp_trace_event *sp_trace_add(sp_trace *t, sp_trace_kind kind) {
  sp_trace_event *e;
  if (t->nevents == t->cap_events) { t->overflow = 1; return NULL; }
  if (thread_id == 0) thread_id = atomic_fetch_add(&next_thread_id, 1) + 1;
  e = &t->events[t->nevents++];
  memset(e, 0, sizeof *e);
  e->kind = (uint8_t)kind;
  e->depth = (uint8_t)t->depth;
  e->thread = thread_id;
  return e;
}

uint32_t sp_trace_bytes(sp_trace *t, const void *p, size_t n) {
  uint32_t at = (uint32_t)t->nbytes;
  if (t->cap_bytes - t->nbytes < n) { t->overflow = 1; n = t->cap_bytes - t->nbytes; }
  memcpy(t->bytes + t->nbytes, p, n);
  t->nbytes += n;
  return at;
}
