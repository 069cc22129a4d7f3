#!/bin/sh
# Builds bench_native (Release, into build-bench/ at the repo root) and runs it.
# Works from any directory. Arguments are passed to cmake's configure step,
# e.g. -DCMAKE_C_COMPILER=clang. Environment for the benchmark itself:
#   SP_BENCH_ROUNDS (default 9), SP_BENCH_SAMPLE_MS (default 20),
#   SP_BENCH_ONLY (run only workloads whose name contains this substring).
set -eu
cd "$(dirname "$0")/.."
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSP_BUILD_BENCH=ON -DSP_BUILD_TESTS=OFF "$@" >/dev/null
cmake --build build-bench --target bench_native -j2
cmake --build build-bench --target bench_lz4 -j2 >/dev/null && ./build-bench/bench/bench_lz4 && echo
exec ./build-bench/bench/bench_native
