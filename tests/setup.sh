#!/usr/bin/env bash
# Installs what the build and tests need on Debian, or says what is missing.
# Usage: tests/setup.sh            (native C toolchain, msgpack-c for the
#                                    interop check and the benchmark)
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v gcc >/dev/null || missing+=(gcc)
command -v make >/dev/null || missing+=(make)
[ -f /usr/include/msgpack.h ] || missing+=(libmsgpack-dev)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: missing ${missing[*]}." >&2
    echo "setup: run as root, or install them first: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# npm dependencies, exactly as locked, when the lock names any.
if [ -f package-lock.json ] && grep -q '"node_modules/' package-lock.json && [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund
fi
