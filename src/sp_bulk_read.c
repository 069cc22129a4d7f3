/*
** sp_bulk_read.c -- MessagePack arrays straight into C numeric arrays.
** Owns: the element loops of the bulk readers and the int32 fast path.
** Must not touch: the reader's segment handling (it falls back to the
** reader for anything but plain in-segment integers).
*/
#include "sp_bulk.h"

/* Reads the header and checks the count against the caller's capacity. */
static int begin(sp_reader *r, size_t cap, uint32_t *n) {
  uint64_t at = sp_reader_offset(r);
  if (!sp_read_array_header(r, n)) return 0;
  if (*n > cap) {
    sp_reader_fail(r, SP_E_LENGTH_LIMIT, "array longer than the destination", __func__);
    r->err.offset = (size_t)at;
    return 0;
  }
  return 1;
}

#define BULK_READER(name, type, read_one)                                \
  int name(sp_reader *r, type *dst, size_t cap, uint32_t *n) {           \
    if (!begin(r, cap, n)) return 0;                                     \
    for (uint32_t i = 0; i < *n; i++)                                    \
      if (!read_one(r, &dst[i])) return 0;                               \
    return 1;                                                            \
  }

BULK_READER(sp_read_i8_array, int8_t, sp_read_int8)
BULK_READER(sp_read_i16_array, int16_t, sp_read_int16)
BULK_READER(sp_read_i64_array, int64_t, sp_read_int64)
BULK_READER(sp_read_u8_array, uint8_t, sp_read_uint8)
BULK_READER(sp_read_u16_array, uint16_t, sp_read_uint16)
BULK_READER(sp_read_u32_array, uint32_t, sp_read_uint32)
BULK_READER(sp_read_u64_array, uint64_t, sp_read_uint64)
BULK_READER(sp_read_f32_array, float, sp_read_float)
BULK_READER(sp_read_f64_array, double, sp_read_double)

/* One int32 from p (with at least 5 bytes readable) when it is a form that
** always fits: fixints, cc, cd, d0, d1, d2. Returns its size, 0 otherwise. */
static size_t quick_i32(const uint8_t *p, int32_t *out) {
  uint8_t b = p[0];
  if (b <= 0x7f || b >= 0xe0) { *out = (int8_t)b; return 1; }
  switch (b) {
    case 0xcc: *out = p[1]; return 2;
    case 0xcd: *out = (int32_t)(p[1] << 8 | p[2]); return 3;
    case 0xd0: *out = (int8_t)p[1]; return 2;
    case 0xd1: *out = (int16_t)(p[1] << 8 | p[2]); return 3;
    case 0xd2: *out = (int32_t)((uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 |
                                (uint32_t)p[3] << 8 | p[4]); return 5;
    default: return 0;
  }
}

int sp_read_i32_array(sp_reader *r, int32_t *dst, size_t cap, uint32_t *n) {
  if (!begin(r, cap, n)) return 0;
  for (uint32_t i = 0; i < *n; i++) {
    size_t k;
    if (r->end - r->cur >= 5 && (k = quick_i32(r->cur, &dst[i])) != 0) {
      r->cur += k;
      r->remaining -= k;
    } else if (!sp_read_int32(r, &dst[i])) {
      return 0;
    }
  }
  return 1;
}
