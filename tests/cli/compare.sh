#!/bin/sh
# compare.sh GPUSIM SOURCE_DIR — `gpusim SCENE.lua [ARGS] --compare COMBO...`
# (src/app/compare.c, docs/inspector.md):
#  - each combination's count of differing pixels equals what `gpusim diff`
#    counts between the first combination's frame and its own, each rendered
#    alone with `gpusim --headless -o` (the cube with QPU, SASS, PICA200 and
#    AGX programs; the triangle);
#  - a scene of one clear colour chosen by its first argument, 8x8: the run
#    for COMBO gets `COMBO ARGS...` (the script prints them), combinations
#    clearing to the same colour differ in 0 pixels, another colour in all
#    64; the picture's size from the layout (8x8 enlarged 4 times: 120x124);
#  - a combination the scene refuses fails with status 1 naming it; no
#    combination is a usage error (2).
. "$2/tests/cli/lib/common.sh"
cd "$tmp" || exit 1

check_counts() { # SCENE COMBO...
  scene=$1
  shift
  "$gpusim" --headless -o all.png "$scene" --compare "$@" > counts.txt 2> err || fail "--compare $*: $(cat err)"
  [ -s all.png ] || fail "--compare $* wrote no picture"
  first=$1
  "$gpusim" --headless -o first.png "$scene" "$first" || fail "-o $first"
  shift
  for c in "$@"; do
    "$gpusim" --headless -o other.png "$scene" "$c" || fail "-o $c"
    "$gpusim" diff first.png other.png > diff.txt
    want=$(sed -n 's/^differing pixels: \([0-9]*\) of \([0-9]*\).*/\1 of \2/p' diff.txt)
    has counts.txt "$c: $want pixels differ from $first"
  done
}
check_counts "$src/scenes/cube.lua" qpu sass pica:qpu agx
check_counts "$src/scenes/triangle.lua" sass qpu

cat > colours.lua <<'LUA'
local gpusim = require "gpusim"
local which, extra = ...
print("args", which, extra)
local colour = ({a = {1, 0, 0, 1}, b = {1, 0, 0, 1}, c = {0, 0, 1, 1}})[which]
assert(colour, "unknown combination " .. tostring(which))
gpusim.frame(function(frame) frame:clear {color = colour} end,
             gpusim.target {width = 8, height = 8, format = "rgba8888"})
LUA
"$gpusim" --headless -o pic.png colours.lua more --compare a b c > out 2> err || fail "colours: $(cat err)"
has out "args	a	more"
has out "args	b	more"
has out "args	c	more"
has out "b: 0 of 64 pixels differ from a"
has out "c: 64 of 64 pixels differ from a"
if command -v convert > /dev/null; then
  size=$(convert pic.png -format '%w %h' info:)
  [ "$size" = "120 124" ] || fail "the picture is $size, want 120 124"
fi

"$gpusim" --headless -o bad.png colours.lua --compare a zzz > out 2> err
status=$?
[ $status -eq 1 ] || fail "a refused combination: status $status, want 1"
grep -q "colours.lua zzz" err || fail "the failing combination is not named: $(cat err)"
grep -q "unknown combination zzz" err || fail "the scene's message is lost: $(cat err)"
[ ! -e bad.png ] || fail "a failed comparison wrote its picture"
"$gpusim" --headless -o bad.png colours.lua --compare > out 2> err
status=$?
[ $status -eq 2 ] || fail "--compare with no combination: status $status, want 2"
exit 0
