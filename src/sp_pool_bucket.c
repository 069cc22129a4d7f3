/*
** sp_pool_bucket.c -- the bounded bucket pool (ArrayPool.Create(80K, 100)).
** Owns: its buckets, their locks and the arrays cached in them. Must not
** touch: other pools, sequences. Allocates only through sp_alloc.
*/
#include <stdatomic.h>
#include <string.h>

#include "sp_alloc.h"
#include "sp_error.h"
#include "sp_pool.h"
#include "sp_thread.h"

#define MAX_BUCKETS 27   /* 16 B << 26 = 1 GiB */

typedef struct bucket {
  sp_lock lock;
  void **arrays;      /* arrays[0..count) are cached, newest last */
  unsigned count;
} bucket;

typedef struct bucket_pool {
  sp_pool base;
  unsigned nbuckets, per_bucket;
  bucket buckets[MAX_BUCKETS];
  atomic_ullong rents, returns, hits, fallback_hits, lock_waits, fresh,
      unpooled, drops, trims;
} bucket_pool;

static size_t bucket_size(unsigned i) { return (size_t)16 << i; }

static void count(atomic_ullong *c) {
  atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* Pops an array from bucket i, or NULL if it is empty. */
static void *bucket_pop(bucket_pool *p, unsigned i) {
  bucket *b = &p->buckets[i];
  void *a = NULL;
  if (sp_lock_take(&b->lock)) count(&p->lock_waits);
  if (b->count > 0) a = b->arrays[--b->count];
  sp_lock_give(&b->lock);
  return a;
}

/* Pushes an array into bucket i; returns 0 if the bucket was full. */
static int bucket_push(bucket_pool *p, unsigned i, void *a) {
  bucket *b = &p->buckets[i];
  int kept = 0;
  if (sp_lock_take(&b->lock)) count(&p->lock_waits);
  if (b->count < p->per_bucket) { b->arrays[b->count++] = a; kept = 1; }
  sp_lock_give(&b->lock);
  return kept;
}

static void *pool_rent(sp_pool *base, size_t min, size_t *capacity) {
  bucket_pool *p = (bucket_pool *)base;
  unsigned i = sp_pool_bucket_index(min ? min : 1);
  void *a;
  count(&p->rents);
  if (i >= p->nbuckets) {               /* over the largest bucket: exact, unpooled */
    count(&p->unpooled);
    sp_alloc_note_unpooled(min);
    *capacity = min;
    return sp_malloc(min);
  }
  if ((a = bucket_pop(p, i)) != NULL) {
    count(&p->hits);
    *capacity = bucket_size(i);
    return a;
  }
  if (i + 1 < p->nbuckets && (a = bucket_pop(p, i + 1)) != NULL) {
    count(&p->fallback_hits);
    *capacity = bucket_size(i + 1);
    return a;
  }
  count(&p->fresh);
  *capacity = bucket_size(i);
  return sp_malloc(*capacity);
}

static int pool_give_back(sp_pool *base, void *a, size_t capacity) {
  bucket_pool *p = (bucket_pool *)base;
  unsigned i = sp_pool_bucket_index(capacity ? capacity : 1);
  if (capacity > p->base.max_pooled) {   /* an unpooled array: free it */
    count(&p->returns);
    sp_free(a, capacity);
    return 0;
  }
  if (capacity != bucket_size(i)) return SP_E_MISUSE;
  count(&p->returns);
  if (!bucket_push(p, i, a)) {
    count(&p->drops);
    sp_free(a, capacity);
  }
  return 0;
}

static uint64_t load(atomic_ullong *c) {
  return atomic_load_explicit(c, memory_order_relaxed);
}

static uint64_t cached_now(bucket_pool *p) {
  uint64_t n = 0;
  for (unsigned i = 0; i < p->nbuckets; i++) {
    bucket *b = &p->buckets[i];
    sp_lock_take(&b->lock);
    n += b->count;
    sp_lock_give(&b->lock);
  }
  return n;
}

static void pool_stats(sp_pool *base, sp_pool_stats *out) {
  bucket_pool *p = (bucket_pool *)base;
  memset(out, 0, sizeof *out);
  out->rents = load(&p->rents);
  out->returns = load(&p->returns);
  out->partition_hits = load(&p->hits);
  out->fallback_hits = load(&p->fallback_hits);
  out->lock_waits = load(&p->lock_waits);
  out->fresh = load(&p->fresh);
  out->unpooled = load(&p->unpooled);
  out->drops = load(&p->drops);
  out->trims = load(&p->trims);
  out->cached = cached_now(p);
}

static size_t pool_trim(sp_pool *base) {
  bucket_pool *p = (bucket_pool *)base;
  size_t freed = 0;
  for (unsigned i = 0; i < p->nbuckets; i++) {
    void *a;
    while ((a = bucket_pop(p, i)) != NULL) {
      sp_free(a, bucket_size(i));
      count(&p->trims);
      freed++;
    }
  }
  return freed;
}

static void pool_destroy(sp_pool *base) {
  bucket_pool *p = (bucket_pool *)base;
  pool_trim(base);
  for (unsigned i = 0; i < p->nbuckets; i++) {
    sp_free(p->buckets[i].arrays, sizeof(void *) * p->per_bucket);
    sp_lock_destroy(&p->buckets[i].lock);
  }
  sp_free(p, sizeof *p);
}

static const sp_pool_vtbl bucket_vtbl = {
  pool_rent, pool_give_back, pool_stats, pool_trim, pool_destroy
};

sp_pool *sp_bucket_pool_create(size_t max_len, unsigned per_bucket) {
  bucket_pool *p;
  unsigned n;
  if (max_len == 0 || per_bucket == 0) return NULL;
  if (max_len > bucket_size(MAX_BUCKETS - 1)) max_len = bucket_size(MAX_BUCKETS - 1);
  n = sp_pool_bucket_index(max_len < 16 ? 16 : max_len) + 1;
  if ((p = sp_malloc(sizeof *p)) == NULL) return NULL;
  memset(p, 0, sizeof *p);
  p->base.vt = &bucket_vtbl;
  p->base.max_pooled = bucket_size(n - 1);
  p->per_bucket = per_bucket;
  for (unsigned i = 0; i < n; i++) {
    p->buckets[i].arrays = sp_malloc(sizeof(void *) * per_bucket);
    if (p->buckets[i].arrays == NULL || sp_lock_init(&p->buckets[i].lock) != 0) {
      if (p->buckets[i].arrays) sp_free(p->buckets[i].arrays, sizeof(void *) * per_bucket);
      p->nbuckets = i;
      pool_destroy(&p->base);
      return NULL;
    }
    p->nbuckets = i + 1;
  }
  return &p->base;
}
