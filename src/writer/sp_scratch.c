/*
** sp_scratch.c -- the per-thread scratch array ([ThreadStatic] scratchArray).
** Owns: the thread-local array and its lifetime. Must not touch: what is
** written into it (writers own the bytes while they hold it).
*/
#include "sp_alloc.h"
#include "sp_scratch.h"
#include "base/sp_thread.h"

static SP_THREAD_LOCAL sp_scratch scratch;

static void free_at_exit(void *arg) {
  sp_scratch *s = arg;
  sp_free(s->data, s->size);
  s->data = NULL;
  s->size = 0;
}

sp_scratch_status sp_scratch_acquire(size_t size, int legacy, sp_scratch **out) {
  sp_scratch_status status = SP_SCRATCH_TAKEN;
  *out = NULL;
  if (scratch.users > 0) {
    if (!legacy) return SP_SCRATCH_HELD;
    scratch.users++;                 /* the overwrite the documents show */
    *out = &scratch;
    return SP_SCRATCH_SHARED;
  }
  if (scratch.data != NULL && scratch.size != size) free_at_exit(&scratch);
  if (scratch.data == NULL) {
    if ((scratch.data = sp_malloc(size)) == NULL) return SP_SCRATCH_NOMEM;
    scratch.size = size;
    status = SP_SCRATCH_NEW;
    sp_on_thread_exit(SP_EXIT_SCRATCH, free_at_exit, &scratch);
  }
  scratch.users = 1;
  *out = &scratch;
  return status;
}

void sp_scratch_release(sp_scratch *s) {
  if (s != NULL && s->users > 0) s->users--;
}

void sp_scratch_free_now(void) {
  if (scratch.users == 0 && scratch.data != NULL) {
    free_at_exit(&scratch);
    sp_on_thread_exit(SP_EXIT_SCRATCH, free_at_exit, NULL);
  }
}
