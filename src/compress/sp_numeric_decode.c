/*
** sp_numeric_decode.c -- a whole message as one numeric array, compressed
** or not: the plain bytes (sp_decompress.c) read by the bulk readers.
** Owns: the check that nothing follows the array. Must not touch: the
** element loops (bulk/) or the LZ4 layouts (sp_decompress.c).
*/
#include "sp_compress.h"

sp_code sp_numeric_array_decode(const void *data, size_t len, sp_num_kind kind, void *dst,
                                size_t cap, uint32_t *n, const sp_decompress_options *opt,
                                sp_error *err) {
  sp_reader r;
  sp_plain p;
  sp_reader *src;
  *n = 0;
  sp_reader_init(&r, data, len);
  src = sp_plain_open(&p, &r, opt);
  sp_read_numeric_array(src, kind, dst, cap, n);
  if (sp_plain_close(&p, 1) == SP_OK && sp_reader_remaining(&r) != 0)
    sp_reader_fail(&r, SP_E_TRAILING_BYTES, "bytes after the end of the array", __func__);
  if (err != NULL) *err = r.err;
  return r.err.code;
}
