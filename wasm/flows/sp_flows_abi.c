/*
** sp_flows_abi.c -- the layout of every record web/trace.js reads from the
** page's flows module, as this build lays it out. Owns: the table
** sp_flow_abi returns (format: wasm/sp_abi.h), read by js/abi.js. Must not
** touch: the records (sp_trace.h, sp_flows.h) or what the page does with
** them.
*/
#include "sp_abi.h"
#include "sp_flows.h"

#define EVENT(m) SP_ABI_FIELD("event", sp_trace_event, m)
#define SAMPLE(m) SP_ABI_FIELD("sample", sp_flow_sample, m)
#define MEASURE(m) SP_ABI_FIELD("measurement", sp_flow_measurement, m)

static const sp_abi_entry table[] = {
  SP_ABI_RECORD("event", sp_trace_event),
  EVENT(kind), EVENT(depth), EVENT(buffer), EVENT(flag), EVENT(index), EVENT(data), EVENT(thread),
  EVENT(offset), EVENT(size), EVENT(addr),

  SP_ABI_RECORD("sample", sp_flow_sample),
  SAMPLE(phase), SAMPLE(wave), SAMPLE(t_us), SAMPLE(in_flight), SAMPLE(rents), SAMPLE(returns),
  SAMPLE(slot_hits), SAMPLE(partition_hits), SAMPLE(lock_waits), SAMPLE(fresh), SAMPLE(drops),
  SAMPLE(cached), SAMPLE(return_ns), SAMPLE(phase_us), SAMPLE(kind), SAMPLE(consumers),
  SAMPLE(returned),
  SP_ABI_CONST("fanout_running", FAN_RUNNING),

  SP_ABI_RECORD("measurement", sp_flow_measurement),
  MEASURE(bytes_per_call), MEASURE(allocs_per_call), MEASURE(length), MEASURE(us_per_call),
  SP_ABI_END,
};

const sp_abi_entry *sp_flow_abi(void) { return table; }
