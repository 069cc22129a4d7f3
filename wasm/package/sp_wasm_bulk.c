/*
** sp_wasm_bulk.c -- numeric arrays JS stages in linear memory, formatted and
** read by C without a job: encodeInto's typed arrays, a big array's chunks,
** and the decoder's typed reads. Owns: those two calls. Must not touch: the
** jobs (a job's own bulk write is sp_wasm_write_array, sp_wasm_jobs.c) or
** the kernels (sp_bulk).
*/
#include "sp_wasm.h"

/* Reads one array of 'kind' elements from src[0..len) into dst (room for
** cap elements) with the C reader (sp_bulk_read.c). Returns the bytes the
** array took, or 0 when it is not such an array (an element of another type
** or out of range, truncated, longer than cap): the JS decoder then reads
** it itself and reports any error with its own offsets. */
size_t sp_wasm_read_array(int kind, const uint8_t *src, size_t len, void *dst, size_t cap) {
  sp_reader r;
  uint32_t n = 0;
  int ok;
  sp_reader_init(&r, src, len);
  ok = sp_read_numeric_array(&r, (sp_num_kind)kind, dst, cap, &n);
  return ok && n == cap ? (size_t)sp_reader_offset(&r) : 0;
}

typedef struct array_args { int kind; const void *src; size_t n; } array_args;

static int format_array(sp_writer *w, const void *value) {
  const array_args *a = value;
  sp_write_numeric_array(w, (sp_num_kind)a->kind, a->src, a->n);
  return 0;
}

/* Encodes n elements of 'kind' staged at src as one MessagePack array into
** dst[0..cap) (JS gives cap >= 9n + 5, the worst case). Returns its length,
** or 0 when it did not fit or the kind is unknown. Allocates nothing: this
** is how encodeInto writes typed arrays, and how any entry writes a big one
** a chunk at a time (JS writes the whole array's header and drops each
** chunk's own), so no staging block ever holds more than a chunk. */
size_t sp_wasm_encode_array(int kind, const void *src, size_t n, uint8_t *dst, size_t cap) {
  array_args a = {kind, src, n};
  sp_buffer fixed = {dst, 0, cap, cap};
  sp_output out = sp_fixed_output(&fixed);
  return sp_to_output(&out, format_array, &a, NULL, NULL) == SP_OK ? fixed.len : 0;
}
