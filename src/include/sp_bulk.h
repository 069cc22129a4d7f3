/*
** sp_bulk.h -- numeric arrays written as standard MessagePack arrays.
** Owns: the numeric kinds (sp_num_kind), the bulk writers (array header +
** every element in its smallest form; floats as float32/float64), the bulk
** readers and the two dispatchers by kind. Must not touch: the writer's modes.
**
** Unlike MessagePack-CSharp, which reserves 5 bytes x the whole array in one
** span (30,000 ints -> one 150 KB request that leaves the 128 KiB pool),
** these reserve worst-case space per chunk of SP_BULK_CHUNK elements, so no
** reservation ever exceeds the pool's largest bucket. The cancel flag is
** checked once before the first element, as MessagePack-CSharp does.
*/
#ifndef SP_BULK_H
#define SP_BULK_H

#include <stddef.h>
#include <stdint.h>

#include "sp_writer.h"

#define SP_BULK_CHUNK 4096   /* elements per reservation: at most 4096 x 9 B */

/* The element kinds of numeric arrays: the one numbering of the dispatchers
** below, of schema field types (sp_schema.h: SP_F_I8 .. SP_F_U64 are these
** plus one, so that a zero-filled field stays "no type"), of both WASM gates
** and of js/typed.js's KIND (tests/js/vocabulary.test.js checks it against
** this enum). Hosts pass these numbers as ints: they never change. */
typedef enum sp_num_kind {
  SP_NUM_I8 = 0, SP_NUM_U8 = 1, SP_NUM_I16 = 2, SP_NUM_U16 = 3, SP_NUM_I32 = 4,
  SP_NUM_U32 = 5, SP_NUM_F32 = 6, SP_NUM_F64 = 7, SP_NUM_I64 = 8, SP_NUM_U64 = 9
} sp_num_kind;

#define SP_NUM_KINDS 10      /* kinds are 0 .. SP_NUM_KINDS - 1 */

/* Bytes of one element of 'kind' in memory: 1, 2, 4 or 8; 0 when 'kind'
** is not a kind. (sp_bulk_kind.c) */
size_t sp_num_kind_size(sp_num_kind kind);

/* The bulk writer of 'kind' (sp_write_<kind>_array) over n elements at v,
** which must be aligned for that type. An unknown kind fails the writer
** with SP_E_INVALID_ARGUMENT. (sp_bulk_kind.c) */
void sp_write_numeric_array(sp_writer *w, sp_num_kind kind, const void *v, size_t n);

void sp_write_i8_array(sp_writer *w, const int8_t *v, size_t n);
void sp_write_i16_array(sp_writer *w, const int16_t *v, size_t n);
void sp_write_i32_array(sp_writer *w, const int32_t *v, size_t n);
void sp_write_i64_array(sp_writer *w, const int64_t *v, size_t n);
void sp_write_u8_array(sp_writer *w, const uint8_t *v, size_t n);
void sp_write_u16_array(sp_writer *w, const uint16_t *v, size_t n);
void sp_write_u32_array(sp_writer *w, const uint32_t *v, size_t n);
void sp_write_u64_array(sp_writer *w, const uint64_t *v, size_t n);
void sp_write_f32_array(sp_writer *w, const float *v, size_t n);
void sp_write_f64_array(sp_writer *w, const double *v, size_t n);

/* ---- reading them back (sp_bulk_read.c) ------------------------------- */

#include "sp_reader.h"

/* Reads an array header and its elements straight into dst, which holds
** 'cap' elements; *n gets the count. More elements than cap is SP_E_LENGTH_LIMIT
** (nothing read past the header); an element of another type or out of the
** element type's range fails with the reader's error and offset. Floats
** accept any number (as sp_read_double does). */
int sp_read_i8_array(sp_reader *r, int8_t *dst, size_t cap, uint32_t *n);
int sp_read_i16_array(sp_reader *r, int16_t *dst, size_t cap, uint32_t *n);
int sp_read_i32_array(sp_reader *r, int32_t *dst, size_t cap, uint32_t *n);
int sp_read_i64_array(sp_reader *r, int64_t *dst, size_t cap, uint32_t *n);
int sp_read_u8_array(sp_reader *r, uint8_t *dst, size_t cap, uint32_t *n);
int sp_read_u16_array(sp_reader *r, uint16_t *dst, size_t cap, uint32_t *n);
int sp_read_u32_array(sp_reader *r, uint32_t *dst, size_t cap, uint32_t *n);
int sp_read_u64_array(sp_reader *r, uint64_t *dst, size_t cap, uint32_t *n);
int sp_read_f32_array(sp_reader *r, float *dst, size_t cap, uint32_t *n);
int sp_read_f64_array(sp_reader *r, double *dst, size_t cap, uint32_t *n);

/* The bulk reader of 'kind' (sp_read_<kind>_array) into dst, room for cap
** elements of that type. An unknown kind fails the reader with
** SP_E_INVALID_ARGUMENT and returns 0. (sp_bulk_kind.c) */
int sp_read_numeric_array(sp_reader *r, sp_num_kind kind, void *dst, size_t cap, uint32_t *n);

/* The int32 encoder in use: "simd128", "ssse3" or "scalar". */
const char *sp_bulk_i32_kernel(void);

/* Forces the scalar int32 encoder (1) or the best available (0); for tests
** and benchmarks that compare the two. */
void sp_bulk_force_scalar(int on);

#endif
