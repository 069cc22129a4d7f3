#!/bin/sh
# Builds bench_pool_fanout (Release, into build-bench/ at the repo root) and
# runs it. Works from any directory. Arguments are passed to cmake's
# configure step. Environment for the benchmark itself:
#   SP_FANOUT_ROUNDS (default 21), SP_FANOUT_RETURNS (default 20000),
#   SP_FANOUT_THREADS (consumer counts, default "1,2,4").
set -eu
cd "$(dirname "$0")/.."
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSP_BUILD_BENCH=ON -DSP_BUILD_TESTS=OFF "$@" >/dev/null
cmake --build build-bench --target bench_pool_fanout -j2
exec ./build-bench/bench/bench_pool_fanout
