/*
** sp_output.h -- the caller's buffer writer (IBufferWriter<byte>) and a
** growable byte buffer that implements it.
** Owns: the output interface and sp_buffer. Must not touch: writers (they
** call get_span/advance) or pools.
*/
#ifndef SP_OUTPUT_H
#define SP_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

/* get_span returns at least 'min' writable bytes (any size > 0 when min is
** 0) and stores the size in *avail, or NULL when it cannot. advance commits
** n bytes of the span last returned. The writer calls advance before asking
** for the next span. */
typedef struct sp_output {
  uint8_t *(*get_span)(void *ctx, size_t min, size_t *avail);
  void (*advance)(void *ctx, size_t n);
  void *ctx;
} sp_output;

/* A growable byte buffer the caller owns and reuses (ArrayBufferWriter).
** Growth doubles; sp_buffer_clear keeps the capacity, so after warm-up
** writing into it allocates nothing. */
typedef struct sp_buffer {
  uint8_t *data;
  size_t len, cap;
  size_t max_cap;     /* 0 = no limit; growing past it fails */
} sp_buffer;

/* Empty buffer; allocates nothing until the first write. */
void sp_buffer_init(sp_buffer *b);

/* Forgets the contents, keeps the memory. */
static inline void sp_buffer_clear(sp_buffer *b) { b->len = 0; }

/* Frees the memory. No operation on a NULL or empty buffer. */
void sp_buffer_free(sp_buffer *b);

/* An sp_output writing at the end of b. */
sp_output sp_buffer_output(sp_buffer *b);

/* An sp_output over a fixed caller array: never grows; a span request that
** does not fit fails (the writer reports SP_E_BUFFER_TOO_SMALL). 'fixed' keeps its
** position in len. */
sp_output sp_fixed_output(sp_buffer *fixed);

#endif
