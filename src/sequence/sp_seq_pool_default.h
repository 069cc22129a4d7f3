/*
** sp_seq_pool_default.h -- the end of the process-wide sequence pool (internal).
** Owns: nothing; declares what sp_shutdown calls. Must not touch: the
** pool's users, which only see sp_seq_pool_default() in sp_sequence.h.
*/
#ifndef SP_SEQ_POOL_DEFAULT_H
#define SP_SEQ_POOL_DEFAULT_H

/* Destroys the default sequence pool if it was created (its segments go back
** to their array pool first); the next sp_seq_pool_default() makes another. */
void sp_seq_pool_default_free(void);

#endif
