/*
** sp_flows_envelope.c -- flow 2: the envelope formatter's nested to_array
** (MessagePack-CSharp's overwrite and scratchpack's safe default), and the
** typed read-back of its result. Owns: running Outer through each outer
** entry and reading it back. Outer, Envelope and their formatter are the C
** tests' (tests/c/envelope.h), so the page runs what the tests check. Must
** not touch: the trace store (sp_flows_store.c) or the entries' insides.
*/
#include <stdio.h>

#include "envelope.h"
#include "sp_flows.h"

enum { OUTER_ARRAY_LEGACY, OUTER_OUTPUT, OUTER_ARRAY_SAFE };

static sp_code run_outer(int mode, const outer *o, const sp_options *opt) {
  sp_bytes out;
  sp_code code;
  if (mode == OUTER_OUTPUT) {
    sp_output sink = sp_buffer_output(&sp_flows_abw);
    sp_buffer_clear(&sp_flows_abw);
    code = sp_to_output(&sink, sp_format_value, &o->root, opt, NULL);
    sp_flows_keep(sp_flows_abw.data, sp_flows_abw.len);
    return code;
  }
  code = sp_to_array(sp_format_value, &o->root, opt, &out, NULL);
  sp_flows_keep_bytes(&out);
  return code;
}

/* Outer {before, Envelope(Small{id, name, 1.5}), 99} with the outer entry of
** 'mode'. The legacy modes are MessagePack-CSharp's behaviour (the nested
** call takes the scratch even while it is held); the safe mode is
** scratchpack's default. Returns the sp_code. */
int sp_flow_envelope(int mode, const char *before, size_t before_len, int32_t id,
                     const char *name, size_t name_len, size_t scratch_size) {
  sp_options opt;
  outer o;
  memset(&opt, 0, sizeof opt);
  opt.scratch_size = scratch_size;
  opt.legacy_nested_scratch = mode != OUTER_ARRAY_SAFE;
  outer_set(&o, before, before_len, id, name, name_len, &opt);
  run_outer(mode, &o, &opt);                       /* warm: scratch, pools, abw */
  sp_flows_trace_start(&opt);                               /* the nested call's options too */
  return (int)run_outer(mode, &o, &opt);
}

/* Reads the last sp_flows_result back as Outer {str, bin([int, str, double]), int},
** as a typed deserializer would. Returns 1 when it reads; the message says
** what was read, or where and why reading failed. */
int sp_flow_check_outer(void) {
  sp_reader r, ir;
  uint32_t n = 0, len = 0, blen = 0, nlen = 0;
  const char *before = NULL, *name = NULL;
  const uint8_t *bin = NULL;
  int64_t after = 0, id = 0;
  double x = 0;
  const char *where = "";
  sp_reader_init(&r, sp_flows_result, sp_flows_result_len);
  if (sp_read_array_header(&r, &n) && n == 3 && sp_read_str(&r, &before, &len) &&
      sp_read_bin(&r, &bin, &blen) && sp_read_int64(&r, &after)) {
    sp_reader_init(&ir, bin, blen);
    if (sp_read_array_header(&ir, &n) && n == 3 && sp_read_int64(&ir, &id) &&
        sp_read_str(&ir, &name, &nlen) && sp_read_double(&ir, &x)) {
      snprintf(sp_flows_message, sizeof sp_flows_message, "Before=\"%.*s\" Inner.Id=%lld Inner.Name=\"%.*s\" After=%lld",
               (int)(len < 40 ? len : 40), before, (long long)id, (int)(nlen < 40 ? nlen : 40),
               name, (long long)after);
      return 1;
    }
    r = ir;
    where = "Inner's bin, ";
  }
  if (r.err.code == SP_OK) sp_reader_fail(&r, SP_E_TYPE, "not an Outer of 3 fields", __func__);
  snprintf(sp_flows_message, sizeof sp_flows_message, "%s at %sbyte %zu: %s", sp_code_name(r.err.code), where,
           r.err.offset, r.err.cause ? r.err.cause : "");
  return 0;
}
