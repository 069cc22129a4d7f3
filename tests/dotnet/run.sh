#!/usr/bin/env bash
# tests/dotnet/run.sh -- the MessagePack-CSharp interop stage of npm test.
# Owns: building the .NET peer (tests/dotnet/Peer, restore included; the
# NuGet cache under ~/.nuget/packages is reused after the first run), the
# C program interop_dotnet (in build-release, configured if missing) and
# running the exchange both ways: C# writes the corpus, the LZ4 messages and
# the contract messages; C and JS decode and compare them and write their own
# encodings; C# reads those and compares. The contract messages go through
# C schemas generated from tests/dotnet/contracts.json (gen-c) and JS
# contracts loaded from the same file; C reads what JS wrote, JS what C wrote. Skips in one line when dotnet is
# not on PATH. Needs dist/ (the WASM build) for the JS half.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v dotnet >/dev/null 2>&1; then
  echo "== .NET peer: SKIPPED (dotnet is not on PATH; the MessagePack-CSharp interop, contract and LZ4 checks did not run)"
  exit 0
fi
echo "== .NET peer: MessagePack-CSharp 3.1.12 interop, contracts and LZ4, both ways"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
here=tests/dotnet
# MessagePack 3.1.12 depends on MessagePackAnalyzer 3.1.12, which the registry
# does not serve: pack the empty stand-in (AnalyzerStub/) into the local feed.
mkdir -p "$here/feed"
if [ ! -f "$here/feed/MessagePackAnalyzer.3.1.12.nupkg" ]; then
  nice dotnet pack "$here/AnalyzerStub" -c Release --nologo -v q >/dev/null
fi
nice dotnet build "$here/Peer" -c Release --nologo -v q -clp:ErrorsOnly -clp:NoSummary
peer=(dotnet "$here/Peer/bin/Release/net10.0/Peer.dll")

if [ ! -f build-release/CMakeCache.txt ]; then
  cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DSP_SANITIZE= >/dev/null
fi
nice cmake --build build-release --target interop_dotnet -j"$(nproc 2>/dev/null || echo 2)" >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${peer[@]}" corpus "$work"
"${peer[@]}" lz4 "$work"
"${peer[@]}" contracts "$work"
failed=0
build-release/tests/c/interop_dotnet "$work" || failed=1
node tests/dotnet/interop.mjs "$work" || failed=1
"${peer[@]}" verify "$work" c.bin strict || failed=1
"${peer[@]}" verify "$work" js.bin loose || failed=1
"${peer[@]}" lz4-verify "$work" c-lz4.bin || failed=1
"${peer[@]}" lz4-verify "$work" js-lz4.bin || failed=1
"${peer[@]}" contracts-verify "$work" c-contracts.bin || failed=1
"${peer[@]}" contracts-verify "$work" js-contracts.bin || failed=1
build-release/tests/c/interop_dotnet --contracts "$work" js-contracts.bin || failed=1
exit $failed
