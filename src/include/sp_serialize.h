/*
** sp_serialize.h -- the three entries, their lifecycle and the hub.
** Owns: options, the entry lifecycle (begin, finish, view / copy, end) for
** to_array, to_output and to_stream, the one-call entries built on it, the
** hub, thread cleanup and shutdown. Must not touch: encodings (formatters
** and sp_writer.h do that) or pool internals.
**
** Every entry prepares a writer and runs a formatter through the hub,
** sp_serialize(); only the buffer differs between them:
**   to_array   the thread's scratch (64 KiB by default); one allocation of
**              exactly the output size for the result.
**   to_output  the caller's buffer writer; nothing allocated after warm-up.
**   to_stream  a pooled segment at a time, each handed to a sink as soon as
**              it is full.
**
** The one-call entries (sp_to_array, ...) are the lifecycle in one piece.
** A caller that writes bytes itself (the JS package, the WASI reactor) uses
** the lifecycle directly:
**   sp_entry e;
**   sp_entry_begin_array(&e, &opt);       // or _output / _stream
**   ... sp_write_*(&e.w, ...) or sp_serialize(&e.w, fn, value) ...
**   sp_entry_finish(&e);                  // commit
**   sp_entry_copy(&e, &bytes);            // to_array: or sp_entry_view
**   sp_entry_end(&e, &err);               // always, also after an error
*/
#ifndef SP_SERIALIZE_H
#define SP_SERIALIZE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_compress.h"
#include "sp_error.h"
#include "sp_observer.h"
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
  sp_observer *observer;      /* NULL, or told what the entry does (sp_trace.h);
                                 a nested entry is observed when its options
                                 carry the observer too */
  sp_compression compression; /* SP_COMPRESSION_NONE (0), _LZ4_BLOCK (ext 99) or
                                 _LZ4_BLOCK_ARRAY (ext 98), as MessagePack-CSharp
                                 (sp_compress.h) */
  size_t compression_min_length; /* 0 -> 64: shorter messages are written plain */
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

/* ---- the entry lifecycle ------------------------------------------------- */

typedef enum sp_entry_kind {
  SP_ENTRY_NONE, SP_ENTRY_ARRAY, SP_ENTRY_OUTPUT, SP_ENTRY_STREAM
} sp_entry_kind;

/* One entry call in progress. Write into 'w'; the other fields are the
** entry's own. An entry may live anywhere (a stack, a JS-owned block) and
** be begun again after it ended.
**
** Compressing (opt.compression), the documents' hub: 'w' writes the plain
** message into a pooled sequence (never the scratch) and the entry's output
** -- the scratch, the caller's output, the stream -- is 'packed', which
** finish fills with the compressed form (sp_write_compressed: each block
** straight into its span) before the plain sequence goes back. View, copy
** and pieces then give the compressed message. The observer watches
** 'packed' only. */
typedef struct sp_entry {
  sp_writer w;
  sp_entry_kind kind;         /* SP_ENTRY_NONE before begin and after end */
  uint8_t *flat;              /* sp_entry_view: a contiguous copy, freed at end */
  size_t flat_len;
  sp_compression compression; /* NONE: w is the output */
  size_t compression_min_length;
  sp_writer packed;           /* compressing: the output, written at finish */
} sp_entry;

/* Begins a to_array entry: the thread's scratch when it is free (or in
** legacy mode), else a pooled sequence, so a nested call never writes over
** its caller. Returns the writer's code: SP_E_NOMEM when the scratch could
** not be allocated (a cancel flag set already stops sp_serialize). Whatever
** it returns, end the entry with sp_entry_end. 'opt' may be NULL. */
sp_code sp_entry_begin_array(sp_entry *e, const sp_options *opt);

/* Begins a to_output entry into the caller's buffer writer; takes its first
** span now (SP_E_BUFFER_TOO_SMALL if there is none). */
sp_code sp_entry_begin_output(sp_entry *e, const sp_output *out, const sp_options *opt);

/* Begins a to_stream entry: each pooled segment goes to sink(ctx, ...) as
** soon as the writer moves past it (cancel checked before each), the last
** at sp_entry_finish. With a NULL sink the segments are kept until end;
** read them with sp_entry_piece. */
sp_code sp_entry_begin_stream(sp_entry *e, sp_sink_fn sink, void *ctx, const sp_options *opt);

/* Commits what was written (to the output, the sink); compressing, first
** writes the compressed message to the output. Returns the sticky code. */
sp_code sp_entry_finish(sp_entry *e);

/* After finish, a to_array entry's message in one piece, valid until end:
** the scratch, the only segment used, or a contiguous copy made now (owned
** by the entry; SP_E_NOMEM when it cannot be made). Empty on an error. */
sp_code sp_entry_view(sp_entry *e, const uint8_t **data, size_t *len);

/* After finish, a to_array entry's message in a new array of exactly its
** size: *out owns it (sp_bytes_free); empty on an error or an empty
** message. */
sp_code sp_entry_copy(sp_entry *e, sp_bytes *out);

/* The message's pieces in order, for a to_array entry or a to_stream entry
** without a sink, after finish: piece i (i < sp_entry_pieces) at the
** returned address, *len bytes (may be 0). Valid until end. */
size_t sp_entry_pieces(const sp_entry *e);
const uint8_t *sp_entry_piece(const sp_entry *e, size_t i, size_t *len);

/* The entry's error as it stands (code SP_OK while there is none), as
** sp_entry_end will report it: the plain message's writer's, or, when that
** one did not fail, the output's -- which compressing is another writer,
** where a failure to compress (SP_E_NOMEM) is recorded. Valid until end. */
const sp_error *sp_entry_error(const sp_entry *e);

/* Ends the entry: gives back the scratch, the sequence and a view's copy.
** Copies the writer's error to *err (if not NULL) and returns its code.
** Safe to call twice. */
sp_code sp_entry_end(sp_entry *e, sp_error *err);

/* ---- the entries in one call -------------------------------------------- */

/* Serializes to a new array of exactly the output size. On success *out owns
** it; on failure *out is empty, nothing is left allocated and *err (if not
** NULL) says why. 'opt' may be NULL. */
sp_code sp_to_array(sp_format_fn fn, const void *value, const sp_options *opt,
                    sp_bytes *out, sp_error *err);

/* Serializes into the caller's buffer writer. On failure the output may hold
** a committed prefix of the message. */
sp_code sp_to_output(const sp_output *out, sp_format_fn fn, const void *value,
                     const sp_options *opt, sp_error *err);

/* Serializes into pooled segments, handing each to 'sink' as soon as it is
** full (at most one segment held at a time). On failure the sink may have
** received a prefix of the message. */
sp_code sp_to_stream(sp_sink_fn sink, void *sink_ctx, sp_format_fn fn, const void *value,
                     const sp_options *opt, sp_error *err);

/* Frees the calling thread's scratch now and gives back what the thread
** keeps in the shared pool's per-thread slots (threads also do both at
** exit; the main thread never does, so it calls this or sp_shutdown). */
void sp_thread_cleanup(void);

/* Frees the process-wide default pools and the calling thread's scratch.
** Call only when no other thread uses scratchpack; later calls re-create
** the defaults. */
void sp_shutdown(void);

#endif
