/*
** sp_wasm_tasks.c -- an off-thread task: one numeric array encoded by
** sp_to_array, on whichever thread runs it. Owns: the task's life (new,
** run, free) and the wake-up of whoever waits on its state. Must not
** touch: the queue and the threads (sp_wasm_workers.c) or when JS submits
** a task (js/tasks.js).
*/
#include <string.h>

#include "sp_wasm.h"

#ifndef SP_NO_THREADS
#include <emscripten/threading.h>
#endif

sp_wasm_task *sp_wasm_task_new(void) {
  sp_wasm_task *t = sp_malloc(sizeof *t);
  if (t != NULL) memset(t, 0, sizeof *t);
  return t;
}
void sp_wasm_task_free(sp_wasm_task *t) { sp_free(t, sizeof *t); }

static int format_task(sp_writer *w, const void *value) {
  const sp_wasm_task *t = value;
  sp_write_numeric_array(w, (sp_num_kind)t->kind, t->src, t->n);
  return 0;
}

/* Runs a task on the calling thread and marks it done (waking waiters). */
void sp_wasm_task_run(sp_wasm_task *t) {
  sp_options opt = sp_wasm_options(t->scratch_size, t->compression);
  sp_bytes out;
  sp_error err;
  opt.cancel = &t->cancel;
  atomic_store(&t->state, SP_WASM_TASK_RUNNING);
  t->code = (int32_t)sp_to_array(format_task, t, &opt, &out, &err);
  t->result = out.data;
  t->result_len = (uint32_t)out.len;
  t->cause = t->code != SP_OK && err.cause ? err.cause : "";
  atomic_store(&t->state, SP_WASM_TASK_DONE);
#ifndef SP_NO_THREADS
  emscripten_futex_wake((volatile void *)&t->state, INT32_MAX);
#endif
}
