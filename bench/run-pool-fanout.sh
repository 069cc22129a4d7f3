#!/bin/sh
# Builds bench_pool_fanout and runs it natively (Release, build-bench/) and
# then as WASM with pthreads under Node (build-wasm/node/, built by
# tests/build-wasm.sh), so the two tables print one after the other.
# Works from any directory. Arguments are passed to cmake's native configure
# step. Environment for the native benchmark (the WASM build runs with the
# defaults: Emscripten's getenv does not see Node's environment):
#   SP_FANOUT_ROUNDS (default 21), SP_FANOUT_RETURNS (default 20000),
#   SP_FANOUT_THREADS (consumer counts, default "1,2,4").
set -eu
cd "$(dirname "$0")/.."
source tests/build-dir.sh && sp_own_build_dir build-bench
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSP_BUILD_BENCH=ON -DSP_BUILD_TESTS=OFF "$@" >/dev/null
cmake --build build-bench --target bench_pool_fanout -j2 >/dev/null
echo "== native ($(uname -m), gcc -O3)"
./build-bench/bench/bench_pool_fanout
echo
echo "== WASM with pthreads under Node $(node --version) (emcc -O3 -pthread)"
bash tests/build-wasm.sh >/dev/null
node build-wasm/node/bench_pool_fanout.cjs
