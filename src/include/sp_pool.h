/*
** sp_pool.h -- byte-array pools behind one interface.
** Owns: the pool interface (rent / give back / stats / destroy), the bounded
** bucket pool, and the constructors of the shared pool (sp_pool_shared.c) and
** the lock-free pool (sp_pool_lockfree.c). Must not touch: sequences or
** writers, which only rent.
**
** The bounded bucket pool is .NET's ArrayPool<byte>.Create(80 * 1024, 100):
** power-of-two buckets from 16 B up to the largest bucket (128 KiB for that
** call), 'per_bucket' arrays each, one lock per bucket. A rent takes its
** bucket's next array, allocating it on first use; only when all of a
** bucket's arrays are rented out does it try the next bucket, and then
** allocate a full bucket-size array. A return to a bucket whose arrays are
** all home frees the array (a drop). Requests larger than the largest bucket
** are allocated exactly and freed on return; they count as unpooled.
**
** Any pool may also be given a byte budget (sp_pool_set_keep_limit): it then
** never caches more than that many bytes of arrays at once, whatever its
** counts allow; a return past the budget frees the array (a drop). Without
** one (the default) only the counts bound it: 100 arrays of each bucket up
** to 128 KiB is ~25 MiB.
*/
#ifndef SP_POOL_H
#define SP_POOL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Counters every pool keeps. Tiers a pool does not have stay 0. */
typedef struct sp_pool_stats {
  uint64_t rents, returns;
  uint64_t slot_hits;        /* served from the thread's own slot */
  uint64_t partition_hits;   /* served from a shared partition or bucket */
  uint64_t fallback_hits;    /* served from the next-larger bucket */
  uint64_t lock_waits;       /* lock acquisitions that had to wait */
  uint64_t fresh;            /* arrays allocated because the tier was empty */
  uint64_t unpooled;         /* requests larger than the largest bucket */
  uint64_t drops;            /* returned arrays freed: a bucket was full, or the budget */
  uint64_t trims;            /* cached arrays freed by trimming */
  uint64_t cached;           /* arrays held by the pool now */
  uint64_t cached_bytes;     /* their bytes */
} sp_pool_stats;

typedef struct sp_pool sp_pool;

typedef struct sp_pool_vtbl {
  void *(*rent)(sp_pool *pool, size_t min, size_t *capacity);
  int (*give_back)(sp_pool *pool, void *array, size_t capacity);
  void (*stats)(sp_pool *pool, sp_pool_stats *out);
  size_t (*trim)(sp_pool *pool);
  void (*destroy)(sp_pool *pool);
} sp_pool_vtbl;

/* A pool is any struct whose first member is an sp_pool. */
struct sp_pool {
  const sp_pool_vtbl *vt;
  size_t max_pooled;   /* largest request served from a bucket */
  size_t keep_max;     /* byte budget for cached arrays; 0 = none (sp_pool_set_keep_limit) */
  atomic_size_t kept;  /* bytes cached now, counted only under a budget */
};

/* Rents an array of at least 'min' bytes (min > 0). Its real size is stored
** in *capacity and must be passed back to sp_pool_return. The pool owns the
** array again after the return; never free() it. NULL when allocation fails. */
static inline void *sp_pool_rent(sp_pool *pool, size_t min, size_t *capacity) {
  return pool->vt->rent(pool, min, capacity);
}

/* Gives an array back. Returns 0, or SP_E_INVALID_ARGUMENT (and keeps nothing) when
** 'capacity' is not a size this pool hands out. NULL is ignored. */
static inline int sp_pool_return(sp_pool *pool, void *array, size_t capacity) {
  return array ? pool->vt->give_back(pool, array, capacity) : 0;
}

static inline void sp_pool_stats_get(sp_pool *pool, sp_pool_stats *out) {
  pool->vt->stats(pool, out);
}

/* Frees every cached array; returns how many. Arrays still rented are not
** affected and may be returned afterwards. */
static inline size_t sp_pool_trim(sp_pool *pool) { return pool->vt->trim(pool); }

/* Frees the pool and its cached arrays. Every rented array must have been
** returned. No operation if pool is NULL. */
static inline void sp_pool_destroy(sp_pool *pool) {
  if (pool) pool->vt->destroy(pool);
}

/* Caps the bytes of arrays 'pool' caches at once at 'max_bytes' (0: no
** budget, only the pool's counts). Call it after creating the pool and
** before its first rent. Returns 0, or SP_E_INVALID_ARGUMENT when the pool
** has been rented from already (nothing changes). Cannot fail otherwise. */
int sp_pool_set_keep_limit(sp_pool *pool, size_t max_bytes);

/* The most arrays per bucket the bucket and lock-free pools take (2^24):
** their slot tables are per_bucket pointers per bucket, which must stay far
** from SIZE_MAX on 32-bit targets. */
#define SP_POOL_MAX_PER_BUCKET (1u << 24)

/* Creates a bounded bucket pool: buckets 16 B .. max_len rounded up to a
** power of two (at most 1 GiB), 'per_bucket' arrays each. The caller owns it
** and frees it with sp_pool_destroy. NULL on bad arguments (0, or per_bucket
** over SP_POOL_MAX_PER_BUCKET) or no memory. */
sp_pool *sp_bucket_pool_create(size_t max_len, unsigned per_bucket);

/* The process-wide pool the default sequence pool rents from:
** sp_bucket_pool_create(80 * 1024, 100), i.e. buckets up to 128 KiB.
** Created on first use; freed by sp_shutdown. */
sp_pool *sp_pool_default(void);

/* Creates a shared pool, .NET's ArrayPool<byte>.Shared: 27 buckets of
** 16 B .. 1 GiB; per bucket one slot per thread (no lock) and 'partitions'
** bounded stacks of 'per_partition' arrays, each behind its own lock.
**   partitions     0 -> the number of online CPUs (at least 1)
**   per_partition  0 -> 32
** Rent: the thread's slot, then the partitions starting at the thread's own,
** then a fresh array of the full bucket size. Return: into the thread's slot;
** the array it displaces goes to a partition, or is freed when all are full.
** Requests over 1 GiB are allocated exactly and freed on return (unpooled).
** A thread's slot arrays are freed when it exits (counted as trims).
** The caller owns the pool and frees it with sp_pool_destroy once every
** rented array came back and no thread rents or returns on it any more;
** threads that used it need not have exited: the destroy frees their slot
** arrays, and each frees its small per-pool record (~0.5 KiB) at exit or on
** its next shared-pool call. NULL on no memory or arguments over 1024
** partitions, 1,048,576 arrays per partition, or SP_POOL_MAX_PER_BUCKET
** arrays per bucket in all (partitions x per_partition). */
sp_pool *sp_shared_pool_create(unsigned partitions, unsigned per_partition);

/* Age-based trimming of a shared pool, for a caller-driven clock (.NET runs
** it after each gen2 GC). Frees the arrays nobody has used for 'idle_ms':
** a partition frees the arrays that stayed below its lowest fill since the
** previous timed trim, once 'idle_ms' has passed since that trim; a thread
** slot is freed when an earlier timed trim found it holding an array and
** stamped it at least 'idle_ms' ago, and the owner has not refilled it since.
** The first call only stamps. 'now_ms' is any monotonic clock in ms. Returns
** how many arrays were freed; 0 (and nothing done) for other pool kinds. Safe
** while other threads rent and return. */
size_t sp_shared_pool_trim_idle(sp_pool *pool, uint64_t now_ms, uint64_t idle_ms);

/* Frees the calling thread's slot arrays in every shared pool now, as its
** exit would (threads do this at exit; the main thread's exit callbacks do
** not run, so it may call this, or rely on sp_pool_destroy). Cannot fail. */
void sp_shared_pool_release_thread(void);

/* Creates a lock-free pool for arrays rented on one thread and returned on
** another: buckets 16 B .. max_len rounded up to a power of two (at most
** 1 GiB), each a bounded multi-producer multi-consumer queue of 'per_bucket'
** arrays (rounded up to a power of two, at least 2) built only on C11
** atomics. Rent: dequeue, else a fresh full-size array. Return: enqueue, else
** free (a drop). Requests over the largest bucket are exact and unpooled.
** The caller owns it and frees it with sp_pool_destroy after every rented
** array came back. NULL on bad arguments (0, or per_bucket over SP_POOL_MAX_PER_BUCKET) or no
** memory. */
sp_pool *sp_lockfree_pool_create(size_t max_len, unsigned per_bucket);

/* Bucket index of a request size: 1..16 -> 0, 17..32 -> 1, ... */
static inline unsigned sp_pool_bucket_index(size_t n) {
  unsigned long long v = (unsigned long long)((n - 1) | 15);
  return (unsigned)(63 - __builtin_clzll(v)) - 3;
}

#endif
