#!/usr/bin/env bash
# npm test: every test of every layer. C first: a Release build, an
# ASan+UBSan build and a TSan build, each running the whole ctest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh

jobs=$(nproc 2>/dev/null || echo 2)
run_c() {  # name build-type sanitizer
  local dir="build-$1"
  echo "== C tests: $1"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$2" -DSP_SANITIZE="$3" -DSP_BUILD_BENCH=ON >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
  ctest --test-dir "$dir" --output-on-failure -j"$jobs"
}
run_c release Release ""
run_c asan Debug address
# TSan needs a kernel whose ASLR leaves it room; say so instead of failing
# mysteriously when it does not.
if echo 'int main(void){return 0;}' | gcc -x c -fsanitize=thread -o /tmp/sp_tsan_probe - 2>/dev/null \
   && /tmp/sp_tsan_probe 2>/dev/null; then
  run_c tsan Debug thread
else
  echo "== C tests: tsan SKIPPED (ThreadSanitizer cannot run on this kernel)" >&2
  [ "${CI:-}" = true ] && exit 1
fi
bash tests/browser/run.sh
echo "== all tests passed"
