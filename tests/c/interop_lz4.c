/*
** interop_lz4.c -- sp_lz4 against the reference implementation, liblz4
** (Debian liblz4-dev 1.9.4), both ways: LZ4_decompress_safe reads every
** block we make, and we read every block LZ4_compress_default,
** LZ4_compress_fast and LZ4_compress_HC (levels 1..12) make -- on every
** length 0..300, sizes up to 4 MiB, the documents' fixtures and the
** benchmark workloads. Our blocks stay within 10% of LZ4_compress_default's
** size on b.records, d.strings and message-sized text.
**
** Native only (it links liblz4), so it is not named test_*.c: the WASI
** build (wasm/wasi/CMakeLists.txt, tests/wasi/run.mjs) takes test_*.c.
*/
#include <lz4.h>
#include <lz4hc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "lz4_data.h"
#include "sp_lz4.h"
#include "sp_test.h"
#include "../../bench/workload_bytes.h"

static sp_lz4_state state;

/* How liblz4 makes a block: a name and a call. */
typedef struct maker {
  char name[24];
  int kind;       /* 0 default, 1 fast (level = acceleration), 2 HC (level) */
  int level;
} maker;

static int make_block(const maker *m, const uint8_t *src, size_t n, uint8_t *dst, size_t cap) {
  const char *s = (const char *)src;
  char *d = (char *)dst;
  if (m->kind == 0) return LZ4_compress_default(s, d, (int)n, (int)cap);
  if (m->kind == 1) return LZ4_compress_fast(s, d, (int)n, (int)cap, m->level);
  return LZ4_compress_HC(s, d, (int)n, (int)cap, m->level);
}

/* Our block for data, read back by LZ4_decompress_safe into exactly n. */
static int liblz4_reads_ours(const uint8_t *data, size_t n) {
  size_t bound = sp_lz4_bound(n), clen;
  uint8_t *block = xmalloc(bound), *out = xmalloc(n);
  int ok = sp_lz4_compress(data, n, block, bound, &state, &clen) == SP_OK;
  ok = ok && LZ4_decompress_safe((const char *)block, (char *)out, (int)clen, (int)n) == (int)n;
  ok = ok && (n == 0 || memcmp(out, data, n) == 0);
  free(block);
  free(out);
  return ok;
}

/* liblz4's block for data (by maker m), read back by us into exactly n,
** from an exact-size copy of the block. */
static int we_read_liblz4s(const maker *m, const uint8_t *data, size_t n) {
  size_t cap = (size_t)LZ4_compressBound((int)n);
  uint8_t *block = xmalloc(cap), *out = xmalloc(n), *exact;
  int clen = make_block(m, data, n, block, cap), ok = clen > 0;
  exact = data_copy(block, ok ? (size_t)clen : 0);
  ok = ok && sp_lz4_decompress_exact(exact, (size_t)clen, out, n) == SP_OK;
  ok = ok && (n == 0 || memcmp(out, data, n) == 0);
  free(block);
  free(exact);
  free(out);
  return ok;
}

static maker makers[16];
static int nmakers;

static void init_makers(void) {
  maker *m = makers;
  *m++ = (maker){"default", 0, 0};
  *m++ = (maker){"fast 8", 1, 8};
  *m++ = (maker){"fast 64", 1, 64};
  for (int level = 1; level <= LZ4HC_CLEVEL_MAX; level++) {
    m->kind = 2;
    m->level = level;
    snprintf(m->name, sizeof m->name, "HC %d", level);
    m++;
  }
  nmakers = (int)(m - makers);
}

/* Checks both directions for data, every maker; says where it failed. */
static void both_ways(const char *what, const uint8_t *data, size_t n, int all_makers) {
  if (!CHECK(liblz4_reads_ours(data, n))) fprintf(stderr, "    (ours -> liblz4: %s, %zu B)\n", what, n);
  for (int i = 0; i < (all_makers ? nmakers : 1); i++)
    if (!CHECK(we_read_liblz4s(&makers[i], data, n)))
      fprintf(stderr, "    (liblz4 %s -> ours: %s, %zu B)\n", makers[i].name, what, n);
}

static void every_length_0_to_300_both_ways(void) {
  for (int kind = 0; kind < DATA_KINDS; kind++)
    for (size_t n = 0; n <= 300; n++) {
      uint8_t *d = data_make(kind, n, (uint32_t)n + 3);
      both_ways(data_kind_names[kind], d, n, n % 10 == 0);
      free(d);
    }
}

static void sizes_up_to_4_mib_both_ways(void) {
  static const size_t sizes[] = {65535, 65536, 100000, 1u << 20, (4u << 20) + 1};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int kind = 0; kind < DATA_KINDS; kind++) {
      uint8_t *d = data_make(kind, sizes[s], (uint32_t)s + 5);
      both_ways(data_kind_names[kind], d, sizes[s], sizes[s] <= 100000);
      free(d);
    }
}

static void random_data_both_ways(void) {
  uint32_t x = 99;
  for (int t = 0; t < 200; t++) {
    size_t n = data_rand(&x) % 20000;
    uint8_t *d = data_make(DATA_RANDOM, n, data_rand(&x));
    both_ways("random", d, n, 0);
    free(d);
  }
}

/* The documents' values as MessagePack: Outer (with the nested envelope)
** and the 100,007-byte object. */
static void fixtures_both_ways(void) {
  outer o;
  big_object big;
  sp_bytes b;
  outer_init(&o, "before", 6, NULL);
  big_object_init(&big, 100000);
  CHECK(sp_to_array(sp_format_value, &o.root, NULL, &b, NULL) == SP_OK);
  both_ways("Outer", b.data, b.len, 1);
  sp_bytes_free(&b);
  CHECK(sp_to_array(sp_format_value, &big.root, NULL, &b, NULL) == SP_OK);
  both_ways("100,007-byte object", b.data, b.len, 1);
  sp_bytes_free(&b);
  big_object_free(&big);
}

static void benchmark_workloads_both_ways(void) {
  sp_buffer buf;
  sp_buffer_init(&buf);
  for (int w = 0; w < WL_COUNT; w++) {
    CHECK(workload_build(w, &buf) == SP_OK);
    both_ways(workload_names[w], buf.data, buf.len, 1);
  }
  sp_buffer_free(&buf);
}

/* Within 10% of LZ4_compress_default's block size (the bound). */
static void ratio_is_within_10_percent_of_liblz4_default(void) {
  static const int which[] = {WL_RECORDS, WL_STRINGS};
  sp_buffer buf;
  sp_buffer_init(&buf);
  for (int i = 0; i < 2; i++) {
    size_t bound, ours;
    uint8_t *block;
    int theirs;
    CHECK(workload_build(which[i], &buf) == SP_OK);
    bound = sp_lz4_bound(buf.len);
    block = xmalloc(bound);
    CHECK(sp_lz4_compress(buf.data, buf.len, block, bound, &state, &ours) == SP_OK);
    theirs = LZ4_compress_default((const char *)buf.data, (char *)block, (int)buf.len, (int)bound);
    CHECK(theirs > 0);
    if (!CHECK((double)ours <= 1.10 * theirs))
      fprintf(stderr, "    %s: ours %zu B, liblz4 %d B\n", workload_names[which[i]], ours, theirs);
    free(block);
  }
  sp_buffer_free(&buf);
}

/* Message-sized text and mixed data (the 16-bit table up to 64 KiB, the
** 32-bit one above) within 10% of LZ4_compress_default too. */
static void small_inputs_are_within_10_percent_of_liblz4_default(void) {
  static const size_t sizes[] = {300, 1000, 4000, 16000, 40000, 65536, 65537, 100000};
  for (int kind = DATA_TEXT; kind <= DATA_MIXED; kind += DATA_MIXED - DATA_TEXT)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      size_t n = sizes[i], bound = sp_lz4_bound(n), ours;
      uint8_t *d = data_make(kind, n, 3), *block = xmalloc(bound);
      int theirs;
      CHECK(sp_lz4_compress(d, n, block, bound, &state, &ours) == SP_OK);
      theirs = LZ4_compress_default((const char *)d, (char *)block, (int)n, (int)bound);
      if (!CHECK(theirs > 0 && (double)ours <= 1.10 * theirs))
        fprintf(stderr, "    %s %zu B: ours %zu B, liblz4 %d B\n", data_kind_names[kind], n, ours, theirs);
      free(block);
      free(d);
    }
}

/* liblz4's blocks into every smaller output: both refuse. */
static void both_refuse_output_past_the_claimed_length(void) {
  uint8_t *d = data_make(DATA_MIXED, 1000, 6);
  size_t cap = (size_t)LZ4_compressBound(1000), got;
  uint8_t *block = xmalloc(cap);
  int clen = LZ4_compress_default((const char *)d, (char *)block, 1000, (int)cap);
  for (size_t n = 0; n < 1000; n++) {
    uint8_t *out = xmalloc(n);
    CHECK(sp_lz4_decompress(block, (size_t)clen, out, n, &got) == SP_E_LENGTH_LIMIT);
    CHECK(LZ4_decompress_safe((const char *)block, (char *)out, clen, (int)n) < 0);
    free(out);
  }
  free(block);
  free(d);
}

static void bound_is_liblz4s(void) {
  for (int n = 0; n < 100000; n += 97) CHECK(sp_lz4_bound((size_t)n) == (size_t)LZ4_compressBound(n));
  CHECK(sp_lz4_bound(SP_LZ4_MAX_INPUT) == (size_t)LZ4_compressBound(LZ4_MAX_INPUT_SIZE));
  CHECK(sp_lz4_bound(SP_LZ4_MAX_INPUT + 1) == (size_t)LZ4_compressBound(LZ4_MAX_INPUT_SIZE + 1));
}

int main(void) {
  init_makers();
  printf("liblz4 %s\n", LZ4_versionString());
  SP_RUN(every_length_0_to_300_both_ways);
  SP_RUN(sizes_up_to_4_mib_both_ways);
  SP_RUN(random_data_both_ways);
  SP_RUN(fixtures_both_ways);
  SP_RUN(benchmark_workloads_both_ways);
  SP_RUN(ratio_is_within_10_percent_of_liblz4_default);
  SP_RUN(small_inputs_are_within_10_percent_of_liblz4_default);
  SP_RUN(both_refuse_output_past_the_claimed_length);
  SP_RUN(bound_is_liblz4s);
  sp_shutdown();
  return sp_test_summary();
}
