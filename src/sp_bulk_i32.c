/*
** sp_bulk_i32.c -- int32 arrays, four lanes at a time.
** Owns: the scalar, SSSE3 (x86-64) and SIMD128 (WebAssembly) kernels and
** the choice between them. Must not touch: the writer (callers reserve 5n
** bytes and advance by the result).
**
** Each group of four lanes is classified (the document's Vector128 path):
** all one-byte values (-32..127), all cc (128..255) or all cd (256..65535)
** take one shuffle and one store; any other group falls back to the scalar
** form lane by lane. A group's store may write past its own output, but
** never past the 20 bytes the group's four worst cases reserved.
*/
#include <stdatomic.h>
#include <string.h>

#include "sp_bulk.h"
#include "sp_bulk_i32.h"
#include "sp_writer.h"

size_t sp_i32_encode_scalar(uint8_t *dst, const int32_t *v, size_t n) {
  uint8_t *q = dst;
  for (size_t i = 0; i < n; i++) q += sp_put_int(q, v[i]);
  return (size_t)(q - dst);
}

static atomic_int force_scalar;

void sp_bulk_force_scalar(int on) { atomic_store(&force_scalar, on); }

/* Group kinds, and the bytes a group of each kind produces. */
enum { MIXED, ONE_BYTE, U8, U16 };

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

static int group_kind(v128_t x) {
  if (wasm_i32x4_all_true(wasm_v128_and(wasm_i32x4_gt(x, wasm_i32x4_splat(-33)),
                                        wasm_i32x4_lt(x, wasm_i32x4_splat(128)))))
    return ONE_BYTE;
  if (wasm_i32x4_all_true(wasm_v128_and(wasm_i32x4_gt(x, wasm_i32x4_splat(127)),
                                        wasm_i32x4_lt(x, wasm_i32x4_splat(256)))))
    return U8;
  if (wasm_i32x4_all_true(wasm_v128_and(wasm_i32x4_gt(x, wasm_i32x4_splat(255)),
                                        wasm_i32x4_lt(x, wasm_i32x4_splat(65536)))))
    return U16;
  return MIXED;
}

static size_t encode_simd(uint8_t *dst, const int32_t *v, size_t n) {
  const v128_t pick1 = wasm_i8x16_make(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const v128_t pick2 = wasm_i8x16_make(-1, 0, -1, 4, -1, 8, -1, 12, -1, -1, -1, -1, -1, -1, -1, -1);
  const v128_t code2 = wasm_i8x16_make((int8_t)0xcc, 0, (int8_t)0xcc, 0, (int8_t)0xcc, 0,
                                       (int8_t)0xcc, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  const v128_t pick3 = wasm_i8x16_make(-1, 1, 0, -1, 5, 4, -1, 9, 8, -1, 13, 12, -1, -1, -1, -1);
  const v128_t code3 = wasm_i8x16_make((int8_t)0xcd, 0, 0, (int8_t)0xcd, 0, 0, (int8_t)0xcd, 0, 0,
                                       (int8_t)0xcd, 0, 0, 0, 0, 0, 0);
  uint8_t *q = dst;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    v128_t x = wasm_v128_load(v + i);
    switch (group_kind(x)) {
      case ONE_BYTE: wasm_v128_store32_lane(q, wasm_i8x16_swizzle(x, pick1), 0); q += 4; break;
      case U8: wasm_v128_store64_lane(q, wasm_v128_or(wasm_i8x16_swizzle(x, pick2), code2), 0);
               q += 8; break;
      case U16: wasm_v128_store(q, wasm_v128_or(wasm_i8x16_swizzle(x, pick3), code3)); q += 12; break;
      default: q += sp_i32_encode_scalar(q, v + i, 4);
    }
  }
  return (size_t)(q - dst) + sp_i32_encode_scalar(q, v + i, n - i);
}

static int simd_available(void) { return 1; }
static const char *simd_name = "simd128";

#elif defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("ssse3"))) static int group_kind(__m128i x) {
  __m128i one = _mm_and_si128(_mm_cmpgt_epi32(x, _mm_set1_epi32(-33)),
                              _mm_cmplt_epi32(x, _mm_set1_epi32(128)));
  __m128i u8 = _mm_and_si128(_mm_cmpgt_epi32(x, _mm_set1_epi32(127)),
                             _mm_cmplt_epi32(x, _mm_set1_epi32(256)));
  __m128i u16 = _mm_and_si128(_mm_cmpgt_epi32(x, _mm_set1_epi32(255)),
                              _mm_cmplt_epi32(x, _mm_set1_epi32(65536)));
  if (_mm_movemask_epi8(one) == 0xffff) return ONE_BYTE;
  if (_mm_movemask_epi8(u8) == 0xffff) return U8;
  if (_mm_movemask_epi8(u16) == 0xffff) return U16;
  return MIXED;
}

__attribute__((target("ssse3"))) static size_t encode_simd(uint8_t *dst, const int32_t *v,
                                                           size_t n) {
  const __m128i pick1 = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i pick2 = _mm_setr_epi8(-1, 0, -1, 4, -1, 8, -1, 12, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i code2 = _mm_setr_epi8((char)0xcc, 0, (char)0xcc, 0, (char)0xcc, 0, (char)0xcc, 0,
                                      0, 0, 0, 0, 0, 0, 0, 0);
  const __m128i pick3 = _mm_setr_epi8(-1, 1, 0, -1, 5, 4, -1, 9, 8, -1, 13, 12, -1, -1, -1, -1);
  const __m128i code3 = _mm_setr_epi8((char)0xcd, 0, 0, (char)0xcd, 0, 0, (char)0xcd, 0, 0,
                                      (char)0xcd, 0, 0, 0, 0, 0, 0);
  uint8_t *q = dst;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128i x = _mm_loadu_si128((const __m128i *)(v + i));
    switch (group_kind(x)) {
      case ONE_BYTE: {
        int32_t four = _mm_cvtsi128_si32(_mm_shuffle_epi8(x, pick1));
        memcpy(q, &four, 4);
        q += 4;
        break;
      }
      case U8: _mm_storel_epi64((__m128i *)q, _mm_or_si128(_mm_shuffle_epi8(x, pick2), code2));
               q += 8; break;
      case U16: _mm_storeu_si128((__m128i *)q, _mm_or_si128(_mm_shuffle_epi8(x, pick3), code3));
                q += 12; break;
      default: q += sp_i32_encode_scalar(q, v + i, 4);
    }
  }
  return (size_t)(q - dst) + sp_i32_encode_scalar(q, v + i, n - i);
}

static int simd_available(void) { return __builtin_cpu_supports("ssse3"); }
static const char *simd_name = "ssse3";

#else

static size_t encode_simd(uint8_t *dst, const int32_t *v, size_t n) {
  return sp_i32_encode_scalar(dst, v, n);
}
static int simd_available(void) { return 0; }
static const char *simd_name = "scalar";

#endif

sp_i32_kernel sp_bulk_i32_select(void) {
  if (atomic_load_explicit(&force_scalar, memory_order_relaxed) || !simd_available())
    return sp_i32_encode_scalar;
  return encode_simd;
}

const char *sp_bulk_i32_kernel(void) {
  return sp_bulk_i32_select() == sp_i32_encode_scalar ? "scalar" : simd_name;
}
