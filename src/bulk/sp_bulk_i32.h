/*
** sp_bulk_i32.h -- int32 array kernels (internal).
** Owns: choosing the kernel. A kernel encodes n int32 values in their
** smallest forms at dst, which has room for 5n bytes (it may write up to 4
** bytes of scratch past its output, never past 5n), and returns the bytes
** it produced.
*/
#ifndef SP_BULK_I32_H
#define SP_BULK_I32_H

#include <stddef.h>
#include <stdint.h>

typedef size_t (*sp_i32_kernel)(uint8_t *dst, const int32_t *v, size_t n);

size_t sp_i32_encode_scalar(uint8_t *dst, const int32_t *v, size_t n);

/* The kernel to use now: SIMD when the machine has it and it is not forced
** off, else scalar. */
sp_i32_kernel sp_bulk_i32_select(void);

#endif
