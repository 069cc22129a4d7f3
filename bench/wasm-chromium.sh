#!/usr/bin/env bash
# npm run bench:wasm:chromium -- bench/wasm_workloads.c in Chromium, in Node
# and native, in one run: builds the program natively (build-bench, the flags
# of `npm run bench`) and with Emscripten (build-wasm: the Node programs of
# `npm run bench:wasm` and the same two for a page, wasm_workloads-{st,mt}-web),
# then bench/wasm-chromium.mjs runs them interleaved -- the page in Debian's
# chromium through playwright-core -- and prints the ratios. Works from any
# directory. Arguments go to the .mjs: --node 24 (the Node of the node
# builds), --browser-only, --quick (a one-sample check that all runs, for CI).
# Environment: as bench:wasm (SP_WASM_ROUNDS, SP_WASM_SAMPLES,
# SP_BENCH_SAMPLE_MS), CHROMIUM, SP_CHROMIUM_JS_FLAGS, SP_NODE_WASM_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/build-dir.sh && sp_own_build_dir build-bench build-wasm

browser_only=0
for a in "$@"; do case "$a" in --quick|--browser-only) browser_only=1 ;; esac; done

echo "== native (build-bench)"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSP_BUILD_BENCH=ON -DSP_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench --target bench_wasm_workloads -j2 >/dev/null

echo "== Emscripten (build-wasm)"
source tests/emcc-env.sh             # acorn for emcc's optimizer
if [ ! -f build-wasm/CMakeCache.txt ]; then
  # as tests/build-wasm.sh, without building every module
  emcmake cmake -S wasm -B build-wasm -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
fi
cmake build-wasm >/dev/null                     # picks up a new target after a pull
targets=(wasm_workloads-st-web wasm_workloads-mt-web)
[ "$browser_only" = 1 ] || targets+=(wasm_workloads-st wasm_workloads-mt)
# one target at a time: each has one emcc link (wasm/CMakeLists.txt: parallel
# links can fail), its compiles run two at once
for t in "${targets[@]}"; do cmake --build build-wasm --target "$t" -j2 >/dev/null; done

exec node bench/wasm-chromium.mjs \
  build-bench/bench/bench_wasm_workloads build-wasm/node/wasm_workloads-st.cjs \
  build-wasm/node/wasm_workloads-mt.cjs build-wasm/web "$@"
