/*
** sp_thread.h -- the few threading primitives the core needs, in one place.
** Owns: locks (with a count of waits), run-once, thread-exit cleanup, the CPU
** count. Must not touch: pools or writers. With SP_NO_THREADS (the WASI build)
** everything here is single-threaded and free.
*/
#ifndef SP_THREAD_H
#define SP_THREAD_H

#include <stdint.h>

#if defined(__wasi__) && !defined(_REENTRANT) && !defined(SP_NO_THREADS)
#define SP_NO_THREADS 1
#endif

/* Per-thread storage. Without threads it is plain static storage: there is
** one thread, and a wasm32 build then needs no TLS block, so it may use
** bulk memory (clang makes _Thread_local real wasm TLS under -mbulk-memory,
** which a non-threaded wasi-libc never sets up). */
#ifdef SP_NO_THREADS
#define SP_THREAD_LOCAL
#else
#define SP_THREAD_LOCAL _Thread_local
#endif

#ifdef SP_NO_THREADS
typedef struct sp_lock { int unused; } sp_lock;
typedef int sp_once;
#define SP_ONCE_INIT 0
#else
#include <pthread.h>
typedef struct sp_lock { pthread_mutex_t m; } sp_lock;
typedef pthread_once_t sp_once;
#define SP_ONCE_INIT PTHREAD_ONCE_INIT
#endif

/* Returns 0, or nonzero when the lock could not be created. */
int sp_lock_init(sp_lock *l);
void sp_lock_destroy(sp_lock *l);

/* Takes the lock. Returns 1 if it had to wait for another thread (the pools
** count these as contentions), 0 if it was free. */
int sp_lock_take(sp_lock *l);
void sp_lock_give(sp_lock *l);

void sp_run_once(sp_once *once, void (*fn)(void));

/* Registers fn(arg) to run when the calling thread exits (never, for the
** main thread or without threads: their owners free what they registered
** through sp_thread_cleanup or sp_shutdown). One callback per slot and
** thread; registering again replaces the argument. A NULL arg clears. */
enum { SP_EXIT_SCRATCH, SP_EXIT_POOL, SP_EXIT_COUNT };
void sp_on_thread_exit(int slot, void (*fn)(void *), void *arg);

/* Number of online CPUs, at least 1. */
int sp_cpu_count(void);

#endif
