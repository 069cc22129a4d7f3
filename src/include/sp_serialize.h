/*
** sp_serialize.h -- the three entries and the hub they share.
** Owns: options, the entries (to_array, to_output, to_stream), the hub,
** process-wide defaults and shutdown. Must not touch: encodings (formatters
** and sp_writer.h do that) or pool internals.
**
** Every entry prepares a writer and calls the hub, sp_serialize(), which
** runs the formatter; only the buffer differs between them:
**   to_array   the thread's scratch (64 KiB by default); one allocation of
**              exactly the output size for the result.
**   to_output  the caller's buffer writer; nothing allocated after warm-up.
**   to_stream  a pooled sequence, handed segment by segment to a sink.
*/
#ifndef SP_SERIALIZE_H
#define SP_SERIALIZE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_error.h"
#include "sp_output.h"
#include "sp_sequence.h"
#include "sp_writer.h"

#define SP_SCRATCH_DEFAULT 65536

/* A formatter writes 'value' with the sp_write_* calls. It returns 0, or a
** nonzero code of its own, which the hub reports as SP_E_CALLBACK with that
** code as the inner cause (unless the writer already holds an error). */
typedef int (*sp_format_fn)(sp_writer *w, const void *value);

typedef struct sp_options {
  size_t scratch_size;        /* to_array scratch; 0 -> 65,536 (the page uses 8) */
  int legacy_nested_scratch;  /* 1: a nested to_array reuses the busy scratch and
                                 overwrites the outer call's bytes, exactly as
                                 MessagePack-CSharp does (for the page and tests) */
  sp_seq_pool *seq_pool;      /* NULL -> sp_seq_pool_default() */
  const atomic_int *cancel;   /* NULL, or a flag another thread may set */
} sp_options;

/* Bytes owned by the caller; free with sp_bytes_free. */
typedef struct sp_bytes {
  uint8_t *data;              /* NULL when len is 0 */
  size_t len;
} sp_bytes;

/* Frees b->data and empties b. No operation on an empty sp_bytes. */
void sp_bytes_free(sp_bytes *b);

/* The hub: runs fn(w, value) and maps its result. Returns the writer's
** sticky error code. Entries call it; a formatter that nests another value
** into the same writer may call it too. */
sp_code sp_serialize(sp_writer *w, sp_format_fn fn, const void *value);

/* Serializes to a new array of exactly the output size. On success *out owns
** it; on failure *out is empty, nothing is left allocated and *err (if not
** NULL) says why. 'opt' may be NULL. */
sp_code sp_to_array(sp_format_fn fn, const void *value, const sp_options *opt,
                    sp_bytes *out, sp_error *err);

/* Serializes into the caller's buffer writer. On failure the output may hold
** a committed prefix of the message. */
sp_code sp_to_output(const sp_output *out, sp_format_fn fn, const void *value,
                     const sp_options *opt, sp_error *err);

/* A stream sink: gets the message segment by segment, in order. Returns 0,
** or a nonzero code that stops the call with SP_E_SINK (inner = that code). */
typedef int (*sp_sink_fn)(void *ctx, const uint8_t *bytes, size_t len);

/* Serializes completely into a pooled sequence, then hands each segment to
** 'sink' (checking the cancel flag before each) and returns the sequence. */
sp_code sp_to_stream(sp_sink_fn sink, void *sink_ctx, sp_format_fn fn, const void *value,
                     const sp_options *opt, sp_error *err);

/* Frees the calling thread's scratch now (threads also free it at exit). */
void sp_thread_cleanup(void);

/* Frees the process-wide default pools and the calling thread's scratch.
** Call only when no other thread uses scratchpack; later calls re-create
** the defaults. */
void sp_shutdown(void);

#endif
