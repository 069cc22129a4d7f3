/*
** fuzz_lz4_roundtrip.c -- libFuzzer target: any bytes through sp_lz4_compress
** come back from sp_lz4_decompress_exact and from liblz4's
** LZ4_decompress_safe, and liblz4's own block of them decodes here too.
** fuzz-args: -max_len=200000
*/
#include <lz4.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sp_lz4.h"

static sp_lz4_state state;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t bound = sp_lz4_bound(size), clen = 0;
  uint8_t *block = malloc(bound), *out = malloc(size ? size : 1);
  int theirs;
  FUZZ_ASSERT(block != NULL && out != NULL);
  FUZZ_ASSERT(sp_lz4_compress(data, size, block, bound, &state, &clen) == SP_OK);
  FUZZ_ASSERT(clen >= 1 && clen <= bound);
  FUZZ_ASSERT(sp_lz4_decompress_exact(block, clen, out, size) == SP_OK);
  FUZZ_ASSERT(size == 0 || memcmp(out, data, size) == 0);
  memset(out, 0, size);
  FUZZ_ASSERT(LZ4_decompress_safe((const char *)block, (char *)out, (int)clen, (int)size) == (int)size);
  FUZZ_ASSERT(size == 0 || memcmp(out, data, size) == 0);
  theirs = LZ4_compress_default((const char *)data, (char *)block, (int)size, (int)bound);
  FUZZ_ASSERT(theirs > 0);
  memset(out, 0, size);
  FUZZ_ASSERT(sp_lz4_decompress_exact(block, (size_t)theirs, out, size) == SP_OK);
  FUZZ_ASSERT(size == 0 || memcmp(out, data, size) == 0);
  free(block);
  free(out);
  return 0;
}
