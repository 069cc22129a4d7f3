/*
** sp_pool_lockfree.c -- the lock-free pool for cross-thread rent and return
** (the document's ConcurrentQueue<byte[]> pool, bounded).
** Owns: one bounded queue of arrays per bucket and the arrays in them, the
** striped counters. Must not touch: other pools, sequences. Allocates only
** through sp_alloc; the queues use only C11 atomics (no OS call, no lock), so
** they work the same natively and on WASM threads.
**
** Each bucket is Dmitry Vyukov's bounded multi-producer multi-consumer queue,
** written here from its description. A ring of 'cap' cells (a power of two),
** each with a sequence number, and two positions that only grow:
**   tail  next position to enqueue at;  head  next position to dequeue from.
** Cell (pos & mask) is free for the enqueue at 'pos' when its sequence is
** pos, and full for the dequeue at 'pos' when it is pos + 1; an enqueue
** publishes by storing pos + 1 (release), a dequeue frees the cell for the
** next lap by storing pos + cap (release). A thread claims a position by a
** CAS on tail or head only after its cell's sequence (acquire) said the cell
** is ready for it, so the array pointer in a cell is written by exactly one
** enqueuer and read by exactly one dequeuer, ordered by the sequence store
** and load. ABA cannot happen: a position is never reused within a lap, and
** the sequence names the lap (a stale thread sees a sequence that differs
** from its position and retries). Positions are size_t; on 32-bit WASM they
** wrap after 2^32 operations, which the signed difference absorbs unless one
** thread stalls for 2^31 operations in the middle of a claim.
**
** The queue is not strictly lock-free: a thread preempted between its claim
** and its sequence store leaves that one cell not yet readable (or not yet
** free). Others then see the bucket as empty (and allocate fresh) or full
** (and drop); nothing is lost or handed out twice, and it is counted.
**
** Counters are relaxed atomics in 16 stripes on separate cache lines; a
** thread adds to its own stripe (chosen round-robin at its first call), and
** reads sum the stripes. There is no thread slot and no lock, so slot_hits
** and lock_waits stay 0; a dequeue hit counts as partition_hits.
*/
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "sp_alloc.h"
#include "sp_error.h"
#include "sp_pool.h"
#include "sp_pool_keep.h"
#include "base/sp_thread.h"

#define MAX_BUCKETS 27               /* 16 B << 26 = 1 GiB */
#define NSTRIPES 16

typedef struct cell {
  atomic_size_t seq;
  void *array;                       /* guarded by seq, never by itself */
} cell;

typedef struct ring {
  cell *cells;
  size_t mask;                       /* cap - 1 */
  char pad0[64];
  atomic_size_t tail;                /* enqueuers contend here ... */
  char pad1[64];
  atomic_size_t head;                /* ... and dequeuers here */
  char pad2[64];
} ring;

enum { RENTS, RETURNS, HITS, FRESH, UNPOOLED, DROPS, TRIMS, NCOUNTERS };

typedef union stripe {
  atomic_ullong n[NCOUNTERS];
  char line[128];
} stripe;

typedef struct lockfree_pool {
  sp_pool base;
  unsigned nbuckets;
  ring rings[MAX_BUCKETS];
  stripe stripes[NSTRIPES];
} lockfree_pool;

static SP_THREAD_LOCAL unsigned my_stripe;     /* 1 + stripe; 0 = not assigned */
static atomic_uint next_stripe;

static size_t bucket_size(unsigned i) { return (size_t)16 << i; }

static void count(lockfree_pool *p, int which) {
  if (my_stripe == 0)
    my_stripe = atomic_fetch_add_explicit(&next_stripe, 1, memory_order_relaxed) % NSTRIPES + 1;
  atomic_fetch_add_explicit(&p->stripes[my_stripe - 1].n[which], 1, memory_order_relaxed);
}

static uint64_t total(lockfree_pool *p, int which) {
  uint64_t n = 0;
  for (int s = 0; s < NSTRIPES; s++)
    n += atomic_load_explicit(&p->stripes[s].n[which], memory_order_relaxed);
  return n;
}

/* ---- the queue --------------------------------------------------------- */

/* Enqueues a; returns 0 when the ring is full. */
static int enqueue(ring *r, void *a) {
  size_t pos = atomic_load_explicit(&r->tail, memory_order_relaxed);
  cell *c;
  for (;;) {
    intptr_t dif;
    c = &r->cells[pos & r->mask];
    dif = (intptr_t)(atomic_load_explicit(&c->seq, memory_order_acquire) - pos);
    if (dif == 0) {                    /* free for this lap: claim it */
      if (atomic_compare_exchange_weak_explicit(&r->tail, &pos, pos + 1,
                                                memory_order_relaxed, memory_order_relaxed))
        break;                         /* on failure pos is reloaded */
    } else if (dif < 0) {
      return 0;                        /* still full from the previous lap */
    } else {
      pos = atomic_load_explicit(&r->tail, memory_order_relaxed);   /* overtaken */
    }
  }
  c->array = a;
  atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
  return 1;
}

/* Dequeues an array; NULL when the ring is empty. */
static void *dequeue(ring *r) {
  size_t pos = atomic_load_explicit(&r->head, memory_order_relaxed);
  cell *c;
  void *a;
  for (;;) {
    intptr_t dif;
    c = &r->cells[pos & r->mask];
    dif = (intptr_t)(atomic_load_explicit(&c->seq, memory_order_acquire) - (pos + 1));
    if (dif == 0) {                    /* filled for this lap: claim it */
      if (atomic_compare_exchange_weak_explicit(&r->head, &pos, pos + 1,
                                                memory_order_relaxed, memory_order_relaxed))
        break;
    } else if (dif < 0) {
      return NULL;                     /* not filled yet: empty */
    } else {
      pos = atomic_load_explicit(&r->head, memory_order_relaxed);
    }
  }
  a = c->array;
  atomic_store_explicit(&c->seq, pos + r->mask + 1, memory_order_release);
  return a;
}

/* Arrays in the ring now (exact when no call is in flight). */
static size_t ring_count(ring *r) {
  size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  size_t n = tail - head;               /* head was read first: never negative */
  return n > r->mask + 1 ? r->mask + 1 : n;
}

static int ring_init(ring *r, size_t cap) {
  memset(r, 0, sizeof *r);
  if ((r->cells = sp_malloc(cap * sizeof *r->cells)) == NULL) return -1;
  r->mask = cap - 1;
  for (size_t k = 0; k < cap; k++) {
    atomic_init(&r->cells[k].seq, k);
    r->cells[k].array = NULL;
  }
  atomic_init(&r->tail, 0);
  atomic_init(&r->head, 0);
  return 0;
}

/* ---- the pool ---------------------------------------------------------- */

static void *pool_rent(sp_pool *base, size_t min, size_t *capacity) {
  lockfree_pool *p = (lockfree_pool *)base;
  size_t n = min ? min : 1;
  unsigned i;
  void *a;
  if (n > p->base.max_pooled) {        /* exact, never kept */
    if ((a = sp_malloc(n)) == NULL) return NULL;
    sp_alloc_note_unpooled(n);
    count(p, UNPOOLED);
    *capacity = n;
  } else {
    i = sp_pool_bucket_index(n);
    if ((a = dequeue(&p->rings[i])) != NULL) {
      sp_pool_keep_sub(&p->base, bucket_size(i));
      count(p, HITS);
    }
    else if ((a = sp_malloc(bucket_size(i))) != NULL) count(p, FRESH);
    else return NULL;                  /* a failed rent counts nothing */
    *capacity = bucket_size(i);
  }
  count(p, RENTS);
  return a;
}

static int pool_give_back(sp_pool *base, void *a, size_t capacity) {
  lockfree_pool *p = (lockfree_pool *)base;
  unsigned i = sp_pool_bucket_index(capacity ? capacity : 1);
  if (capacity <= p->base.max_pooled && capacity != bucket_size(i)) return SP_E_INVALID_ARGUMENT;
  count(p, RETURNS);
  if (capacity > p->base.max_pooled) {
    sp_free(a, capacity);              /* an unpooled array */
  } else if (!sp_pool_keep_add(&p->base, capacity)) {
    count(p, DROPS);                   /* over the byte budget */
    sp_free(a, capacity);
  } else if (!enqueue(&p->rings[i], a)) {
    sp_pool_keep_sub(&p->base, capacity);
    count(p, DROPS);
    sp_free(a, capacity);
  }
  return 0;
}

static void pool_stats(sp_pool *base, sp_pool_stats *out) {
  lockfree_pool *p = (lockfree_pool *)base;
  memset(out, 0, sizeof *out);
  out->rents = total(p, RENTS);
  out->returns = total(p, RETURNS);
  out->partition_hits = total(p, HITS);
  out->fresh = total(p, FRESH);
  out->unpooled = total(p, UNPOOLED);
  out->drops = total(p, DROPS);
  out->trims = total(p, TRIMS);
  for (unsigned i = 0; i < p->nbuckets; i++) {
    size_t n = ring_count(&p->rings[i]);
    out->cached += n;
    out->cached_bytes += (uint64_t)n * bucket_size(i);
  }
}

/* Dequeues and frees every cached array; safe while others rent and return
** (it is one more consumer). */
static size_t pool_trim(sp_pool *base) {
  lockfree_pool *p = (lockfree_pool *)base;
  size_t freed = 0;
  for (unsigned i = 0; i < p->nbuckets; i++) {
    void *a;
    while ((a = dequeue(&p->rings[i])) != NULL) {
      sp_free(a, bucket_size(i));
      sp_pool_keep_sub(&p->base, bucket_size(i));
      count(p, TRIMS);
      freed++;
    }
  }
  return freed;
}

static void pool_destroy(sp_pool *base) {
  lockfree_pool *p = (lockfree_pool *)base;
  pool_trim(base);
  for (unsigned i = 0; i < p->nbuckets; i++)
    sp_free(p->rings[i].cells, (p->rings[i].mask + 1) * sizeof(cell));
  sp_free(p, sizeof *p);
}

static const sp_pool_vtbl lockfree_vtbl = {
  pool_rent, pool_give_back, pool_stats, pool_trim, pool_destroy
};

sp_pool *sp_lockfree_pool_create(size_t max_len, unsigned per_bucket) {
  lockfree_pool *p;
  size_t cap = 2;
  if (max_len == 0 || per_bucket == 0 || per_bucket > SP_POOL_MAX_PER_BUCKET) return NULL;
  while (cap < per_bucket) cap *= 2;   /* a ring of one cell cannot tell full from free */
  if (max_len > bucket_size(MAX_BUCKETS - 1)) max_len = bucket_size(MAX_BUCKETS - 1);
  if ((p = sp_malloc(sizeof *p)) == NULL) return NULL;
  memset(p, 0, sizeof *p);
  p->base.vt = &lockfree_vtbl;
  atomic_init(&p->base.kept, 0);
  p->base.max_pooled = bucket_size(sp_pool_bucket_index(max_len < 16 ? 16 : max_len));
  for (unsigned i = 0; i <= sp_pool_bucket_index(p->base.max_pooled); i++) {
    if (ring_init(&p->rings[i], cap) != 0) { pool_destroy(&p->base); return NULL; }
    p->nbuckets = i + 1;
  }
  return &p->base;
}
