/*
** test_threads.c -- the scratch is per thread, allocated on a thread's first
** call and released when the thread exits; many threads serialize at once
** without sharing bytes (run under TSan in npm test).
*/
#ifndef SP_NO_THREADS   /* the WASI build has no threads: no test here */
#include <pthread.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "sp_test.h"

#ifndef SP_NO_THREADS
typedef struct first_calls {
  sp_alloc_stats first, second;
  size_t len;
} first_calls;

static void *two_calls(void *arg) {
  first_calls *r = arg;
  sp_value items[2] = {sp_int(1), sp_str("hello")};
  sp_value v = sp_array(items, 2);
  sp_bytes b;
  sp_alloc_stats_reset();
  sp_to_array(sp_format_value, &v, NULL, &b, NULL);
  sp_alloc_stats_get(&r->first);
  r->len = b.len;
  sp_bytes_free(&b);
  sp_alloc_stats_reset();
  sp_to_array(sp_format_value, &v, NULL, &b, NULL);
  sp_alloc_stats_get(&r->second);
  sp_bytes_free(&b);
  return NULL;
}

static void first_call_on_a_thread_allocates_the_scratch_once(void) {
  pthread_t t;
  first_calls r;
  int64_t live = sp_alloc_live_bytes();
  pthread_create(&t, NULL, two_calls, &r);
  pthread_join(t, NULL);
  CHECK(r.len == 8);
  CHECK(r.first.alloc_calls == 2 && r.first.alloc_bytes == SP_SCRATCH_DEFAULT + 8);
  CHECK(r.second.alloc_calls == 1 && r.second.alloc_bytes == 8);
  CHECK(sp_alloc_live_bytes() == live);    /* thread exit released the scratch */
}

/* Each thread encodes values unique to it, small and past the scratch, and
** checks every byte: a shared scratch would mix them up. */
static void *encode_many(void *arg) {
  long id = (long)(intptr_t)arg;
  size_t n = 70000 + (size_t)id;
  char *text = malloc(n);
  int bad = 0;
  memset(text, 'a' + (int)id, n);
  for (int i = 0; i < 2000 && !bad; i++) {
    size_t len = i % 10 == 0 ? n : (size_t)(i % 200);
    sp_value items[2] = {sp_int(id), sp_strn(text, len)};
    sp_value v = sp_array(items, 2);
    sp_bytes b;
    if (sp_to_array(sp_format_value, &v, NULL, &b, NULL) != SP_OK) { bad = 1; break; }
    bad = b.data[1] != (uint8_t)id || b.data[b.len - 1] != (len ? (uint8_t)('a' + id) : 0xA0);
    sp_bytes_free(&b);
  }
  free(text);
  return (void *)(intptr_t)bad;
}

static void threads_serialize_at_once_without_sharing_bytes(void) {
  pthread_t t[4];
  int64_t live;
  void *bad;
  int failures = 0;
  sp_shutdown();
  live = sp_alloc_live_bytes();
  for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, encode_many, (void *)(intptr_t)i);
  for (int i = 0; i < 4; i++) { pthread_join(t[i], &bad); failures += bad != NULL; }
  CHECK(failures == 0);
  sp_shutdown();
  CHECK(sp_alloc_live_bytes() == live);
}
#endif

int main(void) {
#ifndef SP_NO_THREADS
  SP_RUN(first_call_on_a_thread_allocates_the_scratch_once);
  SP_RUN(threads_serialize_at_once_without_sharing_bytes);
#endif
  sp_shutdown();
  return sp_test_summary();
}
