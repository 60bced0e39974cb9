-- 05-depth.lua — lesson 05 of the course (docs/course/05-depth.md): a near
-- green triangle (Z = 0.25 in the depth buffer) drawn first and a far red
-- one (Z = 0.75) drawn second, overlapping, with the depth test "less".
--   gpusim why scenes/course/05-depth.lua 50 82      (where they overlap)
-- The exercise: change only DEPTH_CLEAR, the value the depth buffer starts
-- from, so that the far triangle disappears everywhere and the near one
-- stays, then run
--   gpusim --headless scenes/course/05-check.lua
local gpusim = require "gpusim"
local course = dofile((arg[0]:match("^(.*/)") or "./") .. "course.lua")  -- the shared shader

local DEPTH_CLEAR = 1.0    -- 0..1, stored as a 24-bit Z
local DEPTH_FUNC = "less"  -- a fragment passes when its Z is less than the buffer's

local target = gpusim.target {width = 128, height = 128, format = "rgba8888", depth = true}

-- pixels from the bottom-left corner, a colour, and clip-space z (W = 1):
-- the viewport maps z -0.5 to depth 0.25 and z 0.5 to 0.75 (Z = 0.5 z + 0.5)
local function v(x, y, z, r, g, b)
  local p = course.vertex(target, x, y, r, g, b)
  p[3] = z
  return p
end
local near = gpusim.buffer {format = {"f32x4", "f32x3"},
  data = {v(10, 10, -0.5, 0, 1, 0), v(90, 10, -0.5, 0, 1, 0), v(10, 90, -0.5, 0, 1, 0)}}
local far = gpusim.buffer {format = {"f32x4", "f32x3"},
  data = {v(38, 38, 0.5, 1, 0, 0), v(118, 38, 0.5, 1, 0, 0), v(118, 118, 0.5, 1, 0, 0)}}
local shader = course.shader {depth = true}   -- the program writes Z: that runs the test

gpusim.frame(function(frame)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}, depth = DEPTH_CLEAR}
  frame:state {depth_test = DEPTH_FUNC}
  frame:draw {mode = "triangles", vertices = near, shader = shader, uniforms = course.uniforms}
  frame:draw {mode = "triangles", vertices = far, shader = shader, uniforms = course.uniforms}
end, target)
