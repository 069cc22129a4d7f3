/*
** fuzz_lz4_decompress.c -- libFuzzer target: sp_lz4_decompress on any bytes.
** Input: 2 bytes of output capacity (little-endian), then the block.
**
** Besides ASan/UBSan (nothing read or written outside the input or the
** exact-size output), it checks against liblz4: whenever
** LZ4_decompress_safe decodes the block, we decode it too, to the same
** bytes -- unless the block has an offset of 0, which the format forbids
** and we refuse, while liblz4 copies the output's own unwritten bytes. A
** failure is one of the documented codes; a success decodes again with
** sp_lz4_decompress_exact at the length it gave.
*/
#include <lz4.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sp_lz4.h"

/* Whether walking the block's sequences meets an offset of 0 (lengths and
** literals skipped, output not produced). */
static int has_zero_offset(const uint8_t *p, size_t len) {
  size_t i = 0;
  while (i < len) {
    unsigned token = p[i++];
    size_t nlit = token >> 4;
    if (nlit == 15) {
      unsigned b;
      do { if (i >= len) return 0; b = p[i++]; nlit += b; } while (b == 255);
    }
    if (nlit >= len - i) return 0;       /* the last sequence, or truncated */
    i += nlit;
    if (len - i < 2) return 0;
    if (p[i] == 0 && p[i + 1] == 0) return 1;
    i += 2;
    if ((token & 15) == 15) while (i < len && p[i++] == 255) {}
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t cap, len, got = 0;
  uint8_t *out, *ref;
  sp_code rc;
  int theirs;
  if (size < 2) return 0;
  cap = (size_t)data[0] | (size_t)data[1] << 8;
  len = size - 2;                  /* the block ends where libFuzzer's copy ends */
  out = malloc(cap ? cap : 1);
  ref = malloc(cap ? cap : 1);
  FUZZ_ASSERT(out != NULL && ref != NULL);
  rc = sp_lz4_decompress(data + 2, len, out, cap, &got);
  theirs = LZ4_decompress_safe((const char *)data + 2, (char *)ref, (int)len, (int)cap);
  if (theirs >= 0 && !(rc == SP_E_MALFORMED && has_zero_offset(data + 2, len))) {
    FUZZ_ASSERT(rc == SP_OK);
    FUZZ_ASSERT(got == (size_t)theirs);
    FUZZ_ASSERT(memcmp(out, ref, got) == 0);
  }
  if (rc == SP_OK) {
    FUZZ_ASSERT(got <= cap);
    FUZZ_ASSERT(sp_lz4_decompress_exact(data + 2, len, ref, got) == SP_OK);
    FUZZ_ASSERT(memcmp(out, ref, got) == 0);
  } else {
    FUZZ_ASSERT(rc == SP_E_LENGTH_LIMIT || rc == SP_E_TRUNCATED || rc == SP_E_MALFORMED);
    FUZZ_ASSERT(got == 0);
  }
  free(out);
  free(ref);
  return 0;
}
