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
** splat, shuffle constants, all_in(x, bias, lim) (every lane in a range,
** given by bias_of and lim_of) and put1/put2/put3 (a group of one-byte, cc
** and cd values: one shuffle, one store of at most 16 bytes), and HOLD(v):
** see below. The runs below are shared. */
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define SP_I32_SIMD 1
#define SIMD_FN
typedef v128_t vec;

/* V8's wasm compiler in Node 24 (V8 13) does not keep a v128.const in a
** register across a loop: its register allocator rebuilds the vector from
** two 64-bit immediates at every use (movq, vmovq, vpinsrq), four constants
** per group here, which made c.ints encode several times slower on Node 24
** than on Node 20, where the constants sat in xmm registers. A constant that
** went through memory is a value V8 cannot rebuild, so HOLD stores each
** one and loads it back (volatile: the compiler may not fold it), once per
** call, and the loops read registers. Holding only the range constants and
** leaving the shuffle constants known was slower on Node 24 (two rebuilt
** per group); holding them too costs Node 20 a saturating add before each
** shuffle (V8 11 proves a swizzle index in range only for a constant). */
#define HOLD(v) do { volatile vec held_ = (v); (v) = held_; } while (0)

static inline vec vload(const int32_t *p) { return wasm_v128_load(p); }
static inline vec splat(int32_t x) { return wasm_i32x4_splat(x); }
#define BYTES(...) wasm_i8x16_make(__VA_ARGS__)

/* Unsigned range test as a signed compare after moving the range's start
** to INT32_MIN: one add, one compare, one bitmask. The direct form
** (u32x4.lt, i32x4.all_true) is what V8 makes several SSE instructions
** each of. */
static inline int all_in(vec x, vec bias, vec lim) {
  return wasm_i8x16_bitmask(wasm_i32x4_lt(wasm_i32x4_add(x, bias), lim)) == 0xffff;
}

static inline uint8_t *put1(uint8_t *q, vec x, vec pick) {
  wasm_v128_store32_lane(q, wasm_i8x16_swizzle(x, pick), 0);
  return q + 4;
}

static inline uint8_t *put2(uint8_t *q, vec x, vec pick, vec code) {
  wasm_v128_store64_lane(q, wasm_v128_or(wasm_i8x16_swizzle(x, pick), code), 0);
  return q + 8;
}

static inline uint8_t *put3(uint8_t *q, vec x, vec pick, vec code) {
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
#define HOLD(v) ((void)0)      /* GCC and clang keep loop constants in registers */

SIMD_FN static inline vec vload(const int32_t *p) { return _mm_loadu_si128((const __m128i *)p); }
SIMD_FN static inline vec splat(int32_t x) { return _mm_set1_epi32(x); }
#define BYTES(...) _mm_setr_epi8(__VA_ARGS__)

/* No unsigned compare in SSE: move the range's start to INT32_MIN, compare signed. */
SIMD_FN static inline int all_in(vec x, vec bias, vec lim) {
  return _mm_movemask_epi8(_mm_cmplt_epi32(_mm_add_epi32(x, bias), lim)) == 0xffff;
}

SIMD_FN static inline uint8_t *put1(uint8_t *q, vec x, vec pick) {
  int32_t four = _mm_cvtsi128_si32(_mm_shuffle_epi8(x, pick));
  memcpy(q, &four, 4);
  return q + 4;
}

SIMD_FN static inline uint8_t *put2(uint8_t *q, vec x, vec pick, vec code) {
  _mm_storel_epi64((__m128i *)q, _mm_or_si128(_mm_shuffle_epi8(x, pick), code));
  return q + 8;
}

SIMD_FN static inline uint8_t *put3(uint8_t *q, vec x, vec pick, vec code) {
  _mm_storeu_si128((__m128i *)q, _mm_or_si128(_mm_shuffle_epi8(x, pick), code));
  return q + 12;
}

static int simd_available(void) { return __builtin_cpu_supports("ssse3"); }
static const char *simd_name = "ssse3";

#else
#define SP_I32_SIMD 0
#endif

#if SP_I32_SIMD
/* A kind's range (lanes x with x - lo < span, unsigned) as all_in takes
** it, and its shuffle and header bytes. */
typedef struct { vec bias, lim, pick, code; } kind_consts;

SIMD_FN static kind_consts consts_of(int32_t lo, uint32_t span, vec pick, vec code) {
  kind_consts k;
  k.bias = splat((int32_t)(0x80000000u - (uint32_t)lo));
  k.lim = splat((int32_t)(span ^ 0x80000000u));
  k.pick = pick;
  k.code = code;
  HOLD(k.bias); HOLD(k.lim); HOLD(k.pick); HOLD(k.code);
  return k;
}

#define CC (int8_t)0xcc
#define CD (int8_t)0xcd
SIMD_FN static kind_consts one_byte_consts(void) {     /* -32..127 */
  return consts_of(-32, 160, BYTES(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1), splat(0));
}
SIMD_FN static kind_consts u8_consts(void) {           /* 128..255: cc xx */
  return consts_of(128, 128, BYTES(-1, 0, -1, 4, -1, 8, -1, 12, -1, -1, -1, -1, -1, -1, -1, -1),
                   BYTES(CC, 0, CC, 0, CC, 0, CC, 0, 0, 0, 0, 0, 0, 0, 0, 0));
}
SIMD_FN static kind_consts u16_consts(void) {          /* 256..65535: cd hi lo */
  return consts_of(256, 65280, BYTES(-1, 1, 0, -1, 5, 4, -1, 9, 8, -1, 13, 12, -1, -1, -1, -1),
                   BYTES(CD, 0, 0, CD, 0, 0, CD, 0, 0, CD, 0, 0, 0, 0, 0, 0));
}
#undef CC
#undef CD

/* The kind of a group, or MIXED. */
SIMD_FN static int group_kind(vec x, const kind_consts *k) {
  if (all_in(x, k[0].bias, k[0].lim)) return ONE_BYTE;
  if (all_in(x, k[1].bias, k[1].lim)) return U8;
  if (all_in(x, k[2].bias, k[2].lim)) return U16;
  return MIXED;
}

/* Encodes groups from v[*i] on while they stay of 'kind' (the first one
** is): a tight loop per kind, as neighbouring values tend to have the same
** size, so a group costs one test rather than up to three. Returns the new
** output position; *i is the first group not encoded. */
SIMD_FN static uint8_t *run_of(int kind, const kind_consts *ks, uint8_t *q, const int32_t *v,
                               size_t *i, size_t n) {
  size_t k = *i;
  vec x = vload(v + k);
  switch (kind) {
    case ONE_BYTE: {
      const vec bias = ks[0].bias, lim = ks[0].lim, pick = ks[0].pick;
      do { q = put1(q, x, pick); k += 4; } while (k + 4 <= n && all_in(x = vload(v + k), bias, lim));
      break;
    }
    case U8: {
      const vec bias = ks[1].bias, lim = ks[1].lim, pick = ks[1].pick, code = ks[1].code;
      do { q = put2(q, x, pick, code); k += 4; } while (k + 4 <= n && all_in(x = vload(v + k), bias, lim));
      break;
    }
    default: {
      const vec bias = ks[2].bias, lim = ks[2].lim, pick = ks[2].pick, code = ks[2].code;
      do { q = put3(q, x, pick, code); k += 4; } while (k + 4 <= n && all_in(x = vload(v + k), bias, lim));
    }
  }
  *i = k;
  return q;
}

SIMD_FN static size_t encode_simd(uint8_t *dst, const int32_t *v, size_t n) {
  const kind_consts ks[3] = { one_byte_consts(), u8_consts(), u16_consts() };
  uint8_t *q = dst;
  size_t i = 0;
  while (i + 4 <= n) {
    int kind = group_kind(vload(v + i), ks);
    if (kind != MIXED) {
      q = run_of(kind, ks, q, v, &i, n);
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
