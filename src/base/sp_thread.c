/*
** sp_thread.c -- locks, once, thread-exit callbacks, CPU count.
** Owns: the pthread keys behind thread-exit cleanup. Must not touch: what the
** callbacks free (their owners do that).
*/
#include <stddef.h>

#include "sp_thread.h"

#ifdef SP_NO_THREADS

int sp_lock_init(sp_lock *l) { (void)l; return 0; }
void sp_lock_destroy(sp_lock *l) { (void)l; }
int sp_lock_take(sp_lock *l) { (void)l; return 0; }
void sp_lock_give(sp_lock *l) { (void)l; }
void sp_run_once(sp_once *once, void (*fn)(void)) {
  if (*once == 0) { *once = 1; fn(); }
}
int sp_cpu_count(void) { return 1; }

/* One thread, which never exits before the process: nothing to register. */
void sp_on_thread_exit(int slot, void (*fn)(void *), void *arg) {
  (void)slot; (void)fn; (void)arg;
}

#else

#include <stdatomic.h>
#include <unistd.h>

int sp_lock_init(sp_lock *l) { return pthread_mutex_init(&l->m, NULL); }
void sp_lock_destroy(sp_lock *l) { pthread_mutex_destroy(&l->m); }

int sp_lock_take(sp_lock *l) {
  if (pthread_mutex_trylock(&l->m) == 0) return 0;
  pthread_mutex_lock(&l->m);
  return 1;
}

void sp_lock_give(sp_lock *l) { pthread_mutex_unlock(&l->m); }

void sp_run_once(sp_once *once, void (*fn)(void)) { pthread_once(once, fn); }

int sp_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (int)n;
}

/* One pthread key per slot: its destructor runs at thread exit with the
** value this thread registered. */
static pthread_key_t exit_key[SP_EXIT_COUNT];
typedef void (*exit_cb)(void *);
static _Atomic(exit_cb) exit_fn[SP_EXIT_COUNT];  /* the same per slot on every thread */
static sp_once keys_once = SP_ONCE_INIT;
static int keys_ok;

/* pthread destructors get only the value, so each slot has a trampoline. */
static void run_scratch_exit(void *arg) { atomic_load(&exit_fn[SP_EXIT_SCRATCH])(arg); }
static void run_pool_exit(void *arg) { atomic_load(&exit_fn[SP_EXIT_POOL])(arg); }

static void make_keys(void) {
  keys_ok = pthread_key_create(&exit_key[SP_EXIT_SCRATCH], run_scratch_exit) == 0 &&
            pthread_key_create(&exit_key[SP_EXIT_POOL], run_pool_exit) == 0;
}

void sp_on_thread_exit(int slot, void (*fn)(void *), void *arg) {
  sp_run_once(&keys_once, make_keys);
  if (!keys_ok) return;
  atomic_store(&exit_fn[slot], fn);
  pthread_setspecific(exit_key[slot], arg);
}

#endif
