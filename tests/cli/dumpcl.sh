#!/bin/sh
# dumpcl.sh GPUSIM SOURCE_DIR — `gpusim dump-cl` from the command line: a
# list of two packets dumps with addresses from --base; a truncated packet
# and an unknown ID fail with exit 1 naming the address. `gpusim
# --dump-cl FILE SCENE.lua` writes a rendered frame's lists, with the tile
# lists the binner wrote, and nothing when the scene fails.
. "$2/tests/cli/lib/common.sh"

# NOP (1), then Flat Shade Flags (97) with flags 0x00000005
printf '\001\141\005\000\000\000' > "$tmp/ok.bin"
out=$("$gpusim" dump-cl --base 0x2000 "$tmp/ok.bin") || fail "dump of a valid list exited $?"
echo "$out" | grep -q '^0x00002000  1 NOP$' || fail "no '1 NOP' line at 0x00002000: $out"
echo "$out" | grep -q '^0x00002001  97 FLAT_SHADE_FLAGS  flat_varyings=0x00000005$' || fail "no '97 FLAT_SHADE_FLAGS' line at 0x00002001: $out"

# Tile Binning Mode Config (112) cut short after 6 bytes
printf '\001\160\000\000\000\000\000' > "$tmp/short.bin"
err=$("$gpusim" dump-cl --base 0x1000 "$tmp/short.bin" 2>&1 >/dev/null)
[ $? -eq 1 ] || fail "a truncated packet must exit 1"
echo "$err" | grep -q '0x00001001' || fail "truncation message lacks the address: $err"

# ID 3 is reserved
printf '\003' > "$tmp/bad.bin"
err=$("$gpusim" dump-cl "$tmp/bad.bin" 2>&1 >/dev/null)
[ $? -eq 1 ] || fail "an unknown packet must exit 1"
echo "$err" | grep -q 'unknown control-list packet ID 3' || fail "unknown-ID message: $err"

"$gpusim" dump-cl --help > /dev/null || fail "--help must exit 0"

# A scene's lists: the triangle spans tiles 0..4 x 0..3 of its 320x240 frame
"$gpusim" --headless --dump-cl "$tmp/tri.txt" "$src/scenes/triangle.lua" || fail "--dump-cl of triangle.lua exited $?"
for want in '^# binning list (CT0CA 0x' '  112 TILE_BINNING_MODE_CONFIGURATION .* width_tiles=5 height_tiles=4' \
            '  33 VERTEX_ARRAY_PRIMITIVES  mode=triangles length=3' '^# rendering list (CT1CA 0x' \
            '  115 TILE_COORDINATES  column=4 row=3' '^0x[0-9a-f]*    48 COMPRESSED_PRIMITIVE_LIST' \
            'triangle  coding=[0-9] indices=0,1,2' '  25 STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF'; do
  grep -q "$want" "$tmp/tri.txt" || fail "--dump-cl output lacks '$want'"
done
# every tile of the rendering list is dumped once
[ "$(grep -c '  115 TILE_COORDINATES' "$tmp/tri.txt")" -eq 21 ] || fail "expected 21 TILE_COORDINATES (20 tiles + the clear)"
# a failing scene writes no file
printf 'local g = require "gpusim"\ng.frame(function(f) error("boom") end)\n' > "$tmp/bad.lua"
"$gpusim" --headless --dump-cl "$tmp/bad.txt" "$tmp/bad.lua" 2>/dev/null && fail "a failing scene must exit non-zero"
[ ! -e "$tmp/bad.txt" ] || fail "a failing scene must not leave a --dump-cl file"
# an unwritable path is an error naming it
err=$("$gpusim" --headless --dump-cl "$tmp/no/such/dir.txt" "$src/scenes/triangle.lua" 2>&1 >/dev/null)
[ $? -eq 1 ] || fail "an unwritable --dump-cl path must exit 1"
echo "$err" | grep -q 'no/such/dir.txt' || fail "the message must name the path: $err"
exit 0
