/*
** sp_pool_bucket.c -- the bounded bucket pool (ArrayPool.Create(80K, 100)).
** Owns: its buckets, their locks and the arrays cached in them. Must not
** touch: other pools, sequences. Allocates only through sp_alloc. Also
** home of sp_pool_set_keep_limit, the budget every pool kind honours
** (sp_pool_keep.h).
*/
#include <stdatomic.h>
#include <string.h>

#include "sp_alloc.h"
#include "sp_error.h"
#include "sp_pool.h"
#include "sp_pool_keep.h"
#include "base/sp_thread.h"

#define MAX_BUCKETS 27   /* 16 B << 26 = 1 GiB */

/* A bucket is .NET's ConfigurableArrayPool.Bucket: 'per_bucket' slots and
** an index. Slots below 'index' are rented out; a NULL slot at or above it
** was never allocated (arrays are allocated lazily, on the rent that finds
** the slot empty). A bucket is exhausted when index == per_bucket. The
** cached arrays are always the first 'cached' slots from 'index' on, so a
** rent finds one whenever there is one (a return past the byte budget, or
** a trim, keeps them there). */
typedef struct bucket {
  sp_lock lock;
  void **slots;
  unsigned index, cached;
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

/* Takes the next slot of bucket i: returns 1 and its array (NULL when it
** was never allocated) in *a, or 0 when the bucket is exhausted. */
static int bucket_take(bucket_pool *p, unsigned i, void **a) {
  bucket *b = &p->buckets[i];
  int took = 0;
  if (sp_lock_take(&b->lock)) count(&p->lock_waits);
  if (b->index < p->per_bucket) {
    *a = b->slots[b->index];
    b->slots[b->index++] = NULL;
    if (*a != NULL) b->cached--;
    took = 1;
  }
  sp_lock_give(&b->lock);
  return took;
}

/* Gives a slot back to bucket i with array a in it, or empty when a is
** NULL (then the last cached array moves up into it, so the cached ones
** stay first in line). Returns 0 if every slot is home already. */
static int bucket_put(bucket_pool *p, unsigned i, void *a) {
  bucket *b = &p->buckets[i];
  int kept = 0;
  if (sp_lock_take(&b->lock)) count(&p->lock_waits);
  if (b->index > 0) {
    unsigned at = --b->index;
    if (a != NULL) b->cached++;
    else if (b->cached > 0) { a = b->slots[at + b->cached]; b->slots[at + b->cached] = NULL; }
    b->slots[at] = a;
    kept = 1;
  }
  sp_lock_give(&b->lock);
  return kept;
}

/* Allocates a full bucket-size array for a slot (or an exhausted pool). */
static void *fresh_array(bucket_pool *p, unsigned i, size_t *capacity) {
  void *a = sp_malloc(bucket_size(i));
  if (a != NULL) { count(&p->fresh); *capacity = bucket_size(i); }
  return a;
}

/* Serves a rent from bucket i, or returns 0 when it is exhausted. On a slot
** whose array cannot be allocated, the slot is given back (still empty). */
static int rent_from(bucket_pool *p, unsigned i, void **out, size_t *capacity, int fallback) {
  void *a;
  if (!bucket_take(p, i, &a)) return 0;
  if (a != NULL) {
    sp_pool_keep_sub(&p->base, bucket_size(i));
    count(fallback ? &p->fallback_hits : &p->hits);
    *capacity = bucket_size(i);
  } else if ((a = fresh_array(p, i, capacity)) == NULL) {
    bucket_put(p, i, NULL);
  }
  *out = a;
  return 1;
}

/* Rent: bucket i, then bucket i+1 (MaxBucketsToTry = 2), then a fresh
** array of bucket i's size; over the largest bucket, an exact unpooled one. */
static void *pool_rent(sp_pool *base, size_t min, size_t *capacity) {
  bucket_pool *p = (bucket_pool *)base;
  unsigned i = sp_pool_bucket_index(min ? min : 1);
  void *a = NULL;
  if (i >= p->nbuckets) {
    if ((a = sp_malloc(min)) == NULL) return NULL;
    count(&p->unpooled);
    sp_alloc_note_unpooled(min);
    *capacity = min;
  } else if (!rent_from(p, i, &a, capacity, 0) &&
             !(i + 1 < p->nbuckets && rent_from(p, i + 1, &a, capacity, 1))) {
    a = fresh_array(p, i, capacity);     /* every slot of both is out */
  }
  if (a != NULL) count(&p->rents);
  return a;
}

static int pool_give_back(sp_pool *base, void *a, size_t capacity) {
  bucket_pool *p = (bucket_pool *)base;
  unsigned i = sp_pool_bucket_index(capacity ? capacity : 1);
  int keep;
  if (capacity > p->base.max_pooled) {   /* an unpooled array: free it */
    count(&p->returns);
    sp_free(a, capacity);
    return 0;
  }
  if (capacity != bucket_size(i)) return SP_E_INVALID_ARGUMENT;
  count(&p->returns);
  /* Past the budget the slot still comes home, empty (as if never used). */
  keep = sp_pool_keep_add(&p->base, capacity);
  if (!bucket_put(p, i, keep ? a : NULL) || !keep) {
    if (keep) sp_pool_keep_sub(&p->base, capacity);
    count(&p->drops);
    sp_free(a, capacity);
  }
  return 0;
}

static uint64_t load(atomic_ullong *c) {
  return atomic_load_explicit(c, memory_order_relaxed);
}

/* Arrays cached now, and their bytes. */
static void cached_now(bucket_pool *p, uint64_t *n, uint64_t *bytes) {
  *n = *bytes = 0;
  for (unsigned i = 0; i < p->nbuckets; i++) {
    bucket *b = &p->buckets[i];
    unsigned k;
    sp_lock_take(&b->lock);
    k = b->cached;
    sp_lock_give(&b->lock);
    *n += k;
    *bytes += (uint64_t)k * bucket_size(i);
  }
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
  cached_now(p, &out->cached, &out->cached_bytes);
}

/* Frees the cached arrays of bucket i; their slots become never-allocated
** ones, so later rents allocate again. Rented arrays are not touched. */
static size_t trim_bucket(bucket_pool *p, unsigned i) {
  bucket *b = &p->buckets[i];
  void *drop[32];
  size_t freed = 0;
  unsigned n;
  do {                                   /* free outside the lock, in batches, last first */
    n = 0;
    sp_lock_take(&b->lock);
    while (b->cached > 0 && n < 32) {
      unsigned k = b->index + --b->cached;
      drop[n++] = b->slots[k];
      b->slots[k] = NULL;
    }
    sp_lock_give(&b->lock);
    for (unsigned k = 0; k < n; k++) {
      sp_free(drop[k], bucket_size(i));
      sp_pool_keep_sub(&p->base, bucket_size(i));
      count(&p->trims);
    }
    freed += n;
  } while (n == 32);
  return freed;
}

static size_t pool_trim(sp_pool *base) {
  bucket_pool *p = (bucket_pool *)base;
  size_t freed = 0;
  for (unsigned i = 0; i < p->nbuckets; i++) freed += trim_bucket(p, i);
  return freed;
}

static void pool_destroy(sp_pool *base) {
  bucket_pool *p = (bucket_pool *)base;
  pool_trim(base);
  for (unsigned i = 0; i < p->nbuckets; i++) {
    sp_free(p->buckets[i].slots, sizeof(void *) * p->per_bucket);
    sp_lock_destroy(&p->buckets[i].lock);
  }
  sp_free(p, sizeof *p);
}

static const sp_pool_vtbl bucket_vtbl = {
  pool_rent, pool_give_back, pool_stats, pool_trim, pool_destroy
};

int sp_pool_set_keep_limit(sp_pool *pool, size_t max_bytes) {
  sp_pool_stats s;
  sp_pool_stats_get(pool, &s);
  if (s.rents != 0) return SP_E_INVALID_ARGUMENT;   /* arrays counted without it may be cached */
  pool->keep_max = max_bytes;
  atomic_store_explicit(&pool->kept, 0, memory_order_relaxed);
  return 0;
}

sp_pool *sp_bucket_pool_create(size_t max_len, unsigned per_bucket) {
  bucket_pool *p;
  unsigned n;
  if (max_len == 0 || per_bucket == 0 || per_bucket > SP_POOL_MAX_PER_BUCKET) return NULL;
  if (max_len > bucket_size(MAX_BUCKETS - 1)) max_len = bucket_size(MAX_BUCKETS - 1);
  n = sp_pool_bucket_index(max_len < 16 ? 16 : max_len) + 1;
  if ((p = sp_malloc(sizeof *p)) == NULL) return NULL;
  memset(p, 0, sizeof *p);
  p->base.vt = &bucket_vtbl;
  p->base.max_pooled = bucket_size(n - 1);
  atomic_init(&p->base.kept, 0);
  p->per_bucket = per_bucket;
  for (unsigned i = 0; i < n; i++) {
    p->buckets[i].slots = sp_malloc(sizeof(void *) * per_bucket);
    if (p->buckets[i].slots != NULL) memset(p->buckets[i].slots, 0, sizeof(void *) * per_bucket);
    if (p->buckets[i].slots == NULL || sp_lock_init(&p->buckets[i].lock) != 0) {
      if (p->buckets[i].slots) sp_free(p->buckets[i].slots, sizeof(void *) * per_bucket);
      p->nbuckets = i;
      pool_destroy(&p->base);
      return NULL;
    }
    p->nbuckets = i + 1;
  }
  return &p->base;
}
