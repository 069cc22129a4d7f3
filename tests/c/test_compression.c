/*
** test_compression.c -- MessagePack-CSharp's Lz4Block (ext 99) and
** Lz4BlockArray (ext 98) through every entry and every decoder.
** The byte layouts are checked against the documented layout
** (../shared/reference/msgpack-csharp.md, "ToLZ4BinaryCore"; sp_compress.h
** draws it): hand-computed bytes at the 64-byte threshold, the ext header
** in each of its forms, the d2 length, the ext 98 lengths and the bin32
** blocks of multi-segment messages, read here by a parser of that layout
** that shares nothing with sp_decompress.c. Then: the detection rules,
** corrupt input, the limits, allocation per call after warm-up against the
** uncompressed calls, nested calls, cancellation and failed allocations.
** (liblz4 reading every block embedded here, and us reading messages whose
** blocks liblz4 made: interop_lz4.c, native only.)
*/
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "sp_trace.h"
#include "sp_test.h"
#include "lz4_layout.h"
#include "test_util.h"
#include "../../bench/workload_bytes.h"

#define BLOCK SP_COMPRESSION_LZ4_BLOCK
#define ARRAY SP_COMPRESSION_LZ4_BLOCK_ARRAY

/* Private pools, so the counters are this test's alone. */
static sp_pool *arrays;
static sp_seq_pool *seqs;
static sp_options opts;

static void pools_open(sp_compression mode) {
  arrays = sp_bucket_pool_create(80 * 1024, 100);
  seqs = sp_seq_pool_create(8, arrays);
  memset(&opts, 0, sizeof opts);
  opts.seq_pool = seqs;
  opts.compression = mode;
}

static void pools_close(void) {
  sp_seq_pool_destroy(seqs);
  sp_pool_destroy(arrays);
  sp_thread_cleanup();
}

/* Decode options over the private pools. */
static sp_decode_options dopts(void) {
  sp_decode_options d;
  memset(&d, 0, sizeof d);
  d.decompress.seq_pool = seqs;
  return d;
}

/* ---- messages ------------------------------------------------------------------ */

/* A formatter writing the bytes of an sp_bytes as they are. */
static int raw_format(sp_writer *w, const void *value) {
  const sp_bytes *b = value;
  sp_write_raw(w, b->data, b->len);
  return 0;
}

/* bin of n zero bytes (n < 256): the message c4 n 00 ... 00, n + 2 bytes. */
static sp_bytes zero_bin(size_t n) {
  sp_bytes b;
  b.len = n + 2;
  b.data = xmalloc(b.len);
  memset(b.data, 0, b.len);
  b.data[0] = 0xc4;
  b.data[1] = (uint8_t)n;
  return b;
}

static void bytes_free(sp_bytes *b) { free(b->data); }

/* The workloads of bench/workload_bytes.h as formatters. */
static const sp_format_fn workloads[WL_COUNT] = {workload_fmt_records, workload_fmt_ints,
                                                 workload_fmt_strings, workload_fmt_big};

/* The uncompressed message (the reference), in b (the caller frees it). */
static void plain_of(sp_format_fn fn, const void *value, sp_buffer *b) {
  sp_output out = sp_buffer_output(b);
  sp_buffer_init(b);
  CHECK(sp_to_output(&out, fn, value, NULL, NULL) == SP_OK);
}

/* The message compressed in 'mode' by the to_output entry. */
static void packed_of(sp_compression mode, sp_format_fn fn, const void *value, sp_buffer *b) {
  sp_options o = opts;
  sp_output out = sp_buffer_output(b);
  o.compression = mode;
  sp_buffer_init(b);
  CHECK(sp_to_output(&out, fn, value, &o, NULL) == SP_OK);
}

/* sp_write_compressed_bytes into a growable buffer. */
static void compress_bytes(sp_compression mode, const void *data, size_t len, sp_buffer *b) {
  sp_output out = sp_buffer_output(b);
  sp_writer w;
  sp_buffer_init(b);
  sp_writer_init_output(&w, &out);
  sp_write_compressed_bytes(&w, mode, 0, data, len, arrays);
  CHECK(sp_writer_flush(&w) == SP_OK);
}

/* The compressed bytes hold exactly 'plain' in 'mode's layout. */
static int holds(sp_compression mode, const uint8_t *b, size_t n, const uint8_t *plain, size_t plain_len,
                 layout *l) {
  sp_bytes got;
  int ok = mode == BLOCK ? parse_lz4block(b, n, l) : parse_lz4blockarray(b, n, l);
  if (!ok) return 0;
  ok = inflate_layout(l, &got) && got.len == plain_len && memcmp(got.data, plain, plain_len) == 0;
  free(got.data);
  return ok;
}

/* ---- byte layouts ------------------------------------------------------------------ */

static void messages_under_64_bytes_are_written_as_they_are(void) {
  sp_bytes m = zero_bin(61);                     /* 63 bytes */
  pools_open(SP_COMPRESSION_NONE);
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    sp_buffer b;
    packed_of(mode, raw_format, &m, &b);
    CHECK_BYTES(b.data, b.len, m.data, m.len);
    sp_buffer_free(&b);
  }
  bytes_free(&m);
  pools_close();
}

static void a_64_byte_message_is_compressed_in_the_documented_layout(void) {
  static const uint8_t lz4block_head[] = {0xc7, 0x12, 0x63,             /* ext 8, 5 + 13, type 99 */
                                          0xd2, 0x00, 0x00, 0x00, 0x40}; /* int32 64 */
  static const uint8_t array_head[] = {0x92,                          /* [ext, one block] */
                                       0xd4, 0x62, 0x40,              /* fixext 1, type 98: 64 */
                                       0xc6, 0x00, 0x00, 0x00, 0x0d}; /* bin32 of 13 */
  sp_bytes m = zero_bin(62);
  uint8_t want[sizeof array_head + sizeof lz4_block64];
  sp_buffer b;
  pools_open(SP_COMPRESSION_NONE);
  packed_of(BLOCK, raw_format, &m, &b);
  memcpy(want, lz4block_head, sizeof lz4block_head);
  memcpy(want + sizeof lz4block_head, lz4_block64, sizeof lz4_block64);
  CHECK_BYTES(b.data, b.len, want, sizeof lz4block_head + sizeof lz4_block64);
  sp_buffer_free(&b);
  packed_of(ARRAY, raw_format, &m, &b);
  memcpy(want, array_head, sizeof array_head);
  memcpy(want + sizeof array_head, lz4_block64, sizeof lz4_block64);
  CHECK_BYTES(b.data, b.len, want, sizeof want);
  sp_buffer_free(&b);
  bytes_free(&m);
  pools_close();
}

/* The ext 99 header in each of its forms, written after the block: fixext
** 16 (a 64-byte run: an 11-byte block), ext 8, ext 16 and ext 32. */
static void the_lz4block_header_takes_its_smallest_form(void) {
  static const struct { size_t n; uint8_t code; size_t h; int random; } cases[] = {
    {64, 0xd8, 2, 0}, {1000, 0xc7, 3, 0}, {1000, 0xc8, 4, 1}, {70000, 0xc9, 6, 1},
  };
  pools_open(SP_COMPRESSION_NONE);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint8_t *plain = cases[i].random ? pattern(cases[i].n, 5) : calloc(cases[i].n, 1);
    sp_buffer b;
    layout l;
    compress_bytes(BLOCK, plain, cases[i].n, &b);
    CHECK(b.len > cases[i].h && b.data[0] == cases[i].code);
    CHECK(holds(BLOCK, b.data, b.len, plain, cases[i].n, &l) && l.header == cases[i].h + 5);
    if (i == 0) CHECK(l.block_len[0] == 11);
    sp_buffer_free(&b);
    free(plain);
  }
  pools_close();
}

/* Every workload through to_array: Lz4Block is one block of the whole
** message; Lz4BlockArray one bin32 block per 32 KiB segment of the plain
** message (lengths in cd form), each decompressing to its slice. */
static void multi_segment_messages_have_a_block_per_segment(void) {
  pools_open(SP_COMPRESSION_NONE);
  for (int wl = 0; wl < WL_COUNT; wl++) {
    sp_buffer plain;
    plain_of(workloads[wl], NULL, &plain);
    for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
      sp_options o = opts;
      sp_bytes b;
      layout l;
      o.compression = mode;
      CHECK(sp_to_array(workloads[wl], NULL, &o, &b, NULL) == SP_OK);
      CHECK(holds(mode, b.data, b.len, plain.data, plain.len, &l));
      if (mode == ARRAY) {
        CHECK(l.nblocks >= plain.len / SP_COMPRESS_BLOCK_MAX + 1 && l.nblocks >= 2);
        for (size_t i = 0; i < l.nblocks; i++) CHECK(l.plain[i] > 0 && l.plain[i] <= SP_COMPRESS_BLOCK_MAX);
        CHECK(l.plain[0] > 32000 && l.plain[0] <= 32768);   /* the first segment, nearly full */
      }
      sp_bytes_free(&b);
    }
    sp_buffer_free(&plain);
  }
  pools_close();
}

/* ---- entries --------------------------------------------------------------------------- */

/* The message by entry k (0 to_array, 1 to_output, 2 to_output into a
** fixed buffer, 3 to_stream, 4 a to_stream lifecycle's pieces, 5 a
** to_array lifecycle's view) into b. */
static void by_entry(int k, sp_format_fn fn, const void *value, sp_buffer *b) {
  sp_output out = sp_buffer_output(b);
  sp_buffer fixed;
  sp_output fout;
  sp_bytes bytes;
  sp_entry e;
  const uint8_t *p;
  size_t n;
  sp_buffer_init(b);
  switch (k) {
    case 0:
      CHECK(sp_to_array(fn, value, &opts, &bytes, NULL) == SP_OK);
      buffer_sink(b, bytes.data, bytes.len);
      sp_bytes_free(&bytes);
      break;
    case 1: CHECK(sp_to_output(&out, fn, value, &opts, NULL) == SP_OK); break;
    case 2:
      sp_buffer_init(&fixed);
      fixed.cap = 4u << 20;
      fixed.data = xmalloc(fixed.cap);
      fout = sp_fixed_output(&fixed);
      CHECK(sp_to_output(&fout, fn, value, &opts, NULL) == SP_OK);
      buffer_sink(b, fixed.data, fixed.len);
      free(fixed.data);
      break;
    case 3: CHECK(sp_to_stream(buffer_sink, b, fn, value, &opts, NULL) == SP_OK); break;
    case 4:
      sp_entry_begin_stream(&e, NULL, NULL, &opts);
      sp_serialize(&e.w, fn, value);
      CHECK(sp_entry_finish(&e) == SP_OK);
      for (size_t i = 0; i < sp_entry_pieces(&e); i++) {
        p = sp_entry_piece(&e, i, &n);
        buffer_sink(b, p, n);
      }
      CHECK(sp_entry_end(&e, NULL) == SP_OK);
      break;
    default:
      sp_entry_begin_array(&e, &opts);
      sp_serialize(&e.w, fn, value);
      CHECK(sp_entry_finish(&e) == SP_OK);
      if (CHECK(sp_entry_view(&e, &p, &n) == SP_OK)) buffer_sink(b, p, n);
      CHECK(sp_entry_end(&e, NULL) == SP_OK);
  }
}

static void every_entry_writes_the_same_compressed_bytes(void) {
  sp_bytes small = zero_bin(100);
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    pools_open(mode);
    for (int wl = 0; wl <= WL_COUNT; wl++) {
      sp_format_fn fn = wl < WL_COUNT ? workloads[wl] : raw_format;
      const void *value = wl < WL_COUNT ? NULL : &small;
      sp_buffer first, plain;
      layout l;
      by_entry(0, fn, value, &first);
      plain_of(fn, value, &plain);
      CHECK(holds(mode, first.data, first.len, plain.data, plain.len, &l));
      for (int k = 1; k < 6; k++) {
        sp_buffer b;
        by_entry(k, fn, value, &b);
        CHECK_BYTES(b.data, b.len, first.data, first.len);
        sp_buffer_free(&b);
      }
      sp_buffer_free(&first);
      sp_buffer_free(&plain);
    }
    pools_close();
  }
  bytes_free(&small);
}

/* Around the block and bucket boundaries: a str of n bytes makes an
** (n + 5)-byte message. */
static int str_format(sp_writer *w, const void *value) {
  const sp_bytes *b = value;
  sp_write_str(w, (const char *)b->data, b->len);
  return 0;
}

static void lengths_around_the_boundaries_round_trip(void) {
  static const size_t sizes[] = {61, 62, 32763, 32764, 32765, 65531, 65532, 131067, 131072, 200000};
  pools_open(SP_COMPRESSION_NONE);
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    sp_bytes text = {pattern(sizes[i], (uint32_t)i), sizes[i]};
    sp_buffer plain;
    plain_of(str_format, &text, &plain);
    for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
      sp_buffer b;
      sp_decode_options d = dopts();
      sp_doc doc = {0};
      sp_value v;
      layout l;
      packed_of(mode, str_format, &text, &b);
      if (plain.len >= 64) CHECK(holds(mode, b.data, b.len, plain.data, plain.len, &l));
      else CHECK_BYTES(b.data, b.len, plain.data, plain.len);
      CHECK(sp_value_decode(b.data, b.len, &d, &doc, &v, NULL) == SP_OK);
      CHECK(v.kind == SP_STR && v.as.str.len == text.len && memcmp(v.as.str.ptr, text.data, text.len) == 0);
      sp_doc_free(&doc);
      sp_buffer_free(&b);
    }
    sp_buffer_free(&plain);
    free(text.data);
  }
  pools_close();
}

/* ---- decoders ---------------------------------------------------------------------------- */

/* The bytes in three segments (cut at a third and two thirds). */
static void split3(const uint8_t *data, size_t len, sp_segment segs[3], sp_sequence *seq) {
  size_t cut[4] = {0, len / 3, 2 * len / 3, len};
  memset(seq, 0, sizeof *seq);
  for (int i = 0; i < 3; i++) {
    segs[i].data = (uint8_t *)(uintptr_t)data + cut[i];
    segs[i].used = segs[i].capacity = cut[i + 1] - cut[i];
  }
  seq->segs = segs;
  seq->nsegs = seq->cap_segs = 3;
  seq->length = len;
}

/* A value tree re-encoded plain. */
static int tree_is(const sp_value *v, const sp_buffer *plain) {
  sp_bytes b;
  int ok = sp_to_array(sp_format_value, v, NULL, &b, NULL) == SP_OK && b.len == plain->len &&
           memcmp(b.data, plain->data, b.len) == 0;
  sp_bytes_free(&b);
  return ok;
}

static void value_trees_read_both_modes_back(void) {
  pools_open(SP_COMPRESSION_NONE);
  for (int wl = 0; wl < WL_COUNT; wl++) {
    sp_buffer plain;
    plain_of(workloads[wl], NULL, &plain);
    for (sp_compression mode = SP_COMPRESSION_NONE; mode <= ARRAY; mode++) {
      sp_decode_options d = dopts();
      sp_buffer b;
      sp_doc doc = {0};
      sp_value v;
      sp_segment segs[3];
      sp_sequence seq;
      sp_reader r;
      packed_of(mode, workloads[wl], NULL, &b);
      for (d.borrow = 0; d.borrow <= 1; d.borrow++) {
        CHECK(sp_value_decode(b.data, b.len, &d, &doc, &v, NULL) == SP_OK && tree_is(&v, &plain));
        sp_doc_reset(&doc);
      }
      split3(b.data, b.len, segs, &seq);       /* blocks that span segments are copied */
      sp_reader_init_sequence(&r, &seq);
      CHECK(sp_value_read(&r, &d, &doc, &v) == SP_OK && tree_is(&v, &plain));
      CHECK(sp_reader_remaining(&r) == 0);
      sp_doc_free(&doc);
      sp_buffer_free(&b);
    }
    sp_buffer_free(&plain);
  }
  pools_close();
}

static void the_plain_reader_gives_the_plain_bytes(void) {
  pools_open(SP_COMPRESSION_NONE);
  for (sp_compression mode = SP_COMPRESSION_NONE; mode <= ARRAY; mode++) {
    sp_buffer plain, b;
    sp_decompress_options o = {0};
    sp_plain p;
    sp_reader r, *src;
    uint8_t *got;
    o.seq_pool = seqs;
    plain_of(workload_fmt_records, NULL, &plain);
    packed_of(mode, workload_fmt_records, NULL, &b);
    sp_reader_init(&r, b.data, b.len);
    src = sp_plain_open(&p, &r, &o);
    CHECK((src == &r) == (mode == SP_COMPRESSION_NONE) && p.compressed == (mode != SP_COMPRESSION_NONE));
    CHECK(sp_reader_remaining(src) == plain.len);
    got = xmalloc(plain.len);
    CHECK(sp_read_raw(src, got, plain.len) && memcmp(got, plain.data, plain.len) == 0);
    CHECK(sp_plain_close(&p, 1) == SP_OK && sp_reader_remaining(&r) == 0);
    free(got);
    sp_buffer_free(&b);
    sp_buffer_free(&plain);
  }
  pools_close();
}

/* The plain bytes in one piece: always for Lz4Block, for Lz4BlockArray
** when they fit the bucket (b.records) or when asked (d.strings). */
static void the_plain_bytes_come_in_one_piece_when_they_can(void) {
  pools_open(SP_COMPRESSION_NONE);
  for (int wl = WL_RECORDS; wl <= WL_STRINGS; wl += WL_STRINGS - WL_RECORDS)
    for (sp_compression mode = BLOCK; mode <= ARRAY; mode++)
      for (int contiguous = 0; contiguous <= 1; contiguous++) {
        sp_decompress_options o = {0};
        sp_buffer plain, b;
        sp_plain p;
        sp_reader r;
        const uint8_t *bytes;
        size_t len;
        o.seq_pool = seqs;
        o.contiguous = contiguous;
        plain_of(workloads[wl], NULL, &plain);
        packed_of(mode, workloads[wl], NULL, &b);
        sp_reader_init(&r, b.data, b.len);
        sp_plain_open(&p, &r, &o);
        bytes = sp_plain_bytes(&p, &len);
        if (mode == ARRAY && wl == WL_STRINGS && !contiguous) CHECK(bytes == NULL && p.seq->nsegs > 1);
        else CHECK(bytes != NULL && len == plain.len && memcmp(bytes, plain.data, len) == 0);
        sp_plain_close(&p, 0);
        sp_buffer_free(&b);
        sp_buffer_free(&plain);
      }
  pools_close();
}

static int ints_format(sp_writer *w, const void *value) {
  const sp_bytes *b = value;        /* len int32s at data */
  sp_write_i32_array(w, (const int32_t *)(const void *)b->data, b->len);
  return 0;
}

static void bulk_arrays_read_both_modes_back(void) {
  enum { N = 30000 };
  int32_t *src = xmalloc(N * sizeof *src), *dst = xmalloc(N * sizeof *dst);
  sp_bytes v = {(uint8_t *)src, N};
  pools_open(SP_COMPRESSION_NONE);
  for (int i = 0; i < N; i++) src[i] = i % 3 == 0 ? -i : i * 7;
  for (sp_compression mode = SP_COMPRESSION_NONE; mode <= ARRAY; mode++) {
    sp_decompress_options o = {0};
    sp_buffer b;
    uint32_t n = 0;
    o.seq_pool = seqs;
    packed_of(mode, ints_format, &v, &b);
    memset(dst, 0, N * sizeof *dst);
    CHECK(sp_numeric_array_decode(b.data, b.len, SP_NUM_I32, dst, N, &n, &o, NULL) == SP_OK);
    CHECK(n == N && memcmp(src, dst, N * sizeof *dst) == 0);
    CHECK(sp_numeric_array_decode(b.data, b.len, SP_NUM_I32, dst, N - 1, &n, &o, NULL) == SP_E_LENGTH_LIMIT);
    sp_buffer_free(&b);
  }
  pools_close();
  free(src);
  free(dst);
}

/* A struct with a string and an int32 array, string keys. */
typedef struct rec {
  int32_t id;
  sp_str_field name;
  sp_array_field vals;
} rec;

static const sp_field rec_fields[] = {
  SP_MEMBER(rec, id, SP_F_I32),
  SP_MEMBER(rec, name, SP_F_STR),
  SP_MEMBER(rec, vals, SP_F_I32, .flags = SP_FIELD_ARRAY),
};
static sp_schema rec_schema = SP_SCHEMA(rec, rec_fields, 0);

static void schemas_read_both_modes_back(void) {
  enum { N = 20000 };
  int32_t *vals = xmalloc(N * sizeof *vals);
  rec in = {42, SP_STR_LIT("a record of twenty thousand ints"), SP_ARRAY_OF(vals, N)};
  for (int i = 0; i < N; i++) vals[i] = i / 8;
  for (sp_compression mode = SP_COMPRESSION_NONE; mode <= ARRAY; mode++) {
    sp_bytes b;
    pools_open(mode);
    CHECK(sp_schema_to_array(&rec_schema, &in, &opts, &b, NULL) == SP_OK);
    CHECK(mode == SP_COMPRESSION_NONE ? b.data[0] == 0x83 : b.len < N);
    for (unsigned flags = 0; flags <= SP_DECODE_BORROW; flags++) {
      rec out;
      memset(&out, 0, sizeof out);
      CHECK(sp_schema_decode(&rec_schema, b.data, b.len, &out, flags, NULL) == SP_OK);
      CHECK(out.id == 42 && out.name.len == in.name.len && memcmp(out.name.ptr, in.name.ptr, in.name.len) == 0);
      CHECK(out.vals.count == N && memcmp(out.vals.ptr, vals, N * sizeof *vals) == 0);
      if (mode != SP_COMPRESSION_NONE) CHECK(out.name.cap > 0);   /* copied: the plain bytes went back */
      sp_schema_release(&rec_schema, &out);
    }
    sp_bytes_free(&b);
    pools_close();
  }
  free(vals);
}

/* A fixed-size schema's to_array fast path writes no compressed form, so
** compressing takes the entry. */
typedef struct fixed8 { int64_t v[8]; } fixed8;
static const sp_field fixed8_fields[] = {SP_MEMBER(fixed8, v, SP_F_I64, .count = 8, .flags = SP_FIXED_WIDTH)};
static sp_schema fixed8_schema = SP_SCHEMA(fixed8, fixed8_fields, 0);

static void fixed_size_schemas_are_compressed_too(void) {
  fixed8 in = {{0}}, out = {{1}};
  sp_bytes b;
  layout l;
  pools_open(BLOCK);
  CHECK(sp_schema_fixed_size(&fixed8_schema) >= 64);
  CHECK(sp_schema_to_array(&fixed8_schema, &in, &opts, &b, NULL) == SP_OK);
  CHECK(parse_lz4block(b.data, b.len, &l));
  CHECK(sp_schema_decode(&fixed8_schema, b.data, b.len, &out, 0, NULL) == SP_OK && out.v[0] == 0);
  sp_bytes_free(&b);
  pools_close();
}

/* ---- detection ------------------------------------------------------------------------------ */

static void detection_off_gives_the_ext_values(void) {
  sp_bytes m = zero_bin(100);
  pools_open(SP_COMPRESSION_NONE);
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    sp_decode_options d = dopts();
    sp_buffer b;
    sp_doc doc = {0};
    sp_value v;
    packed_of(mode, raw_format, &m, &b);
    d.decompress.off = 1;
    CHECK(sp_value_decode(b.data, b.len, &d, &doc, &v, NULL) == SP_OK);
    if (mode == BLOCK) CHECK(v.kind == SP_EXT && v.as.ext.type == 99);
    else CHECK(v.kind == SP_ARRAY && v.as.array.n == 2 && v.as.array.items[0].kind == SP_EXT &&
               v.as.array.items[0].as.ext.type == 98 && v.as.array.items[1].kind == SP_BIN);
    d.decompress.off = 0;
    sp_doc_reset(&doc);
    CHECK(sp_value_decode(b.data, b.len, &d, &doc, &v, NULL) == SP_OK && v.kind == SP_BIN &&
          v.as.bin.len == 100);
    sp_doc_free(&doc);
    sp_buffer_free(&b);
  }
  bytes_free(&m);
  pools_close();
}

/* As MessagePack-CSharp: the top of the message only, and once. */
static void only_the_top_of_a_message_is_decompressed(void) {
  uint8_t *noise = pattern(200, 9);
  sp_value bin = sp_bin(noise, 200);
  pools_open(SP_COMPRESSION_NONE);
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    sp_decode_options d = dopts();
    sp_buffer inner, outer, twice;
    sp_bytes wrapped;
    sp_doc doc = {0};
    sp_value v;
    packed_of(mode, sp_format_value, &bin, &inner);
    CHECK(inner.len >= 64);
    /* [1, <compressed>]: the compressed message is an element, not the top */
    wrapped.len = inner.len + 2;
    wrapped.data = xmalloc(wrapped.len);
    wrapped.data[0] = 0x92;
    wrapped.data[1] = 0x01;
    memcpy(wrapped.data + 2, inner.data, inner.len);
    plain_of(raw_format, &wrapped, &outer);
    CHECK(sp_value_decode(outer.data, outer.len, &d, &doc, &v, NULL) == SP_OK);
    CHECK(v.kind == SP_ARRAY && v.as.array.n == 2);
    CHECK(v.as.array.items[1].kind == (mode == BLOCK ? SP_EXT : SP_ARRAY));
    sp_doc_reset(&doc);
    /* a compressed message whose plain message is compressed too: once */
    packed_of(mode, raw_format, &(sp_bytes){inner.data, inner.len}, &twice);
    CHECK(twice.len != inner.len || memcmp(twice.data, inner.data, inner.len) != 0);
    CHECK(sp_value_decode(twice.data, twice.len, &d, &doc, &v, NULL) == SP_OK);
    CHECK(v.kind == (mode == BLOCK ? SP_EXT : SP_ARRAY));
    sp_doc_free(&doc);
    sp_buffer_free(&twice);
    sp_buffer_free(&outer);
    sp_buffer_free(&inner);
    free(wrapped.data);
  }
  free(noise);
  pools_close();
}

static void ordinary_arrays_and_exts_are_not_mistaken(void) {
  static const uint8_t cases[][8] = {
    {0x90},                                   /* [] */
    {0x91, 0xd4, 0x05, 0x01},                 /* [ext 5] */
    {0x92, 0xd4, 0x63, 0x01, 0xc0},           /* [ext 99, nil]: 99 leads no array */
    {0xd4, 0x62, 0x01},                       /* ext 98 alone */
    {0x91, 0x91, 0xd4, 0x62, 0x01},           /* [[ext 98]] */
  };
  static const size_t lens[] = {1, 4, 5, 3, 5};
  pools_open(SP_COMPRESSION_NONE);
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    sp_decode_options d = dopts();
    sp_doc doc = {0};
    sp_value v;
    sp_buffer again;
    CHECK(sp_value_decode(cases[i], lens[i], &d, &doc, &v, NULL) == SP_OK);
    plain_of(sp_format_value, &v, &again);
    CHECK_BYTES(again.data, again.len, cases[i], lens[i]);
    sp_buffer_free(&again);
    sp_doc_free(&doc);
  }
  pools_close();
}

/* ---- corrupt input ---------------------------------------------------------------------------- */

/* The 64-byte message of lz4_block64 as Lz4Block, whole (21 bytes). */
static size_t message64(uint8_t *b) {
  static const uint8_t head[] = {0xc7, 0x12, 0x63, 0xd2, 0x00, 0x00, 0x00, 0x40};
  memcpy(b, head, sizeof head);
  memcpy(b + sizeof head, lz4_block64, sizeof lz4_block64);
  return sizeof head + sizeof lz4_block64;
}

static sp_code decode_code(const uint8_t *b, size_t n, uint64_t max_plain) {
  sp_decode_options d = dopts();
  sp_doc doc = {0};
  sp_value v;
  sp_error e;
  d.decompress.max_plain = max_plain;
  sp_value_decode(b, n, &d, &doc, &v, &e);
  sp_doc_free(&doc);
  CHECK(e.code == SP_OK || (e.cause != NULL && e.offset <= n));
  return e.code;
}

static void corrupt_lz4blocks_are_rejected_with_clear_codes(void) {
  uint8_t b[64];
  size_t n;
  pools_open(SP_COMPRESSION_NONE);
  n = message64(b);
  CHECK(decode_code(b, n, 0) == SP_OK);
  b[4] = 0xff;                                              /* plain length 0xff000040: negative */
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);
  n = message64(b);
  b[3] = 0xa4;                                              /* a str where the length goes */
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);
  n = message64(b);
  b[7] = 0x41;                                              /* one byte more than the block holds */
  CHECK(decode_code(b, n, 0) == SP_E_TRUNCATED);
  b[7] = 0x3f;                                              /* one byte less */
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);
  b[4] = 0x7f;                                              /* 2 GiB: over the limit */
  CHECK(decode_code(b, n, 0) == SP_E_LENGTH_LIMIT);
  n = message64(b);
  CHECK(decode_code(b, n, 63) == SP_E_LENGTH_LIMIT);         /* a limit below the message */
  CHECK(decode_code(b, n, 64) == SP_OK);
  b[6] = 0x0d;                                              /* 3,392 bytes from 13: impossible */
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);
  n = message64(b);
  b[12] = 0x05;                                             /* match offset 5 after 3 literals */
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);
  n = message64(b);
  b[1] = 0x05;                                              /* ext of only the length */
  CHECK(decode_code(b, 8, 0) == SP_E_MALFORMED);
  pools_close();
}

static void corrupt_lz4blockarrays_are_rejected_with_clear_codes(void) {
  uint8_t b[64];
  size_t n = 0;
  pools_open(SP_COMPRESSION_NONE);
#define MSG(...)                                                \
  do {                                                          \
    static const uint8_t h_[] = {__VA_ARGS__};                  \
    memcpy(b, h_, sizeof h_);                                   \
    memcpy(b + sizeof h_, lz4_block64, sizeof lz4_block64);     \
    n = sizeof h_ + sizeof lz4_block64;                         \
  } while (0)
  MSG(0x92, 0xd4, 0x62, 0x40, 0xc6, 0x00, 0x00, 0x00, 0x0d);
  CHECK(decode_code(b, n, 0) == SP_OK);
  MSG(0x92, 0xd5, 0x62, 0x40, 0x00, 0xc6, 0x00, 0x00, 0x00, 0x0d);   /* a length too few */
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);
  MSG(0x93, 0xd4, 0x62, 0x40, 0xc6, 0x00, 0x00, 0x00, 0x0d);         /* two blocks, one length */
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);
  MSG(0x92, 0xd4, 0x62, 0xa0, 0xc6, 0x00, 0x00, 0x00, 0x0d);         /* a str as a length */
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);
  MSG(0x92, 0xd4, 0x62, 0x40, 0xdb, 0x00, 0x00, 0x00, 0x0d);         /* a str as a block */
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);
  MSG(0x92, 0xc7, 0x05, 0x62, 0xce, 0x7f, 0xff, 0xff, 0xff, 0xc6, 0x00, 0x00, 0x00, 0x0d);
  CHECK(decode_code(b, n, 0) == SP_E_LENGTH_LIMIT);                  /* 2 GiB */
  MSG(0x92, 0xc7, 0x03, 0x62, 0xcd, 0x10, 0x00, 0xc6, 0x00, 0x00, 0x00, 0x0d);
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);                     /* 4,096 from 13 bytes */
  MSG(0x92, 0xd4, 0x62, 0x41, 0xc6, 0x00, 0x00, 0x00, 0x0d);         /* one byte more */
  CHECK(decode_code(b, n, 0) == SP_E_TRUNCATED);
  MSG(0x93, 0xd5, 0x62, 0x40, 0x40, 0xc6, 0x00, 0x00, 0x00, 0x0d);   /* the second block missing */
  CHECK(decode_code(b, n, 0) == SP_E_TRUNCATED);
  MSG(0x92, 0xd4, 0x62, 0x40, 0xc4, 0x0d);                            /* bin8 is a bin too */
  CHECK(decode_code(b, n, 0) == SP_OK);
  MSG(0x91, 0xc7, 0x00, 0x62);                                        /* no blocks: no value */
  CHECK(decode_code(b, 4, 0) == SP_E_TRUNCATED);
#undef MSG
  pools_close();
}

/* Plain bytes after the value, and an input cut anywhere. */
static void trailing_and_truncated_messages_fail(void) {
  uint8_t two[64] = {0xc4, 61};                /* bin of 61 zeros, then fixint 1 */
  two[63] = 0x01;
  pools_open(SP_COMPRESSION_NONE);
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    sp_buffer b;
    sp_plain p;
    sp_reader r;
    uint32_t len;
    compress_bytes(mode, two, sizeof two, &b);
    CHECK(decode_code(b.data, b.len, 0) == SP_E_TRAILING_BYTES);
    sp_reader_init(&r, b.data, b.len);         /* a reader's caller may read on */
    CHECK(sp_read_bin_header(sp_plain_open(&p, &r, NULL), &len) && len == 61);
    CHECK(sp_plain_close(&p, 0) == SP_OK);
    sp_buffer_free(&b);
    packed_of(mode, workload_fmt_records, NULL, &b);
    for (size_t cut = 0; cut < b.len; cut += cut < 64 ? 1 : 997)
      CHECK(decode_code(b.data, cut, 0) != SP_OK);
    sp_buffer_free(&b);
  }
  pools_close();
}

/* Bytes changed at random: an error or a value, never a crash or a leak. */
static void random_corruption_is_survived(void) {
  uint32_t x = 12345;
  pools_open(SP_COMPRESSION_NONE);
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    sp_buffer b;
    packed_of(mode, workload_fmt_records, NULL, &b);
    for (int round = 0; round < 300; round++) {
      uint8_t *c = xmalloc(b.len);
      memcpy(c, b.data, b.len);
      for (int k = 0; k < 1 + round % 4; k++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        c[(x >> 8) % (round % 2 ? b.len : 40)] ^= (uint8_t)(x | 1);
      }
      decode_code(c, b.len, 1u << 20);
      free(c);
    }
    sp_buffer_free(&b);
  }
  pools_close();
}

/* A huge claim is refused before anything is allocated. */
static void limits_are_checked_before_allocating(void) {
  uint8_t b[64];
  sp_alloc_stats a;
  size_t n;
  pools_open(SP_COMPRESSION_NONE);
  n = message64(b);
  decode_code(b, n, 0);                        /* warm-up */
  b[4] = 0x03;                                 /* 48 MiB from 13 bytes: under the limit, impossible */
  sp_alloc_stats_reset();
  CHECK(decode_code(b, n, 0) == SP_E_MALFORMED);
  a = alloc_since();
  CHECK(a.alloc_bytes < 4096 && a.unpooled_calls == 0);
  pools_close();
}

/* ---- allocation per call ----------------------------------------------------------------------- */

typedef struct per_call {
  uint64_t to_array_calls, to_array_bytes, result, output, stream, decode, bulk;
} per_call;

/* The whole-input bulk decode of c.ints (other workloads: nothing). */
static void bulk_decode(int wl, const sp_buffer *b, int32_t *ints, const sp_decode_options *d) {
  uint32_t n;
  if (wl == WL_INTS)
    CHECK(sp_numeric_array_decode(b->data, b->len, SP_NUM_I32, ints, 30000, &n, &d->decompress, NULL) == SP_OK);
}

/* What each call allocates after warm-up, in 'mode'. */
static per_call measure(sp_compression mode, int wl) {
  per_call m;
  sp_buffer buf, b;
  sp_output out = sp_buffer_output(&buf);
  sp_decode_options d;
  sp_bytes bytes;
  sp_doc doc = {0};
  sp_value v;
  sp_alloc_stats a;
  int32_t *ints = xmalloc(30000 * sizeof *ints);
  pools_open(mode);
  d = dopts();
  sp_buffer_init(&buf);
  packed_of(mode, workloads[wl], NULL, &b);
  for (int warm = 0; warm < 3; warm++) {
    CHECK(sp_to_array(workloads[wl], NULL, &opts, &bytes, NULL) == SP_OK);
    sp_bytes_free(&bytes);
    sp_buffer_clear(&buf);
    CHECK(sp_to_output(&out, workloads[wl], NULL, &opts, NULL) == SP_OK);
    sp_buffer_clear(&buf);
    CHECK(sp_to_stream(buffer_sink, &buf, workloads[wl], NULL, &opts, NULL) == SP_OK);
    sp_doc_reset(&doc);
    CHECK(sp_value_decode(b.data, b.len, &d, &doc, &v, NULL) == SP_OK);
    bulk_decode(wl, &b, ints, &d);
  }
  sp_alloc_stats_reset();
  CHECK(sp_to_array(workloads[wl], NULL, &opts, &bytes, NULL) == SP_OK);
  a = alloc_since();
  m.to_array_calls = a.alloc_calls;
  m.to_array_bytes = a.alloc_bytes;
  m.result = bytes.len;
  sp_bytes_free(&bytes);
  sp_buffer_clear(&buf);
  sp_alloc_stats_reset();
  CHECK(sp_to_output(&out, workloads[wl], NULL, &opts, NULL) == SP_OK);
  m.output = alloc_since().alloc_calls;
  sp_buffer_clear(&buf);
  sp_alloc_stats_reset();
  CHECK(sp_to_stream(buffer_sink, &buf, workloads[wl], NULL, &opts, NULL) == SP_OK);
  m.stream = alloc_since().alloc_calls;
  sp_doc_reset(&doc);
  sp_alloc_stats_reset();
  CHECK(sp_value_decode(b.data, b.len, &d, &doc, &v, NULL) == SP_OK);
  m.decode = alloc_since().alloc_calls;
  sp_alloc_stats_reset();
  bulk_decode(wl, &b, ints, &d);
  m.bulk = alloc_since().alloc_calls;
  sp_doc_free(&doc);
  sp_buffer_free(&b);
  sp_buffer_free(&buf);
  free(ints);
  pools_close();
  return m;
}

/* The same calls with and without compression allocate the same after
** warm-up: the result only for to_array, nothing for the others and for
** decoding. (Lz4Block of a message over the pool's 128 KiB bucket is the
** exception, as in MessagePack-CSharp: its one block needs that much
** contiguous memory, so d.strings is left out for it.) */
static void allocation_per_call_stays_as_flat_as_without_compression(void) {
  for (int wl = 0; wl < WL_COUNT; wl++) {
    per_call plain = measure(SP_COMPRESSION_NONE, wl);
    for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
      per_call m;
      if (mode == BLOCK && wl == WL_STRINGS) continue;
      m = measure(mode, wl);
      CHECK(plain.to_array_calls == 1 && m.to_array_calls == 1 && m.to_array_bytes == m.result);
      CHECK(m.output == plain.output && m.output == 0);
      CHECK(m.stream == plain.stream && m.stream == 0);
      CHECK(m.decode == plain.decode && m.decode == 0);
      CHECK(m.bulk == plain.bulk && m.bulk == 0);
    }
  }
}

/* ---- nesting, cancelling, failing ------------------------------------------------------------------ */

/* [str of 100 'B', bin(to_array of b.records, with opts), 99]. */
static int nest_format(sp_writer *w, const void *value) {
  const sp_options *inner = value;
  sp_bytes b;
  char text[100];
  memset(text, 'B', sizeof text);
  sp_write_array_header(w, 3);
  sp_write_str(w, text, sizeof text);
  if (sp_to_array(workload_fmt_records, NULL, inner, &b, NULL) != SP_OK) return 1;
  sp_write_bin(w, b.data, b.len);
  sp_bytes_free(&b);
  sp_write_int(w, 99);
  return 0;
}

static void nested_calls_stay_safe_when_compressing(void) {
  sp_buffer records;
  plain_of(workload_fmt_records, NULL, &records);
  for (int legacy = 0; legacy <= 1; legacy++) {
    for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
      sp_options inner;
      sp_decode_options d;
      sp_bytes b;
      sp_doc doc = {0}, inner_doc = {0};
      sp_value v, iv;
      pools_open(mode);
      opts.legacy_nested_scratch = legacy;
      inner = opts;
      d = dopts();
      CHECK(sp_to_array(nest_format, &inner, &opts, &b, NULL) == SP_OK);
      CHECK(sp_value_decode(b.data, b.len, &d, &doc, &v, NULL) == SP_OK);
      CHECK(v.kind == SP_ARRAY && v.as.array.n == 3 && v.as.array.items[0].as.str.len == 100);
      CHECK(v.as.array.items[0].as.str.ptr[99] == 'B' && v.as.array.items[2].as.u == 99);
      CHECK(v.as.array.items[1].kind == SP_BIN);
      CHECK(sp_value_decode(v.as.array.items[1].as.bin.ptr, v.as.array.items[1].as.bin.len, &d, &inner_doc,
                            &iv, NULL) == SP_OK && tree_is(&iv, &records));
      sp_doc_free(&inner_doc);
      sp_doc_free(&doc);
      sp_bytes_free(&b);
      pools_close();
    }
  }
  sp_buffer_free(&records);
}

static atomic_int stop;

/* Writes a little, sets the cancel flag, then writes an array (whose
** writers check it). */
static int cancel_midway(sp_writer *w, const void *value) {
  (void)value;
  sp_write_str(w, "before", 6);
  atomic_store(&stop, 1);
  return workload_fmt_ints(w, NULL);
}

static int fail_late(sp_writer *w, const void *value) {
  workload_fmt_records(w, value);
  return 7;
}

static void cancel_and_formatter_errors_leave_nothing_behind(void) {
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    sp_bytes b;
    sp_error e;
    sp_buffer buf;
    sp_output out = sp_buffer_output(&buf);
    int64_t live;
    pools_open(mode);
    sp_buffer_init(&buf);
    CHECK(sp_to_array(workload_fmt_records, NULL, &opts, &b, NULL) == SP_OK);   /* warm-up */
    sp_bytes_free(&b);
    CHECK(sp_to_output(&out, workload_fmt_ints, NULL, &opts, NULL) == SP_OK);
    CHECK(sp_to_stream(buffer_sink, &buf, workload_fmt_records, NULL, &opts, NULL) == SP_OK);
    sp_buffer_clear(&buf);
    live = sp_alloc_live_bytes();
    opts.cancel = &stop;
    atomic_store(&stop, 1);
    CHECK(sp_to_array(workload_fmt_records, NULL, &opts, &b, &e) == SP_E_CANCELLED && b.data == NULL);
    atomic_store(&stop, 0);
    CHECK(sp_to_output(&out, cancel_midway, NULL, &opts, &e) == SP_E_CANCELLED && buf.len == 0);
    atomic_store(&stop, 0);
    CHECK(sp_to_array(fail_late, NULL, &opts, &b, &e) == SP_E_CALLBACK && e.inner == 7 && b.data == NULL);
    CHECK(sp_to_stream(buffer_sink, &buf, fail_late, NULL, &opts, &e) == SP_E_CALLBACK && buf.len == 0);
    CHECK(sp_alloc_live_bytes() == live);
    sp_buffer_free(&buf);
    pools_close();
  }
}

static void an_unknown_compression_is_refused(void) {
  sp_bytes b;
  sp_error e;
  pools_open((sp_compression)7);
  CHECK(sp_to_array(workload_fmt_records, NULL, &opts, &b, &e) == SP_E_INVALID_ARGUMENT && b.data == NULL);
  pools_close();
}

/* A fixed output with room for the compressed message, but not for the
** next block's bound where that block starts. */
static void a_fixed_output_short_of_the_bound_fails_cleanly(void) {
  sp_buffer fixed, whole;
  sp_output out;
  sp_error e;
  pools_open(ARRAY);
  packed_of(ARRAY, workload_fmt_records, NULL, &whole);
  sp_buffer_init(&fixed);
  fixed.cap = whole.len + 16;
  fixed.data = xmalloc(fixed.cap);
  out = sp_fixed_output(&fixed);
  CHECK(sp_to_output(&out, workload_fmt_records, NULL, &opts, &e) == SP_E_BUFFER_TOO_SMALL);
  free(fixed.data);
  sp_buffer_free(&whole);
  pools_close();
}

/* A trace sees the compressed message written into the entry's output,
** and changes no byte of it. */
static void a_trace_records_the_compressed_writes(void) {
  static sp_trace_event events[4096];
  static uint8_t store[1 << 17];
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    sp_trace t;
    sp_bytes plain, traced;
    sp_buffer gathered;
    const sp_trace_event *out = NULL;
    pools_open(mode);
    CHECK(sp_to_array(workload_fmt_records, NULL, &opts, &plain, NULL) == SP_OK);
    sp_trace_init(&t, events, 4096, store, sizeof store);
    opts.observer = &t.observer;
    CHECK(sp_to_array(workload_fmt_records, NULL, &opts, &traced, NULL) == SP_OK);
    CHECK_BYTES(traced.data, traced.len, plain.data, plain.len);
    sp_buffer_init(&gathered);
    for (size_t i = 0; i < t.nevents; i++) {
      if (events[i].kind == SP_TR_WRITE) buffer_sink(&gathered, store + events[i].data, events[i].size);
      if (events[i].kind == SP_TR_COPY_OUT) out = &events[i];
    }
    CHECK(!t.overflow && events[0].kind == SP_TR_ENTRY && events[t.nevents - 1].kind == SP_TR_EXIT);
    CHECK(out != NULL && out->size == traced.len);
    CHECK_BYTES(gathered.data, gathered.len, traced.data, traced.len);
    sp_buffer_free(&gathered);
    sp_bytes_free(&plain);
    sp_bytes_free(&traced);
    pools_close();
  }
}

static long countdown = -1;                 /* fail the allocation when it reaches 0 */

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) { free(ptr); return NULL; }
  if (countdown >= 0 && countdown-- == 0) return NULL;
  return realloc(ptr, nsize);
}

/* Fails allocation 0, 1, 2, ... of a cold compressed to_array and of a
** cold decode of its result, until a call makes fewer: each ends OK or
** with SP_E_NOMEM, and leaves nothing allocated. */
static void every_failing_allocation_leaks_nothing(void) {
  sp_bytes packed[2];
  int64_t live;
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    sp_options o = {0};
    o.compression = mode;
    CHECK(sp_to_array(workload_fmt_records, NULL, &o, &packed[mode - 1], NULL) == SP_OK);
  }
  sp_shutdown();
  live = sp_alloc_live_bytes();
  sp_alloc_set_hook(failing_alloc, NULL);
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    int triggered = 1;
    for (long k = 0; triggered && k < 200; k++) {
      sp_options o = {0};
      sp_bytes b = {0};
      sp_doc doc = {0};
      sp_value v;
      sp_code c1, c2;
      o.compression = mode;
      countdown = k;
      c1 = sp_to_array(workload_fmt_records, NULL, &o, &b, NULL);
      triggered = countdown < 0;
      sp_bytes_free(&b);
      sp_shutdown();
      countdown = k;
      c2 = sp_value_decode(packed[mode - 1].data, packed[mode - 1].len, NULL, &doc, &v, NULL);
      triggered = triggered || countdown < 0;
      countdown = -1;
      sp_doc_free(&doc);
      sp_shutdown();
      CHECK(c1 == SP_OK || c1 == SP_E_NOMEM);
      CHECK(c2 == SP_OK || c2 == SP_E_NOMEM);
      CHECK(sp_alloc_live_bytes() == live);
    }
  }
  sp_alloc_set_hook(NULL, NULL);
  sp_bytes_free(&packed[0]);
  sp_bytes_free(&packed[1]);
}

/* Fails allocation 0, 1, 2, ... of a cold compressed to_array entry: when
** finish fails, sp_entry_error says so -- the output writer's failure to
** compress too, which the plain writer does not hold -- with the code
** finish returned and sp_entry_end reports. (The JS package reads the
** error this way; it read the plain writer's and called such a NOMEM
** INTERNAL.) */
static void a_failure_to_compress_is_the_entry_error(void) {
  int compress_failed = 0;
  sp_alloc_set_hook(failing_alloc, NULL);
  for (sp_compression mode = BLOCK; mode <= ARRAY; mode++) {
    int triggered = 1;
    for (long k = 0; triggered && k < 200; k++) {
      sp_options o = {0};
      sp_entry e;
      sp_error err;
      sp_code finished, plain;
      o.compression = mode;
      countdown = k;
      if (sp_entry_begin_array(&e, &o) == SP_OK) sp_serialize(&e.w, workload_fmt_records, NULL);
      plain = e.w.err.code;
      finished = sp_entry_finish(&e);
      triggered = countdown < 0;
      countdown = -1;
      CHECK(sp_entry_error(&e)->code == finished);
      if (plain == SP_OK && finished != SP_OK) compress_failed++;
      CHECK(sp_entry_end(&e, &err) == finished && err.code == finished);
      sp_shutdown();
    }
  }
  sp_alloc_set_hook(NULL, NULL);
  CHECK(compress_failed > 0);                  /* some allocation failed while compressing */
}

int main(void) {
  SP_RUN(messages_under_64_bytes_are_written_as_they_are);
  SP_RUN(a_64_byte_message_is_compressed_in_the_documented_layout);
  SP_RUN(the_lz4block_header_takes_its_smallest_form);
  SP_RUN(multi_segment_messages_have_a_block_per_segment);
  SP_RUN(every_entry_writes_the_same_compressed_bytes);
  SP_RUN(lengths_around_the_boundaries_round_trip);
  SP_RUN(value_trees_read_both_modes_back);
  SP_RUN(the_plain_reader_gives_the_plain_bytes);
  SP_RUN(the_plain_bytes_come_in_one_piece_when_they_can);
  SP_RUN(bulk_arrays_read_both_modes_back);
  SP_RUN(schemas_read_both_modes_back);
  SP_RUN(fixed_size_schemas_are_compressed_too);
  SP_RUN(detection_off_gives_the_ext_values);
  SP_RUN(only_the_top_of_a_message_is_decompressed);
  SP_RUN(ordinary_arrays_and_exts_are_not_mistaken);
  SP_RUN(corrupt_lz4blocks_are_rejected_with_clear_codes);
  SP_RUN(corrupt_lz4blockarrays_are_rejected_with_clear_codes);
  SP_RUN(trailing_and_truncated_messages_fail);
  SP_RUN(random_corruption_is_survived);
  SP_RUN(limits_are_checked_before_allocating);
  SP_RUN(allocation_per_call_stays_as_flat_as_without_compression);
  SP_RUN(nested_calls_stay_safe_when_compressing);
  SP_RUN(cancel_and_formatter_errors_leave_nothing_behind);
  SP_RUN(an_unknown_compression_is_refused);
  SP_RUN(a_fixed_output_short_of_the_bound_fails_cleanly);
  SP_RUN(a_trace_records_the_compressed_writes);
  SP_RUN(every_failing_allocation_leaks_nothing);
  SP_RUN(a_failure_to_compress_is_the_entry_error);
  return sp_test_summary();
}
