#!/usr/bin/env bash
# npm start: builds what is missing, prints the documents' figures as this
# build measures them (the C demo), then serves the page -- web/ and the
# WebAssembly module, cross-origin isolated on 127.0.0.1 (PORT, default
# 8080) -- printing its URL and running until stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/build-dir.sh && sp_own_build_dir build-release
bash tests/setup.sh
if [ ! -f dist/scratchpack.wasm ] || [ ! -f dist/scratchpack-st.wasm ] ||
   [ ! -f dist-web/scratchpack-flows.wasm ] || [ ! -f dist-web/scratchpack-flows-st.wasm ]; then
  bash tests/build-wasm.sh
fi
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release --target sp_demo -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
./build-release/tests/c/sp_demo
exec node web/serve.mjs
