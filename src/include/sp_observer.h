/*
** sp_observer.h -- watching writers and entries from their out-of-line code.
** Owns: the hook table an observer fills and the notes entries send it.
** Must not touch: what an observer records or why (sp_trace.c is one).
**
** An observer is one optional pointer (sp_options.observer, copied into the
** entry's writer). Writers and entries call it only from out-of-line code:
** the writer's slow path and the entries' begin, finish and end. The inline
** fast paths never look at it, so an observer sees a reservation only when
** it reaches the slow path -- which is why an observer may hold the
** writer's 'end' short of the span (every later reservation then reaches
** 'reserve' below), as long as it answers 'room' with the real room.
**
** Hooks run on the thread of the writer they watch, one at a time. Every
** hook must be set.
*/
#ifndef SP_OBSERVER_H
#define SP_OBSERVER_H

#include <stddef.h>
#include <stdint.h>

struct sp_writer;
typedef struct sp_observer sp_observer;

/* What an entry tells its observer, in this order for one call:
** BEGIN, then (to_array) SCRATCH or SCRATCH_BUSY, ..., FLUSH, COPY_OUT
** (to_array), SINK per segment (to_stream, as each segment fills), RELEASE
** (when a sequence goes back), END. */
typedef enum sp_note_kind {
  SP_NOTE_BEGIN = 1,   /* flag = the entry (SP_ENTRY_*), size = the scratch size asked */
  SP_NOTE_SCRATCH,     /* the scratch taken: addr, size; flag 1 = allocated now,
                          index 1 = an outer call holds it too (legacy overwrite) */
  SP_NOTE_SCRATCH_BUSY,/* the scratch was held: a pooled sequence instead */
  SP_NOTE_FLUSH,       /* the writer is about to commit what it wrote */
  SP_NOTE_COPY_OUT,    /* the result array: addr, size */
  SP_NOTE_SINK,        /* segment 'index' of 'size' bytes goes to the sink now */
  SP_NOTE_RELEASE,     /* the writer gives its sequence back */
  SP_NOTE_END          /* the entry ends (its code and length are the writer's) */
} sp_note_kind;

typedef struct sp_note {
  sp_note_kind kind;
  int flag;
  uint32_t index;
  uint64_t size;
  const void *addr;
} sp_note;

typedef struct sp_observer_hooks {
  /* An entry or the writer reports one of the notes above. */
  void (*note)(sp_observer *o, struct sp_writer *w, const sp_note *n);
  /* A reservation of n bytes reached the slow path. Returns where to write
  ** when the observer serves it inside a span it holds short (it then sets
  ** w->end again), or NULL, after putting w->end back at the span's real
  ** end, to let the writer find a new span. */
  uint8_t *(*reserve)(sp_observer *o, struct sp_writer *w, size_t n);
  /* The writer has a new span (w->cur .. w->end) for a reservation of n. */
  void (*spanned)(sp_observer *o, struct sp_writer *w, size_t n);
  /* The real room left in the current span (w->end may be held short). */
  size_t (*room)(sp_observer *o, const struct sp_writer *w);
} sp_observer_hooks;

struct sp_observer {
  const sp_observer_hooks *hooks;
};

#endif
