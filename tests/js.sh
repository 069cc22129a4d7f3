#!/usr/bin/env bash
# js.sh -- owns how the JS package's node:test suite (tests/js/*.test.js) is
# started, on the machine's node or on a pinned one (tests/node.sh).
# Files are listed, not the folder: Node 22 and later read `node --test DIR`
# as a module to run, and Node 20 does not expand globs itself.
# Usage: bash tests/js.sh            (the machine's node, or $SP_NODE)
#        bash tests/js.sh 24         (pinned Node 24 from the npm registry; 22 too)
#        bash tests/js.sh 24 tests/js/roundtrip.test.js   (some files only)
set -euo pipefail
cd "$(dirname "$0")/.."
want="${1:-${SP_NODE:-node}}"
[ $# -gt 0 ] && shift
node_bin="$(bash tests/node.sh "$want")"
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/js/*.test.js)
echo "== JS: node --test on $("$node_bin" -p '`Node ${process.versions.node}, V8 ${process.versions.v8}`') (${#files[@]} files)"
exec timeout 900 "$node_bin" --test --test-timeout=300000 "${files[@]}"
