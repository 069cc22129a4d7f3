# build-dir.sh -- sourced by the scripts that configure a CMake build folder.
# Owns: sp_own_build_dir, which empties a build folder that another checkout
# configured. CMake writes absolute paths into its cache and Makefiles, so a
# copied or moved checkout's build-*/ would build (and write dist/) in the
# tree it was copied from, or stop on "CMakeCache.txt directory is different".
# Must not touch: a folder configured here, which stays incremental.
sp_own_build_dir() {
  local dir
  for dir in "$@"; do sp_own_one "$dir"; done
}

sp_own_one() {
  local dir="$1" cache="$1/CMakeCache.txt" was
  [ -f "$cache" ] || return 0
  was="$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$cache")"
  [ -n "$was" ] || return 0
  if [ "$(cd "$was" 2>/dev/null && pwd -P)" != "$(cd "$dir" && pwd -P)" ]; then
    echo "== $dir was configured in $was: configuring it here again" >&2
    rm -rf "$dir"
  fi
}
