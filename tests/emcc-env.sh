# emcc-env.sh -- sourced (not run) by every script that calls emcc or emcmake:
# emcc's JS optimizer needs acorn, and Debian's node-acorn installs it in a
# module folder of its own, which this puts on NODE_PATH. Owns nothing else.
acorn_json="$(dpkg -L node-acorn 2>/dev/null | grep '/acorn/package.json$' | head -1 || true)"
if [ -n "$acorn_json" ]; then
  NODE_PATH="$(dirname "$(dirname "$acorn_json")")${NODE_PATH:+:$NODE_PATH}"
  export NODE_PATH
fi
