/*
** workload_bytes.h -- the MessagePack bytes of DESIGN.md's workloads
** b.records, c.ints, d.strings and e.big, written with scratchpack's writer.
** Owns: building those values exactly as bench/native_encode.c (b, c, e) and
** bench/js-bench.mjs (d: the same generator, the same seed) build them.
** Must not touch: timing. Used by bench/lz4_bench.c and the LZ4 tests in tests/c.
**
** Sizes: b.records 65,819 B, c.ints 89,619 B, d.strings 1,552,128 B,
** e.big 100,007 B (workload_check_size says whether a buffer has its size).
*/
#ifndef SP_WORKLOAD_BYTES_H
#define SP_WORKLOAD_BYTES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scratchpack.h"

enum { WL_RECORDS, WL_INTS, WL_STRINGS, WL_BIG, WL_COUNT };

static const char *const workload_names[WL_COUNT] = {"b.records", "c.ints", "d.strings", "e.big"};
static const size_t workload_sizes[WL_COUNT] = {65819, 89619, 1552128, 100007};

/* 1,000 x {id: i, name: "user-" + 11 digits of i*7919, score: i*1.25+0.1,
** tags: 3 of red/green/blue/black/white}. */
static inline int workload_fmt_records(sp_writer *w, const void *unused) {
  static const char *const tags[5] = {"red", "green", "blue", "black", "white"};
  (void)unused;
  sp_write_array_header(w, 1000);
  for (uint32_t i = 0; i < 1000; i++) {
    char name[17];
    snprintf(name, sizeof name, "user-%011u", (unsigned)i * 7919u);
    sp_write_map_header(w, 4);
    sp_write_str(w, "id", 2);
    sp_write_int(w, i);
    sp_write_str(w, "name", 4);
    sp_write_str(w, name, 16);
    sp_write_str(w, "score", 5);
    sp_write_double(w, (double)i * 1.25 + 0.1);
    sp_write_str(w, "tags", 4);
    sp_write_array_header(w, 3);
    for (uint32_t k = 0; k < 3; k++) {
      const char *t = tags[(i + k) % 5];
      sp_write_str(w, t, strlen(t));
    }
  }
  return 0;
}

/* 0..29,999 in their smallest forms. */
static inline int workload_fmt_ints(sp_writer *w, const void *unused) {
  (void)unused;
  sp_write_array_header(w, 30000);
  for (int32_t i = 0; i < 30000; i++) sp_write_int(w, i);
  return 0;
}

/* js-bench.mjs's generator: seed = imul(seed, 1103515245) + 12345 (mod 2^32),
** next() = seed / 2^32. */
static inline double workload_next(uint32_t *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return (double)*seed / 4294967296.0;
}

/* 10,000 strings of 20..200 characters: a-z, and in every fourth string 80%
** Hangul syllables (U+AC00..U+D7A3, 3 bytes of UTF-8 each). */
static inline int workload_fmt_strings(sp_writer *w, const void *unused) {
  uint32_t seed = 7;
  char s[200 * 3];
  (void)unused;
  sp_write_array_header(w, 10000);
  for (int i = 0; i < 10000; i++) {
    int n = 20 + (int)(workload_next(&seed) * 181);
    size_t len = 0;
    for (int k = 0; k < n; k++) {
      if (i % 4 == 3 && workload_next(&seed) < 0.8) {
        unsigned cp = 0xac00u + (unsigned)(workload_next(&seed) * 11172);
        s[len++] = (char)(0xe0 | cp >> 12);
        s[len++] = (char)(0x80 | (cp >> 6 & 0x3f));
        s[len++] = (char)(0x80 | (cp & 0x3f));
      } else {
        s[len++] = (char)('a' + (int)(workload_next(&seed) * 26));
      }
    }
    sp_write_str(w, s, len);
  }
  return 0;
}

/* [1, "A" x 100,000]: the documents' 100,007-byte object. */
static inline int workload_fmt_big(sp_writer *w, const void *unused) {
  static char text[100000];
  (void)unused;
  memset(text, 'A', sizeof text);
  sp_write_array_header(w, 2);
  sp_write_int(w, 1);
  sp_write_str(w, text, sizeof text);
  return 0;
}

/* Writes workload 'which' into buf (cleared first). Returns SP_OK or the
** entry's error code. The caller owns buf (sp_buffer_free). */
static inline sp_code workload_build(int which, sp_buffer *buf) {
  static const sp_format_fn fmts[WL_COUNT] = {workload_fmt_records, workload_fmt_ints,
                                              workload_fmt_strings, workload_fmt_big};
  sp_output out = sp_buffer_output(buf);
  sp_buffer_clear(buf);
  return sp_to_output(&out, fmts[which], NULL, NULL, NULL);
}

#endif
