#!/usr/bin/env bash
# npm run bench:wasm -- WASM against native on the same C workloads
# (bench/wasm_workloads.c), in one run: builds the program natively
# (build-bench, Release: the flags of `npm run bench`), for wasm32-wasi
# (build-wasi, the flags of wasm/wasi/CMakeLists.txt) and with Emscripten
# (build-wasm: the single-threaded core and the pthread core, the flags of
# wasm/CMakeLists.txt), then bench/wasm-vs-native.mjs runs the four
# interleaved and prints the ratios. Works from any directory.
# Environment: SP_WASM_ROUNDS (default 7: process rounds, the order rotated
# each round), SP_WASM_SAMPLES (default 3 samples per case and process),
# SP_BENCH_SAMPLE_MS (default 20), SP_WASM_CASES (only the cases whose name
# contains it). The Node that runs the WASM builds:
# `npm run bench:wasm -- --node 24` (22, or a path) or SP_NODE=24.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/build-dir.sh && sp_own_build_dir build-bench build-wasi build-wasm

echo "== native (build-bench)"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSP_BUILD_BENCH=ON -DSP_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench --target bench_wasm_workloads -j2 >/dev/null

echo "== wasm32-wasi (build-wasi)"
[ -f build-wasi/CMakeCache.txt ] || bash tests/build-wasi.sh >/dev/null
cmake build-wasi >/dev/null                     # picks up a new target after a pull
cmake --build build-wasi --target wasm_workloads -j2 >/dev/null

echo "== Emscripten (build-wasm)"
source tests/emcc-env.sh             # acorn for emcc's optimizer
[ -f build-wasm/CMakeCache.txt ] || bash tests/build-wasm.sh >/dev/null
cmake build-wasm >/dev/null
# one emcc link at a time (wasm/CMakeLists.txt: parallel links can fail)
cmake --build build-wasm --target wasm_workloads-st -j2 >/dev/null
cmake --build build-wasm --target wasm_workloads-mt -j1 >/dev/null

exec node bench/wasm-vs-native.mjs \
  build-bench/bench/bench_wasm_workloads build-wasi/wasm_workloads.wasm \
  build-wasm/node/wasm_workloads-st.cjs build-wasm/node/wasm_workloads-mt.cjs "$@"
