/*
** interop_lz4.c -- sp_lz4 against the reference implementation, liblz4
** (Debian liblz4-dev 1.9.4), both ways: LZ4_decompress_safe reads every
** block we make, and we read every block LZ4_compress_default,
** LZ4_compress_fast and LZ4_compress_HC (levels 1..12) make -- on every
** length 0..300, sizes up to 4 MiB, the documents' fixtures and the
** benchmark workloads. Our blocks stay within 10% of LZ4_compress_default's
** size on b.records, d.strings and message-sized text.
**
** Inside MessagePack-CSharp's compressed layouts (sp_compress.h): liblz4
** decompresses every block our Lz4Block and Lz4BlockArray messages embed to
** exactly its stated length, and we decode messages whose blocks liblz4
** made -- laid out as a .NET service would send them -- through the
** decoders' detection.
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
#include "lz4_layout.h"
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

/* ---- inside MessagePack-CSharp's layouts ------------------------------------- */

/* Every block of a compressed message, decompressed by LZ4_decompress_safe
** into exactly its stated plain length, in order, gives 'plain'. */
static int liblz4_reads_message(const uint8_t *b, size_t n, sp_compression mode, const uint8_t *plain,
                                size_t plain_len) {
  layout l;
  size_t at = 0;
  int ok = mode == SP_COMPRESSION_LZ4_BLOCK ? parse_lz4block(b, n, &l) : parse_lz4blockarray(b, n, &l);
  for (size_t i = 0; ok && i < l.nblocks; i++) {
    uint8_t *out = xmalloc((size_t)l.plain[i]);
    ok = at + l.plain[i] <= plain_len &&
         LZ4_decompress_safe((const char *)l.block[i], (char *)out, (int)l.block_len[i], (int)l.plain[i]) ==
           (int)l.plain[i] &&
         memcmp(out, plain + at, (size_t)l.plain[i]) == 0;
    at += (size_t)l.plain[i];
    free(out);
  }
  return ok && at == plain_len;
}

/* A formatter writing a bin of the bytes of an sp_bytes. */
static int bin_format(sp_writer *w, const void *value) {
  const sp_bytes *b = value;
  sp_write_bin(w, b->data, b->len);
  return 0;
}

/* 'plain' (the formatter's message) compressed in both modes by sp_to_array. */
static void check_message(const char *what, sp_format_fn fn, const void *value) {
  sp_buffer plain;
  sp_output out = sp_buffer_output(&plain);
  sp_buffer_init(&plain);
  CHECK(sp_to_output(&out, fn, value, NULL, NULL) == SP_OK);
  for (sp_compression mode = SP_COMPRESSION_LZ4_BLOCK; mode <= SP_COMPRESSION_LZ4_BLOCK_ARRAY; mode++) {
    sp_options opt = {0};
    sp_bytes b;
    opt.compression = mode;
    CHECK(sp_to_array(fn, value, &opt, &b, NULL) == SP_OK);
    if (!CHECK(liblz4_reads_message(b.data, b.len, mode, plain.data, plain.len)))
      fprintf(stderr, "    (%s, mode %d)\n", what, (int)mode);
    sp_bytes_free(&b);
  }
  sp_buffer_free(&plain);
}

static void liblz4_reads_every_block_our_messages_embed(void) {
  static const size_t sizes[] = {62, 100, 5000, 32763, 70000, 300000};
  for (int w = 0; w < WL_COUNT; w++) {
    static const sp_format_fn fmts[WL_COUNT] = {workload_fmt_records, workload_fmt_ints,
                                                workload_fmt_strings, workload_fmt_big};
    check_message(workload_names[w], fmts[w], NULL);
  }
  for (int kind = 0; kind < DATA_KINDS; kind++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      sp_bytes b = {data_make(kind, sizes[i], (uint32_t)i + 11), sizes[i]};
      check_message(data_kind_names[kind], bin_format, &b);
      free(b.data);
    }
}

/* liblz4 makes the block test_compression.c's layout test computed by hand. */
static void liblz4_makes_the_hand_computed_64_byte_block(void) {
  uint8_t m[64] = {0xc4, 0x3e}, block[128];
  int n = LZ4_compress_default((const char *)m, (char *)block, 64, (int)sizeof block);
  CHECK_BYTES(block, (size_t)(n > 0 ? n : 0), lz4_block64, sizeof lz4_block64);
}

/* A message as MessagePack-CSharp lays it out, with liblz4's blocks (maker
** m): Lz4Block, or Lz4BlockArray over segments of .NET's Sequence sizes
** (4 KiB, then 32 KiB). Bytes put by hand, from the documented layout. */
static size_t put_ext(uint8_t *p, int type, uint32_t len) {
  size_t h;
  if (len == 1 || len == 2 || len == 4 || len == 8 || len == 16) {
    p[0] = (uint8_t)(len == 1 ? 0xd4 : len == 2 ? 0xd5 : len == 4 ? 0xd6 : len == 8 ? 0xd7 : 0xd8);
    h = 1;
  } else if (len <= 0xff) { p[0] = 0xc7; p[1] = (uint8_t)len; h = 2; }
  else if (len <= 0xffff) { p[0] = 0xc8; p[1] = (uint8_t)(len >> 8); p[2] = (uint8_t)len; h = 3; }
  else { p[0] = 0xc9; sp_store32(p + 1, len); h = 5; }
  p[h] = (uint8_t)type;
  return h + 1;
}

static size_t put_uint(uint8_t *p, uint32_t v) {
  if (v <= 0x7f) { p[0] = (uint8_t)v; return 1; }
  if (v <= 0xff) { p[0] = 0xcc; p[1] = (uint8_t)v; return 2; }
  if (v <= 0xffff) { p[0] = 0xcd; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)v; return 3; }
  p[0] = 0xce; sp_store32(p + 1, v); return 5;
}

static size_t dotnet_message(const maker *m, int array, const uint8_t *plain, size_t n, uint8_t *out) {
  size_t at = 0, segs = 0, lens = 0, seg[128];
  for (size_t off = 0; off < n; off += seg[segs++]) {
    size_t want = segs == 0 ? 4096 : 32768;
    seg[segs] = n - off < want ? n - off : want;
    lens += seg[segs] <= 0x7f ? 1 : seg[segs] <= 0xff ? 2 : 3;   /* what put_uint writes */
  }
  if (!array) {
    uint8_t *block = xmalloc((size_t)LZ4_compressBound((int)n));
    int len = make_block(m, plain, n, block, (size_t)LZ4_compressBound((int)n));
    at = put_ext(out, 99, (uint32_t)len + 5);
    out[at] = 0xd2;
    sp_store32(out + at + 1, (uint32_t)n);
    memcpy(out + at + 5, block, (size_t)len);
    free(block);
    return at + 5 + (size_t)len;
  }
  if (segs + 1 <= 15) {
    out[at++] = (uint8_t)(0x90 | (segs + 1));
  } else {
    out[at++] = 0xdc;
    sp_store16(out + at, (uint16_t)(segs + 1));
    at += 2;
  }
  at += put_ext(out + at, 98, (uint32_t)lens);
  for (size_t i = 0; i < segs; i++) at += put_uint(out + at, (uint32_t)seg[i]);
  for (size_t i = 0, off = 0; i < segs; off += seg[i++]) {
    int len = make_block(m, plain + off, seg[i], out + at + 5, (size_t)LZ4_compressBound((int)seg[i]));
    out[at] = 0xc6;
    sp_store32(out + at + 1, (uint32_t)len);
    at += 5 + (size_t)len;
  }
  return at;
}

static void messages_with_liblz4s_blocks_decode(void) {
  sp_buffer plain;
  sp_buffer_init(&plain);
  for (int w = 0; w < WL_COUNT; w++) {
    CHECK(workload_build(w, &plain) == SP_OK);
    for (int k = 0; k < nmakers; k += 4)
      for (int array = 0; array <= 1; array++) {
        uint8_t *msg = xmalloc((size_t)LZ4_compressBound((int)plain.len) + 1024);
        size_t n = dotnet_message(&makers[k], array, plain.data, plain.len, msg);
        sp_doc doc = {0};
        sp_value v;
        sp_bytes again = {0};
        CHECK(sp_value_decode(msg, n, NULL, &doc, &v, NULL) == SP_OK);
        CHECK(sp_to_array(sp_format_value, &v, NULL, &again, NULL) == SP_OK);
        if (!CHECK_BYTES(again.data, again.len, plain.data, plain.len))
          fprintf(stderr, "    (%s, liblz4 %s, %s)\n", workload_names[w], makers[k].name,
                  array ? "Lz4BlockArray" : "Lz4Block");
        sp_bytes_free(&again);
        sp_doc_free(&doc);
        free(msg);
      }
  }
  sp_buffer_free(&plain);
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
  SP_RUN(liblz4_reads_every_block_our_messages_embed);
  SP_RUN(liblz4_makes_the_hand_computed_64_byte_block);
  SP_RUN(messages_with_liblz4s_blocks_decode);
  sp_shutdown();
  return sp_test_summary();
}
