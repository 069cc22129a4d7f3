/*
** sp_bulk.c -- numeric arrays as standard MessagePack arrays, by chunks.
** Owns: the per-type element loops and the chunked reservations. Must not
** touch: the writer's slow path (it only reserves) or SIMD details (the
** int32 kernels live in sp_bulk_i32.c).
*/
#include "sp_bulk.h"
#include "sp_bulk_i32.h"

/* Starts an array: header, and the one cancel check before the elements.
** Returns 0 when the writer has stopped. */
static int begin(sp_writer *w, size_t n) {
  if ((uint64_t)n > 0xffffffffu) {
    sp_writer_fail(w, SP_E_LENGTH_LIMIT, "array longer than 2^32-1 elements", __func__);
    return 0;
  }
  sp_write_array_header(w, (uint32_t)n);
  return !sp_writer_stopped(w);
}

/* Elements in the next chunk: at most SP_BULK_CHUNK, and what a caller's
** fixed output has room for (sp_writer_fit). */
static size_t chunk(const sp_writer *w, size_t left, size_t worst) {
  return sp_writer_fit(w, left < SP_BULK_CHUNK ? left : SP_BULK_CHUNK, worst);
}

/* One loop per element type: reserve a chunk's worst case, write each
** element in its smallest form, commit what was written. */
#define CHUNK_LOOP(w, v, n, worst, put)                                   \
  for (size_t i = 0; i < (n);) {                                          \
    size_t k = chunk((w), (n) - i, (worst));                              \
    uint8_t *p = sp_writer_reserve((w), k * (worst)), *q = p;             \
    if (p == NULL) return;                                                \
    for (size_t j = 0; j < k; j++) q += put(q, (v)[i + j]);               \
    sp_writer_advance((w), (size_t)(q - p));                              \
    i += k;                                                               \
  }

static size_t put_signed(uint8_t *p, int64_t x) { return sp_put_int(p, x); }
static size_t put_unsigned(uint8_t *p, uint64_t x) { return sp_put_uint(p, x); }


void sp_write_i8_array(sp_writer *w, const int8_t *v, size_t n) {
  if (begin(w, n)) { CHUNK_LOOP(w, v, n, 2, put_signed) }
}
void sp_write_i16_array(sp_writer *w, const int16_t *v, size_t n) {
  if (begin(w, n)) { CHUNK_LOOP(w, v, n, 3, put_signed) }
}
void sp_write_i64_array(sp_writer *w, const int64_t *v, size_t n) {
  if (begin(w, n)) { CHUNK_LOOP(w, v, n, 9, put_signed) }
}
void sp_write_u8_array(sp_writer *w, const uint8_t *v, size_t n) {
  if (begin(w, n)) { CHUNK_LOOP(w, v, n, 2, put_unsigned) }
}
void sp_write_u16_array(sp_writer *w, const uint16_t *v, size_t n) {
  if (begin(w, n)) { CHUNK_LOOP(w, v, n, 3, put_unsigned) }
}
void sp_write_u32_array(sp_writer *w, const uint32_t *v, size_t n) {
  if (begin(w, n)) { CHUNK_LOOP(w, v, n, 5, put_unsigned) }
}
void sp_write_u64_array(sp_writer *w, const uint64_t *v, size_t n) {
  if (begin(w, n)) { CHUNK_LOOP(w, v, n, 9, put_unsigned) }
}
void sp_write_f32_array(sp_writer *w, const float *v, size_t n) {
  if (begin(w, n)) { CHUNK_LOOP(w, v, n, 5, sp_put_float) }
}
void sp_write_f64_array(sp_writer *w, const double *v, size_t n) {
  if (begin(w, n)) { CHUNK_LOOP(w, v, n, 9, sp_put_double) }
}

void sp_write_i32_array(sp_writer *w, const int32_t *v, size_t n) {
  sp_i32_kernel encode = sp_bulk_i32_select();
  if (!begin(w, n)) return;
  for (size_t i = 0; i < n;) {
    size_t k = chunk(w, n - i, 5);
    uint8_t *p = sp_writer_reserve(w, k * 5);
    if (p == NULL) return;
    sp_writer_advance(w, encode(p, v + i, k));
    i += k;
  }
}
