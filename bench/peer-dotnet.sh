#!/usr/bin/env bash
# npm run peer:dotnet [-- --record]: the real MessagePack-CSharp 3.1.12 and
# MemoryPack 1.21.4 beside scratchpack, in one run on this machine:
#   1. the documents' tables measured live from the real libraries
#      (tests/dotnet/Peer: Tables.cs), beside what the documents say;
#   2. the same figures measured from scratchpack (the C demo, sp_demo);
#   3. speed on the five DESIGN workloads, encode and decode, typed and
#      contractless, and MemoryPack (Peer: Speed.cs, a Stopwatch harness);
#   4. scratchpack C native on the same workloads (bench/run-native.sh);
#   5. scratchpack's JS package on exactly the messages C# measured
#      (bench/dotnet-js.mjs), with ratios against this run's C# medians.
# Rows are interleaved within each part (C# among C#, C native among its
# peers, JS among JS); the parts run one after the other, not interleaved.
# With --record, the C# figures go to bench/dotnet-peer.json (committed:
# library versions, .NET version, date). Not a test: figures depend on the
# machine and its load. Environment: SP_DOTNET_ROUNDS (7),
# SP_DOTNET_SAMPLE_MS (40), and bench/run-native.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v dotnet >/dev/null || { echo "peer:dotnet needs the .NET SDK (dotnet on PATH)" >&2; exit 1; }
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
mkdir -p tests/dotnet/feed
[ -f tests/dotnet/feed/MessagePackAnalyzer.3.1.12.nupkg ] ||
  nice dotnet pack tests/dotnet/AnalyzerStub -c Release --nologo -v q >/dev/null
dotnet build tests/dotnet/Peer -c Release --nologo -v q -clp:ErrorsOnly -clp:NoSummary
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json=$tmp/dotnet-peer.json
[ "${1:-}" = --record ] && json=bench/dotnet-peer.json
peer=tests/dotnet/Peer/bin/Release/net10.0/Peer.dll
echo "== 1+3. MessagePack-CSharp and MemoryPack, measured"
dotnet $peer peer --record "$json"
dotnet $peer speed-bytes "$tmp/bytes"
echo
echo "== 2. scratchpack, measured (sp_demo)"
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release --target sp_demo -j2 >/dev/null
./build-release/tests/c/sp_demo
echo
echo "== 4. scratchpack C native, the same workloads (bench/run-native.sh encode, then decode)"
SP_BENCH_PART=encode bash bench/run-native.sh
SP_BENCH_PART=decode bash bench/run-native.sh
echo
echo "== 5. scratchpack JS, the messages C# measured (bench/dotnet-js.mjs)"
node bench/dotnet-js.mjs "$tmp/bytes" "$json"
