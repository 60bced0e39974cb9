#!/bin/sh
# why.sh GPUSIM SOURCE_DIR — `gpusim why`: the text and the --json forms for
# the middle pixel of scenes/triangle.lua (one fragment: draw 1 at
# scenes/triangle.lua:101, triangle 0, vertices 0 1 2, written, the final
# colour the PNG shows there), the JSON parsed by a small parser and
# compared field by field, --frame on the rotating cube, and the exit
# statuses: 1 for a pixel outside the image, a script without frames and a
# script that does not load, 2 for usage errors.
. "$2/tests/cli/lib/common.sh"
. "$2/tests/cli/lib/docmask.sh"
g="$1"
src="$2"
cd "$src" || exit 1
"$g" why scenes/triangle.lua 160 120 > "$tmp/text" || fail "why exited $?"
grep -q '^  1\. draw 1 (scenes/triangle.lua:101), triangle 0 (vertices 0, 1, 2)$' "$tmp/text" || fail "text: $(cat "$tmp/text")"
grep -q '^     fate: written$' "$tmp/text" || fail "no fate line"
grep -q '^0 primitives cover the pixel without a fragment there\.$' "$tmp/text" || fail "missed line"
"$g" why --json --frame 2 scenes/triangle.lua 160 120 sass > "$tmp/json" || fail "why --json exited $?"
cat > "$tmp/check.lua" <<'LUA'
-- a JSON reader for the test: objects, arrays, strings without escapes, integers, booleans
local text = assert(io.open(arg[1])):read("a")
local pos = 1
local function ws() pos = text:find("[^ \n\r\t]", pos) or #text + 1 end
local value
local function expect(c) ws(); assert(text:sub(pos, pos) == c, "expected " .. c .. " at " .. pos); pos = pos + 1 end
function value()
  ws()
  local c = text:sub(pos, pos)
  if c == "{" then
    pos = pos + 1
    local t = {}
    ws()
    if text:sub(pos, pos) == "}" then pos = pos + 1 return t end
    repeat
      local k = value()
      expect(":")
      t[k] = value()
      ws()
      c = text:sub(pos, pos)
      pos = pos + 1
    until c == "}"
    return t
  elseif c == "[" then
    pos = pos + 1
    local t = {}
    ws()
    if text:sub(pos, pos) == "]" then pos = pos + 1 return t end
    repeat
      t[#t + 1] = value()
      ws()
      c = text:sub(pos, pos)
      pos = pos + 1
    until c == "]"
    return t
  elseif c == '"' then
    local e = text:find('"', pos + 1, true)
    local s = text:sub(pos + 1, e - 1)
    pos = e + 1
    return s
  elseif text:find("^true", pos) then pos = pos + 4 return true
  elseif text:find("^false", pos) then pos = pos + 5 return false
  else
    local num = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
    pos = pos + #num
    return math.tointeger(tonumber(num)) or tonumber(num)
  end
end
local j = value()
assert(j.x == 160 and j.y == 120 and j.frame == 2 and j.width == 320 and j.height == 240)
assert(#j.fragments == 1 and #j.missed == 0)
local f = j.fragments[1]
assert(f.fate == "written" and f.draw == 1 and f.where == "scenes/triangle.lua:101")
assert(f.primitive == 0 and #f.vertices == 3 and f.vertices[3] == 2)
assert(f.source.isa == "sass" and f.source.vertex_isa == "sass")
assert(f.packet.name == "VERTEX_ARRAY_PRIMITIVES" and f.tile_packet.name == "COMPRESSED_PRIMITIVE_LIST")
assert(f.tile.x == 2 and f.tile.y == 1) -- pixel 160 in 64-wide tiles; row 240 - 1 - 120 = 119 in the second
-- the final colour is the image's pixel
assert(#j.final == 4 and j.final[4] == 255)
for c = 1, 4 do assert(f.output[c] == j.final[c]) end
print("json ok")
LUA
"$g" --headless "$tmp/check.lua" "$tmp/json" > "$tmp/out" || fail "json check: $(cat "$tmp/out")"
# --frame N explains frame N of an animated scene: the rotating cube's
# frame 5, whose final colour is the pixel a script rendering frames 0..5
# itself reads (row 255 - 100 from the bottom), and differs from frame 0's.
"$g" why --json --frame 5 scenes/cube.lua 100 100 > "$tmp/cube5" || fail "cube --frame 5"
"$g" why --json scenes/cube.lua 100 100 > "$tmp/cube0" || fail "cube frame 0"
cat > "$tmp/cube.lua" <<'LUA'
local gpusim = require "gpusim"
dofile("scenes/cube.lua")
local f
for _ = 0, 5 do f = gpusim.render() end
local r, g, b, a = f.target:pixel(100, 255 - 100)
print(string.format('"final": [%d, %d, %d, %d]', r, g, b, a))
LUA
"$g" --headless "$tmp/cube.lua" > "$tmp/want5" || fail "cube script"
grep -qF "$(cat "$tmp/want5")" "$tmp/cube5" || fail "frame 5: want $(cat "$tmp/want5") in $(cat "$tmp/cube5")"
grep -qF "$(cat "$tmp/want5")" "$tmp/cube0" && fail "frame 0 has frame 5's colour: pick another pixel"
grep -q '"frame": 5' "$tmp/cube5" || fail "frame number"
# docs/provenance.md's examples are real output: each '$ gpusim why ...' block
# there is what the command prints now, bus addresses aside.
for cmd in "why scenes/triangle.lua 160 120" "why scenes/triangle.lua 5 5" "why --frame 5 scenes/cube.lua 100 100" \
           "why --json scenes/triangle.lua 160 120"; do
  awk -v c="\$ gpusim $cmd" '$0 == c { on = 1; next } on { print; if ($0 ~ /^(final colour|[{])/) exit }' \
    docs/provenance.md > "$tmp/doc"
  [ -s "$tmp/doc" ] || fail "docs/provenance.md has no example of gpusim $cmd"
  # shellcheck disable=SC2086
  "$g" $cmd > "$tmp/real" || fail "gpusim $cmd"
  # bus addresses move whenever the driver or a helper's programs change size
  for f in doc real; do doc_mask < "$tmp/$f" > "$tmp/$f.masked"; done
  cmp -s "$tmp/doc.masked" "$tmp/real.masked" || fail "docs/provenance.md's gpusim $cmd differs: $(diff "$tmp/doc" "$tmp/real")"
done
# errors
echo 'local x = ' > "$tmp/bad.lua"
"$g" why "$tmp/bad.lua" 1 1 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "bad scene: exit $rc"
grep -q 'bad.lua:2: unexpected symbol' "$tmp/err" || fail "bad scene message: $(cat "$tmp/err")"
"$g" why scenes/triangle.lua 320 0 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "outside pixel: exit $rc"
grep -q 'outside the 320x240 image' "$tmp/err" || fail "outside message: $(cat "$tmp/err")"
"$g" why scenes/triangle.lua 1 > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "missing Y: exit $rc"
"$g" why --frame -1 scenes/triangle.lua 1 1 > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "bad frame: exit $rc"
echo 'print("no frames")' > "$tmp/plain.lua"
"$g" why "$tmp/plain.lua" 1 1 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "no frames: exit $rc"
grep -q 'no frame callback' "$tmp/err" || fail "no frames message: $(cat "$tmp/err")"
"$g" why --help | grep -q '^usage: gpusim why' || fail "help"
exit 0
