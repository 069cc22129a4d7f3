/*
** sp_bulk.h -- numeric arrays written as standard MessagePack arrays.
** Owns: the bulk writers (array header + every element in its smallest
** form; floats as float32/float64). Must not touch: the writer's modes.
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

/* The int32 encoder in use: "simd128", "sse2" or "scalar". */
const char *sp_bulk_i32_kernel(void);

/* Forces the scalar int32 encoder (1) or the best available (0); for tests
** and benchmarks that compare the two. */
void sp_bulk_force_scalar(int on);

#endif
