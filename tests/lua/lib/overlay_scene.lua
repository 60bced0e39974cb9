-- overlay_scene.lua — the inspector tests' scene (tests/lua/overlay_counts.lua,
-- tests/cli/inspector.sh, which runs it as a scene): a 128x64 frame, two
-- 64x64 tiles, three draws; image coordinates (x right, y down):
--   D1  rectangle A, x 0..48, y 8..40, two triangles, red, QPU fragment program
--   D2  rectangle B, x 32..96, y 24..56, two triangles, green, SASS fragment program
--   D3  triangle C (100, 10), (120.5, 10), (100, 30.5), blue, QPU
-- The helpers come from the program's own lua/ (gpusim finds them beside itself).
local gpusim = require "gpusim"
local vc4 = require "vc4_shaders"
local sass = require "sass_shaders"

local target = gpusim.target {width = 128, height = 64, format = "rgba8888"}
-- the colour varying, perspective-correct, packed into the tile buffer's word
local qpu_fs = vc4.colour3
local inputs = {{name = "position", components = 4}, {name = "color", components = 3}}
local varyings = {{name = "color", components = 3, interpolation = "perspective"}}
local qpu = gpusim.shader {coordinate = vc4.coordinate, vertex = vc4.vertex(3), fragment = qpu_fs, inputs = inputs,
                           coordinate_inputs = {"position"}, varyings = varyings}
local nv = gpusim.shader {vertex = {isa = "sass", source = sass.vertex(3)},
                          fragment = {isa = "sass", source = sass.colour("perspective")}, inputs = inputs,
                          varyings = varyings}
local function v(x, y, c) return {x / 64 - 1, 1 - y / 32, 0, 1, c[1], c[2], c[3]} end
local function buf(list) return gpusim.buffer {format = {"f32x4", "f32x3"}, data = list} end
local function rect(x0, y0, x1, y1, c)
  return buf {v(x0, y0, c), v(x1, y0, c), v(x1, y1, c), v(x0, y0, c), v(x1, y1, c), v(x0, y1, c)}
end
local A = rect(0, 8, 48, 40, {1, 0, 0})
local B = rect(32, 24, 96, 56, {0, 1, 0})
local C = buf {v(100, 10, {0, 0, 1}), v(120.5, 10, {0, 0, 1}), v(100, 30.5, {0, 0, 1})}
local U = {"viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"}

gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 1}}
  frame:draw {mode = "triangles", vertices = A, shader = qpu, uniforms = U}
  frame:draw {mode = "triangles", vertices = B, shader = nv, uniforms = U}
  frame:draw {mode = "triangles", vertices = C, shader = qpu, uniforms = U}
end, target)
