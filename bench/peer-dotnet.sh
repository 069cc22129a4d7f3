#!/usr/bin/env bash
# npm run peer:dotnet [-- --record]: the real MessagePack-CSharp 3.1.12 and
# MemoryPack 1.21.4 beside scratchpack, on this machine:
#   1. the documents' tables measured live from the real libraries
#      (tests/dotnet/Peer: Tables.cs), beside what the documents say;
#   2. the same figures measured from scratchpack (the C demo, sp_demo);
#   3. speed side by side, ONE run: the five DESIGN workloads, typed and
#      untyped, encode and decode, through MessagePack-CSharp (typed [Key],
#      ContractlessStandardResolver) and MemoryPack (Peer serve), scratchpack
#      C native and C in WASM (bench/dotnet_workloads.c, built natively and
#      for wasm32-wasi) and the JS package, rounds alternating between the
#      peers (bench/dotnet-side.mjs says how).
# With --record, bench/dotnet-peer.json gets the C# tables (library versions,
# .NET version, date) and the side-by-side rows ("sideBySide"). Not a test:
# figures depend on the machine and its load. Environment: SP_DOTNET_ROUNDS
# (7), SP_DOTNET_SAMPLES (3), SP_DOTNET_SAMPLE_MS (20).
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/build-dir.sh && sp_own_build_dir build-release build-bench
command -v dotnet >/dev/null || { echo "peer:dotnet needs the .NET SDK (dotnet on PATH)" >&2; exit 1; }
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
mkdir -p tests/dotnet/feed
[ -f tests/dotnet/feed/MessagePackAnalyzer.3.1.12.nupkg ] ||
  nice dotnet pack tests/dotnet/AnalyzerStub -c Release --nologo -v q >/dev/null
nice dotnet build tests/dotnet/Peer -c Release --nologo -v q -clp:ErrorsOnly -clp:NoSummary
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json=$tmp/dotnet-peer.json
[ "${1:-}" = --record ] && json=bench/dotnet-peer.json
peer=tests/dotnet/Peer/bin/Release/net10.0/Peer.dll
echo "== 1. MessagePack-CSharp and MemoryPack, the documents' tables measured"
dotnet $peer peer --tables-only --record "$json"
echo
echo "== 2. scratchpack, measured (sp_demo)"
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
nice cmake --build build-release --target sp_demo -j2 >/dev/null
./build-release/tests/c/sp_demo
echo
echo "== 3. speed side by side (bench/dotnet-side.mjs)"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSP_BUILD_BENCH=ON -DSP_BUILD_TESTS=OFF >/dev/null
nice cmake --build build-bench --target bench_dotnet -j2 >/dev/null
# C in WASM: the same program for wasm32-wasi against build-wasi's core, with
# the flags wasm/wasi/CMakeLists.txt gives the core (-O3, SIMD128).
[ -f build-wasi/libsp_core.a ] || nice bash tests/build-wasi.sh sp_core >/dev/null
nice cmake --build build-wasi --target sp_core -j2 >/dev/null
nice clang --target=wasm32-wasi --sysroot="$PWD/build-wasi/sysroot" -std=c11 -Wall -Wextra -Werror \
  -O3 -g0 -msimd128 -mbulk-memory -Isrc/include -Ibench bench/dotnet_workloads.c build-wasi/libsp_core.a \
  -o build-wasi/dotnet_workloads.wasm
rec=()
[ "${1:-}" = --record ] && rec=(--record "$json")
node bench/dotnet-side.mjs "$tmp/bytes" "$peer" build-bench/bench/bench_dotnet build-wasi/dotnet_workloads.wasm "${rec[@]}"
