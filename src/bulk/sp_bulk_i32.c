/*
** sp_bulk_i32.c -- int32 arrays, four lanes at a time.
** Owns: the scalar, SSSE3 (x86-64) and SIMD128 (WebAssembly) kernels and
** the choice between them. Must not touch: the writer (callers reserve 5n
** bytes and advance by the result).
**
** Each group of four lanes is classified (the document's Vector128 path):
** all one-byte values (-32..127), all cc (128..255) or all cd (256..65535)
** take one shuffle and one store, in a loop per kind that runs while the
** groups keep their kind; any other group falls back to the scalar form
** lane by lane. A group's store may write past its own output, but
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

/* Group kinds. */
enum { MIXED, ONE_BYTE, U8, U16 };

/* Each SIMD target gives: vec, SIMD_FN (its target attribute), vload,
** all_in(x, lo, span) (every lane in [lo, lo + span)) and put1/put2/put3
** (a group of one-byte, cc and cd values: one shuffle, one store of at
** most 16 bytes). The runs below are shared. */
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define SP_I32_SIMD 1
#define SIMD_FN
typedef v128_t vec;

static inline vec vload(const int32_t *p) { return wasm_v128_load(p); }

/* As on x86: subtract, flip the sign bit, compare signed, one bitmask. The
** direct form (u32x4.lt, i32x4.all_true) is what V8 makes several SSE
** instructions each of, and c.ints encode was slower with it (npm run
** bench:wasm). */
static inline int all_in(vec x, int32_t lo, uint32_t span) {
  vec d = wasm_v128_xor(wasm_i32x4_sub(x, wasm_i32x4_splat(lo)), wasm_i32x4_splat(INT32_MIN));
  vec in = wasm_i32x4_lt(d, wasm_i32x4_splat((int32_t)(span ^ 0x80000000u)));
  return wasm_i8x16_bitmask(in) == 0xffff;
}

static inline uint8_t *put1(uint8_t *q, vec x) {
  const vec pick = wasm_i8x16_make(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  wasm_v128_store32_lane(q, wasm_i8x16_swizzle(x, pick), 0);
  return q + 4;
}

static inline uint8_t *put2(uint8_t *q, vec x) {
  const vec pick = wasm_i8x16_make(-1, 0, -1, 4, -1, 8, -1, 12, -1, -1, -1, -1, -1, -1, -1, -1);
  const vec code = wasm_i8x16_make((int8_t)0xcc, 0, (int8_t)0xcc, 0, (int8_t)0xcc, 0,
                                   (int8_t)0xcc, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  wasm_v128_store64_lane(q, wasm_v128_or(wasm_i8x16_swizzle(x, pick), code), 0);
  return q + 8;
}

static inline uint8_t *put3(uint8_t *q, vec x) {
  const vec pick = wasm_i8x16_make(-1, 1, 0, -1, 5, 4, -1, 9, 8, -1, 13, 12, -1, -1, -1, -1);
  const vec code = wasm_i8x16_make((int8_t)0xcd, 0, 0, (int8_t)0xcd, 0, 0, (int8_t)0xcd, 0, 0,
                                   (int8_t)0xcd, 0, 0, 0, 0, 0, 0);
  wasm_v128_store(q, wasm_v128_or(wasm_i8x16_swizzle(x, pick), code));
  return q + 12;
}

static int simd_available(void) { return 1; }
static const char *simd_name = "simd128";

#elif defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SP_I32_SIMD 1
#define SIMD_FN __attribute__((target("ssse3")))
typedef __m128i vec;

SIMD_FN static inline vec vload(const int32_t *p) { return _mm_loadu_si128((const __m128i *)p); }

/* No unsigned compare in SSE: subtract, flip the sign bit, compare signed. */
SIMD_FN static inline int all_in(vec x, int32_t lo, uint32_t span) {
  const vec bias = _mm_set1_epi32(INT32_MIN);
  vec d = _mm_xor_si128(_mm_sub_epi32(x, _mm_set1_epi32(lo)), bias);
  vec in = _mm_cmplt_epi32(d, _mm_set1_epi32((int32_t)(span ^ 0x80000000u)));
  return _mm_movemask_epi8(in) == 0xffff;
}

SIMD_FN static inline uint8_t *put1(uint8_t *q, vec x) {
  const vec pick = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  int32_t four = _mm_cvtsi128_si32(_mm_shuffle_epi8(x, pick));
  memcpy(q, &four, 4);
  return q + 4;
}

SIMD_FN static inline uint8_t *put2(uint8_t *q, vec x) {
  const vec pick = _mm_setr_epi8(-1, 0, -1, 4, -1, 8, -1, 12, -1, -1, -1, -1, -1, -1, -1, -1);
  const vec code = _mm_setr_epi8((char)0xcc, 0, (char)0xcc, 0, (char)0xcc, 0, (char)0xcc, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0);
  _mm_storel_epi64((__m128i *)q, _mm_or_si128(_mm_shuffle_epi8(x, pick), code));
  return q + 8;
}

SIMD_FN static inline uint8_t *put3(uint8_t *q, vec x) {
  const vec pick = _mm_setr_epi8(-1, 1, 0, -1, 5, 4, -1, 9, 8, -1, 13, 12, -1, -1, -1, -1);
  const vec code = _mm_setr_epi8((char)0xcd, 0, 0, (char)0xcd, 0, 0, (char)0xcd, 0, 0,
                                 (char)0xcd, 0, 0, 0, 0, 0, 0);
  _mm_storeu_si128((__m128i *)q, _mm_or_si128(_mm_shuffle_epi8(x, pick), code));
  return q + 12;
}

static int simd_available(void) { return __builtin_cpu_supports("ssse3"); }
static const char *simd_name = "ssse3";

#else
#define SP_I32_SIMD 0
#endif

#if SP_I32_SIMD
/* The kind of a group, or MIXED. */
SIMD_FN static int group_kind(vec x) {
  if (all_in(x, -32, 160)) return ONE_BYTE;       /* -32..127 */
  if (all_in(x, 128, 128)) return U8;             /* 128..255 */
  if (all_in(x, 256, 65280)) return U16;          /* 256..65535 */
  return MIXED;
}

/* Encodes groups from v[*i] on while they stay of 'kind' (the first one
** is): a tight loop per kind, as neighbouring values tend to have the same
** size, so a group costs one test rather than up to three. Returns the new
** output position; *i is the first group not encoded. */
SIMD_FN static uint8_t *run_of(int kind, uint8_t *q, const int32_t *v, size_t *i, size_t n) {
  size_t k = *i;
  vec x = vload(v + k);
  switch (kind) {
    case ONE_BYTE:
      do { q = put1(q, x); k += 4; } while (k + 4 <= n && all_in(x = vload(v + k), -32, 160));
      break;
    case U8:
      do { q = put2(q, x); k += 4; } while (k + 4 <= n && all_in(x = vload(v + k), 128, 128));
      break;
    default:
      do { q = put3(q, x); k += 4; } while (k + 4 <= n && all_in(x = vload(v + k), 256, 65280));
  }
  *i = k;
  return q;
}

SIMD_FN static size_t encode_simd(uint8_t *dst, const int32_t *v, size_t n) {
  uint8_t *q = dst;
  size_t i = 0;
  while (i + 4 <= n) {
    int kind = group_kind(vload(v + i));
    if (kind != MIXED) {
      q = run_of(kind, q, v, &i, n);
    } else {
      q += sp_i32_encode_scalar(q, v + i, 4);
      i += 4;
    }
  }
  return (size_t)(q - dst) + sp_i32_encode_scalar(q, v + i, n - i);
}
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
