/*
** sp_trace.h -- a record of what the entries do with their buffers.
** Owns: trace events, the caller's trace storage, the observer that fills
** them. Must not touch: what is traced (writers and entries only call the
** observer hooks of sp_observer.h).
**
** The page plays the documents' flows from these events. A trace is an
** observer: pass &t.observer as sp_options.observer to every entry to
** record, nested ones included (they record one depth deeper). It records
** into storage the caller gave, so it allocates nothing and the allocation
** counters read the same with tracing on; it changes no output byte. It
** holds a traced writer's 'end' to exactly its last reservation so that
** the writer's slow path sees each one; untraced writers never call it.
** Written bytes are recorded when the next reservation (or the end) comes,
** so small values that fit a previous over-reservation are recorded
** together with it. One trace records one thread at a time.
*/
#ifndef SP_TRACE_H
#define SP_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "sp_observer.h"
#include "sp_pool.h"

typedef enum sp_trace_kind {
  SP_TR_ENTRY = 1,   /* an entry starts: flag = entry (SP_TR_ARRAY...), size = scratch size */
  SP_TR_SCRATCH,     /* to_array took the scratch: addr, size, flag = 1 if allocated now,
                        index = 1 if it was already held (legacy overwrite) */
  SP_TR_SCRATCH_BUSY,/* to_array found the scratch held and wrote to a sequence instead */
  SP_TR_RESERVE,     /* a reservation: offset (in the output), size, flag = 1 if it fit */
  SP_TR_WRITE,       /* bytes written: buffer, index (segment), offset in that buffer,
                        size, data = where the bytes are in the trace's byte store */
  SP_TR_MIGRATE,     /* scratch -> sequence: size = bytes copied into segment 0 */
  SP_TR_SEGMENT,     /* a segment rented: index, size = capacity, addr, flag = pool tier
                        (a stream's segments start again at index 0 once they went
                        to the sink) */
  SP_TR_COPY_OUT,    /* the result array: size, flag = buffer it was copied from */
  SP_TR_SINK,        /* to_stream handed a segment to the sink: index, size */
  SP_TR_RELEASE,     /* the sequence went back to its pool: size = segments it held */
  SP_TR_EXIT         /* an entry ends: flag = sp_code, size = output length */
} sp_trace_kind;

enum { SP_TR_ARRAY = 1, SP_TR_OUTPUT, SP_TR_STREAM };                  /* entries */
enum { SP_TR_BUF_SCRATCH = 1, SP_TR_BUF_SEGMENT, SP_TR_BUF_OUTPUT };   /* buffers */
enum { SP_TR_TIER_HIT = 1, SP_TR_TIER_FALLBACK, SP_TR_TIER_FRESH, SP_TR_TIER_UNPOOLED };

typedef struct sp_trace_event {
  uint8_t kind;       /* sp_trace_kind */
  uint8_t depth;      /* 1 for the outermost entry, 2 for one nested in it... */
  uint8_t buffer;     /* SP_TR_BUF_* for RESERVE/WRITE */
  uint8_t flag;       /* see the kinds */
  uint32_t index;     /* segment index, or as the kind says */
  uint32_t data;      /* WRITE: offset of the bytes in the byte store */
  uint32_t thread;    /* a small id of the thread */
  uint64_t offset;
  uint64_t size;
  uint64_t addr;
} sp_trace_event;

#define SP_TRACE_MAX_DEPTH 16   /* entries nested deeper are not recorded (overflow is set) */

/* One traced entry in progress (the trace's own bookkeeping). */
typedef struct sp_trace_frame {
  struct sp_writer *w;
  uint8_t *real_end;        /* the span's end; the writer's 'end' is held short */
  uint8_t *mark;            /* first written byte not yet recorded */
  int mode;                 /* before the slow path: the writer's mode, */
  size_t nsegs;             /* its segments */
  const uint8_t *last_seg;  /* and its last segment, */
  sp_pool_stats pool;       /* and its pool's counters (for the tier) */
} sp_trace_frame;

typedef struct sp_trace {
  sp_observer observer;     /* pass &t.observer as sp_options.observer */
  sp_trace_event *events;
  size_t nevents, cap_events;
  uint8_t *bytes;           /* written bytes, in order */
  size_t nbytes, cap_bytes;
  int overflow;             /* 1 once an event or bytes did not fit */
  unsigned depth;           /* entries active now */
  sp_trace_frame frames[SP_TRACE_MAX_DEPTH];
} sp_trace;

/* Prepares a trace over the caller's arrays (which it keeps owning). */
void sp_trace_init(sp_trace *t, sp_trace_event *events, size_t cap_events,
                   uint8_t *bytes, size_t cap_bytes);

#endif
