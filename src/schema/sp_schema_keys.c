/*
** sp_schema_keys.c -- matching string keys without allocating.
** Owns: the key matcher of a resolved schema (build and find). Must not
** touch: the reader (callers hand it the key's bytes) or field decoding.
**
** The design is MessagePack-CSharp's generated "switch (key.Length), then
** switch on 8-byte little-endian chunks" (AutomataKeyGen / the source
** generator's StringKey transform), flattened into data instead of code:
**
**   1. the exact UTF-8 length selects a range of keys (a table indexed by
**      length: one load, no comparisons);
**   2. the key is consumed 8 bytes at a time as a little-endian uint64 (the
**      last chunk zero-extended); each chunk narrows the range, which is
**      sorted by chunk sequence, to the keys that share it -- a linear scan
**      for a few keys, binary search for more (AutomataDictionary's rule);
**   3. a match is the one key left when the chunks run out.
** A length that only one key has skips step 2 for a plain byte compare
** with that key (the generator's single-candidate SequenceEqual).
**
** Because the length is matched exactly first, zero-extension cannot make
** keys alias: "a\0" (length 2) never meets "a" (length 1). This fixes the
** caveat of MessagePack-CSharp's dynamic path, where trailing NULs alias.
** A lookup costs one table load plus ceil(len / 8) chunk compares per
** candidate level; nothing is hashed, copied or allocated.
*/
#include <stdlib.h>
#include <string.h>

#include "sp_schema_internal.h"

#define LINEAR_MAX 4   /* ranges below this are scanned, larger ones bisected */

static uint32_t chunks_of(uint32_t len) { return (len + 7) / 8; }

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* n (<= 8) bytes as a little-endian integer, zero-extended. Never reads
** past p + n: the key may end at the end of the input. */
static uint64_t load_chunk(const uint8_t *p, size_t n) {
  uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(&v, p, n);                  /* the low n bytes; the rest stay zero */
#else
  while (n-- > 0) v = v << 8 | p[n];
#endif
  return v;
}

static uint32_t name_len(const sp_field *f) { return (uint32_t)strlen(f->name); }

static uint32_t max_len_of(const sp_field *fields, uint32_t n) {
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) if (name_len(&fields[i]) > m) m = name_len(&fields[i]);
  return m;
}

static size_t total_chunks(const sp_field *fields, uint32_t n) {
  size_t total = 0;
  for (uint32_t i = 0; i < n; i++) total += chunks_of(name_len(&fields[i]));
  return total;
}

size_t sp_keyset_size(const sp_field *fields, uint32_t n) {
  return align8(total_chunks(fields, n) * sizeof(uint64_t)) + align8(n * sizeof(sp_keyent)) +
         align8((max_len_of(fields, n) + 2) * sizeof(uint32_t));
}

/* Orders keys by length, then chunk by chunk: the order 'find' narrows in. */
static int compare_keys(const void *a, const void *b) {
  const sp_keyent *x = a, *y = b;
  if (x->len != y->len) return x->len < y->len ? -1 : 1;
  for (uint32_t k = 0; k < chunks_of(x->len); k++)
    if (x->chunks[k] != y->chunks[k]) return x->chunks[k] < y->chunks[k] ? -1 : 1;
  return 0;
}

/* Lays out chunks, entries and the length table in mem. */
static void carve(sp_keyset *ks, void *mem, const sp_field *fields, uint32_t n,
                  uint64_t **chunks) {
  uint8_t *p = mem;
  *chunks = (uint64_t *)(void *)p;
  p += align8(total_chunks(fields, n) * sizeof(uint64_t));
  ks->ents = (sp_keyent *)(void *)p;
  p += align8(n * sizeof(sp_keyent));
  ks->len_start = (uint32_t *)(void *)p;
  ks->max_len = max_len_of(fields, n);
}

int32_t sp_keyset_build(sp_keyset *ks, void *mem, const sp_field *fields, uint32_t n) {
  uint64_t *chunks;
  uint32_t e = 0;
  carve(ks, mem, fields, n, &chunks);
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t *s = (const uint8_t *)fields[i].name;
    uint32_t len = name_len(&fields[i]);
    ks->ents[i].chunks = chunks;
    ks->ents[i].name = fields[i].name;
    ks->ents[i].len = len;
    ks->ents[i].field = i;
    for (uint32_t off = 0; off < len; off += 8)
      *chunks++ = load_chunk(s + off, len - off < 8 ? len - off : 8);
  }
  if (n > 1) qsort(ks->ents, n, sizeof *ks->ents, compare_keys);
  for (uint32_t i = 1; i < n; i++)   /* equal keys are neighbours after the sort */
    if (compare_keys(&ks->ents[i - 1], &ks->ents[i]) == 0)
      return (int32_t)(ks->ents[i - 1].field > ks->ents[i].field ? ks->ents[i - 1].field
                                                                 : ks->ents[i].field);
  for (uint32_t len = 0; len <= ks->max_len + 1; len++) {   /* first entry of each length */
    while (e < n && ks->ents[e].len < len) e++;
    ks->len_start[len] = e;
  }
  return -1;
}

/* First entry in [lo, hi) whose chunk k is >= c (or > c when 'after'). */
static uint32_t bound(const sp_keyent *ents, uint32_t lo, uint32_t hi, uint32_t k, uint64_t c,
                      int after) {
  if (hi - lo < LINEAR_MAX) {
    while (lo < hi && (after ? ents[lo].chunks[k] <= c : ents[lo].chunks[k] < c)) lo++;
    return lo;
  }
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (after ? ents[mid].chunks[k] <= c : ents[mid].chunks[k] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int32_t sp_keyset_find(const sp_keyset *ks, const uint8_t *key, size_t len) {
  uint32_t lo, hi;
  if (len > ks->max_len) return -1;
  lo = ks->len_start[len];
  hi = ks->len_start[len + 1];
  if (hi - lo == 1)                              /* one candidate: compare it whole */
    return memcmp(ks->ents[lo].name, key, len) == 0 ? (int32_t)ks->ents[lo].field : -1;
  for (uint32_t k = 0; lo < hi && (size_t)k * 8 < len; k++) {
    size_t off = (size_t)k * 8;
    uint64_t c = load_chunk(key + off, len - off < 8 ? len - off : 8);
    lo = bound(ks->ents, lo, hi, k, c, 0);
    hi = bound(ks->ents, lo, hi, k, c, 1);
  }
  return hi - lo == 1 ? (int32_t)ks->ents[lo].field : -1;
}
