/*
** sp_shutdown.c -- the end of everything the process holds by default.
** Owns: the order of teardown (the calling thread's scratch, then the
** sequence pool, then the array pool its segments return to). Must not
** touch: what each layer keeps; it only asks each to let go.
*/
#include "sp_serialize.h"
#include "pool/sp_pool_default.h"
#include "sequence/sp_seq_pool_default.h"
#include "writer/sp_scratch.h"

void sp_shutdown(void) {
  sp_scratch_free_now();
  sp_seq_pool_default_free();
  sp_pool_default_free();
}
