/*
** lz4_data.h -- inputs for the LZ4 tests (test_lz4.c, interop_lz4.c): data
** of every kind a compressor meets, in exact-size heap blocks so ASan sees
** any read past the end, and the exact-size copy helper.
*/
#ifndef SP_LZ4_DATA_H
#define SP_LZ4_DATA_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

enum { DATA_RANDOM, DATA_ZEROS, DATA_TEXT, DATA_PERIODIC, DATA_MIXED, DATA_KINDS };

static const char *const data_kind_names[DATA_KINDS] = {"random", "zeros", "text", "periodic",
                                                        "mixed"};

static inline uint32_t data_rand(uint32_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

/* Words with spaces: matches of every length at many offsets. */
static inline void data_text(uint8_t *p, size_t n, uint32_t *x) {
  static const char *const words[] = {
    "the", "block", "format", "of", "LZ4", "is", "a", "sequence", "token", "literal",
    "match", "offset", "length", "scratchpack", "MessagePack", "segment", "pool", "and",
    "compress", "decompress", "\xea\xb0\x80\xeb\x82\x98", "{\"id\":", "0x7f", "\n"};
  size_t i = 0;
  while (i < n) {
    const char *w = words[data_rand(x) % (sizeof words / sizeof words[0])];
    for (size_t k = 0; w[k] != '\0' && i < n; k++) p[i++] = (uint8_t)w[k];
    if (i < n) p[i++] = ' ';
  }
}

/* Runs of 16..4,111 bytes of random, zero, text and periodic data in turn:
** every path of the compressor and of the decompressor's copies. */
static inline void data_mixed(uint8_t *p, size_t n, uint32_t *x) {
  size_t i = 0;
  while (i < n) {
    size_t run = 16 + data_rand(x) % 4096, period = 1 + data_rand(x) % 40;
    unsigned kind = data_rand(x) % 4;
    if (run > n - i) run = n - i;
    if (kind == 0) for (size_t k = 0; k < run; k++) p[i + k] = (uint8_t)data_rand(x);
    if (kind == 1) memset(p + i, 0, run);
    if (kind == 2) data_text(p + i, run, x);
    if (kind == 3)
      for (size_t k = 0; k < run; k++) p[i + k] = k < period ? (uint8_t)data_rand(x) : p[i + k - period];
    i += run;
  }
}

/* n bytes of one kind, in an exact-size block (never NULL; free with free()). */
static inline uint8_t *data_make(int kind, size_t n, uint32_t seed) {
  uint8_t *p = xmalloc(n);
  uint32_t x = seed * 2654435761u | 1u;
  size_t period = 1 + seed % 37;
  switch (kind) {
    case DATA_RANDOM: for (size_t i = 0; i < n; i++) p[i] = (uint8_t)data_rand(&x); break;
    case DATA_ZEROS: memset(p, 0, n); break;
    case DATA_TEXT: data_text(p, n, &x); break;
    case DATA_PERIODIC:
      for (size_t i = 0; i < n; i++) p[i] = i < period ? (uint8_t)data_rand(&x) : p[i - period];
      break;
    default: data_mixed(p, n, &x); break;
  }
  return p;
}

/* An exact-size heap copy of n bytes (never NULL; free with free()). */
static inline uint8_t *data_copy(const void *src, size_t n) {
  uint8_t *p = xmalloc(n);
  if (n) memcpy(p, src, n);
  return p;
}

#endif
