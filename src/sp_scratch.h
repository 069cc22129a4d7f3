/*
** sp_scratch.h -- the per-thread scratch array of the to_array entry.
** Owns: one array per thread, its size and its in-use count. Must not touch:
** writers (they hold a scratch and release it) or pools.
*/
#ifndef SP_SCRATCH_INTERNAL_H
#define SP_SCRATCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct sp_scratch {
  uint8_t *data;
  size_t size;
  unsigned users;    /* writers holding it now; > 1 only in legacy mode */
} sp_scratch;

/* Takes this thread's scratch of 'size' bytes, allocating it on first use
** (or when the size changes while nobody holds it). Returns NULL when it is
** held by an outer call and 'legacy' is 0: the caller must not use it. With
** 'legacy' it is handed out even while held, as MessagePack-CSharp does.
** *fresh is set to 1 when this call allocated it. NULL also on no memory. */
sp_scratch *sp_scratch_acquire(size_t size, int legacy, int *fresh);

/* 1 when an outer call on this thread holds the scratch now. */
int sp_scratch_held(void);

/* Gives the scratch back (no operation on NULL). */
void sp_scratch_release(sp_scratch *s);

/* Frees this thread's scratch now if nobody holds it (threads also free it
** at exit). */
void sp_scratch_free_now(void);

#endif
