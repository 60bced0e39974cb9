#!/bin/sh
# overlay.sh GPUSIM SOURCE_DIR — `gpusim --overlay NAME` (src/app/overlay.c,
# docs/inspector.md):
#  - the tiles overlay's count for every tile equals the primitives of that
#    tile's list in the frame's own control lists as `--dump-cl` decodes them
#    (counted here with awk from the TILE_COORDINATES packets and the
#    primitive lines that follow), for the cube with QPU, SASS, PICA200 and
#    AGX programs, the triangle, and the primitives, antialias (32x32 tiles),
#    stencil, blend, tiles and interpolation (AGX) scenes;
#  - the PNG: the frame, its overlay and a legend strip 32 pixels high below
#    (at least 340 pixels wide); pixels worked by hand from the blend rule:
#    with the isa overlay a pixel no program wrote is the frame x 2/5
#    (scenes/triangle.lua's clear colour 26 26 38 -> 10 10 15), a pixel a QPU
#    program wrote is (grey + 3 x (230, 60, 50) + 2) / 4 with grey = (77 R +
#    150 G + 29 B) / 256 rounded down (64 65 127: grey 71 -> 190 63 55);
#  - --overlay help lists the overlays (status 0), an unknown name lists them
#    and exits 2.
. "$2/tests/cli/lib/common.sh"
cd "$tmp" || exit 1

cat > tiles.lua <<'LUA'
-- tiles.lua SCENE [ARGS]: frame 0 of the scene, then gpusim.overlay("tiles")
-- as lines "column row count" (row 0 at the bottom, as TILE_COORDINATES counts)
local gpusim = require "gpusim"
package.path = (arg[1]:match("^(.*)/scenes/[^/]*$") or ".") .. "/lua/?.lua;" .. package.path
loadfile(arg[1])(table.unpack(arg, 2))
gpusim.render {time = 0}
local t = gpusim.overlay("tiles")
for ty = 0, t.tiles_y - 1 do
  for tx = 0, t.tiles_x - 1 do
    print(tx, t.tiles_y - 1 - ty, t.tiles[ty * t.tiles_x + tx + 1])
  end
end
LUA

for combo in "cube.lua qpu" "cube.lua sass" "cube.lua pica:qpu" "cube.lua agx" "triangle.lua qpu" "primitives.lua" \
             "antialias.lua" "stencil.lua" "blend.lua" "tiles.lua" "interpolation.lua agx"; do
  set -- $combo
  scene=$src/scenes/$1
  shift
  "$gpusim" --headless --dump-cl cl.txt "$scene" "$@" > /dev/null || fail "--dump-cl $combo"
  # tile list primitives per TILE_COORDINATES (a tile named twice adds up: the
  # driver's first tile comes once without a list)
  awk '$2 == "115" { split($4, c, "="); split($5, r, "="); t = c[2] " " r[2]; seen[t] = 1 }
       $2 == "triangle" || $2 == "line" || $2 == "point" { n[t]++ }
       END { for (t in seen) print t, n[t] + 0 }' cl.txt | sort > want.txt
  "$gpusim" --headless tiles.lua "$scene" "$@" | awk '{ print $1, $2, $3 }' | sort > got.txt || fail "tiles.lua $combo"
  [ -s want.txt ] || fail "$combo: no tiles in the dump"
  cmp -s want.txt got.txt || fail "$combo: tile counts differ from the dump's tile lists: $(diff want.txt got.txt)"
done

# the PNG and its legend
"$gpusim" --headless --overlay isa -o isa.png "$src/scenes/triangle.lua" || fail "--overlay isa"
"$gpusim" --headless -o plain.png "$src/scenes/triangle.lua" || fail "-o"
if command -v convert > /dev/null; then
  size=$(convert isa.png -format '%w %h' info:)
  [ "$size" = "340 272" ] || fail "isa.png is $size, want 340 272 (320x240 and a 32-pixel legend)"
  px() { convert "$1" -crop "1x1+$2+$3" -depth 8 txt:- | sed -n 's/.*(\([0-9]*\),\([0-9]*\),\([0-9]*\).*/\1 \2 \3/p' | head -1; }
  [ "$(px plain.png 5 5)" = "26 26 38" ] || fail "plain (5, 5): $(px plain.png 5 5)"
  [ "$(px isa.png 5 5)" = "10 10 15" ] || fail "isa (5, 5): $(px isa.png 5 5), want 10 10 15"
  [ "$(px plain.png 160 120)" = "64 65 127" ] || fail "plain (160, 120): $(px plain.png 160 120)"
  [ "$(px isa.png 160 120)" = "190 63 55" ] || fail "isa (160, 120): $(px isa.png 160 120), want 190 63 55"
fi
for k in tiles overdraw trisize order; do
  "$gpusim" --headless --overlay $k -o $k.png "$src/scenes/cube.lua" sass || fail "--overlay $k"
  [ -s $k.png ] || fail "--overlay $k wrote nothing"
done

# names
"$gpusim" --overlay help > out 2> err || fail "--overlay help: status $?"
for k in tiles overdraw trisize isa order; do grep -q "^  $k " out || fail "--overlay help lacks $k: $(cat out)"; done
"$gpusim" --headless --overlay nope -o x.png "$src/scenes/triangle.lua" > out 2> err
status=$?
[ $status -eq 2 ] || fail "--overlay nope: status $status, want 2"
grep -q "unknown overlay 'nope'" err || fail "--overlay nope: $(cat err)"
grep -q "^  overdraw " err || fail "--overlay nope does not list the overlays: $(cat err)"
[ ! -e x.png ] || fail "--overlay nope wrote x.png"
exit 0
