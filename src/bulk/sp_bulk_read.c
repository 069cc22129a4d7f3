/*
** sp_bulk_read.c -- MessagePack arrays straight into C numeric arrays.
** Owns: the element loops of the bulk readers. Must not touch: the reader's
** cursor or segments: elements are decoded by the reader's inline _at
** functions over its span (sp_reader_span / sp_reader_advance) or read one
** by one through its reads (segment boundaries, the end, errors).
*/
#include "sp_bulk.h"

/* Reads the header and checks the count against the caller's capacity. */
static int begin(sp_reader *r, size_t cap, uint32_t *n) {
  uint64_t at = sp_reader_offset(r);          /* once per array */
  if (!sp_read_array_header(r, n)) return 0;
  if (*n > cap) return sp_reader_fail_at(r, at, SP_E_LENGTH_LIMIT, "array longer than the destination", __func__);
  return 1;
}

/* Elements go in runs: as many as surely lie in the segment's span are
** decoded in place by the reader's _at functions, with one check per run
** instead of per element and the cursor in a register; the rest (the last
** 8 bytes of a segment, other forms, errors) through the read itself.
** The count is kept in a local: dst may alias *n (uint32_t and int32_t do). */
#define BULK_READER(name, type, read_one)                                \
  int name(sp_reader *r, type *dst, size_t cap, uint32_t *n) {           \
    uint32_t count, i = 0;                                               \
    if (!begin(r, cap, n)) return 0;                                     \
    count = *n;                                                          \
    while (i < count) {                                                  \
      size_t avail, k;                                                   \
      const uint8_t *start = sp_reader_span(r, &avail), *p = start;      \
      uint32_t stop = count - i < avail / 9 ? count : i + (uint32_t)(avail / 9); \
      for (; i < stop && (k = read_one##_at(p, &dst[i])) != 0; i++)      \
        p += k;                                                          \
      sp_reader_advance(r, (size_t)(p - start));                         \
      if (i < count && !read_one(r, &dst[i++])) return 0;                \
    }                                                                    \
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

/* Four int32s at p written in one form whose every value fits (positive
** fixint, cc, cd, d0, d1, d2): their bytes, with the values in out[0..3];
** 0 when the next four are not all of one such form. Reads at most 20
** bytes from p. One check per four values instead of a dispatch each: an
** encoder writes runs of similar numbers in one form (c.ints is 128
** fixints, 128 cc, then cd). */
static size_t i32_group(const uint8_t *p, int32_t *out) {
  uint8_t b = p[0];
  if (b < 0x80) {
    if ((p[1] | p[2] | p[3]) & 0x80) return 0;
    out[0] = b; out[1] = p[1]; out[2] = p[2]; out[3] = p[3];
    return 4;
  }
  switch (b) {
    case 0xcc:
      if (p[2] != b || p[4] != b || p[6] != b) return 0;
      out[0] = p[1]; out[1] = p[3]; out[2] = p[5]; out[3] = p[7];
      return 8;
    case 0xcd:
      if (p[3] != b || p[6] != b || p[9] != b) return 0;
      out[0] = sp_load16(p + 1); out[1] = sp_load16(p + 4);
      out[2] = sp_load16(p + 7); out[3] = sp_load16(p + 10);
      return 12;
    case 0xd0:
      if (p[2] != b || p[4] != b || p[6] != b) return 0;
      out[0] = (int8_t)p[1]; out[1] = (int8_t)p[3]; out[2] = (int8_t)p[5]; out[3] = (int8_t)p[7];
      return 8;
    case 0xd1:
      if (p[3] != b || p[6] != b || p[9] != b) return 0;
      out[0] = (int16_t)sp_load16(p + 1); out[1] = (int16_t)sp_load16(p + 4);
      out[2] = (int16_t)sp_load16(p + 7); out[3] = (int16_t)sp_load16(p + 10);
      return 12;
    case 0xd2:
      if (p[5] != b || p[10] != b || p[15] != b) return 0;
      out[0] = (int32_t)sp_load32(p + 1); out[1] = (int32_t)sp_load32(p + 6);
      out[2] = (int32_t)sp_load32(p + 11); out[3] = (int32_t)sp_load32(p + 16);
      return 20;
    default:
      return 0;
  }
}

/* int32 arrays: the runs of BULK_READER, four elements at a time where
** they share a form (i32_group), one at a time where they do not. */
int sp_read_i32_array(sp_reader *r, int32_t *dst, size_t cap, uint32_t *n) {
  uint32_t count, i = 0;
  if (!begin(r, cap, n)) return 0;
  count = *n;
  while (i < count) {
    size_t avail, k;
    const uint8_t *start = sp_reader_span(r, &avail), *p = start;
    uint32_t stop = count - i < avail / 9 ? count : i + (uint32_t)(avail / 9);
    while (i < stop) {
      if (stop - i >= 4 && (k = i32_group(p, &dst[i])) != 0) { p += k; i += 4; continue; }
      if ((k = sp_read_int32_at(p, &dst[i])) == 0) break;
      p += k;
      i++;
    }
    sp_reader_advance(r, (size_t)(p - start));
    if (i < count && !sp_read_int32(r, &dst[i++])) return 0;
  }
  return 1;
}
