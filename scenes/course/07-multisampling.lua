-- 07-multisampling.lua — lesson 07 of the course (docs/course/07-multisampling.md):
-- a red triangle on black whose right edge is vertical at x = EDGE_X pixels,
-- drawn into a 4x multisampled target (SAMPLES = 4; a first argument on the
-- command line overrides it: ... 07-multisampling.lua 1).
--   gpusim why scenes/course/07-multisampling.lua 64 64
-- The exercise: move the edge (EDGE_X) so that pixel column 64 shows three
-- quarters of the red, then run
--   gpusim --headless scenes/course/07-check.lua
local gpusim = require "gpusim"
local course = dofile((arg[0]:match("^(.*/)") or "./") .. "course.lua")  -- the shared shader

local SAMPLES = tonumber((...)) or 4
local EDGE_X = 64.5   -- pixels from the left: through the centres of column 64

local target = gpusim.target {width = 128, height = 128, format = "rgba8888", samples = SAMPLES}

-- pixels from the bottom-left corner: a tall triangle left of the edge
local function v(x, y) return course.vertex(target, x, y, 1, 0, 0) end
local vertices = gpusim.buffer {format = {"f32x4", "f32x3"},
  data = {v(8, 8), v(EDGE_X, 8), v(EDGE_X, 120)}}
local shader = course.shader()

gpusim.frame(function(frame)
  frame:clear {color = {0, 0, 0, 1}}
  frame:draw {mode = "triangles", vertices = vertices, shader = shader, uniforms = course.uniforms}
end, target)
