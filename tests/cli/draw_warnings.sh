#!/bin/sh
# draw_warnings.sh GPUSIM SOURCE_DIR — a draw whose vertices make no
# primitive (two vertices of triangles, one of lines, ...) draws nothing
# and prints a warning naming its file:line, once per place however many
# frames draw it; the script still succeeds. A draw of the fewest vertices
# a primitive of its mode takes, and a draw of count = 0 (nothing asked
# for), print nothing. Counts below each mode's smallest primitive: points
# 1, lines and line strips and loops 2, triangles, strips and fans 3.
. "$2/tests/cli/lib/common.sh"
cd "$tmp" || exit 1
cat > s.lua <<'LUA'
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"
local vb = gpusim.buffer {format = "f32x4", data = {{-1, -1, 0, 1}, {1, -1, 0, 1}, {0, 1, 0, 1}}}
local ib = gpusim.buffer {format = "u8", data = {0, 1, 2}}
local sh = gpusim.shader {isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0),
  fragment = "    mov tlb_colour_all, unif\n    thrend\n    nop\n    sbdone\n",
  inputs = {{name = "position", components = 4}}, varyings = {}}
local U = {vertex = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"},
           fragment = {{u32 = 0xff0000ff}}}
gpusim.frame(function(frame)
  frame:draw {vertices = vb, shader = sh, mode = "triangles", count = 2, uniforms = U}  -- W triangles 2
  frame:draw {vertices = vb, indices = ib, shader = sh, count = 2, uniforms = U}  -- W triangles 2
  frame:draw {vertices = vb, shader = sh, mode = "strip", count = 2, uniforms = U}  -- W triangle_strip 2
  frame:draw {vertices = vb, shader = sh, mode = "fan", count = 1, uniforms = U}  -- W triangle_fan 1
  frame:draw {vertices = vb, shader = sh, mode = "lines", count = 1, uniforms = U}  -- W lines 1
  frame:draw {vertices = vb, shader = sh, mode = "line_strip", count = 1, uniforms = U}  -- W line_strip 1
  frame:draw {vertices = vb, shader = sh, mode = "line_loop", count = 1, uniforms = U}  -- W line_loop 1
  frame:draw {vertices = vb, shader = sh, mode = "triangles", count = 3, uniforms = U}
  frame:draw {vertices = vb, shader = sh, mode = "strip", count = 3, uniforms = U}
  frame:draw {vertices = vb, shader = sh, mode = "fan", count = 3, uniforms = U}
  frame:draw {vertices = vb, shader = sh, mode = "lines", count = 2, uniforms = U}
  frame:draw {vertices = vb, shader = sh, mode = "line_strip", count = 2, uniforms = U}
  frame:draw {vertices = vb, shader = sh, mode = "line_loop", count = 2, uniforms = U}
  frame:draw {vertices = vb, shader = sh, mode = "points", count = 1, uniforms = U}
  frame:draw {vertices = vb, shader = sh, mode = "triangles", count = 0, uniforms = U}
  frame:draw {vertices = vb, shader = sh, mode = "points", count = 0, uniforms = U}
end)
LUA
"$gpusim" --headless --frames 3 -o out.png s.lua > out 2> err || fail "status $?: $(cat err)"
# the expected lines, from the script's W comments
grep -n -- '-- W ' s.lua | while IFS=: read -r line rest; do
  set -- $(echo "$rest" | sed 's/.*-- W //')
  least=3
  case $1 in lines|line_strip|line_loop) least=2 ;; esac
  if [ "$2" = 1 ]; then v=vertex; m=makes; else v=vertices; m=make; fi
  case $1 in
    triangles) p="a triangle" ;; triangle_strip) p="a triangle strip" ;; triangle_fan) p="a triangle fan" ;;
    lines) p="a line" ;; line_strip) p="a line strip" ;; line_loop) p="a line loop" ;;
  esac
  echo "gpusim: warning: s.lua:$line: frame:draw: $2 $v of $1 $m no primitive ($p takes $least); the draw draws nothing"
done > want
[ "$(wc -l < want)" -eq 7 ] || fail "expected 7 warnings in the script: $(cat want)"
diff want err > d || fail "the warnings differ from the expected ones (once each, in order):
$(cat d)"
echo "draw_warnings: ok"
