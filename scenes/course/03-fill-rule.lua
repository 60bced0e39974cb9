-- 03-fill-rule.lua — lesson 03 of the course (docs/course/03-fill-rule.md):
-- two triangles of one draw that share a vertical edge at x = SPLIT pixels,
-- exactly on the centres of pixel column 160. Which triangle gets those
-- pixels? Ask
--   gpusim why scenes/course/03-fill-rule.lua 160 120
-- The exercise: move the shared edge (SPLIT) as little as possible so that
-- the other triangle gets column 160, then run
--   gpusim --headless scenes/course/03-check.lua
local gpusim = require "gpusim"
local course = dofile((arg[0]:match("^(.*/)") or "./") .. "course.lua")  -- the shared shader

local target = gpusim.target {width = 320, height = 240, format = "rgba8888"}

-- the shared edge's x in pixels from the left; vertices land on a grid of
-- 1/16 pixel (the setup's 12.4 fixed point), so use multiples of 0.0625
local SPLIT = 160.5

-- pixels from the bottom-left corner; triangle 0 (red) on the left,
-- triangle 1 (green) on the right, both counter-clockwise
local function v(x, y, r, g, b) return course.vertex(target, x, y, r, g, b) end
local vertices = gpusim.buffer {
  format = {"f32x4", "f32x3"},
  data = {
    v(60.5, 40, 1, 0, 0),  v(SPLIT, 40, 1, 0, 0),  v(SPLIT, 200, 1, 0, 0),    -- triangle 0
    v(SPLIT, 40, 0, 1, 0), v(260.5, 40, 0, 1, 0),  v(SPLIT, 200, 0, 1, 0),    -- triangle 1
  },
}
local shader = course.shader()

gpusim.frame(function(frame)
  frame:clear {color = {0.1, 0.1, 0.15, 1.0}}
  frame:draw {mode = "triangles", vertices = vertices, shader = shader, uniforms = course.uniforms}
end, target)
