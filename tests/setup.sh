#!/usr/bin/env bash
# Installs what the build and tests need on Debian, or says what is missing.
# Usage: tests/setup.sh [build]    (build: only what `npm run build` needs --
#                                    cmake, make, Emscripten, clang with
#                                    wasi-libc; no npm ci. Otherwise also the
#                                    native C toolchain, msgpack-c and liblz4
#                                    for the interop checks and the benchmarks;
#                                    clang's libFuzzer for tests/fuzz; the
#                                    WebAssembly toolchains: Emscripten with
#                                    node-acorn for its optimizer, clang with
#                                    wasi-libc and wasm32 compiler-rt)
set -euo pipefail
cd "$(dirname "$0")/.."

build_only=false
[ "${1:-}" = build ] && build_only=true

missing=()
# What `npm run build` needs (tests/build-package.sh): the Emscripten modules and the WASI reactor.
command -v cmake >/dev/null || missing+=(cmake)
command -v make >/dev/null || missing+=(make)
command -v emcc >/dev/null || missing+=(emscripten)
dpkg -s node-acorn >/dev/null 2>&1 || missing+=(node-acorn)
command -v clang >/dev/null || missing+=(clang)
command -v wasm-ld >/dev/null || missing+=(lld)
dpkg -s wasi-libc >/dev/null 2>&1 || missing+=(wasi-libc)
dpkg -s libclang-rt-dev-wasm32 >/dev/null 2>&1 || missing+=(libclang-rt-dev-wasm32)
if ! $build_only; then
  command -v gcc >/dev/null || missing+=(gcc)
  [ -f /usr/include/msgpack.h ] || missing+=(libmsgpack-dev)
  [ -f /usr/include/lz4hc.h ] || missing+=(liblz4-dev)
  # libFuzzer and the sanitizers' runtimes for clang (tests/fuzz): part of
  # clang's runtime, libclang-rt-N-dev for clang N (14 on Debian 12). Checked
  # by package too, since clang itself may be installed in this same run.
  clang_major=14
  command -v clang >/dev/null && clang_major="$(clang -dumpversion | cut -d. -f1)"
  dpkg -s "libclang-rt-$clang_major-dev" >/dev/null 2>&1 || missing+=("libclang-rt-$clang_major-dev")
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
  # The page's browser tests: Debian's chromium, driven by the npm package playwright-core.
  command -v chromium >/dev/null || missing+=(chromium)
fi

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    # One line: what to install and how.
    echo "setup: missing ${missing[*]}: run this as root, or first: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

$build_only && exit 0

# npm dependencies, exactly as locked, when the lock names any.
# (msgpackr and @msgpack/msgpack: the JS interop tests and bench/js-bench.mjs.)
if [ -f package-lock.json ] && grep -q '"node_modules/' package-lock.json; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
fi
