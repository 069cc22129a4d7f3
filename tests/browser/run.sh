#!/usr/bin/env bash
# The page: its pure parts under node:test (tests/web), then the page in a
# real browser: Debian's chromium driven by playwright-core
# (tests/setup.sh installs both). Builds the modules when dist/ or dist-web/
# lacks them.
# Bounded: the browser run is killed after 8 minutes; screenshots land in
# test-results/.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -f dist/scratchpack.wasm ] || [ ! -f dist/scratchpack-st.wasm ] ||
   [ ! -f dist-web/scratchpack-flows.wasm ] || [ ! -f dist-web/scratchpack-flows-st.wasm ]; then
  bash tests/build-wasm.sh
fi
echo "== page: model tests (node --test tests/web)"
timeout 120 node --test --test-timeout=60000 tests/web/*.test.mjs
echo "== browser: the page in chromium (screenshots in test-results/)"
timeout 600 node --test --test-timeout=240000 --test-concurrency=1 tests/browser/*.test.mjs
