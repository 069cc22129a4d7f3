/*
** sp_flows.h -- what the files of the page's flows module (wasm/flows/)
** share: the trace store and the last result (sp_flows_store.c), the
** records JS reads (a fan-out sample, a measurement) and the clock. Owns:
** those declarations. Must not touch: any one flow (each has its file) or
** the layout JS sees (sp_flows_abi.c tells it).
**
** Built into the page's own module (dist-web/), never into the published
** ones. JS (web/trace.js) calls one sp_flow_* run, then reads the trace
** through the accessors. Every run happens on the calling thread except
** the fan-out, which starts its own pthreads and returns at once. The flows
** use the public API only, as any caller of the library would.
*/
#ifndef SP_FLOWS_H
#define SP_FLOWS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "scratchpack.h"
#include "sp_trace.h"

#define RESULT_CAP (256u << 10)

/* The last flow's result (static: keeping a result must not count as
** allocation), cut at RESULT_CAP; and the message of the last read-back. */
extern uint8_t sp_flows_result[RESULT_CAP];
extern size_t sp_flows_result_len;
extern char sp_flows_message[256];
/* The caller's reused buffer writer of the to_output flows. */
extern sp_buffer sp_flows_abw;

/* A fresh trace that the entries given 'opt' record into. */
void sp_flows_trace_start(sp_options *opt);
/* Copies a result out (cut at RESULT_CAP; the page shows its length). */
void sp_flows_keep(const uint8_t *p, size_t n);
/* Keeps a to_array result and frees it. */
void sp_flows_keep_bytes(sp_bytes *b);
/* performance.now() in ms, on any thread of the module. */
double sp_flows_now_ms(void);

/* One measurement of sp_flow_measure (sp_flows_entries.c): means per call. */
typedef struct sp_flow_measurement {
  double bytes_per_call, allocs_per_call;   /* from the allocation counters */
  double length;                            /* the output's */
  double us_per_call;
} sp_flow_measurement;

#define FAN_CONSUMERS 4             /* at most */

/* One fan-out sample (sp_flows_fanout.c). Counters are cumulative since
** the start of the run. */
typedef struct sp_flow_sample {
  uint32_t phase;                   /* 1 = the wave was rented, 2 = it came back */
  uint32_t wave, t_us, in_flight;
  uint32_t rents, returns, slot_hits, partition_hits, lock_waits, fresh, drops, cached;
  uint32_t return_ns;               /* time the consumers spent inside their return
                                       loops, summed over them: no wake-up in it */
  uint32_t phase_us;                /* this phase as the producer saw it, wake-ups included */
  uint32_t kind, consumers;
  uint32_t returned[FAN_CONSUMERS]; /* returns so far, per consumer */
} sp_flow_sample;

enum { FAN_IDLE, FAN_RUNNING, FAN_DONE, FAN_FAILED = -1, FAN_NO_THREADS = -2 };

#endif
