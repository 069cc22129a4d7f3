/*
** sp_lz4_internal.h -- what the LZ4 compressor and decompressor share: the
** format's constants and unaligned loads and stores.
** Owns: those two things. Must not touch: anything outside sp_lz4_*.c.
**
** Every load and store goes through memcpy: wasm32 and strict-alignment
** targets have no unaligned-access UB that way, and compilers turn each into
** one instruction where the target allows it.
*/
#ifndef SP_LZ4_INTERNAL_H
#define SP_LZ4_INTERNAL_H

#include <stdint.h>
#include <string.h>

#define LZ4_MIN_MATCH 4        /* a match is at least 4 bytes; the token stores length - 4 */
#define LZ4_LAST_LITERALS 5    /* the last 5 bytes of a block are literals */
#define LZ4_MATCH_END_GAP 12   /* the last match starts >= 12 bytes before the end */
#define LZ4_MAX_OFFSET 65535   /* offsets are 2 bytes; 0 is invalid */
#define LZ4_NIBBLE_MORE 15     /* a token nibble of 15: extra length bytes follow */

static inline uint32_t lz4_load32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static inline uint64_t lz4_load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* The offset field is little-endian whatever the host. */
static inline unsigned lz4_read_offset(const uint8_t *p) {
  return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static inline uint8_t *lz4_write_offset(uint8_t *p, size_t off) {
  p[0] = (uint8_t)off;
  p[1] = (uint8_t)(off >> 8);
  return p + 2;
}

/* Wild copies: whole chunks, possibly past the end of what is wanted. The
** callers check that the chunks stay inside both buffers. */
static inline void lz4_copy8(uint8_t *d, const uint8_t *s) { memcpy(d, s, 8); }
static inline void lz4_copy16(uint8_t *d, const uint8_t *s) { memcpy(d, s, 16); }

#endif
