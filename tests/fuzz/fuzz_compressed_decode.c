/*
** fuzz_compressed_decode.c -- libFuzzer target: compressed messages
** (Lz4Block ext 99, Lz4BlockArray ext 98; sp_compress.h) through the
** decoders' detection. An input is decoded as it comes (the seeds are
** compressed messages), except when its first byte is 0 or 1: then the
** bytes after the fourth are a plain message, compressed (0 Lz4Block, 1
** Lz4BlockArray) with one byte then changed where and how bytes 1..3 say,
** so the fuzzer reaches past valid framing into the blocks.
** Properties: no crash, leak or UB; the input and the same bytes in small
** segments (blocks spanning them) decode alike; an error names a byte of
** the input; plain bytes never exceed the limit; a decoded message,
** re-encoded and compressed in either mode, decodes to the same bytes.
** fuzz-args: -max_len=8192
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "scratchpack.h"

#define LIMIT (1u << 20)

/* Decodes the bytes (contiguous, or in the segments of seq) into doc. */
static sp_code decode(const uint8_t *data, size_t len, const sp_sequence *seq, sp_doc *doc,
                      sp_value *v, sp_error *err) {
  sp_decode_options opt = {.decompress.max_plain = LIMIT};
  sp_reader r;
  if (seq) sp_reader_init_sequence(&r, seq);
  else sp_reader_init(&r, data, len);
  if (sp_value_read(&r, &opt, doc, v) == SP_OK && sp_reader_remaining(&r) != 0)
    sp_reader_fail(&r, SP_E_TRAILING_BYTES, "bytes after the value", __func__);
  *err = r.err;
  return r.err.code;
}

/* The same bytes in segments of 1 .. 97 bytes, as the last byte says:
** nearly every token and block straddles one. */
static sp_segment segs[8192];

static void split(const uint8_t *data, size_t len, sp_sequence *seq) {
  size_t step = len ? 1 + data[len - 1] % 97 : 1, n = 0;
  for (size_t at = 0; at < len; at += step, n++) {
    segs[n].data = (uint8_t *)(uintptr_t)data + at;
    segs[n].used = segs[n].capacity = len - at < step ? len - at : step;
  }
  memset(seq, 0, sizeof *seq);
  seq->segs = segs;
  seq->nsegs = seq->cap_segs = n;
  seq->length = len;
}

/* The plain message compressed in 'mode' into buf. */
static void compress(sp_compression mode, const uint8_t *plain, size_t len, sp_buffer *buf) {
  sp_output out = sp_buffer_output(buf);
  sp_writer w;
  sp_buffer_clear(buf);
  sp_writer_init_output(&w, &out);
  sp_write_compressed_bytes(&w, mode, 0, plain, len, NULL);
  FUZZ_ASSERT(sp_writer_flush(&w) == SP_OK);
}

/* The decoded tree re-encoded plain, then compressed in both modes: each
** decodes to the same plain bytes. (Not below 64 bytes: written as they
** are, plain bytes that form a compressed message are decompressed.) */
static void round_trips(const sp_value *v) {
  sp_bytes plain;
  sp_buffer buf;
  sp_buffer_init(&buf);
  FUZZ_ASSERT(sp_to_array(sp_format_value, v, NULL, &plain, NULL) == SP_OK);
  for (sp_compression mode = SP_COMPRESSION_LZ4_BLOCK;
       plain.len >= SP_COMPRESS_MIN_LENGTH && mode <= SP_COMPRESSION_LZ4_BLOCK_ARRAY; mode++) {
    sp_doc doc = {0};
    sp_value w;
    sp_error e;
    sp_bytes again;
    compress(mode, plain.data, plain.len, &buf);
    FUZZ_ASSERT(decode(buf.data, buf.len, NULL, &doc, &w, &e) == SP_OK);
    FUZZ_ASSERT(sp_to_array(sp_format_value, &w, NULL, &again, NULL) == SP_OK);
    FUZZ_ASSERT(again.len == plain.len && memcmp(again.data, plain.data, plain.len) == 0);
    sp_bytes_free(&again);
    sp_doc_free(&doc);
  }
  sp_bytes_free(&plain);
  sp_buffer_free(&buf);
}

/* The plain reader never holds more than the limit. */
static void plain_within_limit(const uint8_t *data, size_t len) {
  sp_decompress_options opt = {.max_plain = LIMIT};
  sp_reader r, *src;
  sp_plain p;
  sp_reader_init(&r, data, len);
  src = sp_plain_open(&p, &r, &opt);
  FUZZ_ASSERT(src == &r || (p.compressed && sp_reader_remaining(src) <= LIMIT));
  sp_plain_close(&p, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  sp_doc doc = {0}, parts = {0};
  sp_value v, s;
  sp_error e, se;
  sp_sequence seq;
  sp_buffer made;
  sp_code c;
  sp_buffer_init(&made);
  if (len >= 4 && data[0] < 2) {            /* a plain message to compress and change */
    compress(data[0] ? SP_COMPRESSION_LZ4_BLOCK_ARRAY : SP_COMPRESSION_LZ4_BLOCK, data + 4, len - 4, &made);
    if (data[3] != 0 && made.len > 0) made.data[(data[1] | data[2] << 8) % made.len] ^= data[3];
    data = made.data;
    len = made.len;
  }
  c = decode(data, len, NULL, &doc, &v, &e);
  FUZZ_ASSERT(c == SP_OK || e.offset <= len);
  split(data, len, &seq);
  FUZZ_ASSERT(decode(data, len, seq.nsegs ? &seq : NULL, &parts, &s, &se) == c);
  FUZZ_ASSERT(c == SP_OK || se.offset == e.offset);
  plain_within_limit(data, len);
  if (c == SP_OK) round_trips(&v);
  sp_doc_free(&doc);
  sp_doc_free(&parts);
  sp_buffer_free(&made);
  return 0;
}
