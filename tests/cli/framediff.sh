#!/bin/sh
# framediff.sh GPUSIM SOURCE_DIR — `gpusim diff --frames`: pairs of runs of
# tests/cli/framediff/scene.lua with one known change each, the expected
# first difference and changed pixels worked out by hand from the scene's
# rectangles (image coordinates; each rectangle covers exactly the pixels
# whose centres it holds):
#   colour  draw 1's fragment uniforms red -> green: words 0 and 1 of
#           record.fs_uniforms; all 32x32 = 1024 pixels of the red square
#           (it is in front of the blue one where they overlap)
#   vertex  draw 1's right edge 48 -> 40: vertex 1's x 0.5 -> 0.25 in the
#           draw's attribute 0; columns 40..47 of rows 16..47: 8x32 = 256
#   depth   depth test less -> always: CONFIGURATION_BITS depth_func, both
#           draws; the overlap x 32..47, y 16..31 turns blue: 16x16 = 256
#   extra   a third draw: packets added in B, draw 3 new; 8x8 = 64 pixels
#   insert  the same draw between 1 and 2: draw 2 new, the blue draw (now
#           3) matched with A's draw 2 unchanged; 64 pixels
#   sass    draw 1's fragment program in SASS writing the same red: the
#           shader record's fs_code first (qpu vs sass), 0 pixels
#   texred -> texgreen  draw 1's 1x1 texture red -> green: the texture
#           memory its first config word points to, texel 0 0xff0000ff ->
#           0xff00ff00 (bytes R G B A); 1024 pixels
#   texred -> texmoved  the same texture 8 KB further in GPU memory (its
#           config word differs): identical, exit 0
# and the identical pair (exit 0), the two-file form, --json (read back
# into a Lua table), --frame, and the exit status 2 for errors.
. "$2/tests/cli/lib/common.sh"
g="$1"
cd "$src" || exit 1
s=tests/cli/framediff/scene.lua
line() { grep -n "$1" "$s" | head -1 | cut -d: -f1; }
l1=$(line "vertices = red_rect")
l2=$(line "vertices = blue_rect")
lg=$(line "vertices = green_rect")
lx=$(grep -n "vertices = green_rect" "$s" | tail -1 | cut -d: -f1)

run() { # run NAME EXPECTED-STATUS ARGS...: output in $tmp/NAME
  name=$1 want=$2
  shift 2
  "$g" diff --frames "$@" > "$tmp/$name" 2> "$tmp/$name.err"
  st=$?
  [ "$st" = "$want" ] || fail "$name: exit $st, expected $want: $(cat "$tmp/$name" "$tmp/$name.err")"
}

run same 0 "$s" -- base
has "$tmp/same" "identical: every packet, record and pixel is the same"
run same2 0 "$s" -- base -- base
has "$tmp/same2" "identical: every packet, record and pixel is the same"

run colour 1 --pixels 1 "$s" -- base -- colour
has "$tmp/colour" "first difference: binning list, packet changed:"
grep -q '^  A 0x[0-9a-f]\{8\}   64 GL_SHADER_STATE$' "$tmp/colour" || fail "colour: $(cat "$tmp/colour")"
has "$tmp/colour" "    record.fs_uniforms, word 0: 0x3f800000 (1) vs 0x00000000 (0)"
has "$tmp/colour" "    record.fs_uniforms, word 1: 0x00000000 (0) vs 0x3f800000 (1)"
has "$tmp/colour" "  affects in A: draw 1 ($s:$l1)"
has "$tmp/colour" "  affects in B: draw 1 ($s:$l1)"
has "$tmp/colour" "draws: 2 in A, 2 in B"
has "$tmp/colour" "changed pixels: 1024 of 4096, in x 16..47, y 16..47 (from the top-left)"
has "$tmp/colour" "pixel (16, 16):"
has "$tmp/colour" "  A: final 255 0 0 255; 1 fragment"
has "$tmp/colour" "  B: final 0 255 0 255; 1 fragment"
grep -q "^      draw 1 ($s:$l1) primitive 0, qpu program 0x[0-9a-f]*: written, output 0 255 0 255$" "$tmp/colour" ||
  fail "colour: B's fragment: $(cat "$tmp/colour")"

run vertex 1 --pixels 1 "$s" -- base -- vertex
grep -q '^  B 0x[0-9a-f]\{8\}   33 VERTEX_ARRAY_PRIMITIVES$' "$tmp/vertex" || fail "vertex: $(cat "$tmp/vertex")"
has "$tmp/vertex" "    attribute 0 data, vertex 1: 0x3f000000 0x3f000000 0x3f000000 0x3f800000 vs 0x3e800000 0x3f000000 0x3f000000 0x3f800000"
has "$tmp/vertex" "  affects in A: draw 1 ($s:$l1)"
has "$tmp/vertex" "changed pixels: 256 of 4096, in x 40..47, y 16..47 (from the top-left)"
has "$tmp/vertex" "pixel (40, 16):"
has "$tmp/vertex" "  A: final 255 0 0 255; 2 fragments"
grep -q "^      draw 2 ($s:$l2) primitive 1, qpu program 0x[0-9a-f]*: depth_failed$" "$tmp/vertex" ||
  fail "vertex: A's second fragment: $(cat "$tmp/vertex")"
has "$tmp/vertex" "  B: final 0 0 255 255; 1 fragment"

run depth 1 --pixels 0 "$s" -- base -- depth
grep -A1 '^  B 0x[0-9a-f]\{8\}   96 CONFIGURATION_BITS$' "$tmp/depth" | tail -1 | grep -qx '    depth_func: lt vs always' ||
  fail "depth: $(cat "$tmp/depth")"
has "$tmp/depth" "  affects in B: draw 1 ($s:$l1), draw 2 ($s:$l2)"
has "$tmp/depth" "changed pixels: 256 of 4096, in x 32..47, y 16..31 (from the top-left)"

run extra 1 --pixels 0 "$s" -- base -- extra
has "$tmp/extra" "first difference: binning list, packet added in B (A has no such packet here):"
grep -q '^  B 0x[0-9a-f]\{8\}   64 GL_SHADER_STATE$' "$tmp/extra" || fail "extra: $(cat "$tmp/extra")"
has "$tmp/extra" "  affects in B: draw 3 ($s:$lx)"
has "$tmp/extra" "draws: 2 in A, 3 in B; new in B: draw 3 ($s:$lx)"
has "$tmp/extra" "changed pixels: 64 of 4096, in x 0..7, y 0..7 (from the top-left)"
run removed 1 --pixels 0 "$s" -- extra -- base
has "$tmp/removed" "draws: 3 in A, 2 in B; only in A: draw 3 ($s:$lx)"

run insert 1 --pixels 0 "$s" -- base -- insert
has "$tmp/insert" "draws: 2 in A, 3 in B; new in B: draw 2 ($s:$lg)"
has "$tmp/insert" "  affects in B: draw 2 ($s:$lg)"
! grep -q "list changed" "$tmp/insert" || fail "insert: a packet changed: $(cat "$tmp/insert")"
has "$tmp/insert" "changed pixels: 64 of 4096, in x 0..7, y 0..7 (from the top-left)"

run sass 1 "$s" -- base -- sass
grep -A1 '^  B 0x[0-9a-f]\{8\}   64 GL_SHADER_STATE$' "$tmp/sass" | tail -1 | grep -qx '    record.fs_code.isa: qpu vs sass' ||
  fail "sass: $(cat "$tmp/sass")"
has "$tmp/sass" "  affects in B: draw 1 ($s:$l1)"
has "$tmp/sass" "changed pixels: 0 of 4096"

run texgreen 1 --pixels 0 "$s" -- texred -- texgreen
has "$tmp/texgreen" "    record.fs_uniforms, word 0: the memory at its address, word 0: 0xff0000ff vs 0xff00ff00"
has "$tmp/texgreen" "changed pixels: 1024 of 4096, in x 16..47, y 16..47 (from the top-left)"
run texmoved 0 "$s" -- texred -- texmoved
has "$tmp/texmoved" "identical: every packet, record and pixel is the same"
[ "$(head -1 "$tmp/texmoved.err")" != "$(tail -1 "$tmp/texmoved.err")" ] ||
  fail "texmoved: the texture did not move: $(cat "$tmp/texmoved.err")"

run files 1 --pixels 0 "$s" tests/cli/framediff/green.lua -- base --
has "$tmp/files" "B: frame 0 of tests/cli/framediff/green.lua (64x64)"
has "$tmp/files" "    record.fs_uniforms, word 0: 0x3f800000 (1) vs 0x00000000 (0)"
run frame1 1 --frame 1 --pixels 0 --threads 2 "$s" -- base -- colour
has "$tmp/frame1" "A: frame 1 of $s base (64x64)"
has "$tmp/frame1" "changed pixels: 1024 of 4096, in x 16..47, y 16..47 (from the top-left)"

# --json, read back as a Lua table (its arrays and objects become tables)
run json 1 --json --pixels 1 "$s" -- base -- colour
cat > "$tmp/read.lua" <<'LUA'
local text = assert(io.open(arg[1])):read("a")
-- arrays become tables, "key": becomes ["key"] = (no string here holds a bracket)
local lua = text:gsub("%[", "{"):gsub("%]", "}"):gsub('("[^"]*")%s*:', "[%1] ="):gsub("null", "nil")
local t = assert(load("return " .. lua))()
local function eq(a, b, what) if a ~= b then error(what .. ": " .. tostring(a) .. " ~= " .. tostring(b)) end end
eq(t.identical, false, "identical")
eq(t.pixels.changed, 1024, "changed")
eq(t.pixels.total, 4096, "total")
eq(t.pixels.box.x0, 16, "x0") eq(t.pixels.box.y1, 47, "y1")
local f = t.first_difference
eq(f.list, "binning", "list") eq(f.change, "changed", "change") eq(f.a.name, "GL_SHADER_STATE", "name")
eq(f.fields[1].field, "record.fs_uniforms, word 0", "field") eq(f.fields[1].a, "0x3f800000 (1)", "a")
eq(f.fields[1].b, "0x00000000 (0)", "b")
eq(f.draws.b[1].draw, 1, "draw") eq(f.draws.b[1].where, "tests/cli/framediff/scene.lua:" .. arg[2], "where")
eq(t.draws.a, 2, "draws a") eq(#t.draws.added, 0, "added")
eq(#t.differences, 2, "differences")
local p = t.pixels.samples[1]
eq(p.x, 16, "x") eq(p.a.final[1], 255, "A red") eq(p.b.final[2], 255, "B green")
eq(p.b.fragments[1].fate, "written", "fate") eq(p.b.fragments[1].draw, 1, "fragment draw")
eq(t.a.args[1], "base", "args") eq(t.b.args[1], "colour", "args")
LUA
"$g" --headless "$tmp/read.lua" "$tmp/json" "$l1" || fail "json: $(cat "$tmp/json")"

# every "$ gpusim diff --frames ..." example of docs/frame-diff.md is what
# the command prints now (bus addresses masked: they move whenever the
# driver or a helper's programs change size)
awk -v dir="$tmp" '
  /^\$ gpusim diff --frames/ { n++; sub(/^\$ gpusim /, ""); print > (dir "/doc" n ".cmd"); on = 1; next }
  on && /^```/ { on = 0; next }
  on { print > (dir "/doc" n ".out") }
' docs/frame-diff.md
mask() { sed 's/^\(  [AB] \)0x[0-9a-f]\{8\}/\1ADDR/; s/program 0x[0-9a-f]\{8\}/program ADDR/g' "$1"; }
ndoc=0
for c in "$tmp"/doc*.cmd; do
  [ -f "$c" ] || fail "no example in docs/frame-diff.md"
  ndoc=$((ndoc + 1))
  # shellcheck disable=SC2046
  "$g" $(cat "$c") > "$tmp/docrun" 2>/dev/null
  mask "$tmp/docrun" > "$tmp/docgot"
  mask "${c%.cmd}.out" > "$tmp/docwant"
  cmp -s "$tmp/docgot" "$tmp/docwant" || fail "docs/frame-diff.md: $(cat "$c"): $(diff "$tmp/docwant" "$tmp/docgot")"
done
[ "$ndoc" -ge 3 ] || fail "docs/frame-diff.md: $ndoc examples"

# errors: exit 2
run noscene 2
run badopt 2 --frame x "$s"
run three 2 "$s" "$s" "$s"
run missing 2 "$tmp/none.lua"
printf 'print("no frame")\n' > "$tmp/noframe.lua"
run noframe 2 "$tmp/noframe.lua"
grep -q "registered no frame callback" "$tmp/noframe.err" || fail "noframe: $(cat "$tmp/noframe.err")"
printf 'error("broken")\n' > "$tmp/broken.lua"
run broken 2 "$s" "$tmp/broken.lua" -- base --
grep -q "broken.lua:1: broken" "$tmp/broken.err" || fail "broken: $(cat "$tmp/broken.err")"
# the image diff is still there without --frames
mkpng "$tmp/a.png" 4 4 || true
[ -f "$tmp/a.png" ] && { "$g" diff "$tmp/a.png" "$tmp/a.png" > /dev/null || fail "image diff of one image"; }
exit 0
