/*
** sp_wasm_workers.c -- the worker threads that run off-thread tasks, and
** their queue. Owns: starting, feeding, stopping and joining the workers.
** Must not touch: what a task does (sp_wasm_tasks.c) or Emscripten's
** pthread pool (js/wasm.js sizes it; the workers only take from it).
*/
#include "sp_wasm.h"

#ifdef SP_NO_THREADS

int sp_wasm_workers_start(int n) { (void)n; return 0; }
int sp_wasm_task_submit(sp_wasm_task *t) { (void)t; return 0; }
void sp_wasm_workers_stop(void) {}
const int32_t *sp_wasm_workers_live(void) { static const int32_t none; return &none; }
void sp_wasm_workers_join(void) {}

#else

#include <emscripten/threading.h>
#include <pthread.h>

#define MAX_WORKERS 64

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static sp_wasm_task *queue_head, *queue_tail;
static int workers, stopping;
static pthread_t worker_ids[MAX_WORKERS];
/* Workers that have not yet returned from worker_main; JS waits on it
** (Atomics.wait, or polling where it may not block) before it joins. */
static _Atomic int32_t workers_live;

/* The next task, or NULL once stopping with the queue drained. */
static sp_wasm_task *next_task(void) {
  sp_wasm_task *t;
  pthread_mutex_lock(&queue_lock);
  while (queue_head == NULL && !stopping) pthread_cond_wait(&queue_cond, &queue_lock);
  t = queue_head;
  if (t != NULL && (queue_head = t->next) == NULL) queue_tail = NULL;
  pthread_mutex_unlock(&queue_lock);
  return t;
}

/* Runs tasks until sp_wasm_workers_stop, then returns: the thread ends
** itself, so nothing of it is freed while it still runs. (Ending it from
** outside -- Emscripten's terminateAllThreads -- frees its stack and thread
** record while it may still wake from its timed wait, and it then crashed
** with "memory access out of bounds".) */
static void *worker_main(void *arg) {
  (void)arg;
  for (sp_wasm_task *t; (t = next_task()) != NULL;) sp_wasm_task_run(t);
  atomic_fetch_sub(&workers_live, 1);
  emscripten_futex_wake((volatile void *)&workers_live, INT32_MAX);
  return NULL;
}

/* Starts up to n worker threads (the pthread pool must hold them: the
** module is built with PTHREAD_POOL_SIZE_STRICT=2, so a create beyond the
** pool fails instead of deadlocking). Returns how many run now. They stay
** joinable: sp_wasm_workers_join ends them. */
int sp_wasm_workers_start(int n) {
  while (workers < n && workers < MAX_WORKERS && !stopping) {
    atomic_fetch_add(&workers_live, 1);
    if (pthread_create(&worker_ids[workers], NULL, worker_main, NULL) != 0) {
      atomic_fetch_sub(&workers_live, 1);
      break;
    }
    workers++;
  }
  return workers;
}

/* Queues a task for a worker. Returns 1, or 0 when there is no worker or
** the workers are stopping (the caller then runs it itself, or not at all). */
int sp_wasm_task_submit(sp_wasm_task *t) {
  int queued = 0;
  t->next = NULL;
  atomic_store(&t->state, SP_WASM_TASK_QUEUED);
  pthread_mutex_lock(&queue_lock);
  if (workers > 0 && !stopping) {
    if (queue_tail != NULL) queue_tail->next = t; else queue_head = t;
    queue_tail = t;
    pthread_cond_signal(&queue_cond);
    queued = 1;
  }
  pthread_mutex_unlock(&queue_lock);
  return queued;
}

/* Tells every worker to end once the queue is empty (the caller sets the
** tasks' cancel flags first, so queued ones end at once with CANCELLED).
** Does not block. */
void sp_wasm_workers_stop(void) {
  pthread_mutex_lock(&queue_lock);
  stopping = 1;
  pthread_cond_broadcast(&queue_cond);
  pthread_mutex_unlock(&queue_lock);
}

/* The count of workers still inside worker_main (an int32 JS can wait on). */
const _Atomic int32_t *sp_wasm_workers_live(void) { return &workers_live; }

/* After sp_wasm_workers_stop: waits for every worker to end (blocks; call
** it once *sp_wasm_workers_live is 0 where the caller may not block) and
** lets Emscripten take their threads back. Their workers can then be
** terminated safely. */
void sp_wasm_workers_join(void) {
  for (int i = 0; i < workers; i++) pthread_join(worker_ids[i], NULL);
  workers = 0;
}

#endif
