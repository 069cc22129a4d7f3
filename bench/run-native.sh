#!/bin/sh
# npm run bench: builds bench_lz4 (the LZ4 codec against liblz4), bench_native
# (encode) and bench_decode (decode, bulk arrays) in Release into build-bench/
# at the repo root and runs them, so one command prints every native ratio:
# against liblz4, msgpack-c, and CWPack and mpack when their sources are found
# ($SP_PEERS, else ../shared/peers next to the checkout; without them those
# rows are skipped, with a message).
# Works from any directory. Arguments are passed to cmake's configure step,
# e.g. -DCMAKE_C_COMPILER=clang. Environment for the benchmarks:
#   SP_BENCH_ROUNDS (default 9), SP_BENCH_SAMPLE_MS (default 20),
#   SP_BENCH_ONLY (encode: run only workloads whose name contains it),
#   SP_BENCH_PART (lz4, encode or decode: run only that one).
set -eu
cd "$(dirname "$0")/.."
source tests/build-dir.sh && sp_own_build_dir build-bench
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSP_BUILD_BENCH=ON -DSP_BUILD_TESTS=OFF "$@" >/dev/null
cmake --build build-bench --target bench_lz4 bench_native bench_decode -j2 >/dev/null
cc=$(sed -n 's/^CMAKE_C_COMPILER:FILEPATH=//p' build-bench/CMakeCache.txt)
flags=$(sed -n 's/^CMAKE_C_FLAGS_RELEASE:STRING=//p' build-bench/CMakeCache.txt)
echo "== $("$cc" --version | head -n 1), $flags -std=c11: the same for scratchpack and every peer"
part=${SP_BENCH_PART:-all}
if [ "$part" = all ] || [ "$part" = lz4 ]; then
  ./build-bench/bench/bench_lz4
  echo
fi
if [ "$part" = all ] || [ "$part" = encode ]; then
  ./build-bench/bench/bench_native
  echo
fi
if [ "$part" = all ] || [ "$part" = decode ]; then
  ./build-bench/bench/bench_decode
fi
