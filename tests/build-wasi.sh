#!/usr/bin/env bash
# Builds the WASI targets (wasm/wasi/CMakeLists.txt): the reactor library
# into dist/ and every C unit test into build-wasi/tests/. Incremental.
# Arguments: the targets to build (e.g. `scratchpack-wasi`); all when none.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
[ $# -gt 0 ] && targets=(--target "$@")
source tests/build-dir.sh
sp_own_build_dir build-wasi
sysroot="$PWD/build-wasi/sysroot"
inc="$(dpkg -L wasi-libc | grep '/include/wasm32-wasi$' | head -1)"
lib="$(dpkg -L wasi-libc | grep '/lib/wasm32-wasi$' | head -1)"
mkdir -p "$sysroot/lib"
ln -sfn "$inc" "$sysroot/include"
ln -sfn "$lib" "$sysroot/lib/wasm32-wasi"
if [ ! -f build-wasi/CMakeCache.txt ]; then
  cmake -S wasm/wasi -B build-wasi -DCMAKE_TOOLCHAIN_FILE="$PWD/wasm/wasi/toolchain.cmake" \
        -DCMAKE_SYSROOT="$sysroot" >/dev/null
else
  cmake build-wasi >/dev/null           # again: a target added since is known to the build
fi
# Keep going past a test that does not build for wasm32: run.mjs reports it.
cmake --build build-wasi -j"$(nproc 2>/dev/null || echo 2)" "${targets[@]}" -- -k >build-wasi/build.log 2>&1 || {
  grep -E "error" build-wasi/build.log | head -20 >&2
  echo "== wasi: some targets did not build (see above); run.mjs reports the missing tests" >&2
}
echo "== wasi: $(ls build-wasi/tests/*.wasm 2>/dev/null | wc -l) test programs built"
