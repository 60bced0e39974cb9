#!/bin/sh
# report.sh GPUSIM SOURCE_DIR — `gpusim report` (src/app/report.c,
# docs/report.md), opened in headless Chromium (Debian's chromium package,
# which `make test` installs; the test is skipped, exit 77, only when no
# chromium is installed):
#  - the file is self-contained: no http(s) URL, every src= a data: URI, no
#    <link> or external script;
#  - the page loads without an error (window.onerror and console.error are
#    listed in #errors, which must stay empty) and, with #selftest=X,Y, a
#    click at pixel (X, Y) shows the provenance of the nearest explained
#    pixel: for scenes/triangle.lua with --step 16 the click at (161, 121)
#    shows pixel (168, 120) (grid columns 8, 24, ..., 168 nearest 161, rows
#    8, ..., 120 nearest 121), and
#    its text equals what `gpusim why` prints for that pixel, line by line
#    after the first; the fate and the final colour are also the ones
#    `gpusim why --json` gives, and the final colour is the PNG's pixel
#    (read with ImageMagick); a click at (2, 3) shows pixel (8, 8), outside
#    the triangle: no fragment, the clear colour 0xff261a1a of the scene's
#    CLEAR_COLORS read as bytes r=0x1a g=0x1a b=0x26 a=0xff = 26 26 38 255;
#  - the tile table: tile (1, 0) (pipeline rows, 0 at the bottom) is pixels
#    x 64..127, y 0..63 of the frame's bottom; the triangle (screen vertices
#    (32, 24), (288, 24), (160, 216), y up) covers rows 24..63 of it whole
#    (the left edge is at x = 32 + (63.5 - 24) * 128 / 192 = 58.3 < 64 on
#    the top row), so 1 primitive, 40 x 64 = 2560 fragments, 2560 pixels
#    reached, overdraw 1.00, all shaded by the QPU in 160 batches (the 4x4
#    blocks of rows 24..63: 10 rows of 16 blocks), and the table has a
#    column for the QPU only (the frame's only ISA);
#  - the control-list browser has the rendering list's TILE_COORDINATES of
#    every one of the 5 x 4 tiles, and the draw packet is linked to the 14
#    tiles the triangle overlaps (worked out below), the same tiles the
#    table counts primitives in;
#  - --help (0), no -o (2), a scene that fails or has no frame (1, nothing
#    written).
. "$2/tests/cli/lib/common.sh"
cd "$tmp" || exit 1
command -v chromium > /dev/null 2>&1 || { echo "SKIP: no chromium (make test installs it)"; exit 77; }
export HOME="$tmp" # chromium writes its profile and crash reports under HOME
export LC_ALL=C    # sort, below

"$gpusim" report --help > help.txt || fail "report --help exited $?"
grep -q "^usage: gpusim report" help.txt || fail "report --help: $(cat help.txt)"
"$gpusim" report "$src/scenes/triangle.lua" > /dev/null 2> err.txt
[ $? = 2 ] || fail "report without -o: expected exit 2"
printf 'error("no scene here")\n' > bad.lua
"$gpusim" report bad.lua -o bad.html > /dev/null 2> err.txt
[ $? = 1 ] || fail "a failing scene: expected exit 1"
grep -q "bad.lua:1" err.txt || fail "a failing scene's error names bad.lua:1: $(cat err.txt)"
[ ! -e bad.html ] || fail "a failing scene wrote bad.html"
printf 'local x = 1\n' > noframe.lua
"$gpusim" report noframe.lua -o nf.html > /dev/null 2> err.txt
[ $? = 1 ] || fail "a scene without frames: expected exit 1"
grep -q "no frame callback" err.txt || fail "a scene without frames: $(cat err.txt)"
[ ! -e nf.html ] || fail "a scene without frames wrote nf.html"

scene=$src/scenes/triangle.lua
"$gpusim" report --step 16 "$scene" -o r.html || fail "gpusim report exited $?"
! grep -Eq 'https?://' r.html || fail "r.html names a URL: $(grep -Eo '.{20}https?://.{20}' r.html | head -1)"
! grep -Eq '(src|href)="[^d#]' r.html || fail "r.html refers to a file: $(grep -Eo '(src|href)="[^d#].{20}' r.html | head -1)"
! grep -Eqi '<link|<script src|<iframe' r.html || fail "r.html loads something"

# The page's DOM after a click on (X, Y); the provenance panel as text.
dom() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --dump-dom \
    "file://$tmp/r.html#selftest=$1,$2" > dom.html 2> chromium.log || fail "chromium exited $?: $(tail -3 chromium.log)"
  grep -q 'data-ready="1"' dom.html || fail "the page did not finish (no data-ready): $(tail -c 300 dom.html)"
  grep -q '<ul id="errors"></ul>' dom.html ||
    fail "the page reports errors: $(grep -o '<ul id="errors">.*</ul>' dom.html | head -c 600)"
  # the <pre id="prov"> element, tags dropped, entities of the text decoded
  tr '\n' '\001' < dom.html | sed 's/.*<pre id="prov">//; s/<\/pre>.*//' |
    tr '\001' '\n' | sed 's/<[^>]*>//g; s/&gt;/>/g; s/&lt;/</g; s/&quot;/"/g; s/&amp;/\&/g; s/ *$//' > prov.txt
  [ -s prov.txt ] || fail "no provenance panel in the DOM"
}

dom 161 121
head -1 prov.txt | grep -q "^pixel (168, 120) of frame 0 of .*triangle.lua (the explained pixel nearest to (161, 121))$" ||
  fail "the panel's first line: $(head -1 prov.txt)"
"$gpusim" why "$scene" 168 120 > why.txt || fail "gpusim why exited $?"
tail -n +2 why.txt | sed 's/ *$//' > why_body.txt
tail -n +2 prov.txt | sed '/^$/d' > prov_body.txt
cmp -s why_body.txt prov_body.txt || fail "the panel differs from gpusim why: $(diff why_body.txt prov_body.txt)"
"$gpusim" why --json "$scene" 168 120 > why.json || fail "gpusim why --json exited $?"
fate=$(grep -o '"fate": "[a-z_]*"' why.json | sed 's/.*: "//; s/"//')
[ "$fate" = written ] || fail "why --json's fate: '$fate'"
grep -q "^     fate: $fate$" prov.txt || fail "the panel has no 'fate: $fate'"
final=$(grep -o '"final": \[[0-9, ]*\]' why.json | sed 's/.*\[//; s/\]//; s/,//g')
grep -q "^final colour: $final$" prov.txt || fail "the panel's final colour is not why's $final: $(tail -1 prov.txt)"
"$gpusim" --headless -o frame.png "$scene" || fail "rendering frame.png"
png=$(convert frame.png -crop 1x1+168+120 -depth 8 txt:- | sed -n 's/^0,0: (\([0-9]*\),\([0-9]*\),\([0-9]*\),\([0-9]*\)).*/\1 \2 \3 \4/p')
[ "$png" = "$final" ] || fail "the PNG's pixel (168, 120) is '$png', the report's final colour $final"

dom 2 3
head -1 prov.txt | grep -q "^pixel (8, 8) of frame 0 " || fail "click at (2, 3): $(head -1 prov.txt)"
grep -q "^0 fragments, in the order they reached the pixel.$" prov.txt || fail "(8, 8) has fragments: $(cat prov.txt)"
grep -q "^final colour: 26 26 38 255$" prov.txt || fail "(8, 8)'s final colour: $(tail -1 prov.txt)"

# The tile table: the row of tile (1, 0).
tr '\n' ' ' < dom.html | grep -o '<tr class="link"><td>(1, 0)</td>\(<td>[^<]*</td>\)*' | sed 's/<[^>]*>/ /g; s/  */ /g' > tile.txt
grep -q "^ (1, 0) #[0-9]* 1 2560 2560 1.00 1 160 / 2560 $" tile.txt || fail "tile (1, 0)'s row: $(cat tile.txt)"
# The draw packet's tiles (its row's title, from the lists: the tiles whose
# lists hold its record's primitives) are the tiles the triangle overlaps,
# worked out by hand row by row of 64 pixels (y up): at y = 192 it spans
# x 144..176 (column 2), at y = 128 x 101.3..218.7 (columns 1..3), at y = 64
# x 58.7..261.3 (columns 0..4), and row 0 holds the base, 32..288 (0..4);
# they are also the tiles the table counts primitives in (from the trace).
want="(0, 0) (0, 1) (1, 0) (1, 1) (1, 2) (2, 0) (2, 1) (2, 2) (2, 3) (3, 0) (3, 1) (3, 2) (4, 0) (4, 1) "
grep -o '<tr id="p0x[0-9a-f]*" class="link" title="[^"]*"><td class="mono">0x[0-9a-f]*</td><td class="mono"[^>]*>33 VERTEX_ARRAY_PRIMITIVES' dom.html |
  sed 's/.*title="tiles \([^"]*\)".*/\1/' | sed 's/) (/)\n(/g' | sort | tr '\n' ' ' > draw_tiles.txt
[ "$(cat draw_tiles.txt)" = "$want" ] || fail "the draw packet's tiles: '$(cat draw_tiles.txt)', expected '$want'"
tr '\n' ' ' < dom.html | grep -o '<tr class="link"><td>([0-9]*, [0-9]*)</td><td>[^<]*</td><td>[1-9][0-9]*</td>' |
  sed 's/^<tr class="link"><td>\(([0-9]*, [0-9]*)\)<.*/\1/' | sort | tr '\n' ' ' > table_tiles.txt
[ "$(cat table_tiles.txt)" = "$want" ] || fail "the tiles with primitives in the table: '$(cat table_tiles.txt)'"
for ty in 0 1 2 3; do
  for tx in 0 1 2 3 4; do
    grep -q "TILE_COORDINATES</td><td class=\"mono\"><span class=\"f\">column=<b>$tx</b></span><span class=\"f\">row=<b>$ty</b>" dom.html ||
      fail "the control-list browser has no TILE_COORDINATES column=$tx row=$ty"
  done
done
exit 0
