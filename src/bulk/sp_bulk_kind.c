/*
** sp_bulk_kind.c -- numeric arrays by kind: the one place an sp_num_kind
** becomes a typed bulk writer or reader.
** Owns: the two dispatchers and the element sizes of the kinds. Must not
** touch: the element loops (sp_bulk.c, sp_bulk_read.c) or the writer's and
** reader's state beyond failing them.
**
** The WASM gates, the WASI reactor and schema arrays all come through here.
** Each switch is built from the one list below, so a kind added to
** sp_num_kind needs one line here (and -Wswitch names a kind left out).
** Switches and not a table of function pointers: calling sp_write_i8_array
** through a pointer that takes 'const void *' would be undefined behaviour.
*/
#include "sp_bulk.h"

/* kind, the name in sp_write_<name>_array / sp_read_<name>_array, C type */
#define EACH_KIND(X)                                                       \
  X(SP_NUM_I8, i8, int8_t) X(SP_NUM_U8, u8, uint8_t)                       \
  X(SP_NUM_I16, i16, int16_t) X(SP_NUM_U16, u16, uint16_t)                 \
  X(SP_NUM_I32, i32, int32_t) X(SP_NUM_U32, u32, uint32_t)                 \
  X(SP_NUM_F32, f32, float) X(SP_NUM_F64, f64, double)                     \
  X(SP_NUM_I64, i64, int64_t) X(SP_NUM_U64, u64, uint64_t)

size_t sp_num_kind_size(sp_num_kind kind) {
#define SIZE_OF(k, name, type) case k: return sizeof(type);
  switch (kind) { EACH_KIND(SIZE_OF) }
#undef SIZE_OF
  return 0;
}

void sp_write_numeric_array(sp_writer *w, sp_num_kind kind, const void *v, size_t n) {
#define WRITE(k, name, type) case k: sp_write_##name##_array(w, v, n); return;
  switch (kind) { EACH_KIND(WRITE) }
#undef WRITE
  sp_writer_fail(w, SP_E_INVALID_ARGUMENT, "unknown numeric kind", __func__);
}

int sp_read_numeric_array(sp_reader *r, sp_num_kind kind, void *dst, size_t cap, uint32_t *n) {
#define READ(k, name, type) case k: return sp_read_##name##_array(r, dst, cap, n);
  switch (kind) { EACH_KIND(READ) }
#undef READ
  return sp_reader_fail(r, SP_E_INVALID_ARGUMENT, "unknown numeric kind", __func__);
}
