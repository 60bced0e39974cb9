#!/bin/sh
# ref_images.sh GPUSIM SOURCE_DIR — every scene under scenes/ that draws
# (registers gpusim.frame) renders headless, one frame, at a fixed size and
# matches tests/ref/<scene>.png within a tolerance per 8-bit channel, as
# `gpusim diff --tolerance T` counts it. A mismatch writes
# <build dir>/<scene>-diff.png (differing pixels in red) and prints its path.
#
# Each reference image is backed by a test that checks the scene's pixels
# against formulas or exact coverage (tests/lua/scene_<scene>.lua); a
# reference is only (re)generated, with
#   gpusim --headless --size WxH -o tests/ref/<scene>.png scenes/<scene>.lua
# after that test passes. A drawing scene without an entry below fails.
set -u
gpusim=$1
src=$2
build=$(cd "$(dirname "$gpusim")" && pwd)
cd "$src" || exit 1

# scene  size  tolerance — the size is the scene's own target size, the one
# its check test renders at.
refs='
triangle 320x240 1
interpolation 384x128 1
primitives 512x256 0
cube 256x256 1
blend 256x256 0
tiles 256x256 0
stencil 256x256 0
blend_modes 256x128 0
antialias 256x256 0
'

status=0
for scene in scenes/*.lua; do
  [ -e "$scene" ] || continue
  grep -q 'gpusim\.frame' "$scene" || continue     # not a drawing scene
  name=$(basename "$scene" .lua)
  entry=$(printf '%s\n' "$refs" | awk -v n="$name" '$1 == n {print $2, $3}')
  if [ -z "$entry" ]; then
    echo "FAIL: $scene draws but has no entry in tests/cli/ref_images.sh" >&2
    status=1
    continue
  fi
  size=${entry% *}
  tol=${entry#* }
  ref=tests/ref/$name.png
  out=$build/$name-render.png
  diffpng=$build/$name-diff.png
  if [ ! -e "$ref" ]; then
    echo "FAIL: $scene: no reference image $ref" >&2
    status=1
    continue
  fi
  if ! "$gpusim" --headless --frames 1 --size "$size" -o "$out" "$scene" > /dev/null; then
    echo "FAIL: $scene did not render" >&2
    status=1
    continue
  fi
  if ! "$gpusim" diff "$ref" "$out" --tolerance "$tol" -o "$diffpng"; then
    echo "FAIL: $scene differs from $ref beyond tolerance $tol; see $diffpng" >&2
    status=1
  else
    rm -f "$diffpng"
  fi
done
exit $status
