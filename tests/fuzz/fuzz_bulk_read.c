/*
** fuzz_bulk_read.c -- libFuzzer target: the bulk numeric readers against
** the typed reads, element by element. The input (fuzz.h's layout) holds
** arrays read one after another until the input ends or a read fails; for
** each, a control byte chooses the kind (one of the ten, now and then an
** unknown one) and the destination's capacity (unbounded or 0..7). Four
** walks must agree exactly -- every destination byte (the slots a failed
** read left alone too), every count, the result of each array, and the
** error code and offset where they stop:
**   sp_read_numeric_array over the contiguous input,
**   the direct sp_read_<kind>_array over the input in segments,
**   the reference (sp_read_array_header, the capacity check, then one
**   typed read per element) over the contiguous input and over the segments.
** Each destination is an exact-size heap block, so ASan reports a write
** past the capacity or past what the input could hold.
** fuzz-args: -max_len=4096
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "scratchpack.h"

#define UNKNOWN_KIND ((sp_num_kind)SP_NUM_KINDS)

/* The direct bulk reader of each kind (no dispatch). */
static int bulk_direct(sp_reader *r, sp_num_kind k, void *dst, size_t cap, uint32_t *n) {
  switch (k) {
    case SP_NUM_I8: return sp_read_i8_array(r, dst, cap, n);
    case SP_NUM_U8: return sp_read_u8_array(r, dst, cap, n);
    case SP_NUM_I16: return sp_read_i16_array(r, dst, cap, n);
    case SP_NUM_U16: return sp_read_u16_array(r, dst, cap, n);
    case SP_NUM_I32: return sp_read_i32_array(r, dst, cap, n);
    case SP_NUM_U32: return sp_read_u32_array(r, dst, cap, n);
    case SP_NUM_F32: return sp_read_f32_array(r, dst, cap, n);
    case SP_NUM_F64: return sp_read_f64_array(r, dst, cap, n);
    case SP_NUM_I64: return sp_read_i64_array(r, dst, cap, n);
    case SP_NUM_U64: return sp_read_u64_array(r, dst, cap, n);
    default: return sp_read_numeric_array(r, k, dst, cap, n);   /* the unknown kind */
  }
}

/* One element through the typed read of its kind. */
static int read_elem(sp_reader *r, sp_num_kind k, uint8_t *p) {
  switch (k) {
    case SP_NUM_I8: return sp_read_int8(r, (int8_t *)(void *)p);
    case SP_NUM_U8: return sp_read_uint8(r, p);
    case SP_NUM_I16: return sp_read_int16(r, (int16_t *)(void *)p);
    case SP_NUM_U16: return sp_read_uint16(r, (uint16_t *)(void *)p);
    case SP_NUM_I32: return sp_read_int32(r, (int32_t *)(void *)p);
    case SP_NUM_U32: return sp_read_uint32(r, (uint32_t *)(void *)p);
    case SP_NUM_F32: return sp_read_float(r, (float *)(void *)p);
    case SP_NUM_F64: return sp_read_double(r, (double *)(void *)p);
    case SP_NUM_I64: return sp_read_int64(r, (int64_t *)(void *)p);
    default: return sp_read_uint64(r, (uint64_t *)(void *)p);
  }
}

/* What the bulk readers promise, spelled out with the typed reads. */
static int reference(sp_reader *r, sp_num_kind k, void *dst, size_t cap, uint32_t *n) {
  uint64_t at = sp_reader_offset(r);
  size_t size = sp_num_kind_size(k);
  if (size == 0) return sp_reader_fail(r, SP_E_INVALID_ARGUMENT, "unknown numeric kind", __func__);
  if (!sp_read_array_header(r, n)) return 0;
  if (*n > cap) return sp_reader_fail_at(r, at, SP_E_LENGTH_LIMIT, "array longer than the destination", __func__);
  for (uint32_t i = 0; i < *n; i++)
    if (!read_elem(r, k, (uint8_t *)dst + (size_t)i * size)) return 0;
  return 1;
}

typedef enum how { BULK_KIND, BULK_DIRECT, REFERENCE } how;

/* Reads arrays until the end or a failure; logs each destination, count,
** result and offset, then the reader's error. */
static void run(sp_reader *r, how h, const fuzz_in *in, fuzz_log *log) {
  for (size_t i = 0; sp_peek(r) != SP_T_END; i++) {
    uint8_t c = fuzz_ctl(in, i);
    sp_num_kind k = (c & 0x0f) == 0x0f ? UNKNOWN_KIND : (sp_num_kind)((c & 0x0f) % SP_NUM_KINDS);
    size_t size = k == UNKNOWN_KIND ? 8 : sp_num_kind_size(k);
    size_t cap = c & 0x80 ? (size_t)(c >> 4 & 7) : SIZE_MAX;
    /* room for what the input could hold (one byte an element) or the capacity */
    size_t room = cap == SIZE_MAX ? (size_t)sp_reader_remaining(r) : cap;
    uint8_t *dst = malloc(room * size + 1);     /* + 1: malloc(0) may be NULL */
    uint32_t n = 0x5a5a5a5a;
    int ok;
    FUZZ_ASSERT(dst != NULL);
    memset(dst, 0xa5, room * size);
    ok = h == BULK_KIND ? sp_read_numeric_array(r, k, dst, cap, &n)
       : h == BULK_DIRECT ? bulk_direct(r, k, dst, cap, &n)
       : reference(r, k, dst, cap, &n);
    fuzz_log_put(log, dst, room * size);
    fuzz_log_u64(log, (uint64_t)n << 8 | (uint64_t)ok);
    fuzz_log_u64(log, sp_reader_offset(r));
    free(dst);
    if (!ok) break;
  }
  fuzz_log_u64(log, (uint64_t)r->err.code);
  fuzz_log_u64(log, r->err.code ? (uint64_t)r->err.offset : sp_reader_offset(r));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_in in;
  fuzz_seq cut;
  fuzz_log logs[4] = {{0}};
  sp_reader r;
  if (!fuzz_in_parse(&in, data, size)) return 0;
  fuzz_seq_cut(&cut, &in);
  sp_reader_init(&r, in.msg, in.len);
  run(&r, BULK_KIND, &in, &logs[0]);
  sp_reader_init_sequence(&r, &cut.seq);
  run(&r, BULK_DIRECT, &in, &logs[1]);
  sp_reader_init(&r, in.msg, in.len);
  run(&r, REFERENCE, &in, &logs[2]);
  sp_reader_init_sequence(&r, &cut.seq);
  run(&r, REFERENCE, &in, &logs[3]);
  for (int i = 1; i < 4; i++) FUZZ_ASSERT(fuzz_log_same(&logs[0], &logs[i]));
  for (int i = 0; i < 4; i++) fuzz_log_free(&logs[i]);
  fuzz_seq_free(&cut);
  return 0;
}
