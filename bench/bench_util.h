/*
** bench_util.h -- what every native benchmark needs: a clock, medians of
** interleaved samples, an optimisation barrier and a checksum sink.
*/
#ifndef SP_BENCH_UTIL_H
#define SP_BENCH_UTIL_H

#define _POSIX_C_SOURCE 200112L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Makes the compiler forget what p points to, so work is not hoisted. */
#define BENCH_BARRIER(p) __asm__ volatile("" : "+r"(p) : : "memory")

static inline double bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline long bench_env(const char *name, long dflt) {
  const char *s = getenv(name);
  long v = s ? strtol(s, NULL, 10) : dflt;
  return v > 0 ? v : dflt;
}

static inline int bench_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median of n samples (sorts them). */
static inline double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A benchmark case: run(ctx, iters) does iters operations and returns a
** value that depends on their results (fed to the checksum). */
typedef struct bench_case {
  const char *name;
  uint64_t (*run)(void *ctx, long iters);
  void *ctx;
  long iters;          /* calibrated to ~sample_ms per sample */
  double samples[64];
} bench_case;

static uint64_t bench_checksum;

static inline double bench_sample(bench_case *c) {
  double t0 = bench_now_ns();
  bench_checksum += c->run(c->ctx, c->iters);
  return (bench_now_ns() - t0) / (double)c->iters;
}

/* Finds iters so that one sample takes about sample_ms. A pause inside a
** doubling run (the first call compiling lazily in a browser, another job
** taking the core) ends the doubling early and leaves a count whose samples
** are too short for the clock (a page's clock steps by 5 us): so the case is
** run once first, and the largest of three calibrations is kept. The cap
** keeps iters * 4 inside a 32-bit long (wasm32). */
static inline void bench_calibrate(bench_case *c, double sample_ms) {
  long best = 1;
  bench_checksum += c->run(c->ctx, 1);
  for (int t = 0; t < 3; t++) {
    long iters = 1;
    for (;;) {
      double t0 = bench_now_ns();
      bench_checksum += c->run(c->ctx, iters);
      if (bench_now_ns() - t0 > sample_ms * 1e6 / 4 || iters > (1L << 28)) break;
      iters *= 2;
    }
    if (iters > best) best = iters;
  }
  c->iters = best * 4;
}

/* Runs rounds of every case, the order rotated each round; stores each
** case's median ns/op in out[]. */
static inline void bench_run(bench_case *cases, int n, int rounds, double sample_ms, double *out) {
  if (rounds > 64) rounds = 64;
  for (int i = 0; i < n; i++) bench_calibrate(&cases[i], sample_ms);
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < n; k++) {
      bench_case *c = &cases[(k + r) % n];
      c->samples[r] = bench_sample(c);
    }
  for (int i = 0; i < n; i++) out[i] = bench_median(cases[i].samples, rounds);
}

#endif
