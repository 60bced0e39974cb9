#!/bin/sh
# report.sh GPUSIM SOURCE_DIR — `gpusim report` (src/app/report.c,
# docs/report.md), opened in headless Chromium (Debian's chromium package,
# which `make test` installs; the test is skipped, exit 77, only when no
# chromium is installed):
#  - the file is self-contained: no http(s) URL, every src= a data: URI, no
#    <link> or external script;
#  - the page loads without an error (window.onerror and console.error are
#    listed in #errors, which must stay empty) and, with #selftest=X,Y, a
#    click at pixel (X, Y) shows that pixel's provenance — every pixel is
#    explained, from one traced run — equal to `gpusim why`'s text line by
#    line, and the page's JSON of it (#provjson) byte for byte equal to
#    `gpusim why --json` (fragments with draw, primitive, packets, tile,
#    programs, lane, depth, output, fate; missed primitives and reasons;
#    the final colour): pixels of the triangle inside it near its corners
#    and edges (odd columns and rows, which the old grid of every 8th pixel
#    missed) and outside it (no fragment, the clear colour 0xff261a1a of the
#    scene's CLEAR_COLORS read as bytes r=0x1a g=0x1a b=0x26 a=0xff =
#    26 26 38 255), the final colour also the PNG's pixel (ImageMagick);
#    frame 5 of the cube (a depth_failed fragment by early Z); course
#    lesson 03's shared edge (a not_covered primitive);
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

"$gpusim" report --step 8 "$src/scenes/triangle.lua" -o st.html > /dev/null 2> err.txt
[ $? = 2 ] || fail "report --step (dropped: every pixel is explained): expected exit 2"
[ ! -e st.html ] || fail "report --step wrote st.html"

scene=$src/scenes/triangle.lua
"$gpusim" report "$scene" -o r.html || fail "gpusim report exited $?"
! grep -Eq 'https?://' r.html || fail "r.html names a URL: $(grep -Eo '.{20}https?://.{20}' r.html | head -1)"
! grep -Eq '(src|href)="[^d#]' r.html || fail "r.html refers to a file: $(grep -Eo '(src|href)="[^d#].{20}' r.html | head -1)"
! grep -Eqi '<link|<script src|<iframe' r.html || fail "r.html loads something"

# The page's DOM after a click on (X, Y) of report $3 (default r.html); the
# provenance panel as text (prov.txt) and the page's JSON of it (prov.json).
dom() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --dump-dom \
    "file://$tmp/${3:-r.html}#selftest=$1,$2" > dom.html 2> chromium.log || fail "chromium exited $?: $(tail -3 chromium.log)"
  grep -q 'data-ready="1"' dom.html || fail "the page did not finish (no data-ready): $(tail -c 300 dom.html)"
  grep -q '<ul id="errors"></ul>' dom.html ||
    fail "the page reports errors: $(grep -o '<ul id="errors">.*</ul>' dom.html | head -c 600)"
  # the <pre id="prov"> element, tags dropped, entities of the text decoded
  tr '\n' '\001' < dom.html | sed 's/.*<pre id="prov">//; s/<\/pre>.*//' |
    tr '\001' '\n' | sed 's/<[^>]*>//g; s/&gt;/>/g; s/&lt;/</g; s/&quot;/"/g; s/&amp;/\&/g; s/ *$//' > prov.txt
  [ -s prov.txt ] || fail "no provenance panel in the DOM"
  sed -n 's/.*<pre id="provjson" hidden="">\([^<]*\)<\/pre>.*/\1/p' dom.html |
    sed 's/&gt;/>/g; s/&lt;/</g; s/&quot;/"/g; s/&amp;/\&/g' > prov.json
  [ -s prov.json ] || fail "no provenance JSON in the DOM"
}

# A click on pixel (X, Y) of report $3 of scene $4 (frame $5, default 0)
# shows exactly what gpusim why gives for it: the panel's text line by line,
# and the page's JSON of it byte for byte what gpusim why --json prints
# (fragments in order with draw, primitive, packets, tile, programs, lane,
# depth, output and fate; missed primitives with their reasons; final).
same_as_why() {
  dom "$1" "$2" "$3"
  "$gpusim" why --frame "${5:-0}" "$4" "$1" "$2" | sed 's/ *$//' > why.txt || fail "gpusim why $4 $1 $2 exited $?"
  sed '/^$/d' prov.txt > prov_body.txt
  cmp -s why.txt prov_body.txt || fail "$4 ($1, $2): the panel differs from gpusim why: $(diff why.txt prov_body.txt)"
  "$gpusim" why --json --frame "${5:-0}" "$4" "$1" "$2" > why.json || fail "gpusim why --json exited $?"
  cmp -s why.json prov.json || fail "$4 ($1, $2): the page's JSON differs from gpusim why --json:
$(cat why.json)
$(cat prov.json)"
}

# The triangle: its middle (161, 121) and odd pixels by its edges (the
# grid of the old reports, every 8th from (4, 4), held none of them) —
# next to the apex at (160, 23) and on the left edge at (97, 119) — and
# (2, 3), outside it. Each is worked out by hand from the screen vertices
# (32, 24), (288, 24), (160, 216) (y up): (159, 25) is pipeline row 214,
# whose centre 214.5 the triangle spans from x 159 to 161; (97, 119) row
# 120, left edge at x = 32 + 96.5 * 128 / 192 = 96.3 < 97.5. (Every other
# pixel is checked by the digest below.)
same_as_why 161 121 r.html "$scene"
grep -q "^     fate: written$" prov.txt || fail "(161, 121): no 'fate: written'"
final=$(grep -o '"final": \[[0-9, ]*\]' why.json | sed 's/.*\[//; s/\]//; s/,//g')
"$gpusim" --headless -o frame.png "$scene" || fail "rendering frame.png"
png=$(convert frame.png -crop 1x1+161+121 -depth 8 txt:- | sed -n 's/^0,0: (\([0-9]*\),\([0-9]*\),\([0-9]*\),\([0-9]*\)).*/\1 \2 \3 \4/p')
[ "$png" = "$final" ] || fail "the PNG's pixel (161, 121) is '$png', the report's final colour $final"
for xy in "159 25" "97 119"; do
  same_as_why ${xy% *} ${xy#* } r.html "$scene"
  grep -q "^1 fragment, " prov.txt || fail "($xy) is inside the triangle: $(cat prov.txt)"
done
same_as_why 2 3 r.html "$scene"
grep -q "^0 fragments, in the order they reached the pixel.$" prov.txt || fail "(2, 3) has fragments: $(cat prov.txt)"
grep -q "^final colour: 26 26 38 255$" prov.txt || fail "(2, 3)'s final colour: $(tail -1 prov.txt)"
cp dom.html tri_dom.html

# Frame 5 of the cube: (100, 100) has two fragments, the far face's failing
# early Z against the near one's depth.
"$gpusim" report --frame 5 "$src/scenes/cube.lua" -o cube.html || fail "gpusim report of the cube exited $?"
same_as_why 100 100 cube.html "$src/scenes/cube.lua" 5
grep -q "^     fate: depth_failed (early Z, before shading)$" prov.txt || fail "cube (100, 100): $(cat prov.txt)"
# Course lesson 03: (160, 120) on the shared edge, which the fill rule
# gives to triangle 1 (triangle 0 missed: not_covered).
"$gpusim" report "$src/scenes/course/03-fill-rule.lua" -o fill.html || fail "gpusim report of lesson 03 exited $?"
same_as_why 160 120 fill.html "$src/scenes/course/03-fill-rule.lua"
grep -q "triangle 0 (vertices 0, 1, 2): not_covered$" prov.txt || fail "lesson 03 (160, 120): $(cat prov.txt)"
cp tri_dom.html dom.html

# Every pixel, not only those clicked: the page's JSON of each pixel of the
# frame, one a line from the top-left, through 32-bit FNV-1a (#digest)
# equals the same of gpusim.why_all's answers written as why --json writes
# them (lib/why_digest.lua), which tests/lua/why_all.lua checks against
# gpusim.why pixel by pixel: the triangle, lesson 03 (missed primitives),
# lesson 05 (depth tests) and the cube (every fragment with a stored depth).
"$gpusim" report "$src/scenes/course/05-depth.lua" -o depth.html || fail "gpusim report of lesson 05 exited $?"
"$gpusim" report "$src/scenes/cube.lua" -o cube0.html || fail "gpusim report of the cube exited $?"
for pair in "r.html scenes/triangle.lua" "fill.html scenes/course/03-fill-rule.lua" \
            "depth.html scenes/course/05-depth.lua" "cube0.html scenes/cube.lua"; do
  page=${pair% *} s=${pair#* }
  want=$("$gpusim" --headless "$src/tests/cli/lib/why_digest.lua" "$src/$s" | tail -1) || fail "why_digest.lua $s exited $?"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$tmp/$page#digest" > digest.html 2> chromium.log ||
    fail "chromium exited $?: $(tail -3 chromium.log)"
  got=$(grep -o '<pre id="digest">[0-9a-f]*</pre>' digest.html | sed 's/<[^>]*>//g')
  [ -n "$want" ] && [ "$got" = "$want" ] || fail "$s: the page's digest of every pixel is '$got', gpusim.why_all's '$want'"
done

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
