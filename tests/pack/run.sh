#!/usr/bin/env bash
# The npm tarball (tests/pack): packs a clean clone of HEAD, which builds
# the WebAssembly from sources (a few minutes on 2 cores), installs it into
# an empty project and runs it with only node on PATH.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "== pack: npm pack from a clean clone, install, run with only node on PATH"
timeout 900 node --test --test-timeout=800000 tests/pack/*.test.js
