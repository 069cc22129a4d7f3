/*
** fuzz_value_decode.c -- libFuzzer target: any bytes through the reader and
** the value tree. The decode never allocates more than the budget's multiple
** of its input (sp_value_decode.c: 64 bytes a byte plus a 16 KiB block);
** when it succeeds, sp_skip accepts the same value and ends where it ended,
** and when sp_skip refuses the input the decode does too, at the same
** token with the same code or earlier (depth, budget, a bad timestamp,
** which sp_skip does not look at); the input cut
** into three segments (at places the bytes choose) decodes exactly as the
** contiguous one, fast paths and slow paths alike; a decoded tree
** re-encodes to bytes that decode to the same tree again.
** fuzz-args: -max_len=4096
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "scratchpack.h"

/* Decodes data[0..len) (contiguous, or in the segments of seq) into doc;
** returns the code, with the end offset or the error's offset in *at. */
static sp_code decode(const uint8_t *data, size_t len, const sp_sequence *seq, int borrow,
                      sp_doc *doc, sp_value *v, uint64_t *at) {
  sp_decode_options opt = {.borrow = borrow, .decompress.off = 1};   /* fuzz_compressed_decode has those */
  sp_reader r;
  sp_code c;
  if (seq) sp_reader_init_sequence(&r, seq);
  else sp_reader_init(&r, data, len);
  c = sp_value_read(&r, &opt, doc, v);
  *at = c == SP_OK ? sp_reader_offset(&r) : r.err.offset;
  return c;
}

static sp_bytes encode(const sp_value *v) {
  sp_bytes b;
  FUZZ_ASSERT(sp_to_array(sp_format_value, v, NULL, &b, NULL) == SP_OK);
  return b;
}

/* The same bytes in three segments, cut where the first bytes say. */
static void split3(const uint8_t *data, size_t len, sp_segment segs[3], sp_sequence *seq) {
  size_t a = len ? data[0] % (len + 1) : 0, b = len > 1 ? data[1] % (len + 1) : len;
  if (a > b) { size_t t = a; a = b; b = t; }
  segs[0].data = (uint8_t *)(uintptr_t)data;
  segs[0].used = segs[0].capacity = a;
  segs[1].data = (uint8_t *)(uintptr_t)data + a;
  segs[1].used = segs[1].capacity = b - a;
  segs[2].data = (uint8_t *)(uintptr_t)data + b;
  segs[2].used = segs[2].capacity = len - b;
  memset(seq, 0, sizeof *seq);
  seq->segs = segs;
  seq->nsegs = seq->cap_segs = 3;
  seq->length = len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  sp_doc doc = {0}, again = {0}, split = {0};
  sp_value v, w, s;
  sp_alloc_stats a;
  sp_segment segs[3];
  sp_sequence seq;
  sp_reader r;
  uint64_t at, split_at, again_at;
  sp_code c, sc;

  sp_alloc_stats_reset();
  c = decode(data, len, NULL, 0, &doc, &v, &at);
  sp_alloc_stats_get(&a);
  FUZZ_ASSERT(a.alloc_bytes <= 64 * (uint64_t)len + 16384 + 64);
  FUZZ_ASSERT(at <= len);

  sp_reader_init(&r, data, len);
  if (c == SP_OK) {
    FUZZ_ASSERT(sp_skip(&r) && sp_reader_offset(&r) == at);
  } else if (!sp_skip(&r)) {   /* the decode stops there too, or earlier (depth, budget, a timestamp) */
    FUZZ_ASSERT(at <= r.err.offset);
    FUZZ_ASSERT(at < r.err.offset || c == r.err.code || c == SP_E_DEPTH_LIMIT);
  }

  split3(data, len, segs, &seq);
  sc = decode(data, len, &seq, 0, &split, &s, &split_at);
  FUZZ_ASSERT(sc == c && split_at == at);
  if (c == SP_OK) {
    sp_bytes x = encode(&v), y = encode(&s);
    FUZZ_ASSERT(x.len == y.len && memcmp(x.data, y.data, x.len) == 0);
    FUZZ_ASSERT(decode(x.data, x.len, NULL, 1, &again, &w, &again_at) == SP_OK && again_at == x.len);
    sp_bytes_free(&y);
    y = encode(&w);
    FUZZ_ASSERT(x.len == y.len && memcmp(x.data, y.data, x.len) == 0);
    sp_bytes_free(&x);
    sp_bytes_free(&y);
  }
  sp_doc_free(&doc);
  sp_doc_free(&again);
  sp_doc_free(&split);
  return 0;
}
