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
  if (*n > cap) return sp_reader_fail_at(r, at, SP_E_LIMIT, "array longer than the destination", __func__);
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
BULK_READER(sp_read_i32_array, int32_t, sp_read_int32)
BULK_READER(sp_read_i64_array, int64_t, sp_read_int64)
BULK_READER(sp_read_u8_array, uint8_t, sp_read_uint8)
BULK_READER(sp_read_u16_array, uint16_t, sp_read_uint16)
BULK_READER(sp_read_u32_array, uint32_t, sp_read_uint32)
BULK_READER(sp_read_u64_array, uint64_t, sp_read_uint64)
BULK_READER(sp_read_f32_array, float, sp_read_float)
BULK_READER(sp_read_f64_array, double, sp_read_double)
