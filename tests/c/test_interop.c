/*
** test_interop.c -- byte-for-byte agreement with msgpack-c, on thousands of
** generated values: msgpack-c's packer writes the same bytes for the same
** tree, and msgpack-c's unpacker reads ours back to the same bytes. Every
** entry is used, with scratch sizes that force migration mid-value.
*/
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "sp_test.h"

/* ---- a deterministic generator of value trees ----------------------------- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return rng;
}

static uint64_t below(uint64_t n) { return next() % n; }

/* Every allocation of one tree, freed together. */
typedef struct arena { void *blocks[4096]; int n; } arena;

static void *arena_alloc(arena *a, size_t size) {
  void *p = malloc(size ? size : 1);
  if (a->n < 4096) a->blocks[a->n++] = p;
  return p;
}

static void arena_free(arena *a) {
  while (a->n > 0) free(a->blocks[--a->n]);
}

/* Integers near every boundary of the smallest-form rules. */
static int64_t edge_int(void) {
  static const int64_t edges[] = {0, 127, 128, 255, 256, 65535, 65536, 4294967295LL,
                                  4294967296LL, -1, -32, -33, -128, -129, -32768, -32769,
                                  INT32_MIN, (int64_t)INT32_MIN - 1, INT64_MIN, INT64_MAX};
  int64_t e = edges[below(sizeof edges / sizeof edges[0])];
  /* one either side of an edge, wrapping at the ends of int64 */
  return below(3) ? e : (int64_t)((uint64_t)e + below(3) - 1);
}

static size_t edge_len(void) {
  static const size_t lens[] = {0, 1, 15, 16, 31, 32, 255, 256, 300, 65535, 65536, 70000};
  return below(4) ? below(40) : lens[below(sizeof lens / sizeof lens[0])];
}

static void *random_bytes(arena *a, size_t n, int text) {
  uint8_t *p = arena_alloc(a, n);
  for (size_t i = 0; i < n; i++) p[i] = text ? (uint8_t)('a' + below(26)) : (uint8_t)next();
  return p;
}

static sp_value random_value(arena *a, int depth) {
  unsigned kind = (unsigned)below(depth < 4 ? 13 : 10);
  switch (kind) {
    case 0: return sp_nil();
    case 1: return sp_bool((int)below(2));
    case 2: return sp_int(edge_int());
    case 3: return sp_uint(below(2) ? UINT64_MAX - below(3) : (uint64_t)edge_int());
    case 4: return sp_float((float)(int64_t)next() / 1024.0f);
    case 5: return sp_double((double)(int64_t)next() / 3.0);
    case 6: { size_t n = edge_len(); return sp_strn(random_bytes(a, n, 1), n); }
    case 7: { size_t n = edge_len(); return sp_bin(random_bytes(a, n, 0), n); }
    case 8: {
      static const uint32_t ext_lens[] = {0, 1, 2, 3, 4, 8, 16, 17, 255, 256, 65536};
      uint32_t n = ext_lens[below(sizeof ext_lens / sizeof ext_lens[0])];
      return sp_ext((int8_t)below(128), random_bytes(a, n, 0), n);
    }
    case 9: {
      static const int64_t secs[] = {0, 1, 4294967295LL, 4294967296LL, 17179869183LL,
                                     17179869184LL, -1, INT64_MAX};
      return sp_timestamp(secs[below(8)], below(2) ? 0 : (uint32_t)below(1000000000));
    }
    case 10: case 11: {
      uint32_t n = (uint32_t)(below(5) ? below(6) : below(40));
      sp_value *items = arena_alloc(a, n * sizeof *items);
      for (uint32_t i = 0; i < n; i++) items[i] = random_value(a, depth + 1);
      return sp_array(items, n);
    }
    default: {
      uint32_t n = (uint32_t)below(6);
      sp_value *kv = arena_alloc(a, 2 * n * sizeof *kv);
      for (uint32_t i = 0; i < 2 * n; i++)
        kv[i] = i % 2 ? random_value(a, depth + 1) : sp_strn(random_bytes(a, 4, 1), 4);
      return sp_map(kv, n);
    }
  }
}

/* ---- the same tree through msgpack-c's packer ------------------------------ */

static void pack_c(msgpack_packer *pk, const sp_value *v) {
  switch (v->kind) {
    case SP_NIL: msgpack_pack_nil(pk); break;
    case SP_BOOL: if (v->as.b) msgpack_pack_true(pk); else msgpack_pack_false(pk); break;
    case SP_INT: msgpack_pack_int64(pk, v->as.i); break;
    case SP_UINT: msgpack_pack_uint64(pk, v->as.u); break;
    case SP_FLOAT: msgpack_pack_float(pk, v->as.f); break;
    case SP_DOUBLE: msgpack_pack_double(pk, v->as.d); break;
    case SP_STR:
      msgpack_pack_str(pk, v->as.str.len);
      msgpack_pack_str_body(pk, v->as.str.ptr, v->as.str.len);
      break;
    case SP_BIN:
      msgpack_pack_bin(pk, v->as.bin.len);
      msgpack_pack_bin_body(pk, v->as.bin.ptr, v->as.bin.len);
      break;
    case SP_EXT:
      msgpack_pack_ext(pk, v->as.ext.len, v->as.ext.type);
      msgpack_pack_ext_body(pk, v->as.ext.ptr, v->as.ext.len);
      break;
    case SP_TIMESTAMP: {
      msgpack_timestamp t = {v->as.ts.sec, v->as.ts.nsec};
      msgpack_pack_timestamp(pk, &t);
      break;
    }
    case SP_ARRAY:
      msgpack_pack_array(pk, v->as.array.n);
      for (uint32_t i = 0; i < v->as.array.n; i++) pack_c(pk, &v->as.array.items[i]);
      break;
    case SP_MAP:
      msgpack_pack_map(pk, v->as.map.n);
      for (uint32_t i = 0; i < 2 * v->as.map.n; i++) pack_c(pk, &v->as.map.pairs[i]);
      break;
    default: break;
  }
}

static int sink_append(void *ctx, const uint8_t *p, size_t n) {
  return msgpack_sbuffer_write(ctx, (const char *)p, n);
}

/* Encodes v through all three entries; all must equal msgpack-c's bytes,
** and msgpack-c must read them back to the same bytes. */
static int agrees_with_msgpack_c(const sp_value *v, size_t scratch) {
  msgpack_sbuffer ref, back, streamed;
  msgpack_packer pk;
  msgpack_unpacked obj;
  sp_options opt = {0};
  sp_buffer buf;
  sp_output out = sp_buffer_output(&buf);
  sp_bytes arr;
  size_t off = 0;
  int ok;
  msgpack_sbuffer_init(&ref); msgpack_sbuffer_init(&back); msgpack_sbuffer_init(&streamed);
  msgpack_packer_init(&pk, &ref, msgpack_sbuffer_write);
  pack_c(&pk, v);
  opt.scratch_size = scratch;
  sp_buffer_init(&buf);
  ok = sp_to_array(sp_format_value, v, &opt, &arr, NULL) == SP_OK &&
       CHECK_BYTES(arr.data, arr.len, ref.data, ref.size);
  ok = ok && sp_to_output(&out, sp_format_value, v, &opt, NULL) == SP_OK &&
       CHECK_BYTES(buf.data, buf.len, ref.data, ref.size);
  ok = ok && sp_to_stream(sink_append, &streamed, sp_format_value, v, &opt, NULL) == SP_OK &&
       CHECK_BYTES(streamed.data, streamed.size, ref.data, ref.size);
  msgpack_unpacked_init(&obj);
  ok = ok && msgpack_unpack_next(&obj, (const char *)arr.data, arr.len, &off) ==
                 MSGPACK_UNPACK_SUCCESS && off == arr.len;
  if (ok) {
    msgpack_packer_init(&pk, &back, msgpack_sbuffer_write);
    msgpack_pack_object(&pk, obj.data);
    ok = CHECK_BYTES(back.data, back.size, arr.data, arr.len);
  }
  msgpack_unpacked_destroy(&obj);
  sp_bytes_free(&arr);
  sp_buffer_free(&buf);
  msgpack_sbuffer_destroy(&ref); msgpack_sbuffer_destroy(&back);
  msgpack_sbuffer_destroy(&streamed);
  return ok;
}

static void generated_values_match_msgpack_c_in_every_entry(void) {
  static const size_t scratches[] = {8, 9, 31, 100, 4096, 0};
  int bad = 0;
  for (int i = 0; i < 3000 && bad < 3; i++) {
    arena a = {0};
    sp_value v = random_value(&a, 0);
    if (!CHECK(agrees_with_msgpack_c(&v, scratches[i % 6]))) {
      fprintf(stderr, "      value %d differs\n", i);
      bad++;
    }
    arena_free(&a);
  }
}

static void documents_examples_match_msgpack_c(void) {
  big_object big;
  sp_value pairs[4] = {sp_str("Id"), sp_int(1), sp_str("Name"), sp_str("hello")};
  sp_value small = sp_map(pairs, 2);
  big_object_init(&big, 100000);
  CHECK(agrees_with_msgpack_c(&small, 0));
  CHECK(agrees_with_msgpack_c(&big.root, 0));
  CHECK(agrees_with_msgpack_c(&big.root, 8));
  big_object_free(&big);
}

int main(void) {
  SP_RUN(documents_examples_match_msgpack_c);
  SP_RUN(generated_values_match_msgpack_c_in_every_entry);
  sp_shutdown();
  return sp_test_summary();
}
