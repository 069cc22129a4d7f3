#!/usr/bin/env bash
# npm run build (and prepack, so npm pack always ships them): builds every
# file the package ships from dist/ -- the Emscripten modules, threaded
# (scratchpack.mjs/.wasm/.worker.js) and single-threaded (scratchpack-st),
# and the WASI reactor (scratchpack-wasi.wasm) -- then checks that each
# dist/ entry of package.json "files" is there. Needs the toolchains that
# tests/setup.sh names (emcc, clang with wasi-libc): `tests/setup.sh build`
# installs the missing ones as root, or stops with one line naming them.
# Incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh build
bash tests/build-wasm.sh dist
bash tests/build-wasi.sh scratchpack-wasi-dist
missing=$(node -e '
  const { files } = JSON.parse(require("fs").readFileSync("package.json", "utf8"));
  console.log(files.filter((f) => f.startsWith("dist/") && !require("fs").existsSync(f)).join(" "));')
if [ -n "$missing" ]; then
  echo "build: not built: $missing (see build-wasm/build.log, build-wasi/build.log)" >&2
  exit 1
fi
echo "== build: dist/ holds every shipped file"
