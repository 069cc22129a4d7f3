/*
** sp_sequence.h -- a segmented byte buffer and a pool of them.
** Owns: segments rented from an array pool, the sequence pool and its lock.
** Must not touch: encoding (the writer fills sequences; this file only hands
** out spans and keeps what was committed).
**
** Like Nerdbank's Sequence<byte> as MessagePack-CSharp pools it: each new
** segment is at least SP_SEQ_MIN_SPAN (32 KiB); when a reservation does not
** fit the last segment's free tail, that tail is abandoned and a new segment
** of max(32 KiB, hint) is rented.
*/
#ifndef SP_SEQUENCE_H
#define SP_SEQUENCE_H

#include <stddef.h>
#include <stdint.h>

#include "sp_pool.h"

#define SP_SEQ_MIN_SPAN (32 * 1024)

typedef struct sp_segment {
  uint8_t *data;
  size_t used;       /* committed bytes */
  size_t capacity;   /* size rented from the pool */
} sp_segment;

typedef struct sp_sequence {
  sp_pool *pool;          /* where segments come from; not owned */
  sp_segment *segs;       /* segs[0..nsegs): capacity kept across resets */
  size_t nsegs, cap_segs;
  uint64_t length;        /* committed bytes over all segments */
  size_t min_span;
} sp_sequence;

/* Initialises an empty sequence renting from 'pool'. Allocates nothing. */
void sp_seq_init(sp_sequence *s, sp_pool *pool);

/* Returns a writable span of at least 'hint' bytes (any size > 0 when hint
** is 0) after the committed bytes and stores its size in *avail. The span
** belongs to the sequence; commit what was written with sp_seq_advance.
** NULL when the pool or allocator fails (the sequence is unchanged). */
uint8_t *sp_seq_get_span(sp_sequence *s, size_t hint, size_t *avail);

/* Commits n bytes of the span last returned (n <= its avail). */
void sp_seq_advance(sp_sequence *s, size_t n);

/* Copies all committed bytes to dst (which holds s->length bytes). */
void sp_seq_copy_to(const sp_sequence *s, uint8_t *dst);

/* Gives every segment back to the pool and empties the sequence; keeps the
** segment table for reuse. */
void sp_seq_reset(sp_sequence *s);

/* Resets and frees the segment table. No operation if s is NULL. */
void sp_seq_free(sp_sequence *s);

/* A pool of sequences (MessagePack-CSharp's SequencePool): at most 'max'
** idle sequences behind one lock; a returned sequence gives its segments
** back to the array pool first. */
typedef struct sp_seq_pool sp_seq_pool;

typedef struct sp_seq_pool_stats {
  uint64_t rents, returns, fresh, drops, lock_waits, idle;
} sp_seq_pool_stats;

/* The most idle sequences a pool may keep (its table of them is allocated
** up front), and the most segment entries an idle sequence keeps. */
#define SP_SEQ_POOL_MAX 65536u
#define SP_SEQ_KEEP_SEGS 64u

/* Creates a pool keeping at most 'max' idle sequences (0 -> 2 x CPUs) whose
** segments come from 'arrays' (NULL -> sp_pool_default()). The caller owns
** it; free with sp_seq_pool_destroy after every rental was returned. NULL on
** no memory or 'max' over SP_SEQ_POOL_MAX. */
sp_seq_pool *sp_seq_pool_create(unsigned max, sp_pool *arrays);
void sp_seq_pool_destroy(sp_seq_pool *p);

/* Rents an empty sequence; return it with sp_seq_pool_return. NULL on no
** memory. */
sp_sequence *sp_seq_pool_rent(sp_seq_pool *p);
void sp_seq_pool_return(sp_seq_pool *p, sp_sequence *s);
void sp_seq_pool_stats_get(sp_seq_pool *p, sp_seq_pool_stats *out);

/* The array pool its sequences rent segments from. */
sp_pool *sp_seq_pool_arrays(sp_seq_pool *p);

/* Frees the idle sequences (MessagePack-CSharp's SequencePool.Clear). */
void sp_seq_pool_clear(sp_seq_pool *p);

/* The process-wide sequence pool: 2 x CPUs over sp_pool_default(). Created
** on first use, freed by sp_shutdown. */
sp_seq_pool *sp_seq_pool_default(void);

#endif
