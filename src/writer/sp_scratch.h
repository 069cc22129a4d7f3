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

/* What sp_scratch_acquire did. */
typedef enum sp_scratch_status {
  SP_SCRATCH_TAKEN,  /* it was free and is the caller's now */
  SP_SCRATCH_NEW,    /* the same, allocated by this call */
  SP_SCRATCH_SHARED, /* an outer call holds it and 'legacy' handed it out again */
  SP_SCRATCH_HELD,   /* an outer call holds it: the caller must write elsewhere */
  SP_SCRATCH_NOMEM   /* it had to be allocated and could not be */
} sp_scratch_status;

/* Takes this thread's scratch of 'size' bytes, allocating it on first use
** (or when the size changes while nobody holds it). While an outer call
** holds it, it is handed out only with 'legacy' (as MessagePack-CSharp
** does). *out is the scratch for TAKEN, NEW and SHARED, else NULL; give it
** back with sp_scratch_release. */
sp_scratch_status sp_scratch_acquire(size_t size, int legacy, sp_scratch **out);

/* Gives the scratch back (no operation on NULL). */
void sp_scratch_release(sp_scratch *s);

/* Frees this thread's scratch now if nobody holds it (threads also free it
** at exit). */
void sp_scratch_free_now(void);

#endif
