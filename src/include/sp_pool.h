/*
** sp_pool.h -- byte-array pools behind one interface.
** Owns: the pool interface (rent / give back / stats / destroy) and the
** bounded bucket pool. Must not touch: sequences or writers, which only rent.
**
** The bounded bucket pool is .NET's ArrayPool<byte>.Create(80 * 1024, 100):
** power-of-two buckets from 16 B up to the largest bucket (128 KiB for that
** call), 'per_bucket' arrays each, one lock per bucket. A rent takes its
** bucket's next array, allocating it on first use; only when all of a
** bucket's arrays are rented out does it try the next bucket, and then
** allocate a full bucket-size array. A return to a bucket whose arrays are
** all home frees the array (a drop). Requests larger than the largest bucket
** are allocated exactly and freed on return; they count as unpooled.
*/
#ifndef SP_POOL_H
#define SP_POOL_H

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
  uint64_t drops;            /* returned arrays freed because a bucket was full */
  uint64_t trims;            /* cached arrays freed by trimming */
  uint64_t cached;           /* arrays held by the pool now */
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
};

/* Rents an array of at least 'min' bytes (min > 0). Its real size is stored
** in *capacity and must be passed back to sp_pool_return. The pool owns the
** array again after the return; never free() it. NULL when allocation fails. */
static inline void *sp_pool_rent(sp_pool *pool, size_t min, size_t *capacity) {
  return pool->vt->rent(pool, min, capacity);
}

/* Gives an array back. Returns 0, or SP_E_MISUSE (and keeps nothing) when
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

/* Creates a bounded bucket pool: buckets 16 B .. max_len rounded up to a
** power of two (at most 1 GiB), 'per_bucket' arrays each. The caller owns it
** and frees it with sp_pool_destroy. NULL on bad arguments or no memory. */
sp_pool *sp_bucket_pool_create(size_t max_len, unsigned per_bucket);

/* The process-wide pool the default sequence pool rents from:
** sp_bucket_pool_create(80 * 1024, 100), i.e. buckets up to 128 KiB.
** Created on first use; freed by sp_shutdown. */
sp_pool *sp_pool_default(void);

/* Bucket index of a request size: 1..16 -> 0, 17..32 -> 1, ... */
static inline unsigned sp_pool_bucket_index(size_t n) {
  unsigned long long v = (unsigned long long)((n - 1) | 15);
  return (unsigned)(63 - __builtin_clzll(v)) - 3;
}

#endif
