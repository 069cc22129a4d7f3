#!/usr/bin/env bash
# Builds the Emscripten modules (wasm/CMakeLists.txt): the package's into
# dist/ and the page's into dist-web/, each a pthread build and a single-
# threaded one. Incremental after the first run. Arguments: the targets to
# build (e.g. `dist`, the package's modules only); all when none.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
[ $# -gt 0 ] && targets=(--target "$@")
source tests/emcc-env.sh             # acorn for emcc's optimizer
source tests/build-dir.sh
sp_own_build_dir build-wasm
if [ ! -f build-wasm/CMakeCache.txt ]; then
  # emcmake's own crossrunner passes --experimental-wasm-threads, which Node 20 rejects.
  emcmake cmake -S wasm -B build-wasm -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
fi
# emcc 3.1.6 now and then fails a parallel build (an AssertionError on
# BINARYEN_FEATURES in emscripten.py, seen once in ten clean builds); the
# build is incremental, so finish it on one job.
if ! cmake --build build-wasm -j"$(nproc 2>/dev/null || echo 2)" "${targets[@]}" >build-wasm/build.log 2>&1; then
  echo "== wasm: parallel build failed; retrying on one job" >&2
  cmake --build build-wasm -j1 "${targets[@]}" >build-wasm/build.log 2>&1 || { tail -40 build-wasm/build.log >&2; exit 1; }
fi
echo "== wasm: built dist/ ($(ls dist | tr '\n' ' ')) and dist-web/ ($(ls dist-web 2>/dev/null | tr '\n' ' '))"
