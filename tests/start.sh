#!/usr/bin/env bash
# npm start: builds what is missing and runs the main job. Until the page
# lands (issue 6) that is the demo: the documents' nested-call table and the
# per-entry allocations, measured live by the C core.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh
# The WebAssembly module the JS package (and the page) loads, when missing.
if [ ! -f dist/scratchpack.wasm ] || [ ! -f dist/scratchpack-st.wasm ]; then
  bash tests/build-wasm.sh
fi
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-release --target sp_demo -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
./build-release/tests/c/sp_demo
# The page (issue 6): web/ and the module, served cross-origin isolated on
# 127.0.0.1 (PORT, default 8080); prints the URL and runs until stopped.
[ -f dist/scratchpack.wasm ] && [ -f dist/scratchpack-st.wasm ] || bash tests/build-wasm.sh
exec node web/serve.mjs
