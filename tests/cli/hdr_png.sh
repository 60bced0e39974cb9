#!/bin/sh
# hdr_png.sh GPUSIM SOURCE_DIR — a scene rendering into an RGBA16F target
# writes a PNG whose bytes are the halves clamped to 0..1, times 255,
# rounded to nearest: R -1.0 -> 0, G 2.0 -> 255, B 0.25 -> 63.75 -> 64,
# A 0.5 -> 127.5 -> 128 (the whole 8x8 frame is one covered quad); compared
# with `gpusim diff --tolerance 0` against a PNG made by tests/cli/mkpng.lua.
. "$2/tests/cli/lib/common.sh"
cat > "$tmp/hdr.lua" <<'LUA'
local gpusim = require "gpusim"
local shaders = require "vc4_shaders"
local target = gpusim.target {width = 8, height = 8, format = "rgba16f"}
local quad = gpusim.buffer {format = {"f32x4"}, data = {
  {-1, -1, 0, 1}, {1, -1, 0, 1}, {1, 1, 0, 1}, {-1, -1, 0, 1}, {1, 1, 0, 1}, {-1, 1, 0, 1}}}
local shader = gpusim.shader {
  isa = "qpu", coordinate = shaders.coordinate, vertex = shaders.vertex(0),
  fragment = [[
    ldi r0, 0x4000bc00       # RG16F: R -1.0, G 2.0
    ldi r1, 0x38003400       # BA16F: B 0.25, A 0.5
    mov tlb_colour_all, r0
    mov tlb_colour_all, r1
    thrend
    nop
    sbdone
  ]],
  inputs = {{name = "position", components = 4}}, coordinate_inputs = {"position"}, varyings = {},
}
gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 1}}
  frame:draw {mode = "triangles", vertices = quad, shader = shader,
              uniforms = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}}
end, target)
LUA
cd "$src" || exit 1
"$gpusim" --headless -o "$tmp/hdr.png" "$tmp/hdr.lua" > "$tmp/out" 2>&1 || fail "rendering: $(cat "$tmp/out")"
"$gpusim" --headless tests/cli/mkpng.lua "$tmp/want.png" 8 8 "0,0,8,8=0,255,64,128" || fail "mkpng"
"$gpusim" diff --tolerance 0 "$tmp/hdr.png" "$tmp/want.png" > "$tmp/diff" 2>&1 || fail "the PNG differs: $(cat "$tmp/diff")"
exit 0
