/*
** sp_wasm_lz4.c -- C's LZ4 block calls for JS: the decoder lends C's
** decompressor to big blocks, the tests and the benchmark compress with C's
** compressor (the one the entries use). Owns: those three calls. Must not
** touch: the block format (sp_lz4) or the entries' compression (the jobs
** ask for it through their options).
*/
#include "sp_wasm.h"

/* The LZ4 bound of n bytes (sp_lz4_bound): 0 past SP_LZ4_MAX_INPUT. */
size_t sp_wasm_lz4_bound(size_t n) { return sp_lz4_bound(n); }

/* Compresses src[0..n) into one LZ4 block at dst[0..cap). Returns its
** length, or 0 when cap is below the bound or the 16 KiB state could not
** be allocated (it is allocated and freed per call: this is for tests, not
** a hot path). */
size_t sp_wasm_lz4_compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) {
  sp_lz4_state *st = sp_malloc(sizeof *st);
  size_t len = 0;
  if (st == NULL) return 0;
  if (sp_lz4_compress(src, n, dst, cap, st, &len) != SP_OK) len = 0;
  sp_free(st, sizeof *st);
  return len;
}

/* Decompresses the block src[0..n) into dst[0..cap). Returns the bytes it
** decoded to, or minus its sp_code. */
double sp_wasm_lz4_decompress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap) {
  size_t len;
  sp_code rc = sp_lz4_decompress(src, n, dst, cap, &len);
  return rc == SP_OK ? (double)len : -(double)rc;
}
