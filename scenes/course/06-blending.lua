-- 06-blending.lua — lesson 06 of the course (docs/course/06-blending.md): a
-- red and a green triangle, overlapping, drawn with the blend state BLEND
-- over a black frame. The VideoCore IV has no blending unit: the driver
-- links blend code into the fragment program. See the linked program with
--   gpusim --headless scenes/course/06-blending.lua code
-- The exercise: change BLEND so that each triangle alone shows half its
-- colour and the overlap half red plus half green, then run
--   gpusim --headless scenes/course/06-check.lua
local gpusim = require "gpusim"
local course = dofile((arg[0]:match("^(.*/)") or "./") .. "course.lua")  -- the shared shader

-- a blend state as frame:state takes it (docs/blending.md): a preset name
-- or {equation =, src =, dst =, color = {r, g, b, a}, ...}
local BLEND = "add"    -- src "one", dst "one": the sum, saturated

local target = gpusim.target {width = 128, height = 128, format = "rgba8888"}

-- pixels from the bottom-left corner; triangle 0 red, triangle 1 green
local function v(x, y, r, g, b) return course.vertex(target, x, y, r, g, b) end
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {
    v(8, 8, 1, 0, 0),   v(88, 8, 1, 0, 0),   v(8, 88, 1, 0, 0),
    v(40, 40, 0, 1, 0), v(120, 40, 0, 1, 0), v(120, 120, 0, 1, 0),
  },
}
local shader = course.shader()

if ... == "code" then   -- print the fragment program as the driver links it for BLEND
  io.write(shader:variant {blend = BLEND})
  return
end

gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 1}}
  frame:state {blend = BLEND}
  frame:draw {mode = "triangles", vertices = vertices, shader = shader, uniforms = course.uniforms}
end, target)
