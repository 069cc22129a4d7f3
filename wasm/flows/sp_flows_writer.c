/*
** sp_flows_writer.c -- flow 1: the to_array writer's two modes, on the
** document's value [1 .. n, s] in a scratch of the page's size. Owns: that
** value and its exact-size formatter. Must not touch: the trace store
** (sp_flows_store.c) or encodings beyond the leaves it writes.
*/
#include "sp_flows.h"

typedef struct writer_case {
  int nints;                        /* [1, 2, .. nints, s] */
  const char *s;
  size_t len;
} writer_case;

/* Each leaf reserves exactly its size, as MessagePack-CSharp's writer does
** (GetSpan(1) for a fixint). scratchpack's value formatter reserves the worst
** case (9 B for any int), which an 8-byte scratch could never hold; the
** document draws 8 cells, so the page's formatter writes exactly. */
static int format_writer_case(sp_writer *w, const void *value) {
  const writer_case *v = value;
  uint8_t leaf[9];
  sp_write_raw(w, leaf, sp_put_header(leaf, (uint32_t)v->nints + 1, 0x90, 15, 0xdc));
  for (int i = 1; i <= v->nints; i++) sp_write_raw(w, leaf, sp_put_int(leaf, i));
  sp_write_str(w, v->s, v->len);
  return 0;
}

/* [1 .. nints, s] through to_array with a scratch of scratch_size bytes.
** One untraced call first: the document's thread "already called once", so
** the traced call finds its scratch and a warm pool. Returns the sp_code. */
int sp_flow_writer(int nints, const char *s, size_t len, size_t scratch_size) {
  writer_case v = {nints, s, len};
  sp_options opt;
  sp_bytes out;
  sp_code code;
  memset(&opt, 0, sizeof opt);
  opt.scratch_size = scratch_size;
  sp_to_array(format_writer_case, &v, &opt, &out, NULL);
  sp_bytes_free(&out);
  sp_flows_trace_start(&opt);
  code = sp_to_array(format_writer_case, &v, &opt, &out, NULL);
  sp_flows_keep_bytes(&out);
  return (int)code;
}
