#!/usr/bin/env bash
# npm test: every test of every layer. C first: a Release build, an
# ASan+UBSan build (gcc, then clang, whose UBSan checks more: NULL + 0, as
# the WASM builds' compiler) and a TSan build, each running the whole ctest
# suite; a UBSan report stops the test that made it.
# Then the TypeScript declarations (tsc over tests/types) and WebAssembly:
# every C test built for wasm32-wasi (32-bit size_t, no threads) under
# node:wasi, the Emscripten modules, the JS package's node:test suite (the
# WASI and JS stages also on a pinned Node 24, tests/node.sh), and
# the npm tarball packed from a clean clone, installed and run (tests/pack).
# The later stages run even when one fails; the exit code says whether all passed.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/build-dir.sh
bash tests/setup.sh

jobs=$(nproc 2>/dev/null || echo 2)
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
run_c() {  # name build-type sanitizer [compiler]
  local dir="build-$1"
  echo "== C tests: $1"
  sp_own_build_dir "$dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$2" -DSP_SANITIZE="$3" -DSP_BUILD_BENCH=ON \
    ${4:+-DCMAKE_C_COMPILER="$4"} >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
  ctest --test-dir "$dir" --output-on-failure -j"$jobs"
}
run_c release Release ""
run_c asan Debug address
run_c asan-clang Debug address clang
# TSan needs a kernel whose ASLR leaves it room; say so instead of failing
# mysteriously when it does not.
if echo 'int main(void){return 0;}' | gcc -x c -fsanitize=thread -o /tmp/sp_tsan_probe - 2>/dev/null \
   && /tmp/sp_tsan_probe 2>/dev/null; then
  run_c tsan Debug thread
else
  echo "== C tests: tsan SKIPPED (ThreadSanitizer cannot run on this kernel)" >&2
  [ "${CI:-}" = true ] && exit 1
fi
failed=()
echo "== Types: tsc over tests/types (strict; with DOM and Node types, then with neither)"
{ npx --no-install tsc -p tests/types && npx --no-install tsc -p tests/types/tsconfig.bare.json; } || failed+=(types)
# libFuzzer targets (tests/fuzz), 20 s each, as many at once as there are CPUs
# (7 targets on 2 cores: about 80 s and the build); tests/fuzz/run.sh 600
# for a long run.
echo "== fuzz: tests/fuzz/run.sh ${SP_FUZZ_SECONDS:-20} (seconds per target)"
timeout 600 bash tests/fuzz/run.sh "${SP_FUZZ_SECONDS:-20}" || failed+=(fuzz)
echo "== WASI: C tests on wasm32-wasi"
bash tests/build-wasi.sh || true
timeout 600 node --no-warnings tests/wasi/run.mjs || failed+=(wasi)
echo "== WASM: Emscripten build"
bash tests/build-wasm.sh || failed+=(wasm-build)
echo "== WASM: pool stress with pthreads under Node (8 threads x 100,000)"
timeout 600 node build-wasm/node/test_pool_stress.cjs || failed+=(wasm-pool-stress)
bash tests/js.sh || failed+=(js)
# The WASI and JS tests again on each pinned Node of SP_TEST_NODES (default
# 24; "22 24" for both, "" for none), taken from the npm registry by tests/node.sh.
for v in ${SP_TEST_NODES-24}; do
  echo "== Node $v (pinned): WASI and JS tests"
  if nv="$(bash tests/node.sh "$v")"; then
    timeout 600 "$nv" --no-warnings tests/wasi/run.mjs || failed+=("wasi-node$v")
    bash tests/js.sh "$nv" || failed+=("js-node$v")
  else
    failed+=("node$v")
  fi
done
# MessagePack-CSharp 3.1.12 as a peer (tests/dotnet): skipped in one line without dotnet.
timeout 900 bash tests/dotnet/run.sh || failed+=(dotnet)
bash tests/pack/run.sh || failed+=(pack)
bash tests/browser/run.sh || failed+=(browser)
if [ ${#failed[@]} -gt 0 ]; then
  echo "== FAILED stages: ${failed[*]}" >&2
  exit 1
fi
echo "== all tests passed"
