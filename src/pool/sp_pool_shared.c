/*
** sp_pool_shared.c -- the shared pool (ArrayPool<byte>.Shared): a slot per
** thread and bucket, then per-core partitions behind locks.
** Owns: the partitions and the arrays in them, every thread's slot block for
** each shared pool, the registry that links those blocks to their pool.
** Must not touch: other pools, sequences. Allocates only through sp_alloc.
**
** Tiers, per bucket (16 B << i, i < 27):
**   slot       one array per thread, in the thread's block for this pool;
**   partitions 'npart' bounded stacks of 'per_part' arrays, one lock each,
**              created on the bucket's first push;
**   fresh      sp_malloc of the full bucket size.
** Rent: slot, then every partition starting at the thread's home partition,
** then fresh. Return: into the slot; the array it displaces is pushed to the
** first partition with room from the home one on, or freed (a drop). C has
** no cheap current-processor id, so a thread's home partition is a number
** handed out round-robin at its first call; it never changes.
**
** Who may touch a thread's slots (the trimming protocol). .NET's trimmer
** clears other threads' slots with plain stores while their owners read and
** write them; with a GC that loses an array at worst, in C it frees an array
** its owner is about to hand out. Here every access to a slot, by its owner
** and by anyone else, is one atomic_exchange (acq_rel): the owner's rent
** swaps in NULL, its return swaps in the array, a trimmer swaps in NULL.
** Exchanges on one object are totally ordered and each reads the value the
** previous one wrote, so every array put into a slot is taken out by exactly
** one exchange: by its owner (a hit) or by a trimmer (which frees it), never
** both. The release half orders the owner's writes into an array before a
** trimmer's free of it.
** One shortcut keeps this to one exchange per rent/return pair: only the
** owner ever puts an array into its slot (others only take), so a slot the
** owner last left empty is still empty. The owner notes in 'full' (its own
** plain bits) how it left each slot: a rent skips a slot it left empty, and
** a return fills such a slot with a release store instead of an exchange
** (a trimmer's later exchange still takes that array whole). Only taking
** from, or displacing, a slot the owner left full needs the exchange, whose
** result says whether a trimmer got there first.
** The alternatives cost more or free less: a per-thread lock is two atomics
** per access, and a "trim on the owner's next call" epoch would never free
** an idle thread's slots. bench_pool_fanout's ceiling row (npm run
** bench:pools) measures what the one exchange per pair costs.
** A slot's idle stamp is an atomic the owner clears when set (before the
** store or exchange that fills the slot) and the timed trim sets; a race between them
** only changes when an array is trimmed, never who owns it.
**
** Who may touch a slot block. A thread owns its blocks (a list, 'mine', one
** per shared pool it has used). Each block is also on its pool's list
** ('threads'), which trimmers, stats and destroy walk. Both lists change only
** under one process-wide lock, reg_lock (never taken on the hot path), so a
** block on a pool's list is alive: its thread unlinks it under that lock at
** exit before freeing it. Destroying a pool, under the same lock, frees the
** arrays in every thread's slots and marks each block dead (pool = NULL); the
** block is then only its thread's, which frees it at exit or when it next
** walks its list. So a pool may be destroyed while threads that used it are
** still alive, as long as none of them rents or returns on it any more.
**
** Counters: each block holds its thread's counts, written only by the owner
** (relaxed load + store, no locked instruction), summed with the pool's
** 'retired' counts (exited threads, calls without a block) under reg_lock on
** read. Trims are counted on the pool. lock_waits counts partition locks.
** A slot hit writes one counter and a return one more: in WASM every atomic
** store is sequentially consistent (a fence), so each one costs there.
*/
#include <stdatomic.h>
#include <string.h>

#include "sp_alloc.h"
#include "sp_error.h"
#include "sp_pool.h"
#include "sp_pool_keep.h"
#include "base/sp_thread.h"

#define NBUCKETS 27              /* 16 B << 26 = 1 GiB */
#define MAX_PARTITIONS 1024u
#define MAX_PER_PARTITION (1u << 20)
#define BATCH 32                 /* arrays freed per lock hold when trimming */

/* Rents are not counted: each one that succeeds is exactly one of
** slot_hits, partition_hits, fresh or unpooled, summed on read. */
typedef struct counters {
  atomic_ullong returns, slot_hits, partition_hits, lock_waits, fresh, unpooled, drops;
} counters;

/* A partition: a bounded LIFO of arrays under one lock. */
typedef struct partition {
  sp_lock lock;
  unsigned count;          /* arrays[0..count) are held; the top is count - 1 */
  unsigned low;            /* fewest held since the last timed trim */
  uint64_t since;          /* clock + 1 of the last timed trim; 0 = never */
  void **arrays;           /* per_part entries, after the lanes */
} partition;

/* Partitions of one bucket sit on separate cache lines. */
typedef union lane { partition p; char line[128]; } lane;
_Static_assert(sizeof(partition) <= 128, "a partition fits its lane");

typedef struct shared_pool shared_pool;

/* One thread's slots for one pool. */
typedef struct tls_block {
  _Atomic(void *) slot[NBUCKETS];         /* exchanged, never loaded-then-stored */
  atomic_ullong stamp[NBUCKETS];          /* clock + 1 when a timed trim saw it full */
  uint32_t full;                          /* owner only: bit i = it left slot i full */
  counters c;                             /* written by the owner only */
  _Atomic(shared_pool *) pool;            /* NULL once the pool was destroyed */
  struct tls_block *next;                 /* the owner's list; owner only */
  struct tls_block *reg_prev, *reg_next;  /* the pool's list; under reg_lock */
} tls_block;

struct shared_pool {
  sp_pool base;
  unsigned npart, per_part;
  _Atomic(lane *) lanes[NBUCKETS];        /* NULL until the bucket's first push */
  tls_block *threads;                     /* under reg_lock */
  counters retired;                       /* exited threads and block-less calls */
  atomic_ullong trims;
};

static sp_lock reg_lock;
static sp_once reg_once = SP_ONCE_INIT;
static int reg_ok;
static SP_THREAD_LOCAL tls_block *mine;
static SP_THREAD_LOCAL unsigned home;       /* 1 + home index; 0 = not yet assigned */
static atomic_uint next_home;

static void init_registry(void) { reg_ok = sp_lock_init(&reg_lock) == 0; }

static size_t bucket_size(unsigned i) { return (size_t)16 << i; }

static unsigned home_index(void) {
  if (home == 0) home = atomic_fetch_add_explicit(&next_home, 1, memory_order_relaxed) + 1;
  return home - 1;
}

/* Counting: the owner bumps its block without a locked instruction; calls
** without a block (its allocation failed) count on the pool. */
static void bump(atomic_ullong *c) {
  atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
                        memory_order_relaxed);
}

static void add(atomic_ullong *c, uint64_t n) {
  atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static uint64_t load(atomic_ullong *c) {
  return atomic_load_explicit(c, memory_order_relaxed);
}

#define TALLY(p, b, field) ((b) ? bump(&(b)->c.field) : add(&(p)->retired.field, 1))

/* ---- partitions -------------------------------------------------------- */

static size_t lanes_bytes(shared_pool *p) {
  return sizeof(lane) * p->npart + sizeof(void *) * p->npart * p->per_part;
}

static void free_lanes(shared_pool *p, lane *l, unsigned inited) {
  for (unsigned k = 0; k < inited; k++) sp_lock_destroy(&l[k].p.lock);
  sp_free(l, lanes_bytes(p));
}

/* The partitions of bucket i, created on first need (a CAS decides which
** of two racing threads' sets is kept). NULL on no memory. */
static lane *lanes_for_push(shared_pool *p, unsigned i) {
  lane *l = atomic_load_explicit(&p->lanes[i], memory_order_acquire), *expected = NULL;
  void **store;
  if (l != NULL) return l;
  if ((l = sp_malloc(lanes_bytes(p))) == NULL) return NULL;
  memset(l, 0, sizeof(lane) * p->npart);
  store = (void **)(l + p->npart);
  for (unsigned k = 0; k < p->npart; k++) {
    l[k].p.arrays = store + (size_t)k * p->per_part;
    if (sp_lock_init(&l[k].p.lock) != 0) { free_lanes(p, l, k); return NULL; }
  }
  if (!atomic_compare_exchange_strong_explicit(&p->lanes[i], &expected, l,
                                               memory_order_acq_rel, memory_order_acquire)) {
    free_lanes(p, l, p->npart);            /* another thread created them first */
    return expected;
  }
  return l;
}

static void lock_partition(shared_pool *p, tls_block *b, partition *q) {
  if (sp_lock_take(&q->lock)) TALLY(p, b, lock_waits);
}

/* Pops from the partitions of bucket i, starting at the home one (.NET's
** TryPop: every partition is locked in turn). NULL when all are empty. */
static void *pop(shared_pool *p, tls_block *b, unsigned i) {
  lane *l = atomic_load_explicit(&p->lanes[i], memory_order_acquire);
  unsigned start = home_index() % p->npart;
  if (l == NULL) return NULL;
  for (unsigned k = 0; k < p->npart; k++) {
    partition *q = &l[(start + k) % p->npart].p;
    void *a = NULL;
    lock_partition(p, b, q);
    if (q->count > 0) {
      a = q->arrays[--q->count];
      if (q->count < q->low) q->low = q->count;
    }
    sp_lock_give(&q->lock);
    if (a != NULL) return a;
  }
  return NULL;
}

/* Pushes to the first partition with room, from the home one on. Returns 0
** when all are full (or cannot be created): the caller drops the array. */
static int push(shared_pool *p, tls_block *b, unsigned i, void *a) {
  lane *l = lanes_for_push(p, i);
  unsigned start = home_index() % p->npart;
  if (l == NULL) return 0;
  for (unsigned k = 0; k < p->npart; k++) {
    partition *q = &l[(start + k) % p->npart].p;
    int kept = 0;
    lock_partition(p, b, q);
    if (q->count < p->per_part) { q->arrays[q->count++] = a; kept = 1; }
    sp_lock_give(&q->lock);
    if (kept) return 1;
  }
  return 0;
}

/* Moves up to 'max' arrays from the bottom of q (the longest unused) into
** out. Called under q's lock. */
static unsigned take_bottom(partition *q, unsigned max, void **out) {
  unsigned k = q->count < max ? q->count : max;
  memcpy(out, q->arrays, k * sizeof *out);
  memmove(q->arrays, q->arrays + k, (q->count - k) * sizeof *out);
  q->count -= k;
  q->low = q->low > k ? q->low - k : 0;
  return k;
}

static size_t free_batch(shared_pool *p, void **drop, unsigned n, size_t size) {
  for (unsigned k = 0; k < n; k++) {
    sp_free(drop[k], size);
    sp_pool_keep_sub(&p->base, size);
  }
  return n;
}

/* Frees every array of q, BATCH per lock hold. */
static size_t trim_partition(shared_pool *p, partition *q, size_t size) {
  void *drop[BATCH];
  size_t freed = 0;
  unsigned n;
  do {
    sp_lock_take(&q->lock);
    n = take_bottom(q, BATCH, drop);
    sp_lock_give(&q->lock);
    freed += free_batch(p, drop, n, size);
  } while (n == BATCH);
  return freed;
}

/* Timed trim of q: the arrays below its lowest fill since the last timed
** trim were not popped since; once 'idle' has passed, they are freed. The
** first look only stamps. 'at' is the clock + 1. */
static size_t trim_partition_idle(shared_pool *p, partition *q, size_t size, uint64_t at,
                                  uint64_t idle) {
  void *drop[BATCH];
  size_t freed = 0;
  unsigned due, n;
  sp_lock_take(&q->lock);
  if (q->since == 0 || at < q->since || at - q->since < idle) {
    if (q->since == 0) { q->since = at; q->low = q->count; }
    sp_lock_give(&q->lock);
    return 0;
  }
  due = q->low;
  for (;;) {
    if (due > q->low) due = q->low;        /* pops meanwhile used some */
    n = take_bottom(q, due < BATCH ? due : BATCH, drop);
    due -= n;
    if (due == 0) { q->since = at; q->low = q->count; }
    sp_lock_give(&q->lock);
    freed += free_batch(p, drop, n, size);
    if (due == 0) return freed;
    sp_lock_take(&q->lock);
  }
}

/* ---- thread blocks ----------------------------------------------------- */

static void thread_exit(void *arg);

/* Keeps the exit callback's argument equal to the head of 'mine'. */
static void register_exit(void) { sp_on_thread_exit(SP_EXIT_POOL, thread_exit, mine); }

static void unlink_block(shared_pool *p, tls_block *b) {
  if (b->reg_prev) b->reg_prev->reg_next = b->reg_next;
  else p->threads = b->reg_next;
  if (b->reg_next) b->reg_next->reg_prev = b->reg_prev;
}

/* Frees every array in b's slots; returns how many. Safe against the owner
** (see the header); the caller holds reg_lock so b stays alive. */
static size_t drain_slots(shared_pool *p, tls_block *b) {
  size_t n = 0;
  for (unsigned i = 0; i < NBUCKETS; i++) {
    void *a = atomic_exchange_explicit(&b->slot[i], NULL, memory_order_acq_rel);
    if (a != NULL) {
      sp_free(a, bucket_size(i));
      sp_pool_keep_sub(&p->base, bucket_size(i));
      n++;
    }
  }
  return n;
}

static void fold(counters *into, counters *from) {
  add(&into->returns, load(&from->returns));
  add(&into->slot_hits, load(&from->slot_hits));
  add(&into->partition_hits, load(&from->partition_hits));
  add(&into->lock_waits, load(&from->lock_waits));
  add(&into->fresh, load(&from->fresh));
  add(&into->unpooled, load(&from->unpooled));
  add(&into->drops, load(&from->drops));
}

/* Releases the calling thread's blocks: frees their slot arrays, moves their
** counts to their pools, unlinks and frees them. Runs at thread exit. */
static void release_blocks(tls_block *head) {
  tls_block *b, *next;
  if (head == NULL) return;
  sp_lock_take(&reg_lock);
  for (b = head; b != NULL; b = b->next) {
    shared_pool *p = atomic_load_explicit(&b->pool, memory_order_relaxed);
    if (p == NULL) continue;               /* its pool is gone; nothing in it */
    add(&p->trims, drain_slots(p, b));
    fold(&p->retired, &b->c);
    unlink_block(p, b);
  }
  sp_lock_give(&reg_lock);
  for (b = head; b != NULL; b = next) { next = b->next; sp_free(b, sizeof *b); }
}

static void thread_exit(void *arg) {
  release_blocks(arg);
  mine = NULL;
}

void sp_shared_pool_release_thread(void) {
  tls_block *head = mine;
  mine = NULL;
  register_exit();
  release_blocks(head);
}

/* Frees the calling thread's blocks whose pools were destroyed. A block is
** dead once its destroyer stored NULL (release); nobody else touches it. */
static void reap_dead(void) {
  tls_block **link = &mine, *b;
  while ((b = *link) != NULL) {
    if (atomic_load_explicit(&b->pool, memory_order_acquire) == NULL) {
      *link = b->next;
      sp_free(b, sizeof *b);
    } else {
      link = &b->next;
    }
  }
  register_exit();
}

static tls_block *new_block(shared_pool *p) {
  tls_block *b = sp_malloc(sizeof *b);
  if (b == NULL) return NULL;
  memset(b, 0, sizeof *b);
  atomic_init(&b->pool, p);
  sp_lock_take(&reg_lock);
  b->reg_next = p->threads;
  if (p->threads) p->threads->reg_prev = b;
  p->threads = b;
  sp_lock_give(&reg_lock);
  b->next = mine;
  mine = b;
  return b;
}

/* The calling thread's block for p: found in 'mine' and moved to its front,
** or created. NULL only on no memory (the call then runs without a slot). */
static tls_block *find_block_slow(shared_pool *p) {
  tls_block **link = &mine, *b;
  reap_dead();
  while ((b = *link) != NULL && atomic_load_explicit(&b->pool, memory_order_relaxed) != p)
    link = &b->next;
  if (b != NULL) {
    *link = b->next;
    b->next = mine;
    mine = b;
  } else {
    b = new_block(p);
  }
  register_exit();
  return b;
}

static tls_block *find_block(shared_pool *p) {
  tls_block *b = mine;
  if (b != NULL && atomic_load_explicit(&b->pool, memory_order_relaxed) == p) return b;
  return find_block_slow(p);
}

/* ---- rent and return --------------------------------------------------- */

/* Over 1 GiB: an exact allocation the pool never keeps. */
static void *rent_unpooled(shared_pool *p, size_t n, size_t *capacity) {
  tls_block *b = find_block(p);
  void *a = sp_malloc(n);
  if (a == NULL) return NULL;
  sp_alloc_note_unpooled(n);
  TALLY(p, b, unpooled);
  *capacity = n;
  return a;
}

static void *pool_rent(sp_pool *base, size_t min, size_t *capacity) {
  shared_pool *p = (shared_pool *)base;
  size_t n = min ? min : 1;
  unsigned i;
  tls_block *b;
  void *a = NULL;
  if (n > p->base.max_pooled) return rent_unpooled(p, n, capacity);
  i = sp_pool_bucket_index(n);
  b = find_block(p);
  if (b != NULL && (b->full & 1u << i)) {  /* left full: take it, unless trimmed */
    b->full &= ~(1u << i);
    a = atomic_exchange_explicit(&b->slot[i], NULL, memory_order_acq_rel);
  }
  if (a != NULL) {
    sp_pool_keep_sub(&p->base, bucket_size(i));
    TALLY(p, b, slot_hits);
  } else if ((a = pop(p, b, i)) != NULL) {
    sp_pool_keep_sub(&p->base, bucket_size(i));
    TALLY(p, b, partition_hits);
  } else if ((a = sp_malloc(bucket_size(i))) != NULL) {
    TALLY(p, b, fresh);
  } else {
    return NULL;                           /* a failed rent counts nothing */
  }
  *capacity = bucket_size(i);
  return a;
}

static int pool_give_back(sp_pool *base, void *a, size_t capacity) {
  shared_pool *p = (shared_pool *)base;
  unsigned i = sp_pool_bucket_index(capacity ? capacity : 1);
  tls_block *b;
  if (capacity > p->base.max_pooled) {     /* an unpooled array: free it */
    b = find_block(p);
    TALLY(p, b, returns);
    sp_free(a, capacity);
    return 0;
  }
  if (capacity != bucket_size(i)) return SP_E_INVALID_ARGUMENT;
  b = find_block(p);
  TALLY(p, b, returns);
  if (!sp_pool_keep_add(&p->base, capacity)) {   /* over the byte budget */
    TALLY(p, b, drops);
    sp_free(a, capacity);
    return 0;
  }
  if (b != NULL) {                         /* newest in the slot; stamp cleared first */
    if (atomic_load_explicit(&b->stamp[i], memory_order_relaxed) != 0)
      atomic_store_explicit(&b->stamp[i], 0, memory_order_relaxed);
    if (b->full & 1u << i) {
      a = atomic_exchange_explicit(&b->slot[i], a, memory_order_acq_rel);
    } else {                               /* left empty, so still empty */
      atomic_store_explicit(&b->slot[i], a, memory_order_release);
      a = NULL;
    }
    b->full |= 1u << i;
    if (a == NULL) return 0;
  }
  if (!push(p, b, i, a)) {
    sp_pool_keep_sub(&p->base, capacity);
    TALLY(p, b, drops);
    sp_free(a, capacity);
  }
  return 0;
}

/* ---- stats, trimming, destroy ------------------------------------------ */

static void sum_into(sp_pool_stats *out, counters *c) {
  out->rents += load(&c->slot_hits) + load(&c->partition_hits) + load(&c->fresh) +
                load(&c->unpooled);
  out->returns += load(&c->returns);
  out->slot_hits += load(&c->slot_hits);
  out->partition_hits += load(&c->partition_hits);
  out->lock_waits += load(&c->lock_waits);
  out->fresh += load(&c->fresh);
  out->unpooled += load(&c->unpooled);
  out->drops += load(&c->drops);
}

/* Adds the arrays in the partitions, and their bytes, to out. */
static void partitions_cached(shared_pool *p, sp_pool_stats *out) {
  for (unsigned i = 0; i < NBUCKETS; i++) {
    lane *l = atomic_load_explicit(&p->lanes[i], memory_order_acquire);
    for (unsigned k = 0; l != NULL && k < p->npart; k++) {
      unsigned n;
      sp_lock_take(&l[k].p.lock);
      n = l[k].p.count;
      sp_lock_give(&l[k].p.lock);
      out->cached += n;
      out->cached_bytes += (uint64_t)n * bucket_size(i);
    }
  }
}

static void pool_stats(sp_pool *base, sp_pool_stats *out) {
  shared_pool *p = (shared_pool *)base;
  memset(out, 0, sizeof *out);
  sp_lock_take(&reg_lock);
  sum_into(out, &p->retired);
  for (tls_block *b = p->threads; b != NULL; b = b->reg_next) {
    sum_into(out, &b->c);
    for (unsigned i = 0; i < NBUCKETS; i++)
      if (atomic_load_explicit(&b->slot[i], memory_order_relaxed) != NULL) {
        out->cached++;
        out->cached_bytes += bucket_size(i);
      }
  }
  sp_lock_give(&reg_lock);
  out->trims = load(&p->trims);
  partitions_cached(p, out);
}

static size_t pool_trim(sp_pool *base) {
  shared_pool *p = (shared_pool *)base;
  size_t freed = 0;
  for (unsigned i = 0; i < NBUCKETS; i++) {
    lane *l = atomic_load_explicit(&p->lanes[i], memory_order_acquire);
    for (unsigned k = 0; l != NULL && k < p->npart; k++)
      freed += trim_partition(p, &l[k].p, bucket_size(i));
  }
  sp_lock_take(&reg_lock);
  for (tls_block *b = p->threads; b != NULL; b = b->reg_next) freed += drain_slots(p, b);
  sp_lock_give(&reg_lock);
  add(&p->trims, freed);
  return freed;
}

/* Timed trim of one slot: stamp it when first seen full; free its array
** when an earlier stamp is 'idle' old and the owner has not refilled it. */
static size_t trim_slot_idle(shared_pool *p, tls_block *b, unsigned i, uint64_t at,
                             uint64_t idle) {
  uint64_t seen;
  void *a;
  if (atomic_load_explicit(&b->slot[i], memory_order_acquire) == NULL) return 0;
  seen = atomic_load_explicit(&b->stamp[i], memory_order_relaxed);
  if (seen == 0) {
    atomic_store_explicit(&b->stamp[i], at, memory_order_relaxed);
    return 0;
  }
  if (at < seen || at - seen < idle) return 0;
  if ((a = atomic_exchange_explicit(&b->slot[i], NULL, memory_order_acq_rel)) == NULL) return 0;
  sp_free(a, bucket_size(i));
  sp_pool_keep_sub(&p->base, bucket_size(i));
  return 1;
}

static const sp_pool_vtbl shared_vtbl;

size_t sp_shared_pool_trim_idle(sp_pool *base, uint64_t now_ms, uint64_t idle_ms) {
  shared_pool *p = (shared_pool *)base;
  uint64_t at = now_ms + 1;                /* 0 means "never stamped" */
  size_t freed = 0;
  if (base == NULL || base->vt != &shared_vtbl) return 0;
  for (unsigned i = 0; i < NBUCKETS; i++) {
    lane *l = atomic_load_explicit(&p->lanes[i], memory_order_acquire);
    for (unsigned k = 0; l != NULL && k < p->npart; k++)
      freed += trim_partition_idle(p, &l[k].p, bucket_size(i), at, idle_ms);
  }
  sp_lock_take(&reg_lock);
  for (tls_block *b = p->threads; b != NULL; b = b->reg_next)
    for (unsigned i = 0; i < NBUCKETS; i++) freed += trim_slot_idle(p, b, i, at, idle_ms);
  sp_lock_give(&reg_lock);
  add(&p->trims, freed);
  return freed;
}

/* Frees the arrays of every thread's slots and marks their blocks dead (each
** thread frees its own block later), then the partitions and the pool. */
static void pool_destroy(sp_pool *base) {
  shared_pool *p = (shared_pool *)base;
  tls_block *b, *next;
  sp_lock_take(&reg_lock);
  for (b = p->threads; b != NULL; b = next) {
    next = b->reg_next;                    /* read before the block is let go */
    drain_slots(p, b);
    atomic_store_explicit(&b->pool, NULL, memory_order_release);
  }
  p->threads = NULL;
  sp_lock_give(&reg_lock);
  reap_dead();                             /* the calling thread's own, now */
  for (unsigned i = 0; i < NBUCKETS; i++) {
    lane *l = atomic_load_explicit(&p->lanes[i], memory_order_acquire);
    if (l == NULL) continue;
    for (unsigned k = 0; k < p->npart; k++) trim_partition(p, &l[k].p, bucket_size(i));
    free_lanes(p, l, p->npart);
  }
  sp_free(p, sizeof *p);
}

static const sp_pool_vtbl shared_vtbl = {
  pool_rent, pool_give_back, pool_stats, pool_trim, pool_destroy
};

sp_pool *sp_shared_pool_create(unsigned partitions, unsigned per_partition) {
  shared_pool *p;
  if (partitions == 0) partitions = (unsigned)sp_cpu_count();
  if (per_partition == 0) per_partition = 32;
  if (partitions > MAX_PARTITIONS || per_partition > MAX_PER_PARTITION ||
      (uint64_t)partitions * per_partition > SP_POOL_MAX_PER_BUCKET)
    return NULL;                           /* lanes_bytes must not wrap on 32-bit */
  sp_run_once(&reg_once, init_registry);
  if (!reg_ok || (p = sp_malloc(sizeof *p)) == NULL) return NULL;
  memset(p, 0, sizeof *p);
  p->base.vt = &shared_vtbl;
  atomic_init(&p->base.kept, 0);
  p->base.max_pooled = bucket_size(NBUCKETS - 1);
  p->npart = partitions;
  p->per_part = per_partition;
  return &p->base;
}
