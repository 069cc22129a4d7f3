#!/usr/bin/env bash
# tests/fuzz/run.sh [seconds-per-target] [target...] -- builds the libFuzzer
# targets (tests/fuzz/fuzz_*.c; CMakeLists.txt here) with clang, ASan + UBSan
# and LeakSanitizer, into build-fuzz/, and runs each for the given seconds
# (default 20; pass more for a long run: tests/fuzz/run.sh 600). Targets are
# named with or without the fuzz_ prefix (default: all). SP_FUZZ_JOBS
# targets run at once (default: the number of CPUs). Each starts from its
# committed seeds (tests/fuzz/seeds/<name>/, if any), the seeds make_seeds
# generates (build-fuzz/seeds/<name>/, rewritten every run) and the corpus
# earlier runs grew (build-fuzz/corpus/<name>/, kept between runs). A crash,
# leak, UB, assertion or timeout fails the run, keeps the input in
# build-fuzz/crashes/ and prints the command that replays it.
set -euo pipefail
cd "$(dirname "$0")/../.."

secs=${1:-20}
shift || true
case "$secs" in ''|*[!0-9]*) echo "usage: tests/fuzz/run.sh [seconds-per-target] [target...]" >&2; exit 2;; esac
jobs=${SP_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

targets=()
for t in "$@"; do targets+=("fuzz_${t#fuzz_}"); done
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi

# Configure every time: a build dir from before a target was added has no rule for it.
cmake -S tests/fuzz -B build-fuzz -DCMAKE_C_COMPILER=clang >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)" --target make_seeds "${targets[@]}" \
  >build-fuzz/build.log 2>&1 || {
  { grep -E "error|undefined|No rule" build-fuzz/build.log || tail -5 build-fuzz/build.log; } | head -20 >&2
  echo "== fuzz: build failed (build-fuzz/build.log)" >&2
  exit 1
}
rm -rf build-fuzz/seeds
ASAN_OPTIONS=detect_leaks=0 ./build-fuzz/make_seeds build-fuzz/seeds

# One target: its log in build-fuzz/<name>.log, its one-line result in
# build-fuzz/<name>.result ("FAILED" in it when it failed).
run_one() {
  local t=$1 name=${1#fuzz_} corpus dirs extra log runs cov
  corpus=build-fuzz/corpus/$name
  mkdir -p "$corpus"
  dirs=("$corpus")
  for d in "tests/fuzz/seeds/$name" "build-fuzz/seeds/$name"; do [ -d "$d" ] && dirs+=("$d"); done
  # Extra flags from the target's header comment ("** fuzz-args: ...").
  read -r -a extra <<<"$(sed -n 's/^\*\* fuzz-args: //p' "tests/fuzz/$t.c" | head -1)"
  log=build-fuzz/$name.log
  echo "== fuzz $name: FAILED (log: $log)" >"build-fuzz/$name.result"
  if ASAN_OPTIONS=detect_leaks=1 ./build-fuzz/"$t" -max_total_time="$secs" -timeout=10 \
       -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$name-" \
       ${extra[@]+"${extra[@]}"} "${dirs[@]}" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
    echo "== fuzz $name: ${runs:-?} runs in ${secs}s, $cov, $(ls "$corpus" | wc -l) inputs in the corpus" \
      >"build-fuzz/$name.result"
  fi
}

mkdir -p build-fuzz/crashes
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$t" &
done
wait
failed=()
for t in "${targets[@]}"; do
  name=${t#fuzz_}
  if grep -q FAILED "build-fuzz/$name.result"; then
    tail -40 "build-fuzz/$name.log" >&2
    cat "build-fuzz/$name.result" >&2
    crash=$(ls -t build-fuzz/crashes/"$name"-* 2>/dev/null | head -1)
    [ -n "$crash" ] && echo "   replay: ./build-fuzz/$t $crash" >&2
    failed+=("$name")
  else
    cat "build-fuzz/$name.result"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "== fuzz: FAILED ${failed[*]}" >&2
  exit 1
fi
