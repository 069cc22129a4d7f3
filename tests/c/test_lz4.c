/*
** test_lz4.c -- the LZ4 block codec (sp_lz4.h): round trips at every length
** 0..300 and up to 4 MiB, of random, zero, text, periodic and mixed data and
** of the benchmark workloads; the format's end rules on every block made;
** offsets at the 65,535 limit; decoding checked against a byte-at-a-time
** reference decoder on random blocks; and malformed blocks (truncated at
** every byte, bad offsets, lengths past the output or the input, output
** beyond the claimed length) rejected with the right code.
**
** Blocks and outputs live in exact-size heap blocks, so ASan reports any
** access even one byte outside them. Interop with liblz4 is interop_lz4.c.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"
#include "sp_lz4.h"
#include "sp_test.h"
#include "lz4_data.h"
#include "../../bench/workload_bytes.h"

static sp_lz4_state state;   /* 16 KiB: static, as a caller may keep it */

/* ---- a reference decoder, one byte at a time ------------------------------ */

/* What a walk over a block found: the output length and the last match. */
typedef struct walk {
  int ok;                    /* 1: a complete, well-formed block */
  size_t out;                /* bytes it decodes to */
  size_t last_match_start;   /* output position of the last match, or SIZE_MAX */
  size_t last_match_end;
} walk;

static int walk_length(const uint8_t *b, size_t len, size_t *i, size_t *v) {
  uint8_t x;
  do {
    if (*i >= len) return 0;
    x = b[(*i)++];
    *v += x;
  } while (x == 255);
  return 1;
}

/* Decodes with the format's rules and nothing clever; out may be NULL to
** only walk. Rejects anything doubtful. */
static walk walk_block(const uint8_t *b, size_t len, uint8_t *out, size_t cap) {
  walk w = {0, 0, SIZE_MAX, 0};
  size_t i = 0;
  for (;;) {
    size_t nlit, mlen, off;
    uint8_t token;
    if (i >= len) return w;
    token = b[i++];
    nlit = token >> 4;
    if (nlit == 15 && !walk_length(b, len, &i, &nlit)) return w;
    if (nlit > len - i || nlit > cap - w.out) return w;
    for (size_t k = 0; k < nlit; k++, w.out++) if (out) out[w.out] = b[i + k];
    i += nlit;
    if (i == len) break;
    if (len - i < 2) return w;
    off = (size_t)b[i] | (size_t)b[i + 1] << 8;
    i += 2;
    if (off == 0 || off > w.out) return w;
    mlen = (token & 15u) + 4;
    if ((token & 15u) == 15 && !walk_length(b, len, &i, &mlen)) return w;
    if (mlen > cap - w.out) return w;
    w.last_match_start = w.out;
    for (size_t k = 0; k < mlen; k++, w.out++) if (out) out[w.out] = out[w.out - off];
    w.last_match_end = w.out;
  }
  w.ok = 1;
  return w;
}

/* ---- round trips ---------------------------------------------------------- */

/* The block made from data follows the format's end rules: the last 5 bytes
** are literals and the last match starts 12 or more bytes before the end. */
static int follows_end_rules(const uint8_t *block, size_t clen, size_t n) {
  walk w = walk_block(block, clen, NULL, SIZE_MAX);
  if (!w.ok || w.out != n) return 0;
  if (w.last_match_start == SIZE_MAX) return 1;
  return n - w.last_match_start >= 12 && n - w.last_match_end >= 5;
}

/* Compresses data into an exact-bound block, checks the block, decompresses
** it into an exact-size output and compares. Returns the block length. */
static size_t round_trip(const uint8_t *data, size_t n) {
  size_t bound = sp_lz4_bound(n), clen = 0, got = 0;
  uint8_t *block = xmalloc(bound), *out = n ? xmalloc(n) : NULL;
  CHECK(sp_lz4_compress(data, n, block, bound, &state, &clen) == SP_OK);
  CHECK(clen >= 1 && clen <= bound);
  CHECK(follows_end_rules(block, clen, n));
  CHECK(sp_lz4_decompress(block, clen, out, n, &got) == SP_OK);
  CHECK(got == n);
  CHECK(n == 0 || memcmp(out, data, n) == 0);
  free(block);
  free(out);
  return clen;
}

static void every_length_0_to_300_round_trips_for_every_kind(void) {
  for (int kind = 0; kind < DATA_KINDS; kind++)
    for (size_t n = 0; n <= 300; n++) {
      uint8_t *d = data_make(kind, n, (uint32_t)n + 1);
      int before = sp_test_failures;
      round_trip(d, n);
      if (sp_test_failures != before) fprintf(stderr, "    (%s, %zu bytes)\n", data_kind_names[kind], n);
      free(d);
      if (sp_test_failures != before) return;
    }
}

static void sizes_up_to_4_mib_round_trip(void) {
  static const size_t sizes[] = {4096, 65535, 65536, 65537, 200000, 1u << 20, (4u << 20) + 3};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int kind = 0; kind < DATA_KINDS; kind++) {
      uint8_t *d = data_make(kind, sizes[s], (uint32_t)s + 7);
      round_trip(d, sizes[s]);
      free(d);
    }
}

static void incompressible_data_stays_within_the_bound(void) {
  uint8_t *d = data_make(DATA_RANDOM, 1u << 20, 3);
  size_t clen = round_trip(d, 1u << 20);
  CHECK(clen > (1u << 20));              /* random bytes do not shrink... */
  CHECK(clen <= sp_lz4_bound(1u << 20)); /* ...and grow no more than the bound */
  free(d);
}

static void zeros_and_repeats_compress_to_almost_nothing(void) {
  uint8_t *z = data_make(DATA_ZEROS, 1u << 20, 1), *p = data_make(DATA_PERIODIC, 1u << 20, 5);
  CHECK(round_trip(z, 1u << 20) < (1u << 20) / 200);
  CHECK(round_trip(p, 1u << 20) < (1u << 20) / 200);
  free(z);
  free(p);
}

/* b.records and e.big shrink; c.ints (cd hi lo: no 4 bytes repeat) and
** d.strings (random letters) have nothing LZ4 can use, as in liblz4. */
static void benchmark_workloads_round_trip(void) {
  sp_buffer buf;
  sp_buffer_init(&buf);
  for (int w = 0; w < WL_COUNT; w++) {
    size_t clen;
    CHECK(workload_build(w, &buf) == SP_OK);
    CHECK(buf.len == workload_sizes[w]);
    clen = round_trip(buf.data, buf.len);
    if (w == WL_RECORDS || w == WL_BIG) CHECK(clen < buf.len / 3);
  }
  sp_buffer_free(&buf);
}

/* Text repeated at distances 65,535 (in reach) and 65,536 (one too far). */
static void offsets_at_the_limit_round_trip(void) {
  for (size_t dist = 65534; dist <= 65537; dist++) {
    size_t n = dist + 4096;
    uint8_t *d = data_make(DATA_RANDOM, n, 11);
    memcpy(d + dist, d, 4096);
    size_t clen = round_trip(d, n);
    if (dist <= 65535) CHECK(clen < n - 2000);   /* the repeat was found */
    else CHECK(clen > n);                         /* it could not be */
    free(d);
  }
}

static void state_contents_do_not_change_the_block(void) {
  uint8_t *d = data_make(DATA_MIXED, 100000, 9);
  size_t bound = sp_lz4_bound(100000), a_len, b_len;
  uint8_t *a = xmalloc(bound), *b = xmalloc(bound);
  sp_lz4_state *dirty = xmalloc(sizeof *dirty);
  memset(dirty, 0xA5, sizeof *dirty);
  CHECK(sp_lz4_compress(d, 100000, a, bound, &state, &a_len) == SP_OK);
  CHECK(sp_lz4_compress(d, 100000, b, bound, dirty, &b_len) == SP_OK);
  CHECK_BYTES(b, b_len, a, a_len);
  free(dirty); free(a); free(b); free(d);
}

/* ---- the decoder against the reference ------------------------------------ */

/* A random well-formed block of about n bytes: short and long literal runs,
** offsets 1..40 (overlapping copies) and far ones, short and long matches,
** some ending right at the end of the output. Returns its length. */
static size_t random_block(uint8_t *b, size_t n, uint32_t *x) {
  size_t i = 0, out = 0;
  for (;;) {
    uint32_t r = data_rand(x);
    size_t nlit = r % 8 ? r % 15 : r % 600, mlen, off;
    uint8_t *token = &b[i++];
    if (out + nlit == 0) nlit = 1;        /* a match needs output before it */
    if (n - out < nlit + 4) nlit = n - out;   /* no room for a match after them */
    *token = (uint8_t)((nlit < 15 ? nlit : 15) << 4);
    if (nlit >= 15) {
      size_t more = nlit - 15;
      for (; more >= 255; more -= 255) b[i++] = 255;
      b[i++] = (uint8_t)more;
    }
    for (size_t k = 0; k < nlit; k++) b[i++] = (uint8_t)data_rand(x);
    out += nlit;
    if (out == n) return i;   /* the last sequence */
    r = data_rand(x);
    off = r % 2 ? 1 + r % (out < 40 ? out : 40) : 1 + r % (out < 65535 ? out : 65535);
    mlen = 4 + (r % 5 ? (r >> 8) % 15 : (r >> 8) % 3000);
    if (mlen > n - out) mlen = n - out;
    b[i++] = (uint8_t)off;
    b[i++] = (uint8_t)(off >> 8);
    *token |= (uint8_t)(mlen - 4 < 15 ? mlen - 4 : 15);
    if (mlen - 4 >= 15) {
      size_t more = mlen - 4 - 15;
      for (; more >= 255; more -= 255) b[i++] = 255;
      b[i++] = (uint8_t)more;
    }
    out += mlen;
  }
}

static void random_blocks_decode_as_the_reference_does(void) {
  uint32_t x = 12345;
  for (int t = 0; t < 3000; t++) {
    size_t n = 1 + data_rand(&x) % (t < 2000 ? 300 : 70000), got = 0;
    uint8_t *raw = xmalloc(2 * n + 64);
    size_t len = random_block(raw, n, &x);
    uint8_t *block = data_copy(raw, len);
    walk w = walk_block(block, len, NULL, SIZE_MAX);
    uint8_t *want = xmalloc(w.out), *out = xmalloc(w.out);
    if (!CHECK(w.ok)) return;
    walk_block(block, len, want, w.out);
    CHECK(sp_lz4_decompress(block, len, out, w.out, &got) == SP_OK);
    CHECK(got == w.out);
    if (!CHECK(memcmp(out, want, w.out) == 0)) return;
    free(raw); free(block); free(want); free(out);
  }
}

/* Every byte of a block mutated, and random bytes: the decoder fails or
** agrees with the reference, never reads or writes outside (ASan). */
static void garbage_is_rejected_or_decoded_as_the_reference_does(void) {
  uint32_t x = 777;
  uint8_t *d = data_make(DATA_MIXED, 3000, 2);
  size_t bound = sp_lz4_bound(3000), clen;
  uint8_t *block = xmalloc(bound);
  CHECK(sp_lz4_compress(d, 3000, block, bound, &state, &clen) == SP_OK);
  for (int t = 0; t < 20000; t++) {
    size_t len = t < 10000 ? clen : 1 + data_rand(&x) % 64, cap = data_rand(&x) % 4000, got;
    uint8_t *in = data_copy(block, len), *out = xmalloc(cap), *want = xmalloc(cap);
    sp_code rc;
    walk w;
    if (t < 10000) in[data_rand(&x) % len] ^= (uint8_t)(1 + data_rand(&x) % 255);
    else for (size_t k = 0; k < len; k++) in[k] = (uint8_t)data_rand(&x);
    rc = sp_lz4_decompress(in, len, out, cap, &got);
    w = walk_block(in, len, want, cap);
    CHECK((rc == SP_OK) == w.ok);
    if (rc == SP_OK) CHECK(got == w.out && memcmp(out, want, got) == 0);
    else CHECK(rc == SP_E_LENGTH_LIMIT || rc == SP_E_TRUNCATED || rc == SP_E_MALFORMED);
    free(in); free(out); free(want);
  }
  free(block); free(d);
}

/* ---- malformed blocks ------------------------------------------------------- */

/* Decodes bytes given inline from an exact-size copy into an exact-size
** output of 'cap' bytes. */
static sp_code decode_bytes(const uint8_t *b, size_t len, size_t cap, size_t *got) {
  uint8_t *in = data_copy(b, len), *out = xmalloc(cap);
  sp_code rc = sp_lz4_decompress(in, len, out, cap, got);
  free(in);
  free(out);
  return rc;
}

#define DECODE(cap, got, ...) \
  decode_bytes((const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}), cap, got)

static void hand_written_blocks_decode(void) {
  uint8_t out[32];
  size_t got;
  /* "a", then 10 more from offset 1 (overlapping), then "bc" */
  static const uint8_t run[] = {0x16, 'a', 1, 0, 0x20, 'b', 'c'};
  /* "abcd", then 6 from offset 4 ("abcdab"), then no literals */
  static const uint8_t rep[] = {0x42, 'a', 'b', 'c', 'd', 4, 0, 0x00};
  CHECK(sp_lz4_decompress((const uint8_t[]){0x00}, 1, NULL, 0, &got) == SP_OK && got == 0);
  CHECK(sp_lz4_decompress(run, sizeof run, out, sizeof out, &got) == SP_OK);
  CHECK_BYTES(out, got, "aaaaaaaaaaabc", 13);
  CHECK(sp_lz4_decompress(rep, sizeof rep, out, sizeof out, &got) == SP_OK);
  CHECK_BYTES(out, got, "abcdabcdab", 10);
  CHECK(sp_lz4_decompress_exact(rep, sizeof rep, out, 10) == SP_OK);
}

static void empty_input_is_truncated(void) {
  size_t got = 99;
  uint8_t out[4];
  CHECK(sp_lz4_decompress(NULL, 0, out, sizeof out, &got) == SP_E_TRUNCATED);
  CHECK(got == 0);
}

static void offset_zero_is_invalid(void) {
  size_t got;
  CHECK(DECODE(64, &got, 0x14, 'a', 0, 0, 0x00) == SP_E_MALFORMED);
}

static void offset_before_the_start_is_invalid(void) {
  size_t got;
  CHECK(DECODE(64, &got, 0x14, 'a', 2, 0, 0x00) == SP_E_MALFORMED);
  CHECK(DECODE(64, &got, 0x44, 'a', 'b', 'c', 'd', 5, 0, 0x00) == SP_E_MALFORMED);
  CHECK(DECODE(64, &got, 0x44, 'a', 'b', 'c', 'd', 4, 0, 0x00) == SP_OK && got == 12);
  CHECK(DECODE(64, &got, 0x04, 1, 0, 0x00) == SP_E_MALFORMED);   /* a match before any output */
}

/* Every prefix of a block: exact decoding fails as truncated; plain decoding
** fails too, or stops at a literal run with a prefix of the data. */
static void truncated_at_every_byte_is_rejected(void) {
  uint8_t *d = data_make(DATA_MIXED, 5000, 4);
  size_t bound = sp_lz4_bound(5000), clen;
  uint8_t *block = xmalloc(bound), *out = xmalloc(5000);
  CHECK(sp_lz4_compress(d, 5000, block, bound, &state, &clen) == SP_OK);
  for (size_t k = 0; k < clen; k++) {
    uint8_t *in = data_copy(block, k);
    size_t got;
    sp_code rc;
    CHECK(sp_lz4_decompress_exact(in, k, out, 5000) == SP_E_TRUNCATED);
    rc = sp_lz4_decompress(in, k, out, 5000, &got);
    CHECK(rc == SP_E_TRUNCATED || (rc == SP_OK && got < 5000 && memcmp(out, d, got) == 0));
    free(in);
  }
  free(block); free(out); free(d);
}

/* A block into every smaller output: SP_E_LENGTH_LIMIT, nothing written outside. */
static void output_beyond_the_claimed_length_is_a_limit_error(void) {
  for (int kind = 0; kind < DATA_KINDS; kind++) {
    uint8_t *d = data_make(kind, 400, 8);
    size_t bound = sp_lz4_bound(400), clen, got;
    uint8_t *block = xmalloc(bound);
    CHECK(sp_lz4_compress(d, 400, block, bound, &state, &clen) == SP_OK);
    for (size_t cap = 0; cap < 400; cap++) {
      uint8_t *out = xmalloc(cap);
      CHECK(sp_lz4_decompress(block, clen, out, cap, &got) == SP_E_LENGTH_LIMIT);
      CHECK(sp_lz4_decompress_exact(block, clen, out, cap) == SP_E_LENGTH_LIMIT);
      free(out);
    }
    free(block);
    free(d);
  }
}

/* A length of 15 + 255 x 20,000 claims 5 MB: past the 1 MiB output, it is
** refused as soon as the sum passes the room left (never summed to overflow). */
static void lengths_past_the_output_are_limit_errors(void) {
  size_t n = 20003, got;
  uint8_t *lit = xmalloc(n), *match = xmalloc(n + 5), *out = xmalloc(1u << 20);
  memset(lit, 255, n);
  lit[0] = 0xF0;
  CHECK(sp_lz4_decompress(lit, n, out, 1u << 20, &got) == SP_E_LENGTH_LIMIT);
  match[0] = 0x1F; match[1] = 'x'; match[2] = 1; match[3] = 0;
  memset(match + 4, 255, n + 1);
  CHECK(sp_lz4_decompress(match, n + 5, out, 1u << 20, &got) == SP_E_LENGTH_LIMIT);
  CHECK(DECODE(20, &got, 0xF0, 10, 'a') == SP_E_LENGTH_LIMIT);       /* 25 literals into 20 */
  CHECK(DECODE(14, &got, 0xF0, 0) == SP_E_LENGTH_LIMIT);             /* 15 literals into 14 */
  CHECK(DECODE(8, &got, 0x15, 'a', 1, 0, 0x00) == SP_E_LENGTH_LIMIT); /* 1 + 9 into 8 */
  free(lit); free(match); free(out);
}

static void lengths_past_the_input_are_truncated(void) {
  size_t got;
  CHECK(DECODE(64, &got, 0x50, 'a', 'b') == SP_E_TRUNCATED);          /* 5 literals, 2 there */
  CHECK(DECODE(4096, &got, 0xF0, 255, 255) == SP_E_TRUNCATED);        /* length never ends */
  CHECK(DECODE(4096, &got, 0x1F, 'a', 1, 0, 255) == SP_E_TRUNCATED);  /* match length too */
  CHECK(DECODE(64, &got, 0x14, 'a', 1) == SP_E_TRUNCATED);            /* half an offset */
  CHECK(DECODE(64, &got, 0x14, 'a', 1, 0) == SP_E_TRUNCATED);         /* ends after a match */
}

static void exact_decoding_wants_exactly_the_length(void) {
  static const uint8_t block[] = {0x30, 'a', 'b', 'c'};
  uint8_t out[4];
  CHECK(sp_lz4_decompress_exact(block, sizeof block, out, 3) == SP_OK);
  CHECK(sp_lz4_decompress_exact(block, sizeof block, out, 4) == SP_E_TRUNCATED);
  CHECK(sp_lz4_decompress_exact(block, sizeof block, out, 2) == SP_E_LENGTH_LIMIT);
}

/* ---- the API's contract ----------------------------------------------------- */

static void bound_is_the_worst_case_and_refuses_huge_inputs(void) {
  CHECK(sp_lz4_bound(0) == 16);
  CHECK(sp_lz4_bound(255) == 255 + 1 + 16);
  CHECK(sp_lz4_bound(SP_LZ4_MAX_INPUT) == SP_LZ4_MAX_INPUT + SP_LZ4_MAX_INPUT / 255 + 16);
  CHECK(sp_lz4_bound(SP_LZ4_MAX_INPUT + 1) == 0);
  CHECK(sp_lz4_bound(SIZE_MAX) == 0);
}

static void compress_refuses_small_outputs_huge_inputs_and_nulls(void) {
  uint8_t src[64] = {0}, dst[100];
  size_t got = 7;
  CHECK(sp_lz4_compress(src, 64, dst, sp_lz4_bound(64) - 1, &state, &got) == SP_E_BUFFER_TOO_SMALL);
  CHECK(got == 0);
  CHECK(sp_lz4_compress(src, SP_LZ4_MAX_INPUT + 1, dst, sizeof dst, &state, &got) == SP_E_LENGTH_LIMIT);
  CHECK(sp_lz4_compress(NULL, 64, dst, sizeof dst, &state, &got) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_lz4_compress(src, 64, dst, sizeof dst, NULL, &got) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_lz4_compress(src, 64, dst, sizeof dst, &state, NULL) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_lz4_compress(NULL, 0, dst, sizeof dst, &state, &got) == SP_OK && got == 1 && dst[0] == 0);
  CHECK(sp_lz4_decompress(NULL, 1, dst, sizeof dst, &got) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_lz4_decompress(src, 1, NULL, 1, &got) == SP_E_INVALID_ARGUMENT);
  CHECK(sp_lz4_decompress(src, 1, dst, 1, NULL) == SP_E_INVALID_ARGUMENT);
}

int main(void) {
  SP_RUN(every_length_0_to_300_round_trips_for_every_kind);
  SP_RUN(sizes_up_to_4_mib_round_trip);
  SP_RUN(incompressible_data_stays_within_the_bound);
  SP_RUN(zeros_and_repeats_compress_to_almost_nothing);
  SP_RUN(benchmark_workloads_round_trip);
  SP_RUN(offsets_at_the_limit_round_trip);
  SP_RUN(state_contents_do_not_change_the_block);
  SP_RUN(random_blocks_decode_as_the_reference_does);
  SP_RUN(garbage_is_rejected_or_decoded_as_the_reference_does);
  SP_RUN(hand_written_blocks_decode);
  SP_RUN(empty_input_is_truncated);
  SP_RUN(offset_zero_is_invalid);
  SP_RUN(offset_before_the_start_is_invalid);
  SP_RUN(truncated_at_every_byte_is_rejected);
  SP_RUN(output_beyond_the_claimed_length_is_a_limit_error);
  SP_RUN(lengths_past_the_output_are_limit_errors);
  SP_RUN(lengths_past_the_input_are_truncated);
  SP_RUN(exact_decoding_wants_exactly_the_length);
  SP_RUN(bound_is_the_worst_case_and_refuses_huge_inputs);
  SP_RUN(compress_refuses_small_outputs_huge_inputs_and_nulls);
  return sp_test_summary();
}
