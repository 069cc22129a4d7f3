/*
** sp_test.h -- the smallest test harness that says what failed and where.
** Each test file lists its tests in main() with SP_RUN and returns
** sp_test_summary(), which prints "N passed, N failed".
*/
#ifndef SP_TEST_H
#define SP_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sp_test_failures, sp_test_passed, sp_test_failed, sp_test_checks;

#define CHECK(cond) sp_test_check((cond), #cond, __FILE__, __LINE__)

static inline int sp_test_check(int ok, const char *what, const char *file, int line) {
  sp_test_checks++;
  if (!ok) {
    sp_test_failures++;
    fprintf(stderr, "    FAIL %s:%d: %s\n", file, line, what);
  }
  return ok;
}

/* Compares bytes and prints both sides in hex when they differ. */
#define CHECK_BYTES(got, got_len, want, want_len) \
  sp_test_bytes((got), (got_len), (want), (want_len), __FILE__, __LINE__)

static inline int sp_test_bytes(const void *got, size_t got_len, const void *want,
                                size_t want_len, const char *file, int line) {
  int ok = got_len == want_len && (want_len == 0 || memcmp(got, want, want_len) == 0);
  sp_test_checks++;
  if (!ok) {
    const unsigned char *g = got, *w = want;
    sp_test_failures++;
    fprintf(stderr, "    FAIL %s:%d: bytes differ\n      got  (%zu):", file, line, got_len);
    for (size_t i = 0; i < got_len && i < 48; i++) fprintf(stderr, " %02X", g[i]);
    fprintf(stderr, "\n      want (%zu):", want_len);
    for (size_t i = 0; i < want_len && i < 48; i++) fprintf(stderr, " %02X", w[i]);
    fprintf(stderr, "\n");
  }
  return ok;
}

/* SP_TEST_ONLY=name runs only the test of that name (to chase one down). */
static inline void sp_test_run(const char *name, void (*fn)(void)) {
  const char *only = getenv("SP_TEST_ONLY");
  if (only && *only && strcmp(only, name) != 0) return;
  int before = sp_test_failures;
  fn();
  if (sp_test_failures == before) { sp_test_passed++; printf("  ok   %s\n", name); }
  else { sp_test_failed++; printf("  FAIL %s\n", name); }
  fflush(stdout);
}

#define SP_RUN(fn) sp_test_run(#fn, fn)

static inline int sp_test_summary(void) {
  printf("%d passed, %d failed (%d checks)\n", sp_test_passed, sp_test_failed, sp_test_checks);
  return sp_test_failed ? 1 : 0;
}

#endif
