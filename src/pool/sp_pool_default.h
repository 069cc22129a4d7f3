/*
** sp_pool_default.h -- the end of the process-wide array pool (internal).
** Owns: nothing; declares what sp_shutdown calls. Must not touch: the pool's
** users, which only see sp_pool_default() in sp_pool.h.
*/
#ifndef SP_POOL_DEFAULT_H
#define SP_POOL_DEFAULT_H

/* Destroys the default array pool if it was created; the next
** sp_pool_default() creates a new one. Not safe against concurrent users. */
void sp_pool_default_free(void);

#endif
