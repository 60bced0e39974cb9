#!/bin/sh
# ref_images.sh GPUSIM SOURCE_DIR — gpusim's own reference images, through
# `gpusim test tests/ref/manifest.lua`: every case renders headless at its
# scene's size and matches tests/ref/<scene>.png within its tolerance per
# 8-bit channel. A mismatch writes <build dir>/<scene>-diff.png (differing
# pixels in red) and <scene>-actual.png, and the report names them.
#
# Every scene under scenes/ that draws (registers gpusim.frame) must have a
# case in the manifest; a drawing scene without one fails here. How each
# reference is made and checked: tests/ref/manifest.lua.
set -u
gpusim=$1
src=$2
build=$(cd "$(dirname "$gpusim")" && pwd)
cd "$src" || exit 1
manifest=tests/ref/manifest.lua
status=0

# The scenes the manifest renders: column 2 of --list, relative to the
# current directory (the source tree).
list=$("$gpusim" test --list "$manifest") || { echo "FAIL: gpusim test --list $manifest" >&2; exit 1; }
scenes=$(printf '%s\n' "$list" | cut -f2)
[ -n "$scenes" ] || { echo "FAIL: $manifest lists no cases" >&2; exit 1; }
found=0
for scene in scenes/*.lua; do
  [ -e "$scene" ] || continue
  grep -q 'gpusim\.frame' "$scene" || continue     # not a drawing scene
  found=$((found + 1))
  if ! printf '%s\n' "$scenes" | grep -Fxq "$scene"; then
    echo "FAIL: $scene draws but has no case in $manifest" >&2
    status=1
  fi
done
[ "$found" -gt 0 ] || { echo "FAIL: no drawing scene found under scenes/" >&2; exit 1; }

"$gpusim" test --output-dir "$build" "$manifest" || status=1
exit $status
