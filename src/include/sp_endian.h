/*
** sp_endian.h -- big-endian loads and stores, MessagePack's byte order.
** Owns: sp_load16/32/64 and sp_store16/32/64 (the writer's and the
** reader's). Must not touch: anything else (no formats here).
**
** WebAssembly has no byte-swap instruction: clang builds __builtin_bswap32
** from about 20 shifts and masks, bswap64 from about 30. With SIMD128 one
** i8x16.shuffle reverses the bytes instead (a pshufb in V8), which is what
** makes doubles and 32-bit lengths cheap there.
*/
#ifndef SP_ENDIAN_H
#define SP_ENDIAN_H

#include <stdint.h>
#include <string.h>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define SP_SWAP32(x) wasm_i8x16_shuffle(x, x, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12)
#define SP_SWAP64(x) wasm_i8x16_shuffle(x, x, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8)
#endif

static inline uint16_t sp_load16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static inline uint32_t sp_load32(const uint8_t *p) {
#if defined(__wasm_simd128__)
  v128_t x = wasm_v128_load32_zero(p);
  return wasm_u32x4_extract_lane(SP_SWAP32(x), 0);
#elif defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint32_t v;
  memcpy(&v, p, 4);
  return __builtin_bswap32(v);
#else
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
#endif
}

static inline uint64_t sp_load64(const uint8_t *p) {
#if defined(__wasm_simd128__)
  v128_t x = wasm_v128_load64_zero(p);
  return (uint64_t)wasm_i64x2_extract_lane(SP_SWAP64(x), 0);
#else
  return (uint64_t)sp_load32(p) << 32 | sp_load32(p + 4);
#endif
}

static inline void sp_store16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v;
}

static inline void sp_store32(uint8_t *p, uint32_t v) {
#if defined(__wasm_simd128__)
  v128_t x = wasm_u32x4_splat(v);
  wasm_v128_store32_lane(p, SP_SWAP32(x), 0);
#elif defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap32(v);
  memcpy(p, &v, 4);
#else
  p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
#endif
}

static inline void sp_store64(uint8_t *p, uint64_t v) {
#if defined(__wasm_simd128__)
  v128_t x = wasm_u64x2_splat(v);
  wasm_v128_store64_lane(p, SP_SWAP64(x), 0);
#else
  sp_store32(p, (uint32_t)(v >> 32));
  sp_store32(p + 4, (uint32_t)v);
#endif
}

#endif
